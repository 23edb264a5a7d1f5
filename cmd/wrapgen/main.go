// Command wrapgen plans the memory of a model's graph and generates wrapper
// code that runs it from pooled buffers. See README.md.
package main

import (
	"fmt"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "wrapgen:", err)
		os.Exit(exitCode(err))
	}
}

// Command synthgraph writes a synthetic graph (internal/synth) to stdout, for
// scripts that measure what wrapgen's output costs on a graph of a given
// size: synthgraph transformer 2000 > t2000.json
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/wrapgen/wrapgen/internal/synth"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: synthgraph transformer|cnn OPS")
		os.Exit(2)
	}
	ops, err := strconv.Atoi(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "synthgraph:", err)
		os.Exit(2)
	}
	data, err := synth.Graph(synth.Kind(os.Args[1]), ops)
	if err != nil {
		fmt.Fprintln(os.Stderr, "synthgraph:", err)
		os.Exit(1)
	}
	os.Stdout.Write(data)
}

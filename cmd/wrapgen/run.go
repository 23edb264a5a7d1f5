package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// command is one wrapgen subcommand.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"plan", "plan a graph's memory and report it", runPlan},
		{"gen", "generate a Go or C++ wrapper (and its runtime) for a graph", runGen},
		{"selftest", "build and run the wrapper with sentinel kernels that detect memory corruption", runSelftest},
		{"bench", "compare strategies: peak over lower bound, pools, planning time", runBench},
		{"import", "convert an ONNX model to a format-v1 graph (and its weights)", runImport},
	}
}

// usageError is a mistake in how wrapgen was called (exit status 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func exitCode(err error) int {
	var u *usageError
	if errors.As(err, &u) {
		return 2
	}
	return 1
}

// run is the whole CLI, testable in-process.
func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
		printUsage(stdout)
		if len(args) == 0 {
			return &usageError{"no command given"}
		}
		return nil
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(args[1:], stdout, stderr)
		}
	}
	return &usageError{fmt.Sprintf("unknown command %q (run 'wrapgen help')", args[0])}
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: wrapgen <command> [flags] GRAPH.json")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'wrapgen <command> -h' for a command's flags.")
}

// newFlagSet makes a flag set that reports errors as usage errors instead
// of exiting, so run stays testable.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("wrapgen "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parseFlags sets the usage text and parses args. help is true when the
// user asked for -h (the usage was printed; the command should stop).
func parseFlags(fs *flag.FlagSet, usage string, args []string) (help bool, err error) {
	out := fs.Output()
	fs.Usage = func() {
		fmt.Fprintln(out, "usage: "+usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return true, nil
		}
		return false, &usageError{err.Error()}
	}
	return false, nil
}

// symbolValues is a repeatable name=value flag.
type symbolValues map[string]int64

func (s symbolValues) String() string {
	var parts []string
	for k, v := range s {
		parts = append(parts, fmt.Sprintf("%s=%d", k, v))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

func (s symbolValues) Set(v string) error {
	for _, part := range strings.Split(v, ",") {
		name, val, ok := strings.Cut(part, "=")
		if !ok || name == "" {
			return fmt.Errorf("want name=value, got %q", part)
		}
		var n int64
		if _, err := fmt.Sscan(val, &n); err != nil {
			return fmt.Errorf("value of %s: %q is not an integer", name, val)
		}
		s[name] = n
	}
	return nil
}

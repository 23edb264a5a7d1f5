package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
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
		{"run", "run a model in process with the reference kernels (inputs from .npy/.pb or random)", runRun},
	}
}

// run is the whole CLI, testable in-process.
func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		printUsage(stderr)
		return &usageError{"no command given"}
	}
	switch args[0] {
	case "-h", "-help", "--help":
		printUsage(stdout)
		return nil
	case "help":
		return runHelp(args[1:], stdout)
	case "version", "-version", "--version":
		return runVersion(args[1:], stdout)
	}
	if c := findCommand(args[0]); c != nil {
		return c.run(args[1:], stdout, stderr)
	}
	return &usageError{fmt.Sprintf("unknown command %q (run 'wrapgen help')", args[0])}
}

func findCommand(name string) *command {
	for _, c := range commands() {
		if c.name == name {
			return &c
		}
	}
	return nil
}

// runHelp prints the general usage, or one command's usage and flags.
func runHelp(args []string, stdout io.Writer) error {
	switch {
	case len(args) == 0:
		printUsage(stdout)
		return nil
	case len(args) > 1:
		return &usageError{fmt.Sprintf("help takes one command name, got %d arguments", len(args))}
	case args[0] == "exit":
		fmt.Fprintln(stdout, exitCodesHelp)
		return nil
	case args[0] == "version":
		fmt.Fprintln(stdout, "usage: wrapgen version\n\nPrints wrapgen's module version and the VCS revision it was built from.")
		return nil
	}
	c := findCommand(args[0])
	if c == nil {
		return &usageError{fmt.Sprintf("help: unknown command %q (run 'wrapgen help')", args[0])}
	}
	// A command given -h prints its usage and flags to its error writer.
	return c.run([]string{"-h"}, stdout, stdout)
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: wrapgen <command> [flags] GRAPH.json [flags]")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "  %-9s %s\n", "version", "print the module version and VCS revision")
	fmt.Fprintln(w, "\nRun 'wrapgen help <command>' for a command's flags, 'wrapgen help exit' for exit statuses.")
}

// newFlagSet makes a flag set that reports errors as usage errors instead
// of exiting, so run stays testable. Mistakes print the usage to stderr;
// -h prints it to stdout, as 'wrapgen help CMD' does.
func newFlagSet(name string, stdout, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("wrapgen "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	helpWriters.Store(fs, stdout)
	return fs
}

// helpWriters holds each flag set's stdout, where -h prints the usage.
var helpWriters sync.Map

// parseFlags sets the usage text and parses args, flags before or after
// the file names ("--" ends the flags). help is true when the user asked for
// -h (the usage was printed; the command should stop). Afterwards
// fs.Args() holds the file names.
func parseFlags(fs *flag.FlagSet, usage string, args []string) (help bool, err error) {
	stderr := fs.Output()
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: "+usage)
		fs.PrintDefaults()
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "-help" || a == "--help" || a == "--h" {
			if w, ok := helpWriters.Load(fs); ok {
				fs.SetOutput(w.(io.Writer))
				fs.Usage()
				fs.SetOutput(stderr)
				return true, nil
			}
		}
	}
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return true, nil
			}
			return false, &usageError{err.Error()}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if stop := len(args) - len(rest); stop > 0 && args[stop-1] == "--" {
			files = append(files, rest...)
			break
		}
		files = append(files, rest[0])
		args = rest[1:]
	}
	// Parsing "--" alone leaves every flag as set and the files as fs.Args().
	return false, fs.Parse(append([]string{"--"}, files...))
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

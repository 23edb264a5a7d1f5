package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
)

// runVersion prints the module version and the VCS revision from the
// binary's build info: "(devel)" for a build from a checkout, a tag such as
// v0.3.0 when installed with go install or go get -tool.
func runVersion(args []string, stdout io.Writer) error {
	if len(args) > 0 {
		return &usageError{fmt.Sprintf("version takes no arguments, got %d", len(args))}
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		fmt.Fprintln(stdout, "wrapgen (no build information in this binary)")
	} else {
		fmt.Fprintln(stdout, versionLine(info))
	}
	// What `run` computes with here, for benchmark reports.
	fmt.Fprintf(stdout, "reference kernels: %s GEMM micro-kernel on this CPU\n", wgref.KernelPath())
	return nil
}

// versionLine describes a build: module version, then the revision, its
// time and whether the tree had uncommitted changes, when Go recorded them.
func versionLine(info *debug.BuildInfo) string {
	version := info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	line := "wrapgen " + version
	var rev, at, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return line + " (no VCS revision recorded; built with -buildvcs=false or outside a repository)"
	}
	line += " revision " + rev
	if at != "" {
		line += " " + at
	}
	if modified == "true" {
		line += " (modified)"
	}
	return line + " " + info.GoVersion
}

package main

import (
	"errors"

	"github.com/wrapgen/wrapgen/graph"
)

// Exit statuses, documented in README.md ("Exit status") and by
// 'wrapgen help exit'. Scripts tell "fix the input" from "the check caught
// something" from "the negative control had nothing to break".
const (
	exitOK            = 0
	exitFailure       = 1 // anything else: I/O, a compiler missing, a build that failed
	exitUsage         = 2 // the command line is wrong: unknown command or flag, bad flag value
	exitBadInput      = 3 // the graph file is rejected: every problem is printed with its place
	exitCheckFailed   = 4 // selftest caught corruption, or gen -check found stale files
	exitNothingInject = 5 // selftest -fault found nothing to break in this plan
)

const exitCodesHelp = `Exit status:
  0  success
  1  any other failure (I/O, no compiler, a build of generated code failed)
  2  usage: unknown command or flag, bad flag value, wrong number of files
  3  bad input: the graph file was rejected (each problem printed with its place)
  4  check failed: selftest caught corrupted memory, or gen -check found stale files
  5  nothing to inject: selftest -fault found no two live storages to overlap`

// usageError is a mistake in how wrapgen was called.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// checkFailed is a check that ran and found a problem: a selftest caught
// corruption, or gen -check found files that are out of date.
type checkFailed struct{ msg string }

func (e *checkFailed) Error() string { return e.msg }

func exitCode(err error) int {
	var u *usageError
	var c *checkFailed
	var bad graph.ErrorList
	var problem *graph.Problem
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &u):
		return exitUsage
	case errors.As(err, &bad), errors.As(err, &problem):
		return exitBadInput
	case errors.As(err, &c):
		return exitCheckFailed
	case errors.Is(err, errNothingToInject):
		return exitNothingInject
	}
	return exitFailure
}

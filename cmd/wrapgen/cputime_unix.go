//go:build unix

package main

import (
	"syscall"
	"time"
)

// processCPUTime is the CPU time (user and system) the process has used so
// far, on every thread: what a call costs the machine, which wall time on a
// loaded machine does not say.
func processCPUTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

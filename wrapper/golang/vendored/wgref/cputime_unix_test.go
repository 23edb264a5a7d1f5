//go:build unix

package wgref

import (
	"syscall"
	"time"
)

// processCPU is the process's CPU time so far (user and system), which a
// shared machine inflates less than wall time.
func processCPU() time.Duration {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

package experiments

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user and system) the process has used
// so far, from getrusage(2): the ETA's measure of work
// (progress.RunOptions.CPU). Nil where it cannot be read.
func processCPU() func() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return nil
	}
	return func() time.Duration {
		var ru syscall.Rusage
		if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
			return 0
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
}

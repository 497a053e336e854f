package cputime

import "syscall"

// Thread returns the CPU time the calling OS thread has used; ok is false
// where it cannot be read. Lock the goroutine to its thread
// (runtime.LockOSThread) between two readings, or their difference is
// some other goroutine's time.
func Thread() (seconds float64, ok bool) { return rusage(syscall.RUSAGE_THREAD) }

// Process returns the CPU time the process has used, all its threads
// together; ok is false where it cannot be read.
func Process() (seconds float64, ok bool) { return rusage(syscall.RUSAGE_SELF) }

func rusage(who int) (float64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0, false
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)*1e-6 }
	return tv(ru.Utime) + tv(ru.Stime), true
}

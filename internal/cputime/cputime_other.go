//go:build !linux

package cputime

// Thread returns the CPU time the calling OS thread has used; ok is false
// where it cannot be read, as on this system (per-thread rusage is
// Linux's).
func Thread() (seconds float64, ok bool) { return 0, false }

// Process returns the CPU time the process has used; ok is false where it
// cannot be read, as on this system.
func Process() (seconds float64, ok bool) { return 0, false }

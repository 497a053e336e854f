// Package cputime reads the CPU time (user plus system) of the calling OS
// thread and of the process, for the harness's cost records.
//
// # Conventions
//
// Times are in seconds. A goroutine's work lands on the thread it runs on,
// and the Go scheduler moves goroutines between threads: a thread's time
// measures one goroutine only while it holds runtime.LockOSThread, and
// even then leaves out the goroutines it starts (linalg.Parallel's
// helpers) and the runtime's own threads (background garbage collection).
// The process's time counts all of them, and measures one task only while
// nothing else runs.
//
// # References
//
// getrusage(2), RUSAGE_THREAD (Linux ≥ 2.6.26) and RUSAGE_SELF.
package cputime

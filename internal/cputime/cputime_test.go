package cputime

import (
	"runtime"
	"testing"
)

// spin does about n multiply-adds, CPU work the compiler cannot drop.
func spin(n int) float64 {
	x := 1.0
	for i := range n {
		x = x*1.0000001 + float64(i&1)
	}
	return x
}

// TestThreadCountsOwnWorkOnly checks that a locked thread's time grows with
// its own work and not with another goroutine's: the thread spins while a
// second goroutine spins as long on another thread, and the thread's
// delta stays below the process's, which counts both.
func TestThreadCountsOwnWorkOnly(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("per-thread CPU time is read on Linux only")
	}
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs GOMAXPROCS ≥ 2 for the other goroutine to run beside")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const n = 50_000_000 // about 0.2 s on one core
	t0, ok := Thread()
	p0, ok2 := Process()
	if !ok || !ok2 {
		t.Fatal("getrusage failed")
	}
	done := make(chan float64)
	go func() { done <- spin(n) }()
	sink := spin(n)
	sink += <-done
	t1, _ := Thread()
	p1, _ := Process()
	own, all := t1-t0, p1-p0
	if own <= 0.01 {
		t.Errorf("thread time %.3f s for the spin, want > 0.01 s", own)
	}
	// The process counts both spins: well above the thread's one.
	if all < 1.5*own {
		t.Errorf("process time %.3f s, thread %.3f s: want the process ≥ 1.5 × the thread (two spins against one)", all, own)
	}
	if sink == 0 {
		t.Log(sink)
	}
}

package cli

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mkpoe/mkpoe/pkg/results"
)

// TestRunKilledAndResumed kills a real "mkpoe run" process (SIGKILL) once
// its first task results are on disk, reruns the same command, and checks
// that the summary is byte-identical to an uninterrupted run's.
func TestRunKilledAndResumed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := buildMkpoe(t, dir)
	cfg := filepath.Join(dir, "tiny.yaml")
	// A slower variant of tinyConfig: more β values and full metrics.
	text := strings.Replace(tinyConfig, "beta_grid: [1, 10]", "beta_grid: [1, 10, 100, 1000]", 1)
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join(dir, "ref")
	if out, err := exec.Command(bin, "run", cfg, "--out", ref, "--no-report", "--workers", "2").CombinedOutput(); err != nil {
		t.Fatalf("reference run: %v\n%s", err, out)
	}
	run := filepath.Join(dir, "killed")
	cmd := exec.Command(bin, "run", cfg, "--out", run, "--no-report", "--workers", "1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killedMidway := false
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		entries, _ := os.ReadDir(filepath.Join(run, "tasks"))
		if len(entries) >= 2 {
			_, err := os.Stat(filepath.Join(run, "summary.json"))
			killedMidway = os.IsNotExist(err)
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	entries, _ := os.ReadDir(filepath.Join(run, "tasks"))
	t.Logf("killed with %d task files on disk (mid-way: %v)", len(entries), killedMidway)
	if !killedMidway {
		t.Log("the run finished before the kill; the resume check below is then trivial")
	}
	out, err := exec.Command(bin, "run", cfg, "--out", run, "--no-report", "--workers", "2").CombinedOutput()
	if err != nil {
		t.Fatalf("resumed run: %v\n%s", err, out)
	}
	want, _ := os.ReadFile(filepath.Join(ref, "summary.json"))
	got, _ := os.ReadFile(filepath.Join(run, "summary.json"))
	if len(want) == 0 || !bytes.Equal(got, want) {
		t.Errorf("summary after kill and resume differs from the uninterrupted run:\n%s\n---\n%s", got, want)
	}
}

// TestRunInterruptedBySignal sends SIGINT (Ctrl-C) to a real "mkpoe run"
// once its first task file is on disk: cmd/mkpoe cancels the context, the
// running fit stops, and the process exits 130 at once with the
// interrupted message, keeping the finished task.
func TestRunInterruptedBySignal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := buildMkpoe(t, dir)
	cfg := filepath.Join(dir, "slow.yaml")
	if err := os.WriteFile(cfg, []byte(slowConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(dir, "run")
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "run", cfg, "--out", run, "--no-report", "--workers", "1")
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var signalled time.Time
	deadline := time.Now().Add(60 * time.Second)
	for signalled.IsZero() && time.Now().Before(deadline) {
		if files, _ := filepath.Glob(filepath.Join(run, "tasks", "*.json")); len(files) > 0 {
			if err := cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			signalled = time.Now()
		}
		time.Sleep(time.Millisecond)
	}
	if signalled.IsZero() {
		cmd.Process.Kill()
		t.Fatal("no task file after 60 s")
	}
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("mkpoe run did not exit within 30 s of SIGINT")
	}
	took := time.Since(signalled)
	if code := cmd.ProcessState.ExitCode(); code != ExitInterrupted {
		t.Errorf("exit status %d, want %d\n%s", code, ExitInterrupted, stderr.String())
	}
	if !strings.Contains(stderr.String(), "mkpoe run: interrupted; ") || !strings.Contains(stderr.String(), "rerun the same command to resume") {
		t.Errorf("stderr lacks the interrupted message:\n%s", stderr.String())
	}
	if took > 5*time.Second {
		t.Errorf("exited %v after SIGINT; want at once", took)
	}
	if files, _ := filepath.Glob(filepath.Join(run, "tasks", "*.json")); len(files) == 0 {
		t.Error("the finished task file is gone")
	}
}

// TestKilledAtRandomPoints kills (SIGKILL) "mkpoe run", "mkpoe merge" and
// "mkpoe report" at seeded random moments, then reruns the same command:
// every result file left behind must decode, and the final summary and
// report table must equal an uninterrupted run's. Nothing finished is lost
// and nothing half-written is used.
func TestKilledAtRandomPoints(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs 30 killed processes")
	}
	dir := t.TempDir()
	bin := buildMkpoe(t, dir)
	cfg := filepath.Join(dir, "tiny.yaml")
	if err := os.WriteFile(cfg, []byte(tinyConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join(dir, "ref")
	start := time.Now()
	if out, err := exec.Command(bin, "run", cfg, "--out", ref, "--workers", "2").CombinedOutput(); err != nil {
		t.Fatalf("reference run: %v\n%s", err, out)
	}
	full := time.Since(start)
	wantSummary := readFile(t, filepath.Join(ref, "summary.json"))
	wantTable := readFile(t, filepath.Join(ref, "report", "table.md"))
	rng := rand.New(rand.NewPCG(2026, 11))
	// killAfter starts args and kills the process after a random fraction of
	// the reference run's time (it may finish first).
	killAfter := func(args ...string) {
		cmd := exec.Command(bin, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.Float64() * float64(full)))
		cmd.Process.Kill()
		cmd.Wait()
	}
	checkFiles := func(run string) {
		entries, _ := os.ReadDir(filepath.Join(run, "tasks"))
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				continue // a temporary file of an interrupted write: never read
			}
			p := filepath.Join(run, "tasks", e.Name())
			if _, err := results.DecodeTaskResult(readFile(t, p), p); err != nil {
				t.Errorf("a killed run left a broken task file: %v", err)
			}
		}
	}
	for seed := 0; seed < 10; seed++ {
		run := filepath.Join(dir, fmt.Sprintf("run%02d", seed))
		// Killed during run, maybe twice, then finished.
		killAfter("run", cfg, "--out", run, "--workers", "2")
		checkFiles(run)
		killAfter("run", cfg, "--out", run, "--workers", "2")
		checkFiles(run)
		if out, err := exec.Command(bin, "run", cfg, "--out", run, "--workers", "2").CombinedOutput(); err != nil {
			t.Fatalf("seed %d: resumed run: %v\n%s", seed, err, out)
		}
		// Killed during merge and report, then rerun.
		killAfter("merge", run)
		killAfter("report", run)
		if out, err := exec.Command(bin, "merge", run).CombinedOutput(); err != nil {
			t.Fatalf("seed %d: merge: %v\n%s", seed, err, out)
		}
		if out, err := exec.Command(bin, "report", run).CombinedOutput(); err != nil {
			t.Fatalf("seed %d: report: %v\n%s", seed, err, out)
		}
		if got := readFile(t, filepath.Join(run, "summary.json")); !bytes.Equal(got, wantSummary) {
			t.Errorf("seed %d: summary differs from the uninterrupted run's", seed)
		}
		if got := readFile(t, filepath.Join(run, "report", "table.md")); !bytes.Equal(got, wantTable) {
			t.Errorf("seed %d: report table differs from the uninterrupted run's", seed)
		}
	}
}

// buildMkpoe builds cmd/mkpoe into dir and returns the binary's path.
func buildMkpoe(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "mkpoe")
	if out, err := exec.Command("go", "build", "-o", bin, "../..").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

package experiments

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunKilledAndResumed kills a real "mkpoe run" process (SIGKILL) once
// its first task results are on disk, reruns the same command, and checks
// that the summary is byte-identical to an uninterrupted run's.
func TestRunKilledAndResumed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "mkpoe")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/mkpoe").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
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

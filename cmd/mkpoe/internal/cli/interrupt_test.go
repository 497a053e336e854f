package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mkpoe/mkpoe/experiments"

	"github.com/mkpoe/mkpoe/internal/errkind"
	"github.com/mkpoe/mkpoe/pkg/results"

	"github.com/mkpoe/mkpoe/pkg/mkpoe"
)

// slowConfig takes about a second on one worker: full-rank RBF kernels,
// 1500 training comparisons and a tight tolerance make each cv task's fits
// last long enough to be cancelled mid-way.
const slowConfig = `
name: slow
seed: 3
dataset:
  type: synthetic
  synthetic:
    branching: [2, 2]
    per_class: 15
    views:
      - {name: good, dim: 3, noise: 0.5}
      - {name: junk, random: true}
kernels:
  - {name: good, source: good, type: rbf, params: {bandwidth: 0}}
  - {name: junk, source: junk, type: rbf, params: {bandwidth: 0}}
groups:
  - {name: both, kernels: [good, junk]}
protocol: {splits: 1, test_fraction: 0.25, inner_folds: 3, max_train_comparisons: 1500, max_test_comparisons: 100}
beta_grid: [1, 10, 100, 1000]
solver: {tol: 0.0001}
rows:
  - {method: native, kernel: good}
  - {method: k4, group: both, mode: full}
`

// taskFiles returns the task result files of a run directory by name, and
// the names of any other files (temporary files left behind) in tasks/ and
// models/.
func taskFiles(t *testing.T, dir string) (map[string][]byte, []string) {
	t.Helper()
	files := map[string][]byte{}
	var stray []string
	for _, sub := range []string{"tasks", "models"} {
		entries, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			switch {
			case strings.HasPrefix(e.Name(), "."):
				stray = append(stray, filepath.Join(sub, e.Name()))
			case sub == "tasks":
				files[e.Name()] = readFile(t, filepath.Join(dir, sub, e.Name()))
			}
		}
	}
	return files, stray
}

// withoutSeconds decodes a task file and clears what it measured of time.
func withoutSeconds(t *testing.T, b []byte) results.TaskResult {
	t.Helper()
	var r results.TaskResult
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("task file does not parse: %v\n%s", err, b)
	}
	// What a task measured of time may differ between two runs of it:
	// wall and CPU times, the stages' CPU times and their clock (which
	// depends on the workers); the stages' iterations stay.
	r.Seconds, r.CPUSeconds, r.ProcessCPUSeconds, r.StageClock = 0, nil, nil, ""
	for i := range r.Stages {
		r.Stages[i].CPUSeconds = 0
	}
	return r
}

// TestRunCancelledAndResumed cancels the context of "mkpoe run" (what
// Ctrl-C does in cmd/mkpoe) once the first task file is on disk, and
// checks: Main returns at once with the interrupted status and message,
// the finished task files are intact and nothing half-done is recorded,
// and rerunning the same command completes with a summary byte-identical
// to an uninterrupted run's.
func TestRunCancelledAndResumed(t *testing.T) {
	cfg := writeFile(t, t.TempDir(), "slow.yaml", slowConfig)
	ref := filepath.Join(t.TempDir(), "ref")
	if code, _, errs := run("run", cfg, "--out", ref, "--no-report", "--workers", "2"); code != ExitOK {
		t.Fatalf("reference run: exit %d\n%s", code, errs)
	}
	refTasks, _ := taskFiles(t, ref)

	for _, test := range []struct {
		name    string
		workers int
	}{
		{"one worker", 1},
		{"two workers", 2}, // two fits cancelled at once
	} {
		t.Run(test.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			type result struct {
				code           int
				stdout, stderr string
				at             time.Time
			}
			done := make(chan result, 1)
			go func() {
				var out, errb bytes.Buffer
				code := Main(ctx, []string{"run", cfg, "--out", dir, "--no-report", "--workers", strconv.Itoa(test.workers)}, &out, &errb)
				done <- result{code, out.String(), errb.String(), time.Now()}
			}()
			var cancelledAt time.Time
			var r result
			deadline := time.Now().Add(60 * time.Second)
			for cancelledAt.IsZero() {
				select {
				case r = <-done:
					t.Fatalf("the run ended (exit %d) before its first task file appeared or could be cancelled:\n%s", r.code, r.stderr)
				default:
				}
				if time.Now().After(deadline) {
					t.Fatal("no task file after 60 s")
				}
				if files, _ := filepath.Glob(filepath.Join(dir, "tasks", "*.json")); len(files) > 0 {
					cancel()
					cancelledAt = time.Now()
					break
				}
				time.Sleep(time.Millisecond)
			}
			select {
			case r = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("Main did not return within 30 s of the cancellation")
			}
			if took := r.at.Sub(cancelledAt); took > 3*time.Second {
				t.Errorf("Main returned %v after the cancellation; want well under 3 s (fits stop within an iteration)", took)
			}
			kept, stray := taskFiles(t, dir)
			c, err := experiments.LoadConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			total := len(experiments.Plan(c))
			t.Logf("cancelled with %d of %d task files on disk, returned after %v", len(kept), total, r.at.Sub(cancelledAt))
			if r.code != ExitInterrupted {
				t.Errorf("exit %d, want %d (interrupted)\n%s", r.code, ExitInterrupted, r.stderr)
			}
			wantMsg := fmt.Sprintf("mkpoe run: interrupted; %d of %d tasks finished and kept in %s; rerun the same command to resume\n", len(kept), total, dir)
			if !strings.Contains(r.stderr, wantMsg) {
				t.Errorf("stderr lacks %q:\n%s", wantMsg, r.stderr)
			}
			if len(kept) == 0 || len(kept) >= total {
				t.Fatalf("%d of %d task files after the cancellation: not mid-run", len(kept), total)
			}
			if len(stray) > 0 {
				t.Errorf("temporary files left behind: %v", stray)
			}
			if _, err := os.Stat(filepath.Join(dir, "summary.json")); !os.IsNotExist(err) {
				t.Errorf("an interrupted run wrote summary.json (%v)", err)
			}
			for name, b := range kept {
				got := withoutSeconds(t, b)
				if got.Status != "ok" {
					t.Errorf("%s: status %q (%s): a cancelled task must not be recorded", name, got.Status, got.Error)
				}
				want, ok := refTasks[name]
				if !ok {
					t.Errorf("%s: not a task of the reference run", name)
					continue
				}
				if w := withoutSeconds(t, want); !jsonEqual(t, got, w) {
					t.Errorf("%s differs from the reference run's:\n%s\n---\n%s", name, b, want)
				}
			}

			// Resume: the same command finishes the run; kept files are not rewritten.
			if code, _, errs := run("run", cfg, "--out", dir, "--no-report", "--workers", "2"); code != ExitOK {
				t.Fatalf("resumed run: exit %d\n%s", code, errs)
			}
			after, _ := taskFiles(t, dir)
			for name, b := range kept {
				if !bytes.Equal(after[name], b) {
					t.Errorf("%s was rewritten by the resumed run", name)
				}
			}
			want := readFile(t, filepath.Join(ref, "summary.json"))
			if got := readFile(t, filepath.Join(dir, "summary.json")); !bytes.Equal(got, want) {
				t.Errorf("summary after cancel and resume differs from the uninterrupted run:\n%s\n---\n%s", got, want)
			}
		})
	}
}

func jsonEqual(t *testing.T, a, b any) bool {
	t.Helper()
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	return bytes.Equal(x, y)
}

// TestFitInterrupted: "mkpoe fit" with a cancelled context exits with the
// interrupted status and writes no model.
func TestFitInterrupted(t *testing.T) {
	dir, kernel, comps, _ := fitFixture(t)
	model := filepath.Join(dir, "m.json")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code := Main(ctx, []string{"fit", "--kernel", kernel, "--comparisons", comps, "--beta", "100", "--out", model}, &out, &errb)
	if code != ExitInterrupted || !strings.Contains(errb.String(), "mkpoe fit: interrupted") {
		t.Errorf("exit %d, stderr %q; want %d and an interrupted message", code, errb.String(), ExitInterrupted)
	}
	if _, err := os.Stat(model); !os.IsNotExist(err) {
		t.Errorf("an interrupted fit wrote its model (%v)", err)
	}
}

// TestExitStatus checks the one mapping from a command's error to the exit
// status and message, with synthetic errors for each class.
func TestExitStatus(t *testing.T) {
	solverBug := errors.New("mkpoe: step search produced NaN")
	for _, test := range []struct {
		name string
		err  error
		code int
		msg  []string // substrings of the message ("" when none is printed)
	}{
		{"success", nil, ExitOK, nil},
		{"help", fmt.Errorf("parse: %w", flag.ErrHelp), ExitOK, nil},
		{"usage", usagef("--beta must be > 0, got %v", -1), ExitUsage, []string{"mkpoe fit: --beta must be > 0, got -1"}},
		{"fit: invalid input", fitError(fmt.Errorf("mkpoe: kernel 0 has a non-finite entry: %w", mkpoe.ErrInvalidInput)), ExitUsage,
			[]string{"mkpoe fit: mkpoe: kernel 0 has a non-finite entry"}},
		{"fit: cancelled", fitError(fmt.Errorf("mkpoe: fit stopped after 3 iterations: %w", context.Canceled)), ExitInterrupted,
			[]string{"mkpoe fit: interrupted (mkpoe: fit stopped after 3 iterations: context canceled)"}},
		{"fit: deadline", fitError(fmt.Errorf("stopped: %w", context.DeadlineExceeded)), ExitInterrupted, []string{"interrupted"}},
		{"fit: internal solver error", fitError(solverBug), ExitInternal,
			[]string{"mkpoe fit: internal error: mkpoe: step search produced NaN", "bug in mkpoe", "please report it"}},
		{"run interrupted", &errkind.Interrupted{Msg: "interrupted; 3 of 9 tasks finished and kept in d; rerun the same command to resume", Err: context.Canceled},
			ExitInterrupted, []string{"mkpoe fit: interrupted; 3 of 9 tasks finished and kept in d; rerun the same command to resume"}},
		{"other failure", errors.New("2 task(s) failed"), ExitFailure, []string{"mkpoe fit: 2 task(s) failed"}},
	} {
		t.Run(test.name, func(t *testing.T) {
			code, msg := exitStatus("fit", test.err)
			if code != test.code {
				t.Errorf("exit status %d, want %d (message %q)", code, test.code, msg)
			}
			if len(test.msg) == 0 && msg != "" {
				t.Errorf("message %q, want none", msg)
			}
			for _, w := range test.msg {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
		})
	}
	// The classes stay distinguishable through errors.Is/As.
	if err := fitError(solverBug); !errors.Is(err, solverBug) {
		t.Error("an internal error must wrap the solver's error")
	}
	if err := fitError(fmt.Errorf("x: %w", mkpoe.ErrInvalidInput)); !errors.Is(err, mkpoe.ErrInvalidInput) {
		t.Error("an input error must wrap mkpoe.ErrInvalidInput")
	}
}

// TestFitErrorFromSolver: a real invalid-input error of the solver (no
// kernels) exits 2 through the mapping.
func TestFitErrorFromSolver(t *testing.T) {
	_, err := mkpoe.Fit(nil, nil, &mkpoe.Settings{Beta: 1})
	if !errors.Is(err, mkpoe.ErrInvalidInput) {
		t.Skipf("mkpoe.Fit(nil kernels) = %v, not an ErrInvalidInput (solver API changed?)", err)
	}
	if code, _ := exitStatus("fit", fitError(err)); code != ExitUsage {
		t.Errorf("exit %d for %v, want %d", code, err, ExitUsage)
	}
}

// TestPanicIsInternalError: a command that panics exits 3 (internal error,
// please report) and never 2, the status of bad input.
func TestPanicIsInternalError(t *testing.T) {
	commands["test-panic"] = command{summary: "panics (test only)", run: func(context.Context, []string, io.Writer, io.Writer) error {
		var rows []int
		return fmt.Errorf("row %d", rows[len(rows)]) // an index out of range: a bug
	}}
	defer delete(commands, "test-panic")
	code, _, stderr := run("test-panic")
	if code != ExitInternal || !strings.Contains(stderr, "internal error: panic: runtime error: index out of range [0] with length 0") || !strings.Contains(stderr, "This is a bug in mkpoe") {
		t.Errorf("exit %d, stderr %q; want %d, the panic and the request for a report", code, stderr, ExitInternal)
	}
}

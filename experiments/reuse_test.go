package experiments

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/results"
)

// TestGridChangeReuse: extending the β grid of a finished run and running
// it into the same directory reuses the native tasks and every refit whose
// split's cv tasks choose the same β again, reruns the cv tasks (their
// sweeps warm-start along the grid) and prints one line per rerun task
// saying why; the summary is the same as a fresh run's of the extended
// config. Cutting the grid back to its start reruns no cv task (their
// first fits are kept) and gives the first run's summary again.
func TestGridChangeReuse(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	extended := strings.Replace(tinyConfig, "beta_grid: [1, 10]", "beta_grid: [1, 10, 1000]", 1)
	run := func(text, dir string) (*Config, *results.Summary, string) {
		t.Helper()
		c := configOf(t, text)
		c.Output = dir
		var log strings.Builder
		s, err := Run(context.Background(), c, RunOptions{Workers: 2, Log: &log})
		if err != nil {
			t.Fatal(err)
		}
		return c, s, log.String()
	}
	first, s1, _ := run(tinyConfig, dir)
	c, s2, log := run(extended, dir)
	if !strings.Contains(log, "reusing 4 of 22 tasks finished earlier") {
		t.Errorf("log lacks the 4 native tasks reused:\n%s", log)
	}
	// The refits whose β is chosen again are reused, the others rerun.
	wantReused, moved := 0, 0
	for r, row := range c.Rows {
		if row.Method == "native" {
			continue
		}
		for sp := 0; sp < c.Protocol.Splits; sp++ {
			id, was, now := c.rowTaskID(KindRefit, row, sp, -1), s1.Rows[r].Beta[sp], s2.Rows[r].Beta[sp]
			rerun := fmt.Sprintf("rerun %s (%s, split %d): stale until its split's cv tasks are done: reused if they choose β=%g again\n", id, row.Label, sp, was)
			if !strings.Contains(log, rerun) {
				t.Errorf("log lacks %q", rerun)
			}
			var want *regexp.Regexp
			if was == now {
				wantReused++
				want = regexp.MustCompile(`(?m)^\[\d+/6\] ` + id + ` reused: its split's cv tasks chose β=` + fmtBeta(now) + ` again, at which it fits cold$`)
			} else {
				moved++
				want = regexp.MustCompile(`(?m)^\[\d+/6\] ` + id + ` ok [0-9.]+s \(rerun: its split's cv tasks now choose β=` + fmtBeta(now) + `, it was fitted at β=` + fmtBeta(was) + `\)$`)
			}
			if !want.MatchString(log) {
				t.Errorf("log lacks a line matching %s", want)
			}
			for f := 0; f < c.Protocol.InnerFolds; f++ {
				line := fmt.Sprintf("rerun %s (%s, split %d, fold %d): β=1000 new after β=10, whose fit it warm-starts from and the task file does not keep: the sweep reruns from β=1\n",
					c.rowTaskID(KindCV, row, sp, f), row.Label, sp, f)
				if !strings.Contains(log, line) {
					t.Errorf("log lacks %q", line)
				}
			}
		}
	}
	if n := strings.Count(log, " reused: "); n != wantReused || wantReused == 0 || moved == 0 {
		t.Errorf("%d refits reused, want %d (and %d moved; the test needs both kinds)", n, wantReused, moved)
	}
	if n := strings.Count(log, "\nrerun "); n != 18 {
		t.Errorf("%d rerun lines, want 18 (12 cv tasks, 6 refits)", n)
	}
	if got, want := summaryText(t, dir), summaryOfFreshRun(t, extended); got != want {
		t.Errorf("the extended rerun's summary differs from a fresh run's:\n%s\nwant\n%s", got, want)
	}

	// Back to the first grid: the cv tasks keep their first two fits.
	_, _, log = run(tinyConfig, dir)
	if !strings.Contains(log, "kept the first 2 fits of 12 cv tasks") || strings.Contains(log, "rerun cv-") {
		t.Errorf("cutting the grid back:\n%s", log)
	}
	// The refits fitted at β=1 or 10 are reused from the start, the others rerun.
	if want := fmt.Sprintf("reusing %d of 22 tasks", 4+12+wantReused); !strings.Contains(log, want) {
		t.Errorf("cutting the grid back: log lacks %q:\n%s", want, log)
	}
	if got := summaryText(t, dir); got != summaryOfFreshRun(t, tinyConfig) {
		t.Errorf("after cutting the grid back, summary differs from a fresh run's:\n%s", got)
	}
	if first.Hash() == c.Hash() {
		t.Fatal("the two grids have one hash")
	}
}

// summaryText is dir's summary.json.
func summaryText(t *testing.T, dir string) string {
	t.Helper()
	return string(readFile(t, filepath.Join(dir, "summary.json")))
}

// summaryOfFreshRun runs config text in a new directory and returns its
// summary.json.
func summaryOfFreshRun(t *testing.T, text string) string {
	t.Helper()
	c := configOf(t, text)
	c.Output = filepath.Join(t.TempDir(), "fresh")
	if _, err := Run(context.Background(), c, RunOptions{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	return summaryText(t, c.Output)
}

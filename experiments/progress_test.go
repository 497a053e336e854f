package experiments

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mkpoe/mkpoe/internal/progress"
	"github.com/mkpoe/mkpoe/pkg/mkpoe"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// TestTaskProgressCountsFits runs a task of each kind with a progress
// display and checks that the display counted each of its fits as it
// ended (before the task ended: a cv task's β sweep shows inside the
// task) and that following the fits changed nothing: the task's result
// equals the one of a run without a display.
func TestTaskProgressCountsFits(t *testing.T) {
	c := loadTiny(t, filepath.Join(t.TempDir(), "run"))
	var log strings.Builder
	if _, err := Run(context.Background(), c, RunOptions{Workers: 2, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "phase 0: ") || !strings.Contains(log.String(), "phase 1: ") {
		t.Errorf("log lacks the phase lines:\n%s", log.String())
	}
	ds, err := c.loadAndCheckData()
	if err != nil {
		t.Fatal(err)
	}
	plan := Plan(c)
	st, err := openStore(c)
	if err != nil {
		t.Fatal(err)
	}
	first := func(kind string) results.Task {
		for _, task := range plan {
			if task.Kind == kind {
				return task
			}
		}
		t.Fatalf("no %s task", kind)
		return results.Task{}
	}
	for _, test := range []struct {
		kind string
		fits int
	}{
		{KindNative, 0},
		{KindCV, len(c.BetaGrid.Values)},
		{KindRefit, 1},
	} {
		t.Run(test.kind, func(t *testing.T) {
			task := first(test.kind)
			if got := TaskFits(c, task); got != test.fits {
				t.Fatalf("TaskFits = %d, want %d", got, test.fits)
			}
			start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
			disp := progress.NewRun(io.Discard, progress.RunOptions{}, start, 1, test.fits)
			tp := disp.StartTask(task.ID, test.fits, start)
			res, stopped := runTask(context.Background(), c, ds, st, task, tp, false)
			if stopped || res.Status != "ok" {
				t.Fatalf("task %s: %s %s", task.ID, res.Status, res.Error)
			}
			if done, all, _, _ := disp.Counts(); done != test.fits || all != test.fits {
				t.Errorf("%d of %d fits counted after the task's fits, want %d", done, all, test.fits)
			}
			want, ok := st.load(task.ID)
			if !ok {
				t.Fatalf("no result of %s on disk", task.ID)
			}
			withoutTimes(&res)
			withoutTimes(&want)
			res.Format = want.Format // set when saved
			a, _ := json.Marshal(res)
			b, _ := json.Marshal(want)
			if string(a) != string(b) {
				t.Errorf("the result with a progress display differs from the run's:\n%s\n%s", a, b)
			}
		})
	}
}

// TestFitRecorder checks the copy of a solver report into the progress
// display's iteration: every field it shows, and the gap as
// mkpoe.Iteration.Gap computes it (with and without a bound, and with Best
// 0); nil gives no recorder.
func TestFitRecorder(t *testing.T) {
	if FitRecorder(nil) != nil {
		t.Error("FitRecorder(nil) is not nil")
	}
	for _, it := range []mkpoe.Iteration{
		{Iter: 430, Objective: 13, Best: 12.3456, Bound: 12.0864, Stage: mkpoe.StageInteriorPoint},
		{Iter: 7, Objective: 3, Best: 2.5, Stage: mkpoe.StageSubgradient},
		{Iter: 1, Best: 0, Stage: mkpoe.StageAccelerated},
	} {
		var got progress.Iteration
		FitRecorder(func(p progress.Iteration) { got = p })(it)
		want := progress.Iteration{Iter: it.Iter, Stage: string(it.Stage), Best: it.Best, Bound: it.Bound, Gap: it.Gap()}
		if got != want {
			t.Errorf("FitRecorder copied %+v as %+v, want %+v", it, got, want)
		}
	}
}

// withoutTimes clears what a task's result measured of time (wall and CPU,
// and each stage's CPU time; the stages' iterations stay): what two runs
// of the same task may differ in.
func withoutTimes(r *results.TaskResult) {
	r.Seconds, r.CPUSeconds, r.ProcessCPUSeconds = 0, nil, nil
	r.Stages = slices.Clone(r.Stages)
	for i := range r.Stages {
		r.Stages[i].CPUSeconds = 0
	}
}

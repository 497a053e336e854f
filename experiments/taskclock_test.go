package experiments

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/results"
)

// TestRunRecordsCPUTime runs the tiny config with one worker and with two
// and checks what each task file, timings.json and provenance.json record
// of CPU time: the thread's time always; the process's, and stages on the
// process's clock, only with one worker; every fit's iterations counted in
// its stages; and the stages' time within the task's.
func TestRunRecordsCPUTime(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("CPU time is read on Linux only")
	}
	for _, test := range []struct {
		name    string
		workers int
		process bool
		clock   string
	}{
		{"one worker", 1, true, results.StageClockProcess},
		{"two workers", 2, false, results.StageClockThread},
	} {
		t.Run(test.name, func(t *testing.T) {
			c := loadTiny(t, filepath.Join(t.TempDir(), "run"))
			if _, err := Run(context.Background(), c, RunOptions{Workers: test.workers}); err != nil {
				t.Fatal(err)
			}
			st, err := openStore(c)
			if err != nil {
				t.Fatal(err)
			}
			timings, err := results.DecodeTimings(readFile(t, filepath.Join(c.Output, results.TimingsFile)), "timings.json")
			if err != nil {
				t.Fatal(err)
			}
			for _, task := range Plan(c) {
				r, ok := st.load(task.ID)
				if !ok {
					t.Fatalf("no result of %s", task.ID)
				}
				if r.CPUSeconds == nil || *r.CPUSeconds < 0 || (r.ProcessCPUSeconds != nil) != test.process {
					t.Errorf("%s: CPU %v, process CPU %v; want a thread time and a process time %v", task.ID, r.CPUSeconds, r.ProcessCPUSeconds, test.process)
					continue
				}
				if tt := timings[task.ID]; tt.Seconds != r.Seconds || *tt.CPUSeconds != *r.CPUSeconds || !samePtr(tt.ProcessCPUSeconds, r.ProcessCPUSeconds) {
					t.Errorf("%s: timings.json %+v, task file %v %v %v", task.ID, tt, r.Seconds, r.CPUSeconds, r.ProcessCPUSeconds)
				}
				checkStages(t, &r, test.clock)
			}
			var p results.Provenance
			if err := json.Unmarshal(readFile(t, filepath.Join(c.Output, results.ProvenanceFile)), &p); err != nil {
				t.Fatal(err)
			}
			for _, rc := range p.Rows {
				if rc.CPUSeconds == nil || (rc.ProcessCPUSeconds != nil) != test.process || rc.StageClock != test.clock || len(rc.Stages) == 0 {
					t.Errorf("provenance row %s: %+v", rc.Label, rc)
				}
			}
		})
	}
}

// checkStages checks a task's stages: none for a native task; for a fit,
// on the given clock, their iterations those of the fits, and their time
// within the task's (on the same clock, with 1 ms for rounding).
func checkStages(t *testing.T, r *results.TaskResult, clock string) {
	t.Helper()
	if r.Kind == KindNative {
		if r.Stages != nil || r.StageClock != "" {
			t.Errorf("%s: a native task has stages %v (%q)", r.ID, r.Stages, r.StageClock)
		}
		return
	}
	if r.StageClock != clock {
		t.Errorf("%s: stage clock %q, want %q", r.ID, r.StageClock, clock)
	}
	iters, sec := 0, 0.0
	for _, s := range r.Stages {
		iters += s.Iterations
		sec += s.CPUSeconds
	}
	want := 0
	for _, it := range r.Iterations {
		want += it
	}
	if iters != want {
		t.Errorf("%s: stages count %d iterations, the fits %d", r.ID, iters, want)
	}
	total := *r.CPUSeconds
	if clock == results.StageClockProcess {
		total = *r.ProcessCPUSeconds
	}
	if sec > total+1e-3 {
		t.Errorf("%s: stages took %.4f s, more than the task's %.4f s", r.ID, sec, total)
	}
	if !slices.ContainsFunc(r.Stages, func(s results.StageCost) bool { return s.Stage == "setup" }) {
		t.Errorf("%s: no setup stage in %v", r.ID, r.Stages)
	}
}

func samePtr(a, b *float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// TestMeasureCostInterleaves measures two learned rows of the tiny config
// over three repeats: the rows alternate (A B, B A, A B), every run has
// its process CPU time, each row takes the same iterations in every
// repeat, and the comparison of the two rows computes.
func TestMeasureCostInterleaves(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("CPU time is read on Linux only")
	}
	c := loadTiny(t, filepath.Join(t.TempDir(), "run"))
	a, b := c.Rows[2].Label, c.Rows[4].Label
	var log strings.Builder
	rep, err := MeasureCost(context.Background(), c, CostOptions{Rows: []string{a, b}, Split: 1, Folds: 2, Repeats: 3, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, run := range rep.Runs {
		if run.Fold == 0 {
			order = append(order, run.Row)
		}
		if run.ProcessCPUSeconds == nil || *run.ProcessCPUSeconds <= 0 || run.StageClock != results.StageClockProcess {
			t.Errorf("run %+v lacks its process CPU time", run)
		}
		if !strings.Contains(run.TaskID, "-s01-") {
			t.Errorf("run of task %s, want split 1's", run.TaskID)
		}
	}
	if want := []string{a, b, b, a, a, b}; !slices.Equal(order, want) {
		t.Errorf("fold 0's order %q, want %q", order, want)
	}
	if len(rep.Runs) != 12 || strings.Count(log.String(), "\n") != 12 {
		t.Errorf("%d runs, %d log lines; want 12 (2 rows × 2 folds × 3 repeats)", len(rep.Runs), strings.Count(log.String(), "\n"))
	}
	cut, err := results.CompareCost(rep, a, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(cut.Ratios) != 3 || cut.Iterations[0] == 0 || cut.Iterations[1] == 0 {
		t.Errorf("comparison %+v", cut)
	}
	// The report round-trips through its file.
	p := filepath.Join(t.TempDir(), results.CostFile)
	if err := results.WriteFile(p, rep); err != nil {
		t.Fatal(err)
	}
	b2, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := results.DecodeCost(b2, p); err != nil {
		t.Fatal(err)
	}
}

func TestMeasureCostBadOptions(t *testing.T) {
	c := loadTiny(t, filepath.Join(t.TempDir(), "run"))
	a, b, native := c.Rows[2].Label, c.Rows[4].Label, c.Rows[0].Label
	for _, test := range []struct {
		name string
		o    CostOptions
		err  string
	}{
		{"one row", CostOptions{Rows: []string{a}, Folds: 1, Repeats: 1}, "at least two rows"},
		{"unknown row", CostOptions{Rows: []string{a, "nope"}, Folds: 1, Repeats: 1}, `"nope" is not a row of`},
		{"native row", CostOptions{Rows: []string{a, native}, Folds: 1, Repeats: 1}, "is a native row"},
		{"twice", CostOptions{Rows: []string{a, a}, Folds: 1, Repeats: 1}, "is named twice"},
		{"split", CostOptions{Rows: []string{a, b}, Split: 2, Folds: 1, Repeats: 1}, "--split must be in 0..1, got 2"},
		{"folds", CostOptions{Rows: []string{a, b}, Folds: 3, Repeats: 1}, "--folds must be in 1..2 (protocol.inner_folds), got 3"},
		{"repeats", CostOptions{Rows: []string{a, b}, Folds: 1}, "--repeats must be ≥ 1, got 0"},
	} {
		t.Run(test.name, func(t *testing.T) {
			_, err := MeasureCost(context.Background(), c, test.o)
			if err == nil || !strings.Contains(err.Error(), test.err) {
				t.Fatalf("error %v, want %q", err, test.err)
			}
		})
	}
}

package results

import (
	"bytes"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

func ptr(x float64) *float64 { return &x }

func TestDecodeTimingsForms(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		name, in string
		want     map[string]TaskTime
		err      string
	}{
		{name: "older file: seconds alone", in: `{"cv-a-s00-f00": 1.5, "refit-a-s00": 2}`,
			want: map[string]TaskTime{"cv-a-s00-f00": {Seconds: 1.5}, "refit-a-s00": {Seconds: 2}}},
		{name: "with CPU time", in: `{"cv-a-s00-f00": {"seconds": 1.5, "cpu_seconds": 0.5, "process_cpu_seconds": 1.25}}`,
			want: map[string]TaskTime{"cv-a-s00-f00": {Seconds: 1.5, CPUSeconds: ptr(0.5), ProcessCPUSeconds: ptr(1.25)}}},
		{name: "thread time only (several workers)", in: `{"native-a-s00": {"seconds": 0.1, "cpu_seconds": 0.09}}`,
			want: map[string]TaskTime{"native-a-s00": {Seconds: 0.1, CPUSeconds: ptr(0.09)}}},
		{name: "both forms in one file", in: `{"a": 3, "b": {"seconds": 4}}`,
			want: map[string]TaskTime{"a": {Seconds: 3}, "b": {Seconds: 4}}},
		{name: "unknown field", in: `{"a": {"seconds": 1, "gpu_seconds": 2}}`, err: "gpu_seconds"},
		{name: "a string", in: `{"a": "1.5"}`, err: "must be a number of seconds or an object"},
		{name: "negative CPU time", in: `{"a": {"seconds": 1, "cpu_seconds": -1}}`, err: `task "a": times must be ≥ 0, got -1`},
	} {
		t.Run(test.name, func(t *testing.T) {
			t.Parallel()
			got, err := DecodeTimings([]byte(test.in), "timings.json")
			if test.err != "" {
				if err == nil || !strings.Contains(err.Error(), test.err) || !strings.Contains(err.Error(), "timings.json") {
					t.Fatalf("error %v, want one naming timings.json and containing %q", err, test.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(test.want) {
				t.Fatalf("%d tasks, want %d", len(got), len(test.want))
			}
			for id, w := range test.want {
				g := got[id]
				if g.Seconds != w.Seconds || !samePtr(g.CPUSeconds, w.CPUSeconds) || !samePtr(g.ProcessCPUSeconds, w.ProcessCPUSeconds) {
					t.Errorf("%s: got %+v, want %+v", id, g, w)
				}
			}
		})
	}
}

func samePtr(a, b *float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// TestTimingsRoundTrip writes task times as merge does (Encode) and reads
// them back: the new form keeps every field, and a nil CPU time stays nil.
func TestTimingsRoundTrip(t *testing.T) {
	t.Parallel()
	in := map[string]TaskTime{"cv-x": {Seconds: 2.5, CPUSeconds: ptr(1), ProcessCPUSeconds: ptr(2.25)}, "native-x": {Seconds: 0.5}}
	var b bytes.Buffer
	if err := Encode(&b, in); err != nil {
		t.Fatal(err)
	}
	got, err := DecodeTimings(b.Bytes(), "timings.json")
	if err != nil {
		t.Fatal(err)
	}
	for id, w := range in {
		if g := got[id]; g.Seconds != w.Seconds || !samePtr(g.CPUSeconds, w.CPUSeconds) || !samePtr(g.ProcessCPUSeconds, w.ProcessCPUSeconds) {
			t.Errorf("%s: got %+v, want %+v", id, g, w)
		}
	}
	if strings.Contains(b.String(), "null") {
		t.Errorf("nil CPU times written as null, want left out:\n%s", b.String())
	}
}

func TestAddStages(t *testing.T) {
	t.Parallel()
	a := []StageCost{{Stage: "interior-point", Iterations: 10, CPUSeconds: 2}, {Stage: "accelerated", Iterations: 100, CPUSeconds: 1}}
	b := []StageCost{{Stage: "accelerated", Iterations: 50, CPUSeconds: 0.5}, {Stage: "setup", CPUSeconds: 0.25}}
	got := AddStages(a, b)
	want := []StageCost{{"accelerated", 150, 1.5}, {"interior-point", 10, 2}, {"setup", 0, 0.25}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i].Stage != want[i].Stage || got[i].Iterations != want[i].Iterations || !scalar.EqualWithinAbsOrRel(got[i].CPUSeconds, want[i].CPUSeconds, 1e-12, 1e-12) {
			t.Errorf("stage %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	if a[0].Stage != "interior-point" || a[1].Iterations != 100 {
		t.Errorf("AddStages modified its input: %v", a)
	}
	if p := got[0].PerIteration(); !scalar.EqualWithinAbsOrRel(p, 0.01, 1e-12, 1e-12) {
		t.Errorf("accelerated: %g s per iteration, want 1.5/150 = 0.01", p)
	}
	if p := got[2].PerIteration(); p == p {
		t.Errorf("setup has no iterations: per iteration %g, want NaN", p)
	}
}

// TestRowCostAddTask sums a row's tasks: a task without CPU time makes the
// row's CPU time unknown, and tasks measured on different clocks give no
// stages.
func TestRowCostAddTask(t *testing.T) {
	t.Parallel()
	st := func(sec float64) []StageCost {
		return []StageCost{{Stage: "accelerated", Iterations: 4, CPUSeconds: sec}}
	}
	for _, test := range []struct {
		name              string
		tasks             []TaskResult
		cpu, proc, stages *float64
		clock             string
	}{
		{name: "all recorded, alone",
			tasks: []TaskResult{
				{Seconds: 2, Iterations: []int{3, 4}, CPUSeconds: ptr(1), ProcessCPUSeconds: ptr(1.5), Stages: st(1), StageClock: StageClockProcess},
				{Seconds: 3, Iterations: []int{5}, CPUSeconds: ptr(2), ProcessCPUSeconds: ptr(2.5), Stages: st(2), StageClock: StageClockProcess}},
			cpu: ptr(3), proc: ptr(4), stages: ptr(3), clock: StageClockProcess},
		{name: "one older task file",
			tasks: []TaskResult{
				{Seconds: 2, Iterations: []int{3, 4}, CPUSeconds: ptr(1), Stages: st(1), StageClock: StageClockThread},
				{Seconds: 3, Iterations: []int{5}}},
			clock: "mixed"},
		{name: "first task older",
			tasks: []TaskResult{
				{Seconds: 2, Iterations: []int{3, 4}},
				{Seconds: 3, Iterations: []int{5}, CPUSeconds: ptr(2), Stages: st(2), StageClock: StageClockThread}},
			clock: "mixed"},
	} {
		t.Run(test.name, func(t *testing.T) {
			t.Parallel()
			var rc RowCost
			for i := range test.tasks {
				rc.AddTask(&test.tasks[i], i == 0)
			}
			if rc.Seconds != 5 || rc.Iterations != 12 {
				t.Errorf("seconds %g, iterations %d; want 5, 12", rc.Seconds, rc.Iterations)
			}
			if !samePtr(rc.CPUSeconds, test.cpu) || !samePtr(rc.ProcessCPUSeconds, test.proc) {
				t.Errorf("CPU %v, process CPU %v; want %v, %v", rc.CPUSeconds, rc.ProcessCPUSeconds, test.cpu, test.proc)
			}
			if rc.StageClock != test.clock {
				t.Errorf("stage clock %q, want %q", rc.StageClock, test.clock)
			}
			switch {
			case test.stages == nil && rc.Stages != nil:
				t.Errorf("stages %v, want none", rc.Stages)
			case test.stages != nil && (len(rc.Stages) != 1 || rc.Stages[0].CPUSeconds != *test.stages || rc.Stages[0].Iterations != 8):
				t.Errorf("stages %v, want accelerated 8 iterations %g s", rc.Stages, *test.stages)
			}
		})
	}
}

package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
)

// TimingsFile is the name of a run directory's task times.
const TimingsFile = "timings.json"

// TaskTime is what one task cost (timings.json maps each task ID to one).
// Seconds is its wall time; CPUSeconds and ProcessCPUSeconds are the CPU
// times of TaskResult (nil: not recorded). timings.json files written
// before CPU time was recorded map each ID to its seconds alone, a bare
// number: they still decode, with CPUSeconds and ProcessCPUSeconds nil.
type TaskTime struct {
	Seconds           float64  `json:"seconds"`
	CPUSeconds        *float64 `json:"cpu_seconds,omitempty"`
	ProcessCPUSeconds *float64 `json:"process_cpu_seconds,omitempty"`
}

// UnmarshalJSON reads a task's time in either form: a number (seconds, the
// form of older timings.json files) or an object with its fields.
func (t *TaskTime) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] != '{' {
		var s float64
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("a task's time must be a number of seconds or an object, got %s", b)
		}
		*t = TaskTime{Seconds: s}
		return nil
	}
	type plain TaskTime // without this method
	var p plain
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return err
	}
	*t = TaskTime(p)
	return nil
}

// TimeOf is the TaskTime of a task result.
func TimeOf(r *TaskResult) TaskTime {
	return TaskTime{Seconds: r.Seconds, CPUSeconds: r.CPUSeconds, ProcessCPUSeconds: r.ProcessCPUSeconds}
}

// DecodeTimings reads a timings.json (task ID → TaskTime, in either form);
// name is the file's name for errors.
func DecodeTimings(b []byte, name string) (map[string]TaskTime, error) {
	var t map[string]TaskTime
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", name, err)
	}
	for id, v := range t {
		for _, x := range []*float64{&v.Seconds, v.CPUSeconds, v.ProcessCPUSeconds} {
			if x != nil && (math.IsNaN(*x) || *x < 0) {
				return nil, fmt.Errorf("%s: task %q: times must be ≥ 0, got %g", name, id, *x)
			}
		}
	}
	return t, nil
}

// StageCost is what the fits of a task spent in one solver stage
// (mkpoe.Stage: "accelerated", "interior-point", "subgradient",
// "low-rank"), summed over the task's fits: the iterations the stage's
// Recorder calls counted and the CPU time of the task's thread from each
// iteration's start to its report. Stage "setup" holds the fits' CPU time
// outside any iteration (kernel eigendecompositions, building the model),
// with Iterations 0.
type StageCost struct {
	Stage      string  `json:"stage"`
	Iterations int     `json:"iterations"`
	CPUSeconds float64 `json:"cpu_seconds"`
}

// PerIteration is the stage's CPU seconds per iteration (NaN with none).
func (s StageCost) PerIteration() float64 {
	if s.Iterations == 0 {
		return math.NaN()
	}
	return s.CPUSeconds / float64(s.Iterations)
}

// AddStages adds the stage costs b to a, stage by stage, and returns the
// result sorted by stage name (nil when both are empty); a is not
// modified.
func AddStages(a, b []StageCost) []StageCost {
	if len(a)+len(b) == 0 {
		return nil
	}
	m := map[string]StageCost{}
	for _, s := range append(append([]StageCost(nil), a...), b...) {
		t := m[s.Stage]
		t.Stage, t.Iterations, t.CPUSeconds = s.Stage, t.Iterations+s.Iterations, t.CPUSeconds+s.CPUSeconds
		m[s.Stage] = t
	}
	out := make([]StageCost, 0, len(m))
	for _, s := range m {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Stage < out[j].Stage })
	return out
}

// Clocks of TaskResult.StageClock.
const (
	StageClockThread  = "thread"  // the task's locked OS thread
	StageClockProcess = "process" // the whole process, the task running alone
)

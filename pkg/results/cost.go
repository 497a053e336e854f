package results

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// CostFormat is the format tag of a CostReport; CostFile its file name in a
// committed results/<config>/ folder.
const (
	CostFormat = "mkpoe-cost/1"
	CostFile   = "cost.json"
)

// CostReport is what `mkpoe cost` measured (cost.json): the cv tasks of
// some learned rows of a config on one outer split, run one at a time
// (one worker, so ProcessCPUSeconds is each task's whole CPU time) and
// interleaved: repeat r runs, for each inner fold, the rows in the given
// order when r is even and in reverse when it is odd (A B, B A, A B, …),
// so that a drift of the machine's speed over the measurement falls on
// every row alike. The Commit, Dirty, backend and machine fields are those
// of Provenance.
type CostReport struct {
	Format           string `json:"format"`
	Config           string `json:"config"`
	ConfigHash       string `json:"config_hash"`
	Commit           string `json:"commit,omitempty"`
	Dirty            *bool  `json:"dirty,omitempty"`
	LinalgBackend    string `json:"linalg_backend"`
	OpenBLASCore     string `json:"openblas_core,omitempty"`
	OpenBLASCoretype string `json:"openblas_coretype,omitempty"`
	CPUModel         string `json:"cpu_model,omitempty"`
	Cores            int    `json:"cores,omitempty"`
	GOMAXPROCS       int    `json:"gomaxprocs"`
	Started          string `json:"started"` // RFC 3339, UTC
	// Rows are the labels measured, in the order of even repeats; Split
	// the outer split and Folds the inner folds (0 … Folds−1) of the cv
	// tasks; Repeats how often each task ran.
	Rows    []string  `json:"rows"`
	Split   int       `json:"split"`
	Folds   int       `json:"folds"`
	Repeats int       `json:"repeats"`
	Runs    []CostRun `json:"runs"`
}

// CostRun is one run of one cv task: its repeat, its row and fold, its wall
// and CPU times (TaskResult's fields), and its solver iterations (summed
// over the task's β sweep) and stages.
type CostRun struct {
	Repeat            int         `json:"repeat"`
	Row               string      `json:"row"`
	Fold              int         `json:"fold"`
	TaskID            string      `json:"task_id"`
	TrainComparisons  int         `json:"train_comparisons"`
	Seconds           float64     `json:"seconds"`
	CPUSeconds        *float64    `json:"cpu_seconds,omitempty"`
	ProcessCPUSeconds *float64    `json:"process_cpu_seconds,omitempty"`
	Iterations        int         `json:"iterations"`
	Stages            []StageCost `json:"stages,omitempty"`
	StageClock        string      `json:"stage_clock,omitempty"`
}

// DecodeCost reads a cost.json strictly; name is used in errors. Every run
// must name a measured row, a fold and repeat in range, and carry its
// process CPU time.
func DecodeCost(b []byte, name string) (*CostReport, error) {
	var r CostReport
	if err := strictUnmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", name, err)
	}
	if err := checkFormat(r.Format, CostFormat); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var errs []error
	for i, run := range r.Runs {
		bad := func(format string, a ...any) {
			errs = append(errs, fmt.Errorf("%s: runs[%d]: "+format, append([]any{name, i}, a...)...))
		}
		if !slices.Contains(r.Rows, run.Row) {
			bad("row %q is not one of rows %q", run.Row, r.Rows)
		}
		if run.Fold < 0 || run.Fold >= r.Folds {
			bad("fold must be in 0..%d, got %d", r.Folds-1, run.Fold)
		}
		if run.Repeat < 0 || run.Repeat >= r.Repeats {
			bad("repeat must be in 0..%d, got %d", r.Repeats-1, run.Repeat)
		}
		if run.ProcessCPUSeconds == nil || *run.ProcessCPUSeconds < 0 {
			bad("process_cpu_seconds must be recorded and ≥ 0")
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	r.Format = CostFormat
	return &r, nil
}

// CostCut compares two rows of a CostReport, Cheaper against Dearer: per
// repeat, each row's process CPU time summed over the folds, and their
// ratio Cheaper/Dearer. Cut is 1 − the median ratio; Holds says every
// repeat's ratio is below 1 (with n repeats, a chance of 2⁻ⁿ under no
// difference, if the repeats are independent). Iterations are each row's
// solver iterations per repeat, which must not differ between repeats
// (the same fits ran); Stages each row's stage costs per repeat, as the
// mean over repeats.
type CostCut struct {
	Cheaper, Dearer string
	CPU             [2][]float64 // [0] Cheaper, [1] Dearer: process CPU seconds per repeat
	Ratios          []float64
	Cut             float64
	MaxRatio        float64
	Holds           bool
	Iterations      [2]int
	Stages          [2][]StageCost
}

// CompareCost computes the CostCut of rows cheaper and dearer of r; an
// error names a row that was not measured, a repeat that lacks one of its
// folds, or iterations that differ between repeats.
func CompareCost(r *CostReport, cheaper, dearer string) (*CostCut, error) {
	c := &CostCut{Cheaper: cheaper, Dearer: dearer}
	for k, label := range []string{cheaper, dearer} {
		cpu := make([]float64, r.Repeats)
		folds := make([]int, r.Repeats)
		iters := make([]int, r.Repeats)
		var stages []StageCost
		for _, run := range r.Runs {
			if !strings.EqualFold(run.Row, label) {
				continue
			}
			cpu[run.Repeat] += *run.ProcessCPUSeconds
			folds[run.Repeat]++
			iters[run.Repeat] += run.Iterations
			stages = AddStages(stages, run.Stages)
		}
		for rep := range r.Repeats {
			if folds[rep] != r.Folds {
				return nil, fmt.Errorf("cost: row %q has %d of %d folds in repeat %d", label, folds[rep], r.Folds, rep)
			}
			if iters[rep] != iters[0] {
				return nil, fmt.Errorf("cost: row %q took %d iterations in repeat %d and %d in repeat 0: not the same fits", label, iters[rep], rep, iters[0])
			}
		}
		if r.Repeats == 0 {
			return nil, fmt.Errorf("cost: no repeats")
		}
		for i := range stages {
			stages[i].Iterations /= r.Repeats
			stages[i].CPUSeconds /= float64(r.Repeats)
		}
		c.CPU[k], c.Iterations[k], c.Stages[k] = cpu, iters[0], stages
	}
	c.Holds = true
	for rep := range r.Repeats {
		q := c.CPU[0][rep] / c.CPU[1][rep]
		c.Ratios = append(c.Ratios, q)
		c.Holds = c.Holds && q < 1
	}
	c.Cut = 1 - median(c.Ratios)
	c.MaxRatio = slices.Max(c.Ratios)
	return c, nil
}

// median of x (NaN for none); x is not modified.
func median(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

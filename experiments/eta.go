package experiments

import (
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mkpoe/mkpoe/internal/linalg"
	"github.com/mkpoe/mkpoe/internal/progress"
	"github.com/mkpoe/mkpoe/pkg/constraint"
	"github.com/mkpoe/mkpoe/pkg/kernels"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// trainSize returns the rough training items and comparisons of a split
// (before its inner folds): the items outside the test fraction and their
// comparisons (a taxonomy's: max_train_comparisons, else items²), at most
// max_train_comparisons. The ETA's prior only needs
// them roughly (docs/progress.md).
func trainSize(c *Config, ds *dataset) (items, comps int) {
	keep := 1 - c.Protocol.TestFraction
	items = int(math.Round(float64(ds.n) * keep))
	comps = int(math.Round(float64(len(ds.comps)) * keep * keep))
	m := c.Protocol.MaxTrainComparisons
	switch {
	case len(ds.comps) == 0 && m > 0: // a taxonomy's comparisons: drawn, at most m
		comps = m
	case len(ds.comps) == 0:
		comps = items * items
	case m > 0 && comps > m:
		comps = m
	}
	return max(items, 1), max(comps, 1)
}

// planSize is what the ETA's prior (progress.PriorSeconds) knows of a
// config's data and build: a split's training items and comparisons
// (trainSize), each kernel's dimension on those items (kernelDim), by
// index in c.Kernels, and the linear-algebra backend.
type planSize struct {
	items, comps int
	kernelDims   []int
	// stepShare is, per list of training steps (joined by commas), the
	// share of the data set's comparisons the steps keep; a list not in
	// the map keeps them all.
	stepShare map[string]float64
	// backend is the linear-algebra build the fits run in
	// (linalg.Backend(); progress.BackendFactor).
	backend string
}

// maxPlannedSteps is the most comparisons newPlanSize runs a row's
// training steps on to learn how many they keep; a larger data set's
// rows are planned at their unprocessed comparisons.
const maxPlannedSteps = 100_000

func newPlanSize(c *Config, ds *dataset) planSize {
	ps := planSize{kernelDims: make([]int, len(c.Kernels)), stepShare: map[string]float64{}, backend: linalg.Backend()}
	ps.items, ps.comps = trainSize(c, ds)
	keep := float64(ps.items) / float64(max(ds.n, 1))
	for i, k := range c.Kernels {
		ps.kernelDims[i] = kernelDim(k, ds.sources[k.Source], ps.items, keep)
	}
	if len(ds.comps) == 0 || len(ds.comps) > maxPlannedSteps {
		return ps
	}
	for _, row := range c.Rows {
		steps := rowTrainSteps(c, row)
		key := strings.Join(steps, ",")
		if _, done := ps.stepShare[key]; done || len(steps) == 0 {
			continue
		}
		// An error here (e.g. a cyclic set for reduce) is the fold's to
		// report; the plan keeps the comparisons whole.
		if kept, _, err := constraint.Run(ds.comps, steps, c.Seed); err == nil {
			ps.stepShare[key] = float64(len(kept)) / float64(len(ds.comps))
		}
	}
	return ps
}

// rowTrainSteps returns the training steps of row's folds: its own
// train_steps, else constraints.train.
func rowTrainSteps(c *Config, row RowConfig) []string {
	if row.TrainSteps != nil {
		return *row.TrainSteps
	}
	return c.Constraints.Train
}

// kernelDim bounds the rank of kernel k on items training items, a
// fraction keep of the data set's: the columns of a linear kernel's
// features, the distinct terms of a tfidf kernel, the distinct users of a
// cf kernel, a noise kernel's dim (plus one identity dimension per
// training item missing from the modality, as pkg/kernels adds them), at
// most items; items for kernels of full rank (rbf, chi2, ppk, identity,
// precomputed). The ETA's prior only needs it roughly.
func kernelDim(k KernelConfig, in kernels.Input, items int, keep float64) int {
	d := items
	switch k.Type {
	case "linear", "tfidf", "cf":
		switch {
		case in.Features != nil:
			_, d = in.Features.Dims()
		case in.Counts != nil:
			d = distinctKeys(in.Counts)
		case in.Sets != nil:
			terms := map[int]bool{}
			for _, set := range in.Sets {
				for _, u := range set {
					terms[u] = true
				}
			}
			d = len(terms)
		}
	case "noise":
		d = 3
		if v, ok := k.Params["dim"]; ok && v >= 1 {
			d = int(v)
		}
	}
	missing := 0
	for _, m := range in.Missing {
		if m {
			missing++
		}
	}
	d += int(math.Round(float64(missing) * keep))
	return max(min(d, items), 1)
}

// distinctKeys counts the distinct terms of sparse counts.
func distinctKeys(counts []map[int]float64) int {
	terms := map[int]bool{}
	for _, c := range counts {
		for t := range c {
			terms[t] = true
		}
	}
	return len(terms)
}

// shape returns the prior's shape of row's fits of the given mode
// ("native" for a native task): the comparisons its training steps keep
// (stepShare), one block per kernel for k4, else one block, the row's
// kernel or its group's sum (whose rank is at most the sum of its
// kernels', and the items), and a learned row's solver, rank bound and
// kernel truncation as its fits run them (rowSettings).
func (ps planSize) shape(c *Config, row RowConfig, mode string) progress.Shape {
	s := progress.Shape{Mode: mode, Items: ps.items, Comparisons: ps.comps, Backend: ps.backend}
	if mode != "native" {
		s.BetaOffset = betaOffset(c.BetaGrid)
		if set, err := rowSettings(c, row); err == nil {
			s.Solver, s.Rank = string(set.Solver), set.Rank
			s.KernelRank, s.KernelEnergy = set.KernelRank, set.KernelEnergy
		}
	}
	if share, ok := ps.stepShare[strings.Join(rowTrainSteps(c, row), ",")]; ok {
		s.Comparisons = max(int(math.Round(share*float64(ps.comps))), 1)
	}
	ks := c.rowKernels(row)
	if row.Method == "k4" {
		for _, k := range ks {
			s.Dims = append(s.Dims, ps.kernelDims[k])
		}
		return s
	}
	sum := 0
	for _, k := range ks {
		sum += ps.kernelDims[k]
	}
	if len(ks) == 0 {
		sum = ps.items
	}
	s.Dims = []int{min(sum, ps.items)}
	return s
}

// betaOffset is the prior's place of grid g's first β
// (progress.Shape.BetaOffset): its decades above 0.01, the first β of the
// grids the prior is calibrated on; 0 for a grid relative to β_min, whose
// β's scale the plan does not know.
func betaOffset(g BetaGrid) float64 {
	if g.Relative || len(g.Values) == 0 || g.Values[0] <= 0 {
		return 0
	}
	return math.Log10(g.Values[0] / 0.01)
}

// taskUnits returns the units of work of task t for the run's ETA
// (progress.Unit): one per fit (a cv task's β sweep, a refit's one fit at
// a β chosen later), one for a native task.
func taskUnits(c *Config, t results.Task, ps planSize) []progress.Unit {
	row := c.Rows[t.Row]
	name := rowPrefix(row, t.Inputs)
	if t.Kind == KindNative {
		return []progress.Unit{{Row: "native-" + name, Mode: "native", Size: 1, Prior: progress.PriorSeconds(ps.shape(c, row, "native"), 0)}}
	}
	shape := ps.shape(c, row, row.Mode)
	if t.Kind == KindRefit {
		// A refit fits cold and pays its setup alone (progress.RefitFactor).
		return []progress.Unit{{Row: name, Mode: row.Mode, Beta: -1, Size: 1, Prior: progress.RefitFactor(shape) * progress.PriorSeconds(shape, -1), Refit: true}}
	}
	size := cvSize(c)
	units := make([]progress.Unit, TaskFits(c, t))
	for b := range units {
		// The prior is on the split's whole training set: Size scales it.
		units[b] = progress.Unit{Row: name, Mode: row.Mode, Beta: b, Size: size, Prior: progress.PriorSeconds(shape, b)}
	}
	return units
}

// cvSize is a cv fold's training size relative to its split's: (F−1)/F
// for F inner folds (1 for fewer than 2).
func cvSize(c *Config) float64 {
	f := float64(max(c.Protocol.InnerFolds, 1))
	if f < 2 {
		return 1
	}
	return (f - 1) / f
}

// PriorEstimate is "mkpoe plan"'s rough estimate of a config's run time
// from the documented per-fit prior (progress.PriorSeconds) and its plan's
// fits, before anything is measured: the work (the total on one worker)
// and the wall time on workers workers on an idle machine, the
// calibration's (idle: the tasks in the runner's order,
// progress.Schedule). With rate not nil (MachineRate's measurement, via
// progress.TaskRates) wall is the work in CPU seconds (progress.PriorCPU
// of each fit's mode) scheduled at the rate a task gets with j tasks
// running (progress.ScheduleAt); with nil, wall is idle. It loads the data
// set for its items and comparisons.
func PriorEstimate(c *Config, workers int, rate func(j int) float64) (work, idle, wall time.Duration, fits int, err error) {
	ds, err := c.loadAndCheckData()
	if err != nil {
		return 0, 0, 0, 0, err
	}
	ps := newPlanSize(c, ds)
	var phases [2][]results.Task
	for _, t := range Plan(c) {
		phases[t.Phase] = append(phases[t.Phase], t)
	}
	var sec, cpu [2][]float64
	total := 0.0
	for p := range phases {
		for _, t := range runOrder(phases[p]) {
			fits += TaskFits(c, t)
			task, taskCPU := 0.0, 0.0
			for _, u := range taskUnits(c, t, ps) {
				task += u.Weight()
				taskCPU += u.Weight() * progress.PriorCPU(u.Mode)
			}
			sec[p] = append(sec[p], task)
			cpu[p] = append(cpu[p], taskCPU)
			total += task
		}
	}
	idle = seconds(progress.Schedule(workers, sec))
	wall = idle
	if rate != nil {
		wall = seconds(progress.ScheduleAt(workers, cpu, rate))
	}
	return seconds(total), idle, wall, fits, nil
}

// MachineRate measures the CPU seconds per second each of workers busy
// threads gets from the machine now, over about d: mkpoe plan's measure
// of the machine's speed (progress.TaskRates turns it into a task's rate
// with fewer or more tasks running). Each thread spins on arithmetic,
// locked to its OS thread; the process's CPU time over the wall time
// and the threads is the rate. It returns false where the process's CPU
// time cannot be read.
func MachineRate(workers int, d time.Duration) (float64, bool) {
	cpu := processCPU()
	if cpu == nil || workers < 1 {
		return 0, false
	}
	start, c0 := time.Now(), cpu()
	var wg sync.WaitGroup
	sink := make([]float64, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			x := 1.0
			for time.Since(start) < d {
				for range 10000 {
					x = x*1.0000001 + 1e-9
				}
			}
			sink[w] = x
		}()
	}
	wg.Wait()
	wall := time.Since(start).Seconds()
	used := (cpu() - c0).Seconds()
	if wall <= 0 || used <= 0 || sink[0] == 0 {
		return 0, false
	}
	return used / (wall * float64(workers)), true
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// ETATraceEnv names the environment variable that, when set to a file
// path, has mkpoe run append the ETA's events to that file
// (progress.RunOptions.Trace): TestRecordTimelines takes each fit's time
// from it (docs/progress.md, "How good it is"). It changes nothing else.
const ETATraceEnv = "MKPOE_ETA_TRACE"

// etaTrace opens the file ETATraceEnv names for appending; nil (and a
// no-op close) when it is not set. A file that cannot be opened is
// reported on log and not traced: the run goes on.
func etaTrace(log io.Writer) (io.Writer, func()) {
	path := os.Getenv(ETATraceEnv)
	if path == "" {
		return nil, func() {}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintf(log, "mkpoe: warning: %s: %v (no ETA trace)\n", ETATraceEnv, err)
		return nil, func() {}
	}
	return f, func() { f.Close() }
}

// LoadAverage returns the machine's load average over the last minute
// (Linux /proc/loadavg), and false where it cannot be read. mkpoe plan
// prints it beside the machine's speed it measured (MachineRate;
// docs/progress.md, "The prior").
func LoadAverage() (float64, bool) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	return parseLoadAvg(string(b))
}

// parseLoadAvg reads the first field of /proc/loadavg's line.
func parseLoadAvg(s string) (float64, bool) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(f[0], 64)
	return v, err == nil && v >= 0
}

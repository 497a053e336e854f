package progress

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"
)

// timelineRow is a row of a synthetic run: its true per-fit seconds at β
// index 0 on a whole training set, relative to the prior (PriorSeconds),
// and how much dearer each step up the β grid is (the prior says 1.3).
type timelineRow struct {
	name, mode      string
	blocks          int     // kernel blocks (k4: the kernels; else 1)
	distort, growth float64 // true/prior at β index 0; factor per β index
}

// event is one step of a recorded timeline: a task starts, a fit ends, or
// a task ends.
type event struct {
	at   float64 // seconds since the run started
	seq  int     // order of events at the same time
	kind int     // 0 start, 1 fit end, 2 task end, 3 a running fit's report
	task int
	it   Iteration // kind 3: the report, as a tick of the display saw it
}

type simTask struct {
	id    string
	phase int
	units []Unit
	cost  []float64 // true seconds of each unit
	tail  float64   // scoring after the last fit
	beta  int       // a refit's chosen β index (known once it starts)
}

// synthTimeline builds a run like the quickstart's and aset400_splits'
// (native rows, then k1/k4 diag/full rows; splits × inner folds cv tasks
// sweeping the β grid, then a refit per split at a chosen β) with true
// costs that differ from the prior: the prior's ratios between modes and
// β steps are off by up to 1.7×, and every fit has ±25% noise. A refit
// costs trueRefit times a cv fit at its β on the whole training set. The
// tasks run on workers workers in the runner's order (RoundRobin), refits after every cv task.
func synthTimeline(seed uint64, workers int, rows []timelineRow, splits, folds, betas int) ([]simTask, []event) {
	rng := rand.New(rand.NewPCG(seed, 1))
	const items, comps = 200, 4000
	var tasks, refits []simTask
	size := float64(folds-1) / float64(folds)
	for _, row := range rows {
		base := row.distort * PriorSeconds(blockShape(row.mode, row.blocks, items, comps), 0)
		for s := 0; s < splits; s++ {
			if row.mode == "native" {
				tasks = append(tasks, simTask{id: fmt.Sprintf("native-%s-s%d", row.name, s),
					units: []Unit{{Row: row.name, Mode: "native", Size: 1, Prior: PriorSeconds(blockShape("native", 1, items, comps), 0)}},
					cost:  []float64{base * (0.75 + 0.5*rng.Float64())}})
				continue
			}
			for f := 0; f < folds; f++ {
				t := simTask{id: fmt.Sprintf("cv-%s-s%d-f%d", row.name, s, f), tail: 0.3}
				for b := 0; b < betas; b++ {
					t.units = append(t.units, Unit{Row: row.name, Mode: row.mode, Beta: b, Size: size, Prior: PriorSeconds(blockShape(row.mode, row.blocks, items, comps), b)})
					t.cost = append(t.cost, base*math.Pow(row.growth, float64(b))*math.Pow(size, trueExp(row.mode))*(0.75+0.5*rng.Float64()))
				}
				tasks = append(tasks, t)
			}
			b := rng.IntN(betas) // the β the cv tasks chose
			refits = append(refits, simTask{id: fmt.Sprintf("refit-%s-s%d", row.name, s), phase: 1, tail: 0.3, beta: b,
				units: []Unit{{Row: row.name, Mode: row.mode, Beta: -1, Size: 1, Prior: RefitFactor(blockShape(row.mode, row.blocks, items, comps)) * PriorSeconds(blockShape(row.mode, row.blocks, items, comps), -1), Refit: true}},
				cost:  []float64{trueRefit(row.mode) * base * math.Pow(row.growth, float64(b)) * (0.75 + 0.5*rng.Float64())}})
		}
	}
	byRow := func(t simTask) string { return t.units[0].Row }
	tasks = append(RoundRobin(tasks, byRow), RoundRobin(refits, byRow)...)
	var events []event
	seq := 0
	emit := func(at float64, kind, task int) {
		events = append(events, event{at: at, seq: seq, kind: kind, task: task})
		seq++
	}
	t := 0.0
	for phase := 0; phase < 2; phase++ {
		free := make([]float64, workers)
		for i := range free {
			free[i] = t
		}
		for i, task := range tasks {
			if task.phase != phase {
				continue
			}
			k := 0
			for j := range free {
				if free[j] < free[k] {
					k = j
				}
			}
			now := free[k]
			emit(now, 0, i)
			for _, c := range task.cost {
				now += c
				if task.units[0].Mode != "native" {
					emit(now, 1, i)
				}
			}
			now += task.tail
			emit(now, 2, i)
			free[k] = now
		}
		for _, f := range free {
			t = math.Max(t, f)
		}
	}
	sort.SliceStable(events, func(i, j int) bool {
		if events[i].at != events[j].at {
			return events[i].at < events[j].at
		}
		return events[i].seq < events[j].seq
	})
	return tasks, events
}

// TestETAOnTimeline replays synthetic recorded timelines into a Run and
// checks the ETA once a quarter, half and three quarters of the work is
// done (at the first event after that share of the run's true time): the
// middle of its range within ±30% of the true time left, and
// the true time left inside the range.
func TestETAOnTimeline(t *testing.T) {
	// The rows' true costs are off the prior by 0.8–1.3× (the rows of a
	// mode by up to 1.3× against each other), every fit by ±25% more, and
	// their β steps are dearer than the prior's 1.3: 1.4 (diag), 1.6
	// (full). A refit costs trueRefit times a cv fit of its row and β on
	// the whole training set: RefitFactor, as the recorded runs' did.
	quick := []timelineRow{
		{"clean", "native", 1, 1.2, 1}, {"sum", "native", 1, 0.8, 1},
		{"k1diag-clean", "diag", 1, 0.8, 1.4}, {"k1diag-sum", "diag", 1, 1.0, 1.4},
		{"k1full-sum", "full", 1, 1.3, 1.6}, {"k4diag-all", "diag", 5, 0.8, 1.4}, {"k4full-all", "full", 5, 1.0, 1.6},
	}
	aset := []timelineRow{
		{"native-a", "native", 1, 1.3, 1}, {"k1diag-a", "diag", 1, 0.8, 1.4},
		{"k4diag-all", "diag", 8, 1.0, 1.4}, {"k1full-a", "full", 1, 1.3, 1.6}, {"k4full-all", "full", 8, 1.0, 1.6},
	}
	skewed := []timelineRow{
		{"native-a", "native", 1, 1.5, 1}, {"k1diag-a", "diag", 1, 0.6, 1.3},
		{"k4diag-all", "diag", 8, 1.2, 1.4}, {"k1full-a", "full", 1, 1.7, 1.6}, {"k4full-all", "full", 8, 1.0, 1.5},
	}
	for _, test := range []struct {
		name                 string
		seed                 uint64
		workers              int
		rows                 []timelineRow
		splits, folds, betas int
		strict               bool // assert the ±30% (else only log)
	}{
		// One split: the last half of the run is mostly its single
		// dearest refit, extrapolated from its folds' fits to a training
		// set 1.5 times as large.
		{"quickstart-like, 2 workers", 1, 2, quick, 1, 3, 4, true},
		{"quickstart-like, 5 splits, 1 worker", 2, 1, quick, 5, 3, 4, true},
		{"aset400_splits-like, 2 workers", 3, 2, aset, 10, 5, 6, true},
		{"aset400_splits-like, 8 workers", 4, 8, aset, 10, 5, 6, true},
		// Rows of one mode whose costs the prior gets wrong by 1.7× against
		// each other, and whose β steps differ: the runner's round-robin
		// order has every row's first tasks end early.
		{"prior off 1.7× within a mode, 2 workers", 5, 2, skewed, 10, 5, 6, true},
	} {
		t.Run(test.name, func(t *testing.T) {
			tasks, events := synthTimeline(test.seed, test.workers, test.rows, test.splits, test.folds, test.betas)
			checks := replayETA(tasks, events, test.workers, nil)
			for _, c := range checks[:3] {
				if test.strict && (!c.ok || math.Abs(c.err()) > 0.3 || c.truth < c.eta.Low.Seconds() || c.truth > c.eta.High.Seconds()) {
					t.Errorf("%d%% of the work done at %.1fs: ETA %s (middle %.1fs, known %v); truly %.1fs left", c.pct, c.at, c.eta, c.eta.Mid.Seconds(), c.ok, c.truth)
				}
			}
			t.Logf("%d tasks, %d fits, %.1fs on %d workers:\n  %s", len(tasks), countFits(tasks), events[len(events)-1].at, test.workers, checksText(checks))
		})
	}
}

// etaCheck is the ETA of a replayed run once pct percent of its true
// time have passed: at seconds since the run started, truth seconds truly
// left.
type etaCheck struct {
	pct       int
	at, truth float64
	eta       Estimate
	ok        bool // the ETA was known
}

// checkPcts are the shares of a run's true time (percent) at which
// replayETA takes the ETA: from a quarter on, and near the end.
var checkPcts = []int{25, 50, 75, 90, 95, 98}

// err is the middle of the ETA's range relative to the truth, less 1.
func (c etaCheck) err() float64 { return c.eta.Mid.Seconds()/c.truth - 1 }

// width is the range's high end over its low end (+Inf for a low end of
// 0).
func (c etaCheck) width() float64 { return c.eta.High.Seconds() / c.eta.Low.Seconds() }

func checksText(checks []etaCheck) string {
	var s []string
	for _, c := range checks {
		s = append(s, fmt.Sprintf("%d%%: truth %.1fs, ETA %.1f–%.1fs (middle %.1fs, %+.0f%%, width %.1f×)", c.pct, c.truth,
			c.eta.Low.Seconds(), c.eta.High.Seconds(), c.eta.Mid.Seconds(), 100*c.err(), c.width()))
	}
	return strings.Join(s, "\n  ")
}

// countFits counts the fits of tasks (a native task's unit is no fit).
func countFits(tasks []simTask) int {
	n := 0
	for _, task := range tasks {
		if task.units[0].Mode != "native" {
			n += len(task.units)
		}
	}
	return n
}

// replayETA replays a timeline (tasks in plan order, events in time order)
// into a Run on workers workers as the runner drives it: every task
// planned with its units, then StartTask (a refit's SetBeta), EndFit and
// EndTask at the events' times. It returns the ETA once each share
// checkPcts of the run's true time has passed, taken just before the
// first event after that time.
//
// cpu, if not nil, holds readings of the process's CPU time (seconds
// since t0, CPU seconds, in time order): the Run then reads it
// (RunOptions.CPU) interpolated linearly between them at the replay's
// time.
func replayETA(tasks []simTask, events []event, workers int, cpu [][2]float64) []etaCheck {
	end := events[len(events)-1].at
	opt := RunOptions{Every: -1, Workers: workers, Cores: 2} // recorded on 2 cores
	clock := 0.0                                             // the replay's time, seconds since t0
	if cpu != nil {
		opt.CPU = func() time.Duration { return seconds(interpolate(cpu, clock)) }
	}
	r := NewRun(&strings.Builder{}, opt, t0, len(tasks), countFits(tasks))
	for _, task := range tasks {
		r.Plan(task.id, task.phase, task.units)
	}
	running := map[int]*Task{}
	record := map[int]func(Iteration){} // each running task's running fit
	fitsLeft := map[int]int{}
	var checks []etaCheck
	// The runner tells a refit's β once the cv tasks of its row and split
	// have ended (experiments' tellRefitBeta): count them per refit.
	cvLeft, refitBeta := map[string]int{}, map[string]int{}
	for _, t := range tasks {
		if t.phase == 1 {
			refitBeta[t.id] = t.beta
		} else if id, ok := refitOfCV(t.id); ok {
			cvLeft[id]++
		}
	}
	for _, e := range events {
		if id, ok := refitOfCV(tasks[e.task].id); ok && e.kind == 2 {
			if cvLeft[id]--; cvLeft[id] == 0 {
				r.SetPlannedBeta(id, refitBeta[id])
			}
		}
		// A share of the work: that share of the run's true time (the
		// first fits, of the cheap rows, are far less than a quarter of
		// the work).
		for len(checks) < len(checkPcts) && e.at*100 >= float64(checkPcts[len(checks)])*end {
			at := float64(checkPcts[len(checks)]) * end / 100
			clock = at
			eta, ok := r.ETA(t0.Add(time.Duration(at * float64(time.Second))))
			checks = append(checks, etaCheck{checkPcts[len(checks)], at, end - at, eta, ok})
		}
		now := t0.Add(time.Duration(e.at * float64(time.Second)))
		clock = e.at
		switch e.kind {
		case 0:
			fits := 0
			if tasks[e.task].units[0].Mode != "native" {
				fits = len(tasks[e.task].units)
			}
			running[e.task] = r.StartTask(tasks[e.task].id, fits, now)
			if tasks[e.task].phase == 1 {
				running[e.task].SetBeta(tasks[e.task].beta)
			}
			if fitsLeft[e.task] = fits; fits > 0 {
				record[e.task] = running[e.task].StartFit(1)
			}
		case 1:
			running[e.task].EndFit(now)
			if fitsLeft[e.task]--; fitsLeft[e.task] > 0 {
				record[e.task] = running[e.task].StartFit(1)
			}
		case 3:
			// A tick of the display: it reads the running fit's report.
			if rec := record[e.task]; rec != nil && fitsLeft[e.task] > 0 {
				rec(e.it)
				r.Update(now)
			}
		case 2:
			r.EndTask(running[e.task], "", now)
		}
	}
	return checks
}

// refitOfCV returns the refit of a cv task's ID ("cv-ROW-sS-fF" →
// "refit-ROW-sS"), false for other tasks.
func refitOfCV(id string) (string, bool) {
	f := strings.LastIndex(id, "-f")
	if !strings.HasPrefix(id, "cv-") || f < 0 {
		return "", false
	}
	return "refit-" + id[len("cv-"):f], true
}

// trueExp is how the synthetic fits' time grows with the training size:
// faster than SizeExponent says.
func trueExp(mode string) float64 {
	return SizeExponent(mode) + 0.5
}

// trueRefit is how much dearer the synthetic refits are than a cv fit of
// the same row and β on the whole training set: RefitFactor, the recorded
// runs' (and their true size exponent is steeper than the model's,
// trueExp).
func trueRefit(mode string) float64 {
	return RefitFactor(Shape{Mode: mode})
}

// TestPriorSecondsRankAndTruncation checks that a full fit's prior follows
// the variables its W has (fullDimFactor): truncating the kernels to r
// eigenpairs makes a block of dimension d one of min(d, r), a rank bound
// r makes its W d × min(d, r) instead of d × d, and neither changes a
// diag fit, a solver name or an energy share (unknown before the
// spectra). Values by hand: FullFixedShare 0.2, 0.8 × the blocks' share.
func TestPriorSecondsRankAndTruncation(t *testing.T) {
	base := Shape{Mode: "full", Items: 100, Comparisons: 2000, Dims: []int{100, 40}}
	full := 0.2 + 0.8*(1+0.16) // blocks 100/100 and 40/100, squared
	for _, test := range []struct {
		name string
		edit func(*Shape)
		want float64 // relative to base
	}{
		{"kernel rank 50: blocks 50 and 40", func(s *Shape) { s.KernelRank = 50 }, (0.2 + 0.8*(0.25+0.16)) / full},
		{"rank 10: W 100×10 and 40×10", func(s *Shape) { s.Rank = 10 }, (0.2 + 0.8*(0.1+0.04)) / full},
		{"kernel rank 50, rank 10", func(s *Shape) { s.KernelRank, s.Rank = 50, 10 }, (0.2 + 0.8*(0.05+0.04)) / full},
		{"rank above every dimension", func(s *Shape) { s.Rank = 500 }, 1},
		{"kernel energy: unknown, kept", func(s *Shape) { s.KernelEnergy = 0.9 }, 1},
		{"solver named", func(s *Shape) { s.Solver = "lowrank" }, 1},
		{"diag: no change", func(s *Shape) { s.Mode, s.KernelRank, s.Rank = "diag", 50, 10 }, 1},
	} {
		t.Run(test.name, func(t *testing.T) {
			s, ref := base, base
			test.edit(&s)
			ref.Mode = s.Mode
			got := PriorSeconds(s, 2) / PriorSeconds(ref, 2)
			if math.Abs(got-test.want) > 1e-12 {
				t.Errorf("prior relative to the whole kernels' %g, want %g", got, test.want)
			}
		})
	}
}

// interpolate returns the value of the readings xy (x ascending) at x,
// linear between them, the first's or the last's outside.
func interpolate(xy [][2]float64, x float64) float64 {
	i := sort.Search(len(xy), func(i int) bool { return xy[i][0] >= x })
	switch {
	case i == 0:
		return xy[0][1]
	case i == len(xy):
		return xy[len(xy)-1][1]
	}
	a, b := xy[i-1], xy[i]
	if b[0] == a[0] {
		return b[1]
	}
	return a[1] + (b[1]-a[1])*(x-a[0])/(b[0]-a[0])
}

// loadChange warps a synthetic timeline, whose times are the tasks'
// CPU seconds (every task at full speed), to the wall time of a machine
// whose load changes at work time at: before it each running task gets
// before CPU seconds per second, after it after. It returns the warped
// events and the process's CPU time read at every event and at the
// change (the tasks running at a time each use their speed's CPU).
func loadChange(events []event, at, before, after float64) ([]event, [][2]float64) {
	wall := func(w float64) float64 {
		if w <= at {
			return w / before
		}
		return at/before + (w-at)/after
	}
	out := make([]event, len(events))
	var cpu [][2]float64
	running, used, last := 0, 0.0, 0.0
	read := func(w float64) {
		used += float64(running) * (w - last)
		last = w
		cpu = append(cpu, [2]float64{wall(w), used})
	}
	changed := false
	for i, e := range events {
		if !changed && e.at > at {
			read(at)
			changed = true
		}
		read(e.at)
		switch e.kind {
		case 0:
			running++
		case 2:
			running--
		}
		out[i] = e
		out[i].at = wall(e.at)
	}
	return out, cpu
}

// TestETAFollowsLoadChange replays synthetic runs on a machine whose load
// changes a third of the way through their work (each task's speed falls
// to 0.4 or rises from 0.4 to 1) and checks that the ETA measured in CPU
// time (RunOptions.CPU) has the middle of its range within ±30% of the
// true time left at each check from a tenth of the run after the change
// up to 95%, where the same replay in wall time is off by more than 30%
// at one of them at least: the finished units' wall times say what the
// work cost at the old speed. Before the change no estimate can know it.
func TestETAFollowsLoadChange(t *testing.T) {
	aset := []timelineRow{
		{"native-a", "native", 1, 1.3, 1}, {"k1diag-a", "diag", 1, 0.8, 1.4},
		{"k4diag-all", "diag", 8, 1.0, 1.4}, {"k1full-a", "full", 1, 1.3, 1.6}, {"k4full-all", "full", 8, 1.0, 1.6},
	}
	for _, test := range []struct {
		name          string
		before, after float64
	}{
		{"load rises: speed 1 to 0.4", 1, 0.4},
		{"load falls: speed 0.4 to 1", 0.4, 1},
	} {
		t.Run(test.name, func(t *testing.T) {
			tasks, work := synthTimeline(3, 2, aset, 10, 5, 6)
			at := work[len(work)-1].at / 3
			events, cpu := loadChange(work, at, test.before, test.after)
			end, change := events[len(events)-1].at, at/test.before
			withCPU, wall := replayETA(tasks, events, 2, cpu), replayETA(tasks, events, 2, nil)
			checked, wallOff := 0, false
			for i, c := range withCPU {
				if c.at < change+0.1*end || c.pct > 95 {
					continue
				}
				checked++
				if !c.ok || math.Abs(c.err()) > 0.3 {
					t.Errorf("%d%% of the run at %.1fs: ETA %s (middle %.1fs, %+.0f%%); truly %.1fs left", c.pct, c.at, c.eta, c.eta.Mid.Seconds(), 100*c.err(), c.truth)
				}
				wallOff = wallOff || math.Abs(wall[i].err()) > 0.3
			}
			if checked == 0 || !wallOff {
				t.Errorf("%d checks after the change; in wall time the ETA is within ±30%% at every one: the test shows nothing\n  %s", checked, checksText(wall))
			}
			t.Logf("the speed changes at %.0fs of %.0fs; in CPU time:\n  %s\nin wall time:\n  %s", change, end, checksText(withCPU), checksText(wall))
		})
	}
}

// TestRefitCorrection checks that a row's finished refits correct its
// other refits' estimates by n/(n+RefitShrink) of their mean log ratio
// to what the cv fits say, that they do not count among the cv fits, and
// that another row's refits are left as the cv fits say. Each cv fit
// takes 1 s per unit of weight; the refits 4 s per unit of weight. The
// rows are full (a full refit is priced from its folds' fits at its β;
// a diag one from its row's dearest, TestColdRefit).
func TestRefitCorrection(t *testing.T) {
	cv := func(row string, b int) Unit { return Unit{Row: row, Mode: "full", Beta: b, Size: 0.5, Prior: 1} }
	refit := func(row string, b int) Unit {
		return Unit{Row: row, Mode: "full", Beta: b, Size: 1, Prior: 2, Refit: true}
	}
	for _, test := range []struct {
		name   string
		refits int     // finished refits of row a
		want   float64 // a's next refit's middle, over its weight
	}{
		{"no refit finished: the cv fits", 0, 1},
		{"one refit 4 times the cv fits", 1, math.Exp(1.0 / 3 * math.Log(4))},
		{"two", 2, math.Exp(2.0 / 4 * math.Log(4))},
		{"six", 6, math.Exp(6.0 / 8 * math.Log(4))},
	} {
		t.Run(test.name, func(t *testing.T) {
			var e estimator
			for _, row := range []string{"a", "b"} {
				for b := 0; b < 3; b++ {
					u := cv(row, b)
					e.add(u, u.Weight())
				}
			}
			for i := 0; i < test.refits; i++ {
				u := refit("a", 1)
				e.add(u, 4*u.Weight())
			}
			e.rebuild()
			u := refit("a", 2)
			_, mid, _, ok := e.cost(u)
			if !ok || math.Abs(mid/u.Weight()-test.want) > 1e-9 {
				t.Errorf("refit of row a: middle %g of its weight, want %g (known %v)", mid/u.Weight(), test.want, ok)
			}
			if _, mid, _, _ := e.cost(refit("b", 2)); math.Abs(mid/refit("b", 2).Weight()-1) > 1e-9 {
				t.Errorf("refit of row b: middle %g of its weight, want 1 (the cv fits')", mid/refit("b", 2).Weight())
			}
			if _, mid, _, _ := e.cost(cv("a", 1)); math.Abs(mid/cv("a", 1).Weight()-1) > 1e-9 {
				t.Errorf("cv fit of row a: middle %g of its weight, want 1 (refits are not cv fits)", mid/cv("a", 1).Weight())
			}
		})
	}
}

// TestColdRefit checks that a diag refit is priced from its row's
// dearest cv fit (coldBeta), ColdRefitFactor times it at the refit's
// larger size, whatever the refit's β, while a full refit is priced at
// its β; and that a row with no finished cv fit falls back to the
// mode's. The row's cv fits (size 0.8, prior 1.3^β) took 0.1 s at β 0,
// 2 s at β 1 (the sweep's cold fit) and 0.5 s at β 2; a refit's prior is
// RefitFactor × 1.3^β at size 1.
func TestColdRefit(t *testing.T) {
	secs := []float64{0.1, 2, 0.5}
	grow := math.Pow(0.8, -1.5) // diag: size^1.5
	for _, test := range []struct {
		name string
		mode string
		row  string
		beta int
		want float64 // the refit's middle, seconds
	}{
		{"diag at β 2: the cold fit's", "diag", "a", 2, 2 * ColdRefitFactor * grow},
		{"diag at β 0: the same", "diag", "a", 0, 2 * ColdRefitFactor * grow},
		{"full at β 2: its fit at β 2", "full", "a", 2, 0.5 * refitFactorFull / SizeFactor("full", 0.8)},
		{"diag, row without cv fits: the mode's at its β", "diag", "b", 2, 0.5 * refitFactorDiag * grow},
	} {
		t.Run(test.name, func(t *testing.T) {
			var e estimator
			for b, sec := range secs {
				e.add(Unit{Row: "a", Mode: test.mode, Beta: b, Size: 0.8, Prior: math.Pow(BetaStep, float64(b))}, sec)
			}
			e.rebuild()
			factor := float64(refitFactorDiag)
			if test.mode == "full" {
				factor = refitFactorFull
			}
			u := Unit{Row: test.row, Mode: test.mode, Beta: test.beta, Size: 1, Prior: factor * math.Pow(BetaStep, float64(test.beta)), Refit: true}
			_, mid, _, ok := e.cost(u)
			if !ok || math.Abs(mid/test.want-1) > 1e-9 {
				t.Errorf("middle %.4gs (known %v), want %.4gs", mid, ok, test.want)
			}
		})
	}
}

// TestTaskRates checks the rate a running task is expected to get as
// fewer or more of the run's tasks run (LoneTaskExponent 0.8): measured
// at 0.2 CPU s/s with two tasks running, one lone task gets 0.2 × 2^0.8
// = 0.3482, each of three 0.2 × (2/3)^0.8 = 0.1446; measured at 0.9 with
// two, a lone task at most a core; with none measured, the rate
// whatever runs.
func TestTaskRates(t *testing.T) {
	for _, test := range []struct {
		speed, running float64
		cores, j       int
		want           float64
	}{
		{0.2, 2, 2, 2, 0.2},
		{0.2, 2, 2, 1, 0.34822022531844965},
		{0.2, 2, 2, 3, 0.14459623615969316},
		{0.9, 2, 2, 1, 1},
		{1.2, 2, 2, 1, 1.2},
		{0.5, 0, 2, 1, 0.5},
	} {
		if got := TaskRates(test.speed, test.running, test.cores)(test.j); math.Abs(got-test.want) > 1e-12 {
			t.Errorf("TaskRates(%g, %g, %d)(%d) = %g, want %g", test.speed, test.running, test.cores, test.j, got, test.want)
		}
	}
}

// TestScheduleAt checks the schedule in CPU seconds at rates that depend
// on the tasks running: two tasks of 1 and 3 CPU s on 2 workers at 0.5
// each while both run and 1 alone take 2 s together, then 2 s alone: 4 s
// (at 0.5 throughout, 6 s); a refit phase starts when phase 0 has ended.
func TestScheduleAt(t *testing.T) {
	half := func(int) float64 { return 0.5 }
	lone := func(j int) float64 { return [3]float64{0, 1, 0.5}[j] }
	for _, test := range []struct {
		workers int
		phases  [2][]float64
		rate    func(int) float64
		want    float64
	}{
		{2, [2][]float64{{1, 3}}, nil, 3},
		{2, [2][]float64{{1, 3}}, half, 6},
		{2, [2][]float64{{1, 3}}, lone, 4},
		{2, [2][]float64{{1, 1, 1}, {2}}, lone, 2 + 1 + 2},
		{1, [2][]float64{{1, 1}, {2}}, half, 8},
	} {
		if got := ScheduleAt(test.workers, test.phases, test.rate); math.Abs(got-test.want) > 1e-9 {
			t.Errorf("ScheduleAt(%d, %v) = %g, want %g", test.workers, test.phases, got, test.want)
		}
	}
}

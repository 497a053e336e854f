// Package progress shows how far a fit (mkpoe fit) or a run of tasks
// (mkpoe run) has got: on a terminal as one live line redrawn in place, in
// a log as plain lines every so often. docs/progress.md says what the lines
// mean.
//
// Nothing here reads the clock: every method takes the time, and Start
// drives an Update from a ticker, so that tests pass made-up times and
// assert the exact lines. Progress output depends on time; results never
// do (a fit's Recorder cannot change it: pkg/mkpoe).
package progress

import (
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/schollz/progressbar/v3"
)

// Terminal reports whether w is a terminal (then progress is a live
// line), and its width for the live line (0 if unknown).
func Terminal(w io.Writer) (live bool, width int) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return false, 0
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil || width <= 1 {
		return true, 0
	}
	return true, width - 1 // writing the last column wraps on some terminals
}

// clearLine returns the cursor to the start of the line and erases it.
const clearLine = "\r\x1b[K"

// Iteration is what the displays show of a fit's progress report. The
// caller copies it from the solver's report (experiments.FitRecorder
// adapts an mkpoe.Recorder), so this package does not depend on the
// solver.
type Iteration struct {
	Iter  int     // the 1-based iteration number, counted across stages
	Stage string  // the method running ("accelerated", "interior-point", …)
	Best  float64 // the best objective so far
	Bound float64 // the best certified lower bound so far (0: none yet)
	// Gap is the certified relative gap (Best − Bound)/Best
	// (mkpoe.Iteration.Gap); shown only when Bound > 0.
	Gap float64
	// Rank is the low-rank method's number of columns (all blocks), shown
	// when positive.
	Rank int
	// Newton is, in the interior-point stage, the Newton run's distance
	// from its stopping test (mkpoe.Iteration.Newton; ≤ 1: it may stop; 0
	// elsewhere). The ETA extrapolates it (fitLeft).
	Newton float64
	// HandOver and InteriorCost are, in the accelerated stage, the
	// iteration by which it hands over to an interior-point stage at the
	// latest (0: none ahead) and that stage's estimated cost in
	// accelerated iterations (mkpoe.Iteration; 0: none).
	HandOver     int
	InteriorCost float64
}

// Fit is the latest report of one running fit. Record receives the fit's
// reports; Fit is safe for concurrent use (the fit reports on its own
// goroutine, a display reads on another).
type Fit struct {
	mu   sync.Mutex
	last Iteration
	seen bool
}

// Record stores it as the fit's latest report (cheap: the fit calls it
// after every iteration).
func (f *Fit) Record(it Iteration) {
	f.mu.Lock()
	f.last, f.seen = it, true
	f.mu.Unlock()
}

// Last returns the latest report, and false if there is none yet.
func (f *Fit) Last() (Iteration, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last, f.seen
}

// Describe formats a fit's latest report, for example
//
//	iteration 430, interior-point, objective 12.3456, certified gap 2.1e-02
//
// or "setting up (no iteration yet)" before the first. The gap is the
// certified relative gap (Iteration.Gap; "no certificate yet" while there
// is no bound: the subgradient solver computes its only one at the end).
func Describe(it Iteration, ok bool) string {
	if !ok {
		return "setting up (no iteration yet)"
	}
	gap := "no certificate yet"
	if it.Bound > 0 {
		gap = "certified gap " + formatGap(it.Gap)
	}
	stage := it.Stage
	if it.Rank > 0 {
		stage = fmt.Sprintf("%s (rank %d)", it.Stage, it.Rank)
	}
	return fmt.Sprintf("iteration %d, %s, objective %.6g, %s", it.Iter, stage, it.Best, gap)
}

// describeShort is Describe for the live line of a run.
func describeShort(it Iteration, ok bool) string {
	if !ok {
		return "setting up"
	}
	s := fmt.Sprintf("it %d %s", it.Iter, it.Stage)
	if it.Bound > 0 {
		s += " gap " + formatGap(it.Gap)
	}
	return s
}

// formatGap prints a relative gap with two digits; round-off below zero
// shows as 0.
func formatGap(g float64) string {
	return fmt.Sprintf("%.1e", math.Max(g, 0))
}

// FormatDuration prints d rounded to the second: "45s", "3m10s", "2h05m"
// (hours drop the seconds).
func FormatDuration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int64(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm", s/3600, s/60%60)
}

// truncate shortens a live line to width runes (0: no limit), so that it
// never wraps: a wrapped line cannot be redrawn in place.
func truncate(s string, width int) string {
	if width <= 0 {
		return s
	}
	r := []rune(s)
	if len(r) <= width {
		return s
	}
	return string(r[:width])
}

// Start calls update with the current time every interval on its own
// goroutine, until the returned stop is called; stop returns once the
// last update has ended, so the caller may then write to the same output.
func Start(interval time.Duration, update func(now time.Time)) (stop func()) {
	return startTicker(interval, time.Now, update, nil)
}

// StartRun is Start for a run's display r: it also tells r (Run.AddStopped)
// when a tick comes more than StoppedGap late, which happens when the
// process was stopped (Ctrl-Z and fg, a batch job suspended and resumed):
// the time it was stopped is not its fits'.
func StartRun(interval time.Duration, r *Run) (stop func()) {
	return startTicker(interval, time.Now, r.Update, r.AddStopped)
}

// StoppedGap is how late a tick of StartRun must be for the process to be
// taken as stopped for the time between; a running process's ticks come
// within milliseconds, even with every core busy.
const StoppedGap = 5 * time.Second

// startTicker is Start, reading the time from clock, and calling stopped
// (if not nil) before update when a tick comes more than StoppedGap late.
func startTicker(interval time.Duration, clock func() time.Time, update func(now time.Time), stopped func(time.Duration)) (stop func()) {
	t := time.NewTicker(interval)
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		last := clock()
		for {
			select {
			case <-t.C:
				now := clock()
				if late := now.Sub(last) - interval; stopped != nil && late > StoppedGap {
					stopped(late)
				}
				last = now
				update(now)
			case <-quit:
				return
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			t.Stop()
			close(quit)
			<-done
		})
	}
}

// DefaultTol is the fits' target certified gap when RunOptions.Tol is 0:
// mkpoe.DefaultTol.
const DefaultTol = 1e-3

// Defaults of the displays.
const (
	// FitDelay is how long a fit runs before its progress shows: fast fits
	// (and the scripts and tests that run them) stay quiet.
	FitDelay = 2 * time.Second
	// PlainEvery is the interval of plain progress lines (no terminal).
	PlainEvery = 30 * time.Second
	// LiveEvery is how often a live line is redrawn.
	LiveEvery = 250 * time.Millisecond
)

// Interval is the ticker interval for a display whose plain lines come
// every every: LiveEvery on a terminal, else a second or every if shorter
// (plain lines then come within a second of being due).
func Interval(live bool, every time.Duration) time.Duration {
	switch {
	case live:
		return LiveEvery
	case every > 0 && every < time.Second:
		return every
	}
	return time.Second
}

// FitDisplay shows the progress of one fit (mkpoe fit) on W once it has
// run Delay: on a terminal (Live) one line redrawn at every Update, else a
// plain line at the first Update after Delay and then every Every. Lines
// read
//
//	fit: 12s, iteration 430, interior-point, objective 12.3456, certified gap 2.1e-02 (target 1.0e-03)
//
// Update and Finish must not run concurrently (Start's stop orders them).
type FitDisplay struct {
	W     io.Writer
	Live  bool
	Width int           // live line width (0: no limit)
	Delay time.Duration // quiet before (default FitDelay)
	Every time.Duration // interval of plain lines (default PlainEvery; ≤ 0: no plain lines)
	Tol   float64       // the fit's target relative gap, shown as the target (0: not shown)
	Fit   Fit           // its Record receives the fit's reports

	start   time.Time
	printed time.Time // last plain line
	drawn   bool      // a live line is on the screen
}

// NewFitDisplay returns a display for a fit started at start.
func NewFitDisplay(w io.Writer, live bool, start time.Time) *FitDisplay {
	return &FitDisplay{W: w, Live: live, Delay: FitDelay, Every: PlainEvery, start: start}
}

func (d *FitDisplay) line(now time.Time) string {
	s := "fit: " + FormatDuration(now.Sub(d.start)) + ", " + Describe(d.Fit.Last())
	if it, ok := d.Fit.Last(); ok && it.Bound > 0 && d.Tol > 0 {
		s += " (target " + formatGap(d.Tol) + ")"
	}
	return s
}

// Update shows the fit's progress at time now, if it is due.
func (d *FitDisplay) Update(now time.Time) {
	if now.Sub(d.start) < d.Delay {
		return
	}
	if d.Live {
		fmt.Fprint(d.W, clearLine+truncate(d.line(now), d.Width))
		d.drawn = true
		return
	}
	if d.Every <= 0 {
		return
	}
	if d.printed.IsZero() || now.Sub(d.printed) >= d.Every {
		fmt.Fprintln(d.W, d.line(now))
		d.printed = now
	}
}

// Finish ends the display at time now: a live line is erased (the
// command's own output follows); in a log, a fit that ran Delay or longer
// gets a last line with its final state.
func (d *FitDisplay) Finish(now time.Time) {
	if d.Live {
		if d.drawn {
			fmt.Fprint(d.W, clearLine)
			d.drawn = false
		}
		return
	}
	if d.Every > 0 && now.Sub(d.start) >= d.Delay {
		fmt.Fprintln(d.W, d.line(now))
	}
}

// Run shows the progress of a run of tasks (mkpoe run): fits and tasks
// done of the run's total, the time since it started, an ETA range
// predicted from the finished units of work (Run.ETA, estimate.go) and
// what the running fits are at. On a terminal one line is redrawn at every Update; in a
// log a block of lines comes every Every:
//
//	progress: 12/40 fits (30%), 3/10 tasks, 1m20s elapsed, ETA 2m10s–3m05s
//	  running cv-…: 45s, fit 3/4 (β=100), iteration 230, accelerated, objective 12.3, certified gap 3.2e-02
//
// Task lines (Println) go between. All methods are safe for concurrent
// use.
type Run struct {
	mu    sync.Mutex
	w     io.Writer
	live  bool
	width int
	every time.Duration
	start time.Time

	tasks, tasksDone int
	fits, fitsDone   int
	phase            int
	running          []*Task // in start order
	printed          time.Time
	drawn            bool
	// bar renders the live line's bar (github.com/schollz/progressbar,
	// without its own clock: elapsed time and ETA are ours, from fits).
	bar *progressbar.ProgressBar

	workers     int
	est         estimator
	planned     map[string]plannedTask // by task ID (Plan)
	order       [2][]string            // planned task IDs by phase, in order
	started     map[string]bool
	startedFits int // fits of the started tasks
	// stopped is the time the process was stopped since the run started
	// (AddStopped); the fits' times exclude it.
	stopped time.Duration
	trace   io.Writer // RunOptions.Trace
	tol     float64   // RunOptions.Tol
	cores   int       // RunOptions.Cores
	// cpu reads the process's CPU time (RunOptions.CPU; nil: none);
	// cpuLast is its reading at cpuAt, when the run's stopped time was
	// cpuStopped. speed holds the intervals between readings (cpuSample).
	cpu        func() time.Duration
	cpuLast    float64
	cpuAt      time.Time
	cpuStopped time.Duration
	speed      []speedSpan
}

// speedSpan is an interval between two readings of the process's CPU
// time during which tasks ran: it ended at end (seconds since the run
// started), lasted wall seconds, the process used cpu seconds and the
// running tasks had slots seconds of wall time between them (the
// interval × their count).
type speedSpan struct{ end, cpu, slots, wall float64 }

// plannedTask is a task of Plan: its phase and units.
type plannedTask struct {
	phase int
	units []Unit
}

// RunOptions configure a Run display.
type RunOptions struct {
	Live  bool          // a terminal: one live line
	Width int           // live line width (0: no limit)
	Every time.Duration // interval of plain blocks (0: PlainEvery; < 0: none)
	// Workers is the number of tasks run at once (0: 1); the ETA
	// schedules the work left on them.
	Workers int
	// Trace, if not nil, receives a line per event the ETA learns from,
	// at its time since the run started (seconds, tab-separated): "start
	// T ID", "fit T ID" (a fit ended), "end T ID" (a task ended) and
	// "stopped D" (the process was stopped for D seconds), and "cpu T
	// SECONDS" (a reading of RunOptions.CPU) and "iter T ID ITER STAGE
	// BEST BOUND NEWTON HANDOVER INTERIOR" (a running fit's report as a
	// tick saw it: Iteration's fields). Recorded
	// timelines take each fit's time from it (docs/progress.md, "How
	// good it is").
	Trace io.Writer
	// CPU, if not nil, returns the CPU time the process has used so far
	// (user and system). The ETA then measures each unit in CPU seconds,
	// the process's CPU time shared equally among the tasks running at
	// the time, and turns the work left into wall time at the rate the
	// running tasks got CPU lately (RunSpeedWindow), so that a change of
	// the machine's load does not skew what the finished units say of
	// the rest (docs/progress.md, "How the ETA is computed"). Nil: wall
	// time.
	CPU func() time.Duration
	// Tol is the fits' target certified gap (mkpoe.Settings.Tol; 0:
	// DefaultTol): the ETA extrapolates a running fit's gap to it
	// (fitLeft).
	Tol float64
	// Cores is the machine's cores (0: runtime.NumCPU()): with CPU, the
	// ETA bounds the rate of fewer running tasks by it (TaskRates).
	Cores int
}

// NewRun returns the display of a run of tasks tasks performing fits
// fits, started at start.
func NewRun(w io.Writer, opt RunOptions, start time.Time, tasks, fits int) *Run {
	if opt.Every == 0 {
		opt.Every = PlainEvery
	}
	r := &Run{w: w, live: opt.Live, width: opt.Width, every: opt.Every, start: start, printed: start, tasks: tasks, fits: fits,
		workers: max(opt.Workers, 1), planned: map[string]plannedTask{}, started: map[string]bool{}, trace: opt.Trace,
		cpu: opt.CPU, cpuAt: start, tol: opt.Tol, cores: opt.Cores}
	if r.cores <= 0 {
		r.cores = runtime.NumCPU()
	}
	if r.tol <= 0 {
		r.tol = DefaultTol
	}
	if r.cpu != nil {
		r.cpuLast = r.cpu().Seconds()
	}
	if opt.Live {
		r.bar = progressbar.NewOptions(max(fits, tasks, 1), progressbar.OptionSetWriter(io.Discard), progressbar.OptionSetWidth(20),
			progressbar.OptionSetElapsedTime(false), progressbar.OptionSetPredictTime(false), progressbar.OptionSetRenderBlankState(true))
	}
	return r
}

// Task is one running task of a Run. Its methods are safe on a nil Task
// (no display).
type Task struct {
	run   *Run
	id    string
	fits  int // fits the task performs
	done  int // fits finished
	start time.Time
	beta  float64
	fit   *Fit // the running fit (nil between fits)

	phase int
	units []Unit    // the task's units: its fits, or one for a native task
	mark  time.Time // the task's start or its last fit's end
	last  int       // its last sample in the estimator (-1: none)
	// startStopped and markStopped are the run's stopped time at start
	// and at mark.
	startStopped, markStopped time.Duration
	// work is the CPU time the task has used (its share of the process's,
	// RunOptions.CPU), and markWork its work at mark.
	work, markWork float64
	// seen holds the running fit's reports as the display's ticks saw
	// them (sampleFits), with its time so far at each (sinceMark).
	seen []fitSample
}

// fitSample is a running fit's report as a tick of the display saw it:
// the fit's time so far then (Task.sinceMark) and the report.
type fitSample struct {
	at float64
	it Iteration
}

// AddStopped records that the process was stopped for d (StartRun): the
// running fits' times exclude it, and so do the estimates made from them.
func (r *Run) AddStopped(d time.Duration) {
	r.mu.Lock()
	r.stopped += max(d, 0)
	if r.trace != nil {
		fmt.Fprintf(r.trace, "stopped\t%.3f\n", max(d, 0).Seconds())
	}
	r.mu.Unlock()
}

// traceEvent writes an event of task id at now to the trace (RunOptions.Trace),
// if any. The caller holds r.mu.
func (r *Run) traceEvent(kind, id string, now time.Time) {
	if r.trace != nil {
		fmt.Fprintf(r.trace, "%s\t%.3f\t%s\n", kind, now.Sub(r.start).Seconds(), id)
	}
}

// Stopped is the time the process was stopped (Run.AddStopped) since t
// started; 0 on a nil Task.
func (t *Task) Stopped() time.Duration {
	if t == nil {
		return 0
	}
	t.run.mu.Lock()
	defer t.run.mu.Unlock()
	return t.run.stopped - t.startStopped
}

// sinceMark is the time t's running fit has run at now: since its task
// started or its previous fit ended, less the time the process was
// stopped meanwhile; with RunOptions.CPU, the CPU time it used since
// (the caller has called cpuSample at now). The caller holds r.mu.
func (t *Task) sinceMark(now time.Time) float64 {
	if t.run.cpu != nil {
		return t.work - t.markWork
	}
	return (now.Sub(t.mark) - (t.run.stopped - t.markStopped)).Seconds()
}

// setMark marks now as the start of t's next fit. The caller holds r.mu.
func (t *Task) setMark(now time.Time) {
	t.mark, t.markStopped, t.markWork = now, t.run.stopped, t.work
	t.seen = t.seen[:0]
}

// maxSeen bounds the reports a running fit keeps (Task.seen): a fit of
// hours would keep some 4 a second.
const maxSeen = 512

// thin halves the older reports of seen once it holds maxSeen, keeping the
// first and the last keepLast as they are: fitLeft reads rates from the
// last few, and from the latter half of the fit's time.
func thin(seen []fitSample) []fitSample {
	const keepLast = 8
	if len(seen) < maxSeen {
		return seen
	}
	old := len(seen) - keepLast
	out := seen[:1]
	for i := 2; i < old; i += 2 {
		out = append(out, seen[i])
	}
	return append(out, seen[old:]...)
}

// sampleFits keeps each running fit's latest report, if new, with its
// time so far (Task.seen), and traces it ("iter T ID ITER STAGE BEST
// BOUND"). The caller holds r.mu and has called cpuSample at now.
func (r *Run) sampleFits(now time.Time) {
	for _, t := range r.running {
		if t.fit == nil {
			continue
		}
		it, ok := t.fit.Last()
		if !ok || (len(t.seen) > 0 && t.seen[len(t.seen)-1].it.Iter == it.Iter) {
			continue
		}
		t.seen = thin(append(t.seen, fitSample{t.sinceMark(now), it}))
		if r.trace != nil {
			fmt.Fprintf(r.trace, "iter\t%.3f\t%s\t%d\t%s\t%.9g\t%.9g\t%.4g\t%d\t%.4g\n", now.Sub(r.start).Seconds(), t.id, it.Iter, it.Stage, it.Best, it.Bound, it.Newton, it.HandOver, it.InteriorCost)
		}
	}
}

// cpuSample reads the process's CPU time at now (RunOptions.CPU) and
// shares what it used since the last reading equally among the running
// tasks: each task's work. The caller holds r.mu and calls it before the
// running tasks change.
func (r *Run) cpuSample(now time.Time) {
	if r.cpu == nil {
		return
	}
	c := r.cpu().Seconds()
	dt := (now.Sub(r.cpuAt) - (r.stopped - r.cpuStopped)).Seconds()
	if dt < 0 || c < r.cpuLast {
		return // a reading out of order: wait for the next
	}
	used := c - r.cpuLast
	if k := len(r.running); k > 0 && dt > 0 {
		for _, t := range r.running {
			t.work += used / float64(k)
		}
		r.speed = append(r.speed, speedSpan{end: now.Sub(r.start).Seconds(), cpu: used, slots: dt * float64(k), wall: dt})
	}
	r.cpuLast, r.cpuAt, r.cpuStopped = c, now, r.stopped
	if r.trace != nil {
		fmt.Fprintf(r.trace, "cpu\t%.3f\t%.3f\n", now.Sub(r.start).Seconds(), c)
	}
}

// RunSpeedWindow is how far back the ETA looks for the rate at which the
// running tasks get CPU time (RunOptions.CPU): the last RunSpeedWindow
// share of the run so far, and at least MinSpeedWindow.
const (
	RunSpeedWindow = 0.2
	MinSpeedWindow = 30 * time.Second
)

// taskSpeed is the CPU seconds a running task got per second of wall
// time over the recent window (RunSpeedWindow) before now, and the mean
// number of tasks running then: what TaskRates turns the ETA's CPU
// seconds into wall time with. 1 and 0 without RunOptions.CPU or before
// any reading.
func (r *Run) taskSpeed(now time.Time) (speed, running float64) {
	if r.cpu == nil || len(r.speed) == 0 {
		return 1, 0
	}
	at := now.Sub(r.start).Seconds()
	from := at - math.Max(RunSpeedWindow*at, MinSpeedWindow.Seconds())
	cpu, slots, wall := 0.0, 0.0, 0.0
	for i := len(r.speed) - 1; i >= 0 && (r.speed[i].end > from || slots == 0); i-- {
		cpu, slots, wall = cpu+r.speed[i].cpu, slots+r.speed[i].slots, wall+r.speed[i].wall
	}
	if cpu <= 0 || slots <= 0 {
		return 1, 0
	}
	return cpu / slots, slots / wall
}

// LoneTaskExponent is how a running task's CPU rate grows as fewer of
// the run's tasks run beside it (TaskRates): rate ∝ (k/j)^LoneTaskExponent
// for j tasks running where k ran while the rate was measured. 0 would
// give each task the same rate whatever runs beside it, 1 keep the
// process's total rate. Measured on the 19 recorded runs with the CPU
// time that end in a lone task for 1.5 s or more (its rate over that
// of each of the two tasks in the 10 s before, as (2/1)^exponent): 0.0
// to 1.5, median 0.82 (docs/notes/progress-log.md, 2026-11-29). It is
// near 0.5 on the busiest runs (the process at 0.2–0.35 cores a task
// beside another copy of itself and other jobs), near 1 where one
// other job held a core (the quickstart's lone k1 full refit at 1.0
// core against 0.50 for each of two), above 1 once (1.28 against
// 0.46). A lone task got more than a core only in that one run.
const LoneTaskExponent = 0.8

// TaskRates returns the CPU seconds per second a running task is
// expected to get while j of the run's tasks run, from the rate speed
// each got while running tasks ran on average (taskSpeed): speed ×
// (running/j)^LoneTaskExponent, but for fewer tasks than measured at
// most the larger of speed and min(1, cores/j), a core each. Without a
// measurement (running 0) it is speed whatever j.
func TaskRates(speed, running float64, cores int) func(j int) float64 {
	return func(j int) float64 {
		if j <= 0 || running <= 0 || speed <= 0 {
			return math.Max(speed, 1e-9)
		}
		v := speed * math.Pow(running/float64(j), LoneTaskExponent)
		if float64(j) < running {
			v = math.Min(v, math.Max(speed, math.Min(1, float64(cores)/float64(j))))
		}
		return v
	}
}

// Live reports whether the display is a live line on a terminal.
func (r *Run) Live() bool { return r.live }

// SetPhase sets the phase shown on the live line.
func (r *Run) SetPhase(p int) {
	r.mu.Lock()
	r.phase = p
	r.mu.Unlock()
}

// Plan records the task id of phase phase (0 or 1) as work to do, with its
// units (one per fit, or one for a native task), in the order the tasks
// will start. The ETA estimates the planned tasks' units
// (docs/progress.md); without a plan it takes every fit left as alike.
func (r *Run) Plan(id string, phase int, units []Unit) {
	r.mu.Lock()
	defer r.mu.Unlock()
	phase = min(max(phase, 0), 1)
	r.planned[id] = plannedTask{phase, units}
	r.order[phase] = append(r.order[phase], id)
}

// SetPlannedBeta tells the ETA the β index a planned task's refit will
// fit at (Task.SetBeta for a task not started yet): the runner knows it
// once its split's cv tasks have ended. A task not planned, or started,
// is left as it is.
func (r *Run) SetPlannedBeta(id string, beta int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.planned[id]
	if !ok || r.started[id] {
		return
	}
	p.units = unitsAtBeta(p.units, beta)
	r.planned[id] = p
}

// unitsAtBeta returns a copy of units with those of unknown β (a
// refit's, Beta -1) moved to index beta of the grid (Unit.atBeta).
func unitsAtBeta(units []Unit, beta int) []Unit {
	out := append([]Unit(nil), units...)
	for i := range out {
		if out[i].Beta == -1 {
			out[i] = out[i].atBeta(beta)
		}
	}
	return out
}

// StartTask records that task id, which performs fits fits, started at now.
func (r *Run) StartTask(id string, fits int, now time.Time) *Task {
	t := &Task{run: r, id: id, fits: fits, start: now, mark: now, last: -1}
	r.mu.Lock()
	r.cpuSample(now)
	t.startStopped, t.markStopped = r.stopped, r.stopped
	if p, ok := r.planned[id]; ok {
		t.phase, t.units = p.phase, p.units
	} else {
		t.units = genericUnits(fits)
	}
	r.started[id] = true
	r.traceEvent("start", id, now)
	r.startedFits += fits
	r.running = append(r.running, t)
	r.mu.Unlock()
	return t
}

// genericUnits are the units of a task that was not planned: fits alike
// fits, or a native task.
func genericUnits(fits int) []Unit {
	if fits == 0 {
		return []Unit{{Row: "native", Mode: "native"}}
	}
	u := make([]Unit, fits)
	for i := range u {
		u[i] = Unit{Row: "fit"}
	}
	return u
}

// StartFit records that the task's next fit, at β = beta, started, and
// returns the function that receives its reports (nil on a nil Task).
func (t *Task) StartFit(beta float64) func(Iteration) {
	if t == nil {
		return nil
	}
	f := &Fit{}
	t.run.mu.Lock()
	t.fit, t.beta = f, beta
	t.run.mu.Unlock()
	return f.Record
}

// SetBeta records that the task's fits of unknown β (a refit's, Beta -1)
// are at index beta of the grid, once the task has chosen it.
func (t *Task) SetBeta(beta int) {
	if t == nil {
		return
	}
	t.run.mu.Lock()
	defer t.run.mu.Unlock()
	t.units = unitsAtBeta(t.units, beta)
}

// EndFit records that the task's running fit ended at now; the time since
// the task started or its previous fit ended is the fit's time.
func (t *Task) EndFit(now time.Time) {
	if t == nil {
		return
	}
	r := t.run
	r.mu.Lock()
	defer r.mu.Unlock()
	t.fit = nil
	if t.done < t.fits {
		r.cpuSample(now)
		if t.done < len(t.units) {
			t.last = r.est.add(t.units[t.done], t.sinceMark(now))
		}
		t.setMark(now)
		t.done++
		r.fitsDone++
		r.traceEvent("fit", t.id, now)
	}
}

// EndTask records that t ended at now and prints line (if not empty)
// above the live line or as a log line. The fits t did not perform (it
// failed) count as done: they are no longer to be done.
func (r *Run) EndTask(t *Task, line string, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cpuSample(now)
	switch {
	case t.fits == 0 && len(t.units) > 0:
		// A native task fits nothing: its mark is still its start.
		r.est.add(t.units[0], t.sinceMark(now))
	case t.last >= 0 && t.done == t.fits:
		// Scoring after the last fit: part of its time.
		r.est.samples[t.last].sec += t.sinceMark(now)
		r.est.dirty = true
	}
	r.traceEvent("end", t.id, now)
	r.fitsDone += t.fits - t.done
	t.done = t.fits
	r.tasksDone++
	for i, u := range r.running {
		if u == t {
			r.running = append(r.running[:i], r.running[i+1:]...)
			break
		}
	}
	r.println(line, now)
}

// Println prints line above the live line, or as a log line.
func (r *Run) Println(line string, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.println(line, now)
}

func (r *Run) println(line string, now time.Time) {
	if line == "" {
		return
	}
	if r.drawn {
		fmt.Fprint(r.w, clearLine)
	}
	fmt.Fprintln(r.w, line)
	if r.drawn {
		r.draw(now)
	}
}

// Counts returns the fits and tasks done and in all.
func (r *Run) Counts() (fitsDone, fits, tasksDone, tasks int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fitsDone, r.fits, r.tasksDone, r.tasks
}

// ETA returns the estimated time left at now (docs/progress.md, "How the
// ETA is computed"), and false while nothing comparable to the work left
// has finished.
func (r *Run) ETA(now time.Time) (Estimate, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.eta(now)
}

func (r *Run) eta(now time.Time) (Estimate, bool) {
	if r.tasksDone >= r.tasks && len(r.running) == 0 {
		return Estimate{}, true
	}
	r.cpuSample(now)
	r.est.rebuild()
	// The work left is in CPU seconds with RunOptions.CPU: each running
	// task does it at the rate TaskRates expects for the number of tasks
	// running beside it (nil: wall time, as measured).
	var rate func(j int) float64
	if speed, running := r.taskSpeed(now); r.cpu != nil && running > 0 {
		rate = TaskRates(speed, running, r.cores)
	}
	var est [3]float64 // low, middle, high
	for k := 0; k < 3; k++ {
		var busy, queue [2][]float64
		for _, t := range r.running {
			left := 0.0
			for i := t.done; i < len(t.units); i++ {
				c, ok := r.unitCost(t.units[i], k)
				if !ok {
					return Estimate{}, false
				}
				if i == t.done {
					// The running unit: what is left of it. One that
					// nears or overruns its estimate may take a quarter
					// as long again (the high end), or end now (the low
					// end). (Half as long again put the middle of the
					// range at 2 s with 0.3 s left in the quickstart:
					// docs/notes/progress-log.md.)
					e := t.sinceMark(now)
					c = math.Max(c-e, 0)
					if k == 2 {
						c = math.Max(c, e/4)
					}
					if f, ok := fitLeft(t.seen, r.tol); ok {
						// What its own progress says (fitLeft), from the
						// time of its last report seen.
						f = math.Max(f-(e-t.seen[len(t.seen)-1].at), 0)
						c = [3]float64{FitLeftLo * f, f, FitLeftHi * f}[k]
					}
				}
				left += c
			}
			busy[t.phase] = append(busy[t.phase], left)
		}
		for p := 0; p < 2; p++ {
			for _, id := range r.order[p] {
				if r.started[id] {
					continue
				}
				left := 0.0
				for _, u := range r.planned[id].units {
					c, ok := r.unitCost(u, k)
					if !ok {
						return Estimate{}, false
					}
					left += c
				}
				queue[p] = append(queue[p], left)
			}
		}
		if len(r.planned) == 0 {
			// No plan: every fit left is alike (a native task when the
			// run fits nothing).
			u, n := genericUnits(1)[0], r.fits-r.startedFits
			if r.fits == 0 {
				u, n = genericUnits(0)[0], r.tasks-len(r.started)
			}
			for i := 0; i < n; i++ {
				c, ok := r.unitCost(u, k)
				if !ok {
					return Estimate{}, false
				}
				queue[0] = append(queue[0], c)
			}
		}
		est[k] = schedule(r.workers, busy, queue, rate)
	}
	return Estimate{Low: seconds(est[0]), Mid: seconds((est[0] + est[2]) / 2), High: seconds(est[2])}, true
}

// unitCost is the estimator's low (k = 0), middle (1) or high (2) cost of u.
func (r *Run) unitCost(u Unit, k int) (float64, bool) {
	lo, mid, hi, ok := r.est.cost(u)
	return [3]float64{lo, mid, hi}[k], ok
}

func (r *Run) etaText(now time.Time) string {
	if eta, ok := r.eta(now); ok {
		return eta.text()
	}
	return "ETA unknown (nothing comparable done yet)"
}

// Update shows the progress at now if it is due: the live line at every
// call, the plain block every Every.
func (r *Run) Update(now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cpuSample(now) // every tick: the recent rate follows the load
	r.sampleFits(now)
	if r.live {
		r.draw(now)
		return
	}
	if r.every < 0 || now.Sub(r.printed) < r.every {
		return
	}
	r.printed = now
	fmt.Fprintf(r.w, "progress: %s, %d/%d tasks, %s elapsed, %s\n", r.fitsText(), r.tasksDone, r.tasks,
		FormatDuration(now.Sub(r.start)), r.etaText(now))
	for i, t := range r.running {
		if i == maxRunningLines {
			fmt.Fprintf(r.w, "  and %d more running\n", len(r.running)-i)
			break
		}
		fmt.Fprintf(r.w, "  running %s: %s\n", t.id, r.taskText(t, now))
	}
}

// maxRunningLines bounds the running tasks a plain block lists (the ones
// that started first; a run on many cores would flood its log).
const maxRunningLines = 8

func (r *Run) fitsText() string {
	pct := 100.0
	if r.fits > 0 {
		pct = 100 * float64(r.fitsDone) / float64(r.fits)
	}
	return fmt.Sprintf("%d/%d fits (%.0f%%)", r.fitsDone, r.fits, pct)
}

// taskText describes a running task: its time, and its running fit.
func (r *Run) taskText(t *Task, now time.Time) string {
	s := FormatDuration(now.Sub(t.start))
	switch {
	case t.fits == 0:
		return s + ", no fit (native space)"
	case t.fit == nil:
		return s + fmt.Sprintf(", %d/%d fits done, preparing", t.done, t.fits)
	}
	return s + fmt.Sprintf(", fit %d/%d (β=%.4g), %s", t.done+1, t.fits, t.beta, Describe(t.fit.Last()))
}

// draw redraws the live line:
//
//	phase 0 30% |██████              | 12/40 fits · 3/10 tasks · 1m20s · ETA 2m10s–3m05s · cv-…: fit 3/4 β=100 it 230 accelerated gap 3.2e-02
//
// showing the running task that started first. The bar is progressbar's
// rendering of the fits done (tasks when no task fits anything).
func (r *Run) draw(now time.Time) {
	done := r.fitsDone
	if r.fits == 0 {
		done = r.tasksDone
	}
	_ = r.bar.Set(done) // renders to io.Discard; String returns it
	bar := strings.TrimSpace(strings.TrimPrefix(r.bar.String(), "\r"))
	s := fmt.Sprintf("phase %d %s %d/%d fits · %d/%d tasks · %s · %s", r.phase, bar, r.fitsDone, r.fits, r.tasksDone, r.tasks,
		FormatDuration(now.Sub(r.start)), r.etaText(now))
	if len(r.running) > 0 {
		t := r.running[0]
		s += " · " + t.id + ": "
		switch {
		case t.fits == 0:
			s += "no fit"
		case t.fit == nil:
			s += "preparing"
		default:
			s += fmt.Sprintf("fit %d/%d β=%g %s", t.done+1, t.fits, t.beta, describeShort(t.fit.Last()))
		}
	}
	fmt.Fprint(r.w, clearLine+truncate(s, r.width))
	r.drawn = true
}

// Finish erases the live line (what follows is the run's own output).
func (r *Run) Finish() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.drawn {
		fmt.Fprint(r.w, clearLine)
		r.drawn = false
	}
}

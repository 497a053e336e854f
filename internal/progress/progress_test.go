package progress

import (
	"io"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// t0 is the made-up start time of every display in these tests.
var t0 = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

func TestFormatDuration(t *testing.T) {
	for _, test := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{-time.Second, "0s"},
		{1400 * time.Millisecond, "1s"},
		{59600 * time.Millisecond, "1m00s"},
		{190 * time.Second, "3m10s"},
		{2*time.Hour + 5*time.Minute + 59*time.Second, "2h05m"},
	} {
		if got := FormatDuration(test.d); got != test.want {
			t.Errorf("FormatDuration(%v) = %q, want %q", test.d, got, test.want)
		}
	}
}

// withGap sets it.Gap to the certified relative gap (Best − Bound)/Best, 0
// when Best is not positive, as mkpoe.Iteration.Gap computes it
// (experiments' TestFitRecorder checks the copy).
func withGap(it Iteration) Iteration {
	if it.Best > 0 {
		it.Gap = (it.Best - it.Bound) / it.Best
	}
	return it
}

func TestDescribe(t *testing.T) {
	for _, test := range []struct {
		it   Iteration
		ok   bool
		want string
	}{
		{Iteration{}, false, "setting up (no iteration yet)"},
		{withGap(Iteration{Iter: 430, Best: 12.3456, Bound: 12.0864, Stage: "interior-point"}), true,
			"iteration 430, interior-point, objective 12.3456, certified gap 2.1e-02"},
		{withGap(Iteration{Iter: 60, Best: 49727.9, Bound: 22000, Stage: "low-rank", Rank: 24}), true,
			"iteration 60, low-rank (rank 24), objective 49727.9, certified gap 5.6e-01"},
		{withGap(Iteration{Iter: 7, Best: 2.5, Stage: "subgradient"}), true,
			"iteration 7, subgradient, objective 2.5, no certificate yet"},
		{withGap(Iteration{Iter: 9, Best: 2, Bound: 2.0000000001, Stage: "accelerated"}), true,
			"iteration 9, accelerated, objective 2, certified gap 0.0e+00"}, // round-off below 0 shows as 0
	} {
		if got := Describe(test.it, test.ok); got != test.want {
			t.Errorf("Describe(%+v) = %q, want %q", test.it, got, test.want)
		}
	}
}

// fitEvent is a step of a fit display test: a report (it set) or an
// Update or Finish at a time.
type fitEvent struct {
	at     time.Duration
	it     *Iteration
	finish bool
}

func TestFitDisplay(t *testing.T) {
	acc := withGap(Iteration{Iter: 40, Best: 12.3456, Bound: 11.1110, Stage: "accelerated"})
	ipm := withGap(Iteration{Iter: 412, Best: 12.3, Bound: 12.2877, Stage: "interior-point"})
	for _, test := range []struct {
		name   string
		live   bool
		width  int
		events []fitEvent
		want   string
	}{
		{"fast fit, log: nothing", false, 0, []fitEvent{{at: 0, it: &acc}, {at: time.Second}, {at: 1900 * time.Millisecond, finish: true}}, ""},
		{"fast fit, terminal: nothing", true, 0, []fitEvent{{at: 0, it: &acc}, {at: time.Second}, {at: 1900 * time.Millisecond, finish: true}}, ""},
		{"slow fit, log: a line at 2 s, every 30 s, and at the end", false, 0, []fitEvent{
			{at: time.Second},
			{at: 2 * time.Second},
			{at: 3 * time.Second, it: &acc},
			{at: 20 * time.Second},
			{at: 32 * time.Second},
			{at: 33 * time.Second, it: &ipm},
			{at: 61 * time.Second},
			{at: 62 * time.Second},
			{at: 70 * time.Second, finish: true},
		}, "fit: 2s, setting up (no iteration yet)\n" +
			"fit: 32s, iteration 40, accelerated, objective 12.3456, certified gap 1.0e-01 (target 1.0e-03)\n" +
			"fit: 1m02s, iteration 412, interior-point, objective 12.3, certified gap 1.0e-03 (target 1.0e-03)\n" +
			"fit: 1m10s, iteration 412, interior-point, objective 12.3, certified gap 1.0e-03 (target 1.0e-03)\n"},
		{"slow fit, terminal: redrawn at every update, erased at the end", true, 0, []fitEvent{
			{at: time.Second, it: &acc},
			{at: 2 * time.Second},
			{at: 2250 * time.Millisecond, it: &ipm},
			{at: 2500 * time.Millisecond},
			{at: 3 * time.Second, finish: true},
		}, "\r\x1b[Kfit: 2s, iteration 40, accelerated, objective 12.3456, certified gap 1.0e-01 (target 1.0e-03)" +
			"\r\x1b[Kfit: 3s, iteration 412, interior-point, objective 12.3, certified gap 1.0e-03 (target 1.0e-03)" +
			"\r\x1b[K"},
		{"terminal: cut to its width", true, 24, []fitEvent{{at: 0, it: &acc}, {at: 5 * time.Second}, {at: 6 * time.Second, finish: true}},
			"\r\x1b[Kfit: 5s, iteration 40, a\r\x1b[K"},
	} {
		t.Run(test.name, func(t *testing.T) {
			var b strings.Builder
			d := NewFitDisplay(&b, test.live, t0)
			d.Tol, d.Width = 1e-3, test.width
			for _, e := range test.events {
				switch {
				case e.it != nil:
					d.Fit.Record(*e.it)
				case e.finish:
					d.Finish(at(e.at))
				default:
					d.Update(at(e.at))
				}
			}
			if got := b.String(); got != test.want {
				t.Errorf("output\n%q\nwant\n%q", got, test.want)
			}
		})
	}
}

// TestRunPlain follows a run of three tasks (a cv task of 4 fits, a
// native task, a refit) through a log: the ETA counts fits, a failed
// task's missing fits count as done, and the progress block lists the
// running tasks with their fits.
func TestRunPlain(t *testing.T) {
	var b strings.Builder
	r := NewRun(&b, RunOptions{}, t0, 3, 5)
	cv := r.StartTask("cv-a", 4, at(0))
	native := r.StartTask("native-b", 0, at(0))
	rec := cv.StartFit(1)
	rec(withGap(Iteration{Iter: 12, Best: 4.5, Bound: 4, Stage: "accelerated"}))
	r.Update(at(29 * time.Second)) // not due
	r.Update(at(30 * time.Second))
	cv.EndFit(at(30 * time.Second))
	r.EndTask(native, "[1/2] native-b ok 31.0s", at(31*time.Second))
	cv.StartFit(10)
	r.Update(at(45 * time.Second)) // not due: 15 s since the last block
	r.Update(at(60 * time.Second))
	cv.EndFit(at(60 * time.Second))
	r.EndTask(cv, "[2/2] cv-a failed 70.0s: β=100: boom", at(70*time.Second)) // fits 3 and 4 will not run
	refit := r.StartTask("refit-c", 1, at(70*time.Second))
	r.Update(at(90 * time.Second))
	refit.StartFit(100)
	r.Update(at(95 * time.Second)) // not due
	want := "" +
		"progress: 0/5 fits (0%), 0/3 tasks, 30s elapsed, ETA unknown (nothing comparable done yet)\n" +
		"  running cv-a: 30s, fit 1/4 (β=1), iteration 12, accelerated, objective 4.5, certified gap 1.1e-01\n" +
		"  running native-b: 30s, no fit (native space)\n" +
		"[1/2] native-b ok 31.0s\n" +
		"progress: 1/5 fits (20%), 1/3 tasks, 1m00s elapsed, ETA 1m17s–1m56s\n" + // 30 s a fit, 3 left (one has run 30 s: up to 7.5 s more)
		"  running cv-a: 1m00s, fit 2/4 (β=10), setting up (no iteration yet)\n" +
		"[2/2] cv-a failed 70.0s: β=100: boom\n" +
		"progress: 4/5 fits (80%), 2/3 tasks, 1m30s elapsed, ETA 6s–16s\n" + // the last has run 20 s of its 30 s
		"  running refit-c: 20s, 0/1 fits done, preparing\n"
	if got := b.String(); got != want {
		t.Errorf("output\n%s\nwant\n%s", got, want)
	}
	// Fits took 30 s each; the refit has run 20 s of its 30 s (25.5–36 s).
	if eta, ok := r.ETA(at(90 * time.Second)); !ok || !near(eta, Estimate{5500 * time.Millisecond, 10750 * time.Millisecond, 16 * time.Second}) {
		t.Errorf("ETA %+v, %v; want 5.5s–16s", eta, ok)
	}
}

// TestRunETAFromFits is the hand-computed case: 10 fits done of 40 in 20 s
// leave 30 fits at 2 s each: 60 s, however many tasks are done, within
// the range of the most similar level (−15%, +20%): 51–72 s, middle
// 61.5 s.
func TestRunETAFromFits(t *testing.T) {
	r := NewRun(&strings.Builder{}, RunOptions{}, t0, 5, 40)
	task := r.StartTask("cv", 40, t0)
	for i := 0; i < 10; i++ {
		task.StartFit(1)
		task.EndFit(at(time.Duration(2*(i+1)) * time.Second))
	}
	if eta, ok := r.ETA(at(20 * time.Second)); !ok || !near(eta, Estimate{51 * time.Second, 61500 * time.Millisecond, 72 * time.Second}) {
		t.Errorf("ETA %+v, %v; want 51s–72s", eta, ok)
	}
	// Without fits (native tasks only) the ETA counts tasks: 3 left at 1 s.
	n := NewRun(&strings.Builder{}, RunOptions{}, t0, 4, 0)
	n.EndTask(n.StartTask("native", 0, t0), "", at(time.Second))
	if eta, ok := n.ETA(at(10 * time.Second)); !ok || !near(eta, Estimate{2550 * time.Millisecond, 3075 * time.Millisecond, 3600 * time.Millisecond}) {
		t.Errorf("native-only ETA %+v, %v; want 2.55s–3.6s", eta, ok)
	}
}

// TestRunLive: the live line is redrawn in place, task lines print above
// it, and Finish erases it.
func TestRunLive(t *testing.T) {
	var b strings.Builder
	r := NewRun(&b, RunOptions{Live: true}, t0, 2, 4)
	task := r.StartTask("cv-a", 4, t0)
	r.Update(at(time.Second))
	rec := task.StartFit(100)
	rec(withGap(Iteration{Iter: 230, Best: 12, Bound: 11.616, Stage: "accelerated"}))
	task.EndFit(at(1500 * time.Millisecond))
	task.StartFit(1000)(withGap(Iteration{Iter: 3, Best: 12, Stage: "accelerated"}))
	r.Update(at(2 * time.Second))
	r.Println("cv-a: not converged", at(3*time.Second))
	r.Finish()
	line1 := "\r\x1b[Kphase 0 0% |                    | 0/4 fits · 0/2 tasks · 1s · ETA unknown (nothing comparable done yet) · cv-a: preparing"
	line2 := "\r\x1b[Kphase 0 25% |█████               | 1/4 fits · 0/2 tasks · 2s · ETA 3s–5s · cv-a: fit 2/4 β=1000 it 3 accelerated"
	line3 := "\r\x1b[Kphase 0 25% |█████               | 1/4 fits · 0/2 tasks · 3s · ETA 3s–4s · cv-a: fit 2/4 β=1000 it 3 accelerated"
	want := line1 + line2 + "\r\x1b[Kcv-a: not converged\n" + line3 + "\r\x1b[K"
	if got := b.String(); got != want {
		t.Errorf("output\n%q\nwant\n%q", got, want)
	}
	// Cut to the terminal's width.
	var c strings.Builder
	w := NewRun(&c, RunOptions{Live: true, Width: 12}, t0, 1, 1)
	w.SetPhase(1)
	w.Update(at(time.Second))
	if got, want := c.String(), "\r\x1b[Kphase 1 0% |"; got != want {
		t.Errorf("narrow terminal: %q, want %q", got, want)
	}
}

// TestRunManyRunning: a log lists at most maxRunningLines running tasks.
func TestRunManyRunning(t *testing.T) {
	var b strings.Builder
	r := NewRun(&b, RunOptions{Every: time.Second}, t0, 20, 0)
	for i := 0; i < 10; i++ {
		r.StartTask("native-"+string(rune('a'+i)), 0, t0)
	}
	r.Update(at(time.Second))
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 1+maxRunningLines+1 || lines[len(lines)-1] != "  and 2 more running" || lines[1] != "  running native-a: 1s, no fit (native space)" {
		t.Errorf("block:\n%s", b.String())
	}
}

// TestNilTask: a nil Task (no display) does nothing and gives no Recorder.
func TestNilTask(t *testing.T) {
	var task *Task
	if task.StartFit(1) != nil {
		t.Error("a nil Task gave a Recorder")
	}
	task.EndFit(t0)
}

// TestStart: updates come from the ticker until stop, which waits for the
// last one (no update after stop returns).
func TestStart(t *testing.T) {
	var calls atomic.Int64
	first := make(chan struct{})
	stop := Start(time.Millisecond, func(time.Time) {
		if calls.Add(1) == 1 {
			close(first)
		}
	})
	<-first
	stop()
	n := calls.Load()
	time.Sleep(5 * time.Millisecond)
	if calls.Load() != n {
		t.Error("an update ran after stop returned")
	}
	stop() // a second stop is harmless
}

// TestStartRunNoticesAStop: a tick more than StoppedGap late (the process
// was stopped: Ctrl-Z, a suspended batch job) reports the time between,
// less the interval, before the update; ticks on time report nothing.
func TestStartRunNoticesAStop(t *testing.T) {
	var mu sync.Mutex
	clock := t0
	var stopped []time.Duration
	updates := 0
	ticked := make(chan struct{}, 100)
	stop := startTicker(time.Millisecond, func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		clock = clock.Add(time.Second)
		if updates == 3 {
			clock = clock.Add(10 * time.Minute) // stopped before the fourth tick
		}
		return clock
	}, func(time.Time) {
		mu.Lock()
		updates++
		mu.Unlock()
		ticked <- struct{}{}
	}, func(d time.Duration) {
		mu.Lock()
		stopped = append(stopped, d)
		mu.Unlock()
	})
	for range 6 {
		<-ticked
	}
	stop()
	mu.Lock()
	defer mu.Unlock()
	// The clock moves 1 s a tick on a 1 ms ticker: late by 1 s, not a stop.
	if want := 10*time.Minute + time.Second - time.Millisecond; len(stopped) != 1 || stopped[0] != want {
		t.Errorf("stops %v, want one of %v", stopped, want)
	}
}

// TestRunStopped: a run stopped for ten minutes in the middle of a fit
// (AddStopped, as StartRun reports it) estimates as the same run not
// stopped: the fits' times and the running fit's exclude the stop. The
// task that was running says how long it was stopped (Task.Stopped, which
// the runner takes out of its seconds).
func TestRunStopped(t *testing.T) {
	units := func(row string) []Unit {
		return []Unit{{Row: row, Mode: "diag", Beta: 0, Size: 1, Prior: 1}, {Row: row, Mode: "diag", Beta: 0, Size: 1, Prior: 1}}
	}
	const pause = 10 * time.Minute
	var eta [2]Estimate
	for i, stop := range []time.Duration{0, pause} {
		r := NewRun(io.Discard, RunOptions{Every: -1}, t0, 3, 6)
		for _, id := range []string{"a", "b", "c"} {
			r.Plan(id, 0, units("k1diag-x"))
		}
		a := r.StartTask("a", 2, at(0))
		a.StartFit(1)
		a.EndFit(at(2 * time.Second))
		a.StartFit(1)
		r.AddStopped(stop) // stopped during the second fit
		a.EndFit(at(4*time.Second + stop))
		r.EndTask(a, "", at(4*time.Second+stop))
		b := r.StartTask("b", 2, at(4*time.Second+stop))
		b.StartFit(1)
		if a.Stopped() != stop || b.Stopped() != 0 || (*Task)(nil).Stopped() != 0 {
			t.Errorf("stopped %v: tasks' stopped times %v, %v; want %v, 0", stop, a.Stopped(), b.Stopped(), stop)
		}
		var ok bool
		if eta[i], ok = r.ETA(at(5*time.Second + stop)); !ok {
			t.Fatalf("stopped %v: no ETA", stop)
		}
	}
	if eta[0] != eta[1] || eta[0].Mid < time.Second || eta[0].Mid > 10*time.Second {
		t.Errorf("ETA %v when stopped for %v, %v when not; want equal, a few seconds", eta[1], pause, eta[0])
	}
}

// TestTerminal: a buffer or io.Discard is not a terminal (progress then
// goes as plain lines).
func TestTerminal(t *testing.T) {
	for _, w := range []io.Writer{&strings.Builder{}, io.Discard} {
		if live, width := Terminal(w); live || width != 0 {
			t.Errorf("%T: terminal %v, width %d", w, live, width)
		}
	}
}

func TestInterval(t *testing.T) {
	for _, test := range []struct {
		live  bool
		every time.Duration
		want  time.Duration
	}{
		{true, 30 * time.Second, LiveEvery},
		{false, 30 * time.Second, time.Second},
		{false, 10 * time.Millisecond, 10 * time.Millisecond},
		{false, 0, time.Second},
		{false, -1, time.Second},
	} {
		if got := Interval(test.live, test.every); got != test.want {
			t.Errorf("Interval(%v, %v) = %v, want %v", test.live, test.every, got, test.want)
		}
	}
}

// TestPlainOff: with Every ≤ 0 (--progress-every 0) a log gets no progress
// lines, only the task lines; a terminal still gets its live line.
func TestPlainOff(t *testing.T) {
	var b strings.Builder
	d := NewFitDisplay(&b, false, t0)
	d.Every = 0
	d.Fit.Record(withGap(Iteration{Iter: 1, Best: 1, Stage: "accelerated"}))
	d.Update(at(time.Hour))
	d.Finish(at(2 * time.Hour))
	r := NewRun(&b, RunOptions{Every: -1}, t0, 1, 1)
	r.Update(at(time.Hour))
	r.EndTask(r.StartTask("x", 1, t0), "[1/1] x ok 1.0s", at(time.Hour))
	if got, want := b.String(), "[1/1] x ok 1.0s\n"; got != want {
		t.Errorf("output %q, want %q", got, want)
	}
	var live strings.Builder
	l := NewFitDisplay(&live, true, t0)
	l.Every = 0
	l.Update(at(time.Hour))
	if !strings.HasPrefix(live.String(), "\r\x1b[Kfit: 1h00m, ") {
		t.Errorf("terminal output %q, want the live line", live.String())
	}
}

// near reports whether e is within a millisecond of want, end by end.
func near(e, want Estimate) bool {
	d := func(a, b time.Duration) bool { return (a - b).Abs() <= time.Millisecond }
	return d(e.Low, want.Low) && d(e.Mid, want.Mid) && d(e.High, want.High)
}

// TestRunTrace checks the trace a Run writes (RunOptions.Trace): a line
// per task start, fit end and task end at its time since the run started,
// and the time the process was stopped.
func TestRunTrace(t *testing.T) {
	var trace strings.Builder
	r := NewRun(&strings.Builder{}, RunOptions{Every: -1, Workers: 2, Trace: &trace}, t0, 2, 2)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	cv := r.StartTask("cv-a-s00-f00", 2, at(10))
	native := r.StartTask("native-a-s00", 0, at(20))
	r.EndTask(native, "", at(45))
	cv.StartFit(10)
	cv.EndFit(at(1250))
	r.AddStopped(7 * time.Second)
	cv.StartFit(100)
	cv.EndFit(at(9500))
	r.EndTask(cv, "", at(9600))
	want := "start\t0.010\tcv-a-s00-f00\nstart\t0.020\tnative-a-s00\nend\t0.045\tnative-a-s00\n" +
		"fit\t1.250\tcv-a-s00-f00\nstopped\t7.000\nfit\t9.500\tcv-a-s00-f00\nend\t9.600\tcv-a-s00-f00\n"
	if got := trace.String(); got != want {
		t.Errorf("trace:\n%s\nwant:\n%s", got, want)
	}
}

// TestRunCPUShares checks how a Run with RunOptions.CPU measures its
// units: the process's CPU time between readings is shared equally among
// the tasks running then, a fit's cost is its task's share from its start
// to its end, a reading below the last is skipped, and the ETA's speed is
// the CPU per running task and second over the recent window. Task a
// runs alone for 10 s (5 CPU s), with b for 10 s (4 CPU s, 2 each), then b
// alone for 10 s (3 CPU s).
func TestRunCPUShares(t *testing.T) {
	for _, test := range []struct {
		name      string
		readings  map[float64]float64 // CPU seconds read at a time (s)
		wantA     float64             // a's fit
		wantB     float64             // b's fit
		wantSpeed float64             // at 30 s: the last 30 s
		wantRun   float64             // tasks running on average then
	}{
		{"in order", map[float64]float64{0: 0, 10: 5, 20: 9, 30: 12}, 7, 5, 12.0 / 40, 40.0 / 30},
		// The reading at 20 s, below the last, is skipped (no share is
		// negative): the 7 CPU s from 10 to 30 s go to the task running
		// at the next reading, b, over 20 task-seconds.
		{"a reading out of order", map[float64]float64{0: 0, 10: 5, 20: 4, 30: 12}, 5, 7, 12.0 / 30, 1},
	} {
		t.Run(test.name, func(t *testing.T) {
			clock := 0.0
			at := func(s float64) time.Time { clock = s; return t0.Add(time.Duration(s * float64(time.Second))) }
			cpu := func() time.Duration { return time.Duration(test.readings[clock] * float64(time.Second)) }
			r := NewRun(&strings.Builder{}, RunOptions{Every: -1, Workers: 2, CPU: cpu}, at(0), 2, 2)
			r.Plan("a", 0, []Unit{{Row: "r", Mode: "diag", Size: 0.5, Prior: 1}})
			r.Plan("b", 0, []Unit{{Row: "r", Mode: "diag", Size: 0.5, Prior: 1}})
			a := r.StartTask("a", 1, at(0))
			a.StartFit(1)
			b := r.StartTask("b", 1, at(10))
			b.StartFit(1)
			a.EndFit(at(20))
			r.EndTask(a, "", at(20))
			b.EndFit(at(30))
			got := []float64{r.est.samples[0].sec, r.est.samples[1].sec}
			if math.Abs(got[0]-test.wantA) > 1e-9 || math.Abs(got[1]-test.wantB) > 1e-9 {
				t.Errorf("fits cost %v CPU s, want a %g, b %g", got, test.wantA, test.wantB)
			}
			if v, k := r.taskSpeed(at(30)); math.Abs(v-test.wantSpeed) > 1e-9 || math.Abs(k-test.wantRun) > 1e-9 {
				t.Errorf("speed %g CPU s per task-second with %g tasks running, want %g with %g", v, k, test.wantSpeed, test.wantRun)
			}
		})
	}
}

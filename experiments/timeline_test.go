package experiments

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/internal/progress"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// TestRecordTimelines writes the recorded task timelines that
// internal/progress's TestETAOnRecordedTimelines replays, from finished
// run directories. It is a generator, skipped unless
// MKPOE_RECORD_TIMELINES names the run directories (comma-separated):
//
//	MKPOE_RECORD_TIMELINES=results/aset400_splits go test ./experiments -run TestRecordTimelines
//
// writes internal/progress/testdata/timeline-aset400_splits.tsv. It only
// reads the run directory (config.resolved.yaml, env.json, tasks/, and
// eta-trace.tsv if there is one) and the config's data set (for the ETA's
// prior, as the runner computes it). A run made with MKPOE_ETA_TRACE
// (ETATraceEnv) set to RUN_DIR/eta-trace.tsv records each fit's end; its
// timeline then holds each task's fits' measured times.
func TestRecordTimelines(t *testing.T) {
	dirs := os.Getenv("MKPOE_RECORD_TIMELINES")
	if dirs == "" {
		t.Skip("a generator: set MKPOE_RECORD_TIMELINES to run directories to record")
	}
	for _, dir := range strings.Split(dirs, ",") {
		b, err := recordTimeline(dir)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join("..", "internal", "progress", "testdata", "timeline-"+filepath.Base(filepath.Clean(dir))+".tsv")
		if err := os.WriteFile(out, b, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes", out, len(b))
	}
}

// recordTimeline turns a finished run directory into a recorded timeline
// (the format is described in the file's header it writes). A task's
// start is its task file's modification time (when it was saved, just
// after it ended) less its seconds.
func recordTimeline(dir string) ([]byte, error) {
	c, err := LoadConfig(filepath.Join(dir, "config.resolved.yaml"))
	if err != nil {
		return nil, err
	}
	ds, err := c.loadAndCheckData()
	if err != nil {
		return nil, err
	}
	ps := newPlanSize(c, ds)
	var env map[string]string
	b, err := os.ReadFile(filepath.Join(dir, "env.json"))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &env); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "env.json"), err)
	}
	if env["workers"] == "" || env["linalg_backend"] == "" {
		return nil, fmt.Errorf("%s: no workers or backend recorded (a run of an older mkpoe)", filepath.Join(dir, "env.json"))
	}
	// The run's build, not this test binary's, priced its units.
	ps.backend = env["linalg_backend"]
	type rec struct {
		t          results.Task
		res        results.TaskResult
		start, end float64
		fits       []float64 // each fit's end (the trace's)
		traced     bool
	}
	var recs []rec
	first := math.Inf(1)
	for _, task := range Plan(c) {
		path := filepath.Join(dir, "tasks", task.ID+".json")
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("the run is not finished: %w", err)
		}
		var res results.TaskResult
		if err := json.Unmarshal(b, &res); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if res.Status != "ok" || res.ConfigHash != c.Hash() {
			return nil, fmt.Errorf("%s: status %q, config hash %s (the config's: %s)", path, res.Status, res.ConfigHash, c.Hash())
		}
		fi, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		end := float64(fi.ModTime().UnixNano()) / 1e9
		recs = append(recs, rec{task, res, end - res.Seconds, end, nil, false})
		first = math.Min(first, end-res.Seconds)
	}
	trace, cpu, err := readETATrace(filepath.Join(dir, "eta-trace.tsv"))
	if err != nil {
		return nil, err
	}
	if trace != nil {
		first = math.Inf(1)
		for i := range recs {
			tr, ok := trace[recs[i].t.ID]
			if !ok || len(tr.fits) != TaskFits(c, recs[i].t) {
				return nil, fmt.Errorf("%s: task %s traced with %d fits, want %d (the trace of another run?)", dir, recs[i].t.ID, len(tr.fits), TaskFits(c, recs[i].t))
			}
			recs[i].start, recs[i].end, recs[i].fits, recs[i].traced = tr.start, tr.end, tr.fits, true
			first = math.Min(first, tr.start)
		}
	}
	// The order the run started its tasks (the runner's runOrder in a
	// run of today's mkpoe, plan order in older ones): the ETA schedules
	// the tasks left in that order.
	sort.SliceStable(recs, func(i, j int) bool {
		if recs[i].t.Phase != recs[j].t.Phase {
			return recs[i].t.Phase < recs[j].t.Phase
		}
		return recs[i].start < recs[j].start
	})
	var w strings.Builder
	writeTimelineHeader(&w, fmt.Sprintf("%s (config hash %s, %s, build tags %q, started %s, %s workers on %s cores)",
		filepath.Base(filepath.Clean(dir)), c.Hash(), env["module"], env["build_tags"], env["started"], env["workers"], env["cores"]))
	fmt.Fprintf(&w, "workers\t%s\n", env["workers"])
	fmt.Fprintf(&w, "backend\t%s\n", ps.backend)
	seen := map[string]bool{}
	for _, r := range recs {
		units := taskUnits(c, r.t, ps)
		row := units[0].Row
		if seen[row] {
			continue
		}
		seen[row] = true
		shape := ps.shape(c, c.Rows[r.t.Row], units[0].Mode)
		dims := make([]string, len(shape.Dims))
		for i, d := range shape.Dims {
			dims[i] = fmt.Sprint(d)
		}
		fmt.Fprintf(&w, "row\t%s\t%s\t%s\t%d\t%d\t%g\t%s,%d,%d,%g,%g\n", row, shape.Mode, strings.Join(dims, ","), shape.Items, shape.Comparisons, cvSize(c),
			shape.Solver, shape.Rank, shape.KernelRank, shape.KernelEnergy, shape.BetaOffset)
	}
	for _, r := range recs {
		units := taskUnits(c, r.t, ps)
		beta := -1
		if r.t.Kind == KindRefit {
			v := r.res.Beta
			if c.BetaGrid.Relative {
				v = r.res.BetaMultiple
			}
			beta = slices.Index(c.BetaGrid.Values, v)
			if beta < 0 {
				return nil, fmt.Errorf("%s: β %g is not in the grid", r.t.ID, v)
			}
		}
		iters := "-"
		if r.t.Kind != KindNative {
			if len(r.res.Iterations) != len(units) {
				return nil, fmt.Errorf("%s: %d iterations for %d fits", r.t.ID, len(r.res.Iterations), len(units))
			}
			s := make([]string, len(r.res.Iterations))
			for i, n := range r.res.Iterations {
				s[i] = fmt.Sprint(n)
			}
			iters = strings.Join(s, ",")
		}
		ends := ""
		if r.traced {
			s := []string{"-"}
			for i, e := range r.fits {
				if i == 0 {
					s = nil
				}
				s = append(s, fmt.Sprintf("%.3f", e-first))
			}
			ends = "\t" + strings.Join(s, ",")
		}
		fmt.Fprintf(&w, "task\t%s\t%s\t%d\t%s\t%.3f\t%.3f\t%d\t%s%s\n", r.t.Kind, r.t.ID, r.t.Phase, units[0].Row, r.start-first, r.end-first, beta, iters, ends)
	}
	for _, r := range recs {
		if r.traced {
			for _, it := range trace[r.t.ID].iters {
				fmt.Fprintf(&w, "iter\t%s\t%.3f\t%s\n", r.t.ID, it.at-first, it.fields)
			}
		}
	}
	for _, r := range cpu {
		fmt.Fprintf(&w, "cpu\t%.3f\t%.3f\n", r[0]-first, r[1])
	}
	if err := checkRecordedUnits(c, ps); err != nil {
		return nil, err
	}
	return []byte(w.String()), nil
}

// writeTimelineHeader writes a recorded timeline's header, which describes
// its format, for the run described by run.
func writeTimelineHeader(w io.Writer, run string) {
	fmt.Fprintf(w, "# A recorded task timeline of mkpoe run %s.\n", run)
	fmt.Fprintf(w, "# Written by experiments' TestRecordTimelines, replayed by internal/progress's TestETAOnRecordedTimelines.\n")
	fmt.Fprintf(w, "# workers\tN: the run's workers.\n")
	fmt.Fprintf(w, "# backend\tB: the run's linear-algebra build (Shape.Backend: openblas, or gonum for the pure-Go build).\n")
	fmt.Fprintf(w, "# row\tNAME\tMODE\tDIMS\tITEMS\tCOMPARISONS\tCV_SIZE[\tSETTINGS]: a row's units (progress.Unit) as the runner plans them: prior\n")
	fmt.Fprintf(w, "#   PriorSeconds(Shape{MODE, ITEMS, COMPARISONS, DIMS, B}, β index) (a refit's times RefitFactor(Shape)), DIMS its blocks'\n")
	fmt.Fprintf(w, "#   dimensions (comma-separated), a cv fit's Size CV_SIZE, a refit's 1; SETTINGS, if present, the row's Shape.Solver,\n")
	fmt.Fprintf(w, "#   Rank, KernelRank, KernelEnergy and BetaOffset (comma-separated; absent: the default solver, no rank bound, no\n")
	fmt.Fprintf(w, "#   truncation; BetaOffset absent: 0).\n")
	fmt.Fprintf(w, "# task\tKIND\tID\tPHASE\tROW\tSTART\tEND\tBETA\tITERATIONS[\tFIT_ENDS]: a task in the order the run started them; START, END in seconds since the\n")
	fmt.Fprintf(w, "#   first task started; BETA the β index a refit chose (else -1); ITERATIONS each fit's, comma-separated (- for none);\n")
	fmt.Fprintf(w, "#   FIT_ENDS, in a run traced by MKPOE_ETA_TRACE, each fit's end as START (else no column).\n")
	fmt.Fprintf(w, "# cpu\tAT\tSECONDS: in a traced run of a newer mkpoe, the process's CPU time at AT (as START), as the ETA read it\n")
	fmt.Fprintf(w, "#   (progress.RunOptions.CPU; none: the ETA measured wall time).\n")
	fmt.Fprintf(w, "# iter\tID\tAT\tITER\tSTAGE\tBEST\tBOUND\tNEWTON\tHANDOVER\tINTERIOR: in a traced run of a newer mkpoe, task ID's running\n")
	fmt.Fprintf(w, "#   fit's report as a tick of the display saw it at AT (as START): progress.Iteration's Iter, Stage, Best, Bound (0: no\n")
	fmt.Fprintf(w, "#   certificate yet), Newton, HandOver and InteriorCost.\n")
}

// checkRecordedUnits checks that the row lines' rule (PriorSeconds at the
// row's shape; a cv fit's size) gives the units taskUnits plans, for every
// task of c's plan.
func checkRecordedUnits(c *Config, ps planSize) error {
	size := cvSize(c)
	for _, t := range Plan(c) {
		units := taskUnits(c, t, ps)
		row := c.Rows[t.Row]
		for b, u := range units {
			want := progress.Unit{Row: u.Row, Mode: u.Mode, Beta: b, Size: size, Prior: progress.PriorSeconds(ps.shape(c, row, u.Mode), b)}
			switch t.Kind {
			case KindNative:
				want = progress.Unit{Row: u.Row, Mode: "native", Size: 1, Prior: progress.PriorSeconds(ps.shape(c, row, "native"), 0)}
			case KindRefit:
				want = progress.Unit{Row: u.Row, Mode: u.Mode, Beta: -1, Size: 1, Prior: progress.RefitFactor(ps.shape(c, row, u.Mode)) * progress.PriorSeconds(ps.shape(c, row, u.Mode), -1), Refit: true}
			}
			if u != want {
				return fmt.Errorf("%s: unit %d is %+v, the recorded rule gives %+v", t.ID, b, u, want)
			}
		}
	}
	return nil
}

// tracedTask is a task's events in an ETA trace: its start, each fit's
// end and its end, in seconds since the run started, and its running
// fits' reports as the display's ticks saw them (iter lines: the time and
// the line's other fields, ITER STAGE BEST BOUND NEWTON HANDOVER INTERIOR).
type tracedTask struct {
	start, end float64
	fits       []float64
	iters      []tracedIter
}

type tracedIter struct {
	at     float64
	fields string
}

// readETATrace reads an ETA trace (progress.RunOptions.Trace) by task ID,
// and its readings of the process's CPU time (time, CPU seconds); nil if
// the file does not exist. A task traced more than once (a resumed run)
// keeps its last run's events.
func readETATrace(path string) (map[string]*tracedTask, [][2]float64, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	out := map[string]*tracedTask{}
	var cpu [][2]float64
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Split(line, "\t")
		if f[0] == "stopped" {
			return nil, nil, fmt.Errorf("%s:%d: the process was stopped during the run: record another", path, i+1)
		}
		if len(f) != 3 && (f[0] != "iter" || len(f) != 10) {
			return nil, nil, fmt.Errorf("%s:%d: not an event line: %q", path, i+1, line)
		}
		at, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
		switch f[0] {
		case "cpu":
			sec, err := strconv.ParseFloat(f[2], 64)
			if err != nil {
				return nil, nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
			}
			cpu = append(cpu, [2]float64{at, sec})
		case "start":
			out[f[2]] = &tracedTask{start: at}
		case "fit", "end", "iter":
			t := out[f[2]]
			if t == nil {
				return nil, nil, fmt.Errorf("%s:%d: %s of a task not started", path, i+1, f[0])
			}
			switch f[0] {
			case "fit":
				t.fits = append(t.fits, at)
			case "end":
				t.end = at
			default:
				t.iters = append(t.iters, tracedIter{at, strings.Join(f[3:], "\t")})
			}
		default:
			return nil, nil, fmt.Errorf("%s:%d: unknown event %q", path, i+1, f[0])
		}
	}
	return out, cpu, nil
}

// TestRunETATrace runs the tiny config with MKPOE_ETA_TRACE set and checks
// the trace (progress.RunOptions.Trace): every task of the plan started,
// ended after its start, and each of its fits ended in between, in order;
// a timeline recorded from the run directory and the trace then holds
// each fit's end.
func TestRunETATrace(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	c := loadTiny(t, dir)
	trace := filepath.Join(t.TempDir(), "eta-trace.tsv")
	t.Setenv(ETATraceEnv, trace)
	if _, err := Run(context.Background(), c, RunOptions{Workers: 2, Log: io.Discard}); err != nil {
		t.Fatal(err)
	}
	tr, cpu, err := readETATrace(trace)
	if err != nil || tr == nil {
		t.Fatalf("trace: %v (nil: %v)", err, tr == nil)
	}
	// The CPU time is read at every task's start and end at least, and
	// never falls.
	if len(cpu) < 2*len(tr) {
		t.Errorf("%d readings of the CPU time for %d tasks, want at least %d", len(cpu), len(tr), 2*len(tr))
	}
	for i := 1; i < len(cpu); i++ {
		if cpu[i][0] < cpu[i-1][0] || cpu[i][1] < cpu[i-1][1] {
			t.Errorf("CPU readings %v then %v: time or CPU fell", cpu[i-1], cpu[i])
			break
		}
	}
	plan := Plan(c)
	if len(tr) != len(plan) {
		t.Errorf("%d tasks traced, the plan has %d", len(tr), len(plan))
	}
	for _, task := range plan {
		got := tr[task.ID]
		if got == nil {
			t.Errorf("%s: not traced", task.ID)
			continue
		}
		last := got.start
		for _, e := range append(append([]float64(nil), got.fits...), got.end) {
			if e < last {
				t.Errorf("%s: events out of order: start %.3f, fits %v, end %.3f", task.ID, got.start, got.fits, got.end)
				break
			}
			last = e
		}
		if len(got.fits) != TaskFits(c, task) {
			t.Errorf("%s: %d fits traced, want %d", task.ID, len(got.fits), TaskFits(c, task))
		}
	}
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "eta-trace.tsv"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	timeline, err := recordTimeline(dir)
	if err != nil {
		t.Fatal(err)
	}
	cpuLines := 0
	for _, line := range strings.Split(string(timeline), "\n") {
		f := strings.Split(line, "\t")
		if f[0] == "task" && len(f) != 10 {
			t.Errorf("a task line without its fits' ends: %q", line)
		}
		if f[0] == "cpu" {
			cpuLines++
		}
	}
	if cpuLines != len(cpu) {
		t.Errorf("the timeline holds %d CPU readings, the trace %d", cpuLines, len(cpu))
	}
}

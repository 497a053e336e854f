package experiments

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
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
// reads the run directory (config.resolved.yaml, env.json, tasks/) and
// the config's data set (for the ETA's prior, as the runner computes it).
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
		recs = append(recs, rec{task, res, end - res.Seconds, end})
		first = math.Min(first, end-res.Seconds)
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
	fmt.Fprintf(&w, "# A recorded task timeline of mkpoe run %s (config hash %s, %s, build tags %q, started %s, %s workers on %s cores).\n",
		filepath.Base(filepath.Clean(dir)), c.Hash(), env["module"], env["build_tags"], env["started"], env["workers"], env["cores"])
	fmt.Fprintf(&w, "# Written by experiments' TestRecordTimelines, replayed by internal/progress's TestETAOnRecordedTimelines.\n")
	fmt.Fprintf(&w, "# workers\tN: the run's workers.\n")
	fmt.Fprintf(&w, "# backend\tB: the run's linear-algebra build (Shape.Backend: openblas, or gonum for the pure-Go build).\n")
	fmt.Fprintf(&w, "# row\tNAME\tMODE\tDIMS\tITEMS\tCOMPARISONS\tCV_SIZE: a row's units (progress.Unit) as the runner plans them: prior\n")
	fmt.Fprintf(&w, "#   PriorSeconds(Shape{MODE, ITEMS, COMPARISONS, DIMS, B}, β index) (a refit's times RefitFactor(Shape)), DIMS its blocks'\n")
	fmt.Fprintf(&w, "#   dimensions (comma-separated), a cv fit's Size CV_SIZE, a refit's 1.\n")
	fmt.Fprintf(&w, "# task\tKIND\tID\tPHASE\tROW\tSTART\tEND\tBETA\tITERATIONS: a task in the order the run started them; START, END in seconds since the\n")
	fmt.Fprintf(&w, "#   first task started; BETA the β index a refit chose (else -1); ITERATIONS each fit's, comma-separated (- for none).\n")
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
		fmt.Fprintf(&w, "row\t%s\t%s\t%s\t%d\t%d\t%g\n", row, shape.Mode, strings.Join(dims, ","), shape.Items, shape.Comparisons, cvSize(c))
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
		fmt.Fprintf(&w, "task\t%s\t%s\t%d\t%s\t%.3f\t%.3f\t%d\t%s\n", r.t.Kind, r.t.ID, r.t.Phase, units[0].Row, r.start-first, r.end-first, beta, iters)
	}
	if err := checkRecordedUnits(c, ps); err != nil {
		return nil, err
	}
	return []byte(w.String()), nil
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
				want = progress.Unit{Row: u.Row, Mode: u.Mode, Beta: -1, Size: 1, Prior: progress.RefitFactor(ps.shape(c, row, u.Mode)) * progress.PriorSeconds(ps.shape(c, row, u.Mode), -1)}
			}
			if u != want {
				return fmt.Errorf("%s: unit %d is %+v, the recorded rule gives %+v", t.ID, b, u, want)
			}
		}
	}
	return nil
}

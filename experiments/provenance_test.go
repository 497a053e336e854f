package experiments

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/mkpoe/mkpoe/internal/linalg"
	"github.com/mkpoe/mkpoe/pkg/results"
)

func readProvenance(t *testing.T, dir string) (results.Provenance, []byte) {
	t.Helper()
	b := readFile(t, filepath.Join(dir, results.ProvenanceFile))
	var p results.Provenance
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	return p, b
}

// TestProvenance: a finished run records its config, build, machine,
// times and fit totals; a rerun that computes nothing keeps the record of
// the run that did; a resumed run says so.
func TestProvenance(t *testing.T) {
	out := t.TempDir()
	c := loadTiny(t, out)
	s, err := Run(context.Background(), c, RunOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	p, first := readProvenance(t, out)
	fits, unconverged, maxGap := 0, 0, 0.0
	for _, r := range s.Rows {
		if r.Fits != nil {
			fits += *r.Fits
			unconverged += *r.UnconvergedFits
			maxGap = max(maxGap, *r.MaxGap)
		}
	}
	if p.Config != c.Name || p.ConfigHash != c.Hash() || p.Tasks != len(Plan(c)) || p.Go != runtime.Version() ||
		p.LinalgBackend != linalg.Backend() || p.Workers != 2 || p.Cores != runtime.NumCPU() || p.Resumed {
		t.Errorf("provenance %+v", p)
	}
	if fits == 0 || p.Fits != fits || p.UnconvergedFits != unconverged || p.MaxGap != maxGap {
		t.Errorf("fits %d, unconverged %d, max gap %g; want %d, %d, %g", p.Fits, p.UnconvergedFits, p.MaxGap, fits, unconverged, maxGap)
	}
	learned, rowSeconds := 0, 0.0
	for _, r := range c.Rows {
		if r.Method != "native" {
			learned++
		}
	}
	for _, rc := range p.Rows {
		rowSeconds += rc.Seconds
		if rc.Seconds <= 0 || rc.Iterations <= 0 {
			t.Errorf("row cost %+v", rc)
		}
	}
	if len(p.Rows) != learned || rowSeconds > p.TaskSeconds+0.1*float64(learned) {
		t.Errorf("%d row costs summing to %g s, want %d rows within the task time %g s", len(p.Rows), rowSeconds, learned, p.TaskSeconds)
	}
	started, err1 := time.Parse(time.RFC3339, p.Started)
	finished, err2 := time.Parse(time.RFC3339, p.Finished)
	if err1 != nil || err2 != nil || finished.Before(started) || p.WallSeconds < 0 || p.WallSeconds > 600 {
		t.Errorf("times: started %q finished %q wall %g s", p.Started, p.Finished, p.WallSeconds)
	}
	// The task time is timings.json's sum to 0.1 s: the tiny config's
	// tasks take about that long in all, so the rounded value may be 0.
	timings, err := results.DecodeTimings(readFile(t, filepath.Join(out, "timings.json")), "timings.json")
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, tt := range timings {
		if tt.Seconds <= 0 {
			t.Errorf("timings.json: a task of %g s", tt.Seconds)
		}
		sum += tt.Seconds
	}
	if len(timings) != len(Plan(c)) || p.TaskSeconds != math.Round(sum*10)/10 {
		t.Errorf("task time %g s from %d timings summing to %g s, want %d tasks", p.TaskSeconds, len(timings), sum, len(Plan(c)))
	}

	// A rerun that finds every task done keeps the record.
	time.Sleep(1100 * time.Millisecond) // env.json's start has one-second resolution
	if _, err := Run(context.Background(), c, RunOptions{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	if _, again := readProvenance(t, out); !bytes.Equal(again, first) {
		t.Errorf("a rerun that computed nothing rewrote provenance.json:\n%s\nwas\n%s", again, first)
	}

	// A run resumed after one task is lost computes that task and says it
	// was resumed.
	time.Sleep(1100 * time.Millisecond)
	if err := os.Remove(taskPath(out, Plan(c)[0].ID)); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), c, RunOptions{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	if p, _ := readProvenance(t, out); !p.Resumed || p.Workers != 1 {
		t.Errorf("after a resumed run: resumed %v, workers %d", p.Resumed, p.Workers)
	}
}

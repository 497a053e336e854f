package report

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mkpoe/mkpoe/pkg/results"
	"github.com/mkpoe/mkpoe/pkg/stats"
)

// docFixture is a committed results tree with one config: two rows over
// two splits, one claim that holds i.i.d. but not clustered, and its
// provenance.
func docFixture(t *testing.T) fstest.MapFS {
	t.Helper()
	fits, unconv, iters, gap := 40, 0, 77, 8.4e-4
	holm := 0.12
	s := &results.Summary{Format: "mkpoe-summary/1", Name: "toy", ConfigHash: "abc123", Splits: 2, InnerFolds: 2, BetaGrid: []float64{10, 1000}, SolverTol: 1e-3,
		Rows: []results.Row{
			{Label: "ST native", Method: "native", Kernels: []string{"ST"}, Accuracy: []float64{0.7, 0.8}, Mean: 0.75, Std: 0.0707,
				TestTallies: []results.Tally{{Right: 7, Ties: 1, Wrong: 2}, {Right: 8, Wrong: 2}}, TrainComparisons: []int{5, 2}, TestComparisons: []int{10, 10}, Paper: ptr(0.752)},
			{Label: "all K4 full", Method: "k4", Mode: "full", Kernels: []string{"ST", "CF"}, Accuracy: []float64{0.9, 0.8}, Mean: 0.85, Std: 0.0707, Beta: []float64{1000, 10},
				KernelShare: []float64{0.75, 0.25}, Fits: &fits, UnconvergedFits: &unconv, MaxGap: &gap, MaxIterations: &iters, TrainComparisons: []int{5, 5}, TestComparisons: []int{10, 10}},
		},
		Claims: []results.Claim{{Claim: "K4 beats native", Better: "all K4 full", Worse: "ST native", Paper: "Table 4",
			Interval: &stats.Interval{Diff: 0.1, Lo: 0.02, Hi: 0.18, Reps: 2000}, Reproduced: true,
			Clustered: &stats.Interval{Diff: 0.1, Lo: -0.01, Hi: 0.2, Reps: 2000, P: 0.06}, HolmP: &holm}},
	}
	sb, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	dirty := false
	pb, err := json.Marshal(results.Provenance{Config: "toy", ConfigHash: "abc123", Commit: "0123456789abcdef", Dirty: &dirty, Go: "go1.26.8",
		BuildTags: "openblas", LinalgBackend: "openblas", OpenBLASCore: "Haswell", OpenBLASCoretype: "Haswell",
		OpenBLASConfig: "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64", CPUModel: "AMD EPYC", Cores: 2, OS: "linux/amd64", Workers: 2,
		Started: "2026-11-28T04:00:00Z", Finished: "2026-11-28T04:10:30Z", WallSeconds: 630, Tasks: 12, TaskSeconds: 1200, Fits: 40, MaxGap: 8.4e-4,
		Rows: []results.RowCost{{Label: "all K4 full", Seconds: 1150, Iterations: 5321, ProcessCPUSeconds: ptr(1000)}}})
	if err != nil {
		t.Fatal(err)
	}
	// The same config from the pure-Go build: split 1 of the K4 row chose
	// another β and lost one comparison of 20.
	s.Rows[1].Beta = []float64{1000, 100}
	s.Rows[1].Accuracy = []float64{0.9, 0.75}
	s.Rows[1].Mean = 0.825
	gb, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	// Another pure-Go run, in which the claim's clustered interval cleared 0.
	s.Claims[0].Clustered = &stats.Interval{Diff: 0.1, Lo: 0.01, Hi: 0.2, Reps: 2000, P: 0.01, N: 20, Clusters: 6}
	s.Claims[0].Holds = true
	hb, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	// The same, its claim recomputed with the anchors × splits design.
	s.Claims[0].Clustered = &stats.Interval{Diff: 0.1, Lo: 0.01, Hi: 0.2, Reps: 2000, P: 0.01, N: 20, Clusters: 6, Design: stats.DesignCrossed}
	cb, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	gp, err := json.Marshal(results.Provenance{Config: "toy", ConfigHash: "abc123", LinalgBackend: "gonum", Go: "go1.26.8", CPUModel: "AMD EPYC", Cores: 2, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	dp, err := json.Marshal(results.Provenance{Config: "toy", ConfigHash: "abc123", Commit: "fedcba9876543210", Dirty: &yes, LinalgBackend: "gonum"})
	if err != nil {
		t.Fatal(err)
	}
	// A run by a binary before provenance recorded workers, on a machine
	// of 4 cores, started as toy's run ended and finished the next day;
	// its summary certified to another tolerance.
	op, err := json.Marshal(results.Provenance{Config: "toy", ConfigHash: "abc123", LinalgBackend: "openblas", Cores: 4,
		Started: "2026-11-28T04:10:30Z", Finished: "2026-11-29T00:10:00Z", WallSeconds: 1000, TaskSeconds: 1900})
	if err != nil {
		t.Fatal(err)
	}
	rp, err := json.Marshal(results.Provenance{Config: "toy", ConfigHash: "abc123", LinalgBackend: "openblas", Cores: 2,
		Started: "2026-11-28T04:05:00Z", Finished: "2026-11-28T04:20:00Z", WallSeconds: 900, TaskSeconds: 2400, Resumed: true})
	if err != nil {
		t.Fatal(err)
	}
	// Two runs whose ST native differs on split 1 by one test comparison,
	// right in the first and wrong in the second.
	tb1, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	s.Rows[0].Accuracy = []float64{0.7, 0.7}
	s.Rows[0].TestTallies[1] = results.Tally{Right: 7, Wrong: 3}
	tb2, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	s.SolverTol = 2.5e-4
	ob, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return fstest.MapFS{"toy.old/summary.json": {Data: ob}, "toy.old/provenance.json": {Data: op},
		"toy.resumed/summary.json": {Data: sb}, "toy.resumed/provenance.json": {Data: rp},
		"toy.t1/summary.json": {Data: tb1}, "toy.t1/provenance.json": {Data: gp},
		"toy.t2/summary.json": {Data: tb2}, "toy.t2/provenance.json": {Data: gp}, "toy.dirty/summary.json": {Data: gb}, "toy.dirty/provenance.json": {Data: dp},
		"toy/summary.json": {Data: sb}, "toy/provenance.json": {Data: pb},
		"toy.gonum/summary.json": {Data: gb}, "toy.gonum/provenance.json": {Data: gp},
		"toy.holds/summary.json": {Data: hb}, "toy.holds/provenance.json": {Data: gp},
		"toy.crossed/summary.json": {Data: cb}, "toy.crossed/provenance.json": {Data: gp}}
}

func TestResultsDoc(t *testing.T) {
	fsys := docFixture(t)
	for _, tc := range []struct {
		tmpl string
		want []string
	}{
		{`{{table "toy"}}`, []string{
			"| ST native | 0.750 ± 0.071 | 0.775 ± 0.035 | 0.050 | — | 0.752 | — |",
			"| all K4 full | 0.850 ± 0.071 | — | — | 1000, 10 |  | 40 (0; 8.4e-04, 77) |"}},
		{`{{holm "toy"}}{{claims "toy"}}`, []string{
			"| Table 4 | 1 | toy |",
			"| K4 beats native (all K4 full vs ST native) | Table 4 | +0.100 | [-0.010, +0.200] | 0.06 | **no** | [+0.020, +0.180] | yes |"}},
		{`{{shares "toy"}}`, []string{"- all K4 full: ST 0.750, CF 0.250"}},
		{`{{provenance "toy"}}`, []string{"Config hash abc123; commit 0123456, OpenBLAS build (Haswell kernels, OPENBLAS_CORETYPE=Haswell, OpenBLAS 0.3.21), go1.26.8; AMD EPYC, 2 cores, 2 workers. Finished 2026-11-28 04:10 UTC after 10.5 min wall, 20.0 min of task time; 12 tasks, 40 fits, 0 not certified, largest certified gap 8.40e-04."}},
		{`{{provenance "toy.gonum"}}`, []string{"pure-Go build (gonum), go1.26.8; AMD EPYC, 2 cores, 1 worker. Finished"}},
		{`{{runs "toy" "toy"}}`, []string{"| `toy` | 12 | 40 | 10.5 min | 20.0 min | 0 | 8.40e-04 | 0123456 | openblas (Haswell) |", "| all 2 | 24 | 80 | 21.0 min | 40.0 min | 0 | 8.40e-04 | | |", "From the first run's start to the last run's end: 10.5 min (2026-11-28 04:00 UTC to 2026-11-28 04:10 UTC)."}},
		{`{{cost "toy" "all K4 full"}}`, []string{"| all K4 full | 5 | 19.2 min | 16.7 min | 5321 |"}},
		{`{{holm "toy"}}{{holm "toy.gonum"}}{{builds "toy" "toy.gonum"}}`, []string{"| all K4 full | 1 | 10 | 100 | 0.8000 | 0.7500 | — | — |",
			"the largest difference of a split's accuracy is 0.0500. Every claim has the same verdicts"}},
		{`{{holm "toy.t1"}}{{holm "toy.t2"}}{{builds "toy.t1" "toy.t2"}}`, []string{
			"| Row | Split | β, gonum | β, gonum | Accuracy, gonum | Accuracy, gonum | Right/ties/wrong, gonum | Right/ties/wrong, gonum |",
			"| ST native | 1 | — | — | 0.8000 | 0.7000 | 8/0/2 | 7/0/3 |",
			"the largest difference of a split's accuracy is 0.1000, or 1 more test comparison right in one run than in the other. Every claim"}},
		{`{{holm "toy.holds"}}{{holm "toy.crossed"}}{{builds "toy.holds" "toy.crossed"}}`, []string{
			"1 of 1 claims' clustered intervals were resampled differently in the two runs (gonum: one split, percentile (recorded before designs were); gonum: anchors × splits), so their verdicts are not set side by side here"}},
		{`{{holm "toy"}}{{builds "toy" "toy"}}`, []string{"choose the same β and give the same test accuracy on every split of every row."}},
		{`{{holm "toy"}}{{holm "toy.holds"}}{{builds "toy" "toy.holds"}}`, []string{"**1 of 1 claims' verdicts differ between the two runs:**",
			"- **K4 beats native**: openblas: +0.100 [-0.010, +0.200], does not hold (i.i.d. interval above 0: yes); gonum: +0.100 [+0.010, +0.200], holds (i.i.d. interval above 0: yes)."}},
		{`{{holm "toy"}}{{mean "toy" "ST native"}} {{paper "toy" "st native"}} {{spread "toy" "all K4 full"}} {{delta "toy" "K4 beats native"}} {{fits "toy" "toy"}}`,
			[]string{"0.750 0.752 0.800 to 0.900 +0.100 80 fits over 2 configs, 0 not certified"}},
		{`{{move "toy" "toy.gonum" "all K4 full"}} {{maxmove "toy" "toy.gonum"}} {{sdrange "toy"}} {{widths "toy"}} {{sharerange "toy" "all K4 full" "C"}} {{sharerange "toy" "all K4 full" ""}}`,
			[]string{"-0.025 0.025 0.071 1.3 25.0% 25.0–75.0%"}},
		{`{{cut "toy" "all K4 full" "all K4 full" "time"}} {{cut "toy" "all K4 full" "all K4 full" "iterations"}} {{cut "toy" "all K4 full" "all K4 full" "cpu"}}`, []string{"0% (19.2 min against 19.2 min) 0% (5,321 against 5,321) 0% (16.7 min against 16.7 min)"}},
		{`{{tierate "toy" "ST native"}} {{gap "toy" "ST native"}} {{trains "toy" "ST native" "all K4 full"}}`, []string{"5.0% -0.002 ST native 5, all K4 full 5"}},
		{`{{cut "toy" "ST native" "all K4 full" "comparisons"}}`, []string{"30% (7 against 10)"}},
		{`{{comparisons "toy" "st native" "train"}}|{{comparisons "toy" "all K4 full" "train"}}|{{comparisons "toy" "ST native" "test"}}`, []string{"2–5|5|10"}},
		{`{{cores "toy"}}|{{cores "toy" "toy.gonum" "toy.resumed"}}|{{cores "toy.old"}}`, []string{"2 cores|2 cores|4 cores"}},
		{`{{minworkers "toy.old"}}`, []string{"at least 2 workers, its task time being 1.90 times its wall time"}},
		{`{{day "toy"}}|{{day "toy" "toy.resumed"}}|{{day "toy.old"}}`, []string{"2026-11-28|2026-11-28|2026-11-29"}},
		{`{{atonce "toy"}}|{{atonce "toy" "toy.old"}}|{{atonce "toy" "toy.old" "toy.resumed"}}|{{atonce "toy" "toy"}}`, []string{"1|1|2|2"}},
		{`{{tasktime "toy"}}|{{tasktime "toy" "toy.old" "toy.resumed"}}|{{tasktime "toy" "toy"}}`, []string{"20.0 min|20.0 min to 40.0 min|20.0 min"}},
		{`{{means "toy" "st"}}|{{means "toy" ""}}|{{means "toy" "ALL K4"}}`, []string{"0.750|0.750–0.850|0.850"}},
		{`{{tol "toy"}}|{{tol "toy" "toy.gonum"}}|{{tol "toy.old"}}`, []string{"1e-3|1e-3|2.5e-4"}},
		{`{{dirty "toy" "toy.gonum"}}|{{dirty "toy" "toy.dirty"}}`, []string{"none|`toy.dirty` (fedcba9)"}},
		{`{{workers "toy"}}|{{workers "toy.gonum" "toy.holds" "toy.crossed"}}`, []string{"2 workers|1 worker"}},
		{`{{half "toy" "ST native"}} {{splitdiff "toy" "all K4 full" "ST native" 1}}`, []string{"0.775 +0.000"}},
		{`{{holm "toy.holds"}}{{anchors "toy.holds" "K4 beats native"}}`, []string{"20 test comparisons from 6 anchors"}},
		{`{{holm "toy"}}{{verdicts "toy" "fails"}}|{{verdicts "toy" "holds"}}|{{was "toy" "K4 beats native" "held"}}`,
			[]string{"- K4 beats native (all K4 full vs ST native): +0.100 [-0.010, +0.200], Holm p 0.06, does not hold|- none|K4 beats native (all K4 full vs ST native), `toy`: held before; now +0.100 [-0.010, +0.200], Holm p 0.06, does not hold"}},
		{`{{holm "toy"}}K4: {{acc "toy" "ALL K4 FULL"}}; {{diff "toy" "K4 beats native"}}.`, []string{"K4: 0.850 ± 0.071; +0.100 [-0.010, +0.200], does not hold."}},
	} {
		got, err := ResultsDoc(tc.tmpl, fsys)
		if err != nil {
			t.Errorf("%s: %v", tc.tmpl, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(string(got), w) {
				t.Errorf("%s: missing\n%s\nin\n%s", tc.tmpl, w, got)
			}
		}
	}
	// Whatever the document names must exist.
	for _, tc := range []struct{ tmpl, want string }{
		{`{{table "gone"}}`, `config "gone"`},
		{`{{acc "toy" "CF native"}}`, `no row "CF native"`},
		{`{{holm "toy"}}{{diff "toy" "K1 beats K4"}}`, `no claim "K1 beats K4" (it has "K4 beats native")`},
		{`{{claims "toy"}}`, `config "toy" is in no Holm family`},
		{`{{holm "toy"}}{{was "toy" "K4 beats native" "failed"}}`, `"K4 beats native" failed before and still does: not a change`},
		{`{{paper "toy" "all K4 full"}}`, `row "all K4 full" has no paper value`},
		{`{{split0 "toy" "toy" "ST native"}}`, `is not config "toy"'s one split`},
		{`{{splitdiff "toy" "ST native" "ST native" 2}}`, `has no split 2`},
		{`{{holm "toy"}}{{verdicts "toy" "maybe"}}`, `want "holds" or "fails"`},
		{`{{holm "toy"}}{{holm "toy.gonum" "toy"}}`, `config "toy" is in two {{holm}} declarations`},
		{`{{tabel "toy"}}`, `function "tabel" not defined`},
		{`{{cost "toy" "ST native"}}`, `no learned row "ST native"`},
		{`{{workers "toy" "toy.gonum"}}`, `config "toy" ran with 2 workers, config "toy.gonum" with 1 worker`},
		{`{{workers "toy.dirty"}}`, `config "toy.dirty": its provenance records no workers`},
		{`{{workers}}`, `workers: name at least one config`},
		{`{{workers "toy.old"}}`, `config "toy.old": its provenance records no workers`},
		{`{{cores "toy" "toy.old"}}`, `config "toy" ran on 2 cores, config "toy.old" on 4 cores`},
		{`{{cores "toy.dirty"}}`, `config "toy.dirty": its provenance records no cores`},
		{`{{cores}}`, `cores: name at least one config`},
		{`{{minworkers "toy"}}`, `config "toy": its provenance records 2 workers; say so with {{workers}}`},
		{`{{minworkers "toy.resumed"}}`, `config "toy.resumed" was resumed`},
		{`{{minworkers "toy.dirty"}}`, `config "toy.dirty": its provenance records no wall or task time`},
		{`{{day "toy" "toy.old"}}`, `config "toy" finished on 2026-11-28, config "toy.old" on 2026-11-29`},
		{`{{day "toy.gonum"}}`, `config "toy.gonum": its provenance records no end`},
		{`{{atonce "toy" "toy.gonum"}}`, `config "toy.gonum": its provenance records no start or end`},
		{`{{atonce}}`, `atonce: name at least one config`},
		{`{{tasktime "toy.gonum"}}`, `config "toy.gonum": its provenance records no task time`},
		{`{{means "toy" "CF"}}`, `config "toy" has no row named CF…`},
		{`{{comparisons "toy" "ST native" "all"}}`, `want "train" or "test"`},
		{`{{tol "toy" "toy.old"}}`, `config "toy" certified to 1e-3, config "toy.old" to 2.5e-4`},
		{`{{cut "toy" "CF native" "all K4 full" "comparisons"}}`, `no row "CF native"`},
		{`{{cut "toy" "all K4 full" "all K4 full" "weight"}}`, `want "time", "cpu", "iterations" or "comparisons"`},
	} {
		if _, err := ResultsDoc(tc.tmpl, fsys); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.tmpl, err, tc.want)
		}
	}
}

// TestResultsDocCost reads the hand-made cost.json of pkg/results
// (testdata/cost.json; its numbers are worked out in
// pkg/results.readCost) as the committed cost.json of "toy".
func TestResultsDocCost(t *testing.T) {
	fsys := docFixture(t)
	b, err := os.ReadFile("../results/testdata/cost.json")
	if err != nil {
		t.Fatal(err)
	}
	fsys["toy/cost.json"] = &fstest.MapFile{Data: []byte(strings.Replace(string(b), `"0123456789abcdef"`, `"abc123"`, 1))}
	fsys["toy.gonum/cost.json"] = &fstest.MapFile{Data: b} // another config hash
	for _, tc := range []struct {
		tmpl string
		want []string
	}{
		{`{{cpucost "toy" "Processed full" "Full full"}}`, []string{
			"| Processed full | Full full | 220 against 450 | 22 s, 22 s, 21 s against 40 s, 44 s, 42 s | 0.55, 0.50, 0.50 | 50% | yes |",
			"Process CPU time of the cv tasks of split 0, inner folds 0–1 (every β of the grid), run one at a time and interleaved over 3 repeats (`mkpoe cost`, gonum, GOMAXPROCS 2).",
			"| Processed full | accelerated | 180 | 13 s | 72.2 ms |",
			"| Processed full | interior-point | 40 | 7 s | 175.0 ms |"}},
		{`{{cpucut "toy" "Processed full" "Full full"}}`, []string{"50% (ratios 0.50–0.55 over 3 repeats)"}},
	} {
		got, err := ResultsDoc(tc.tmpl, fsys)
		if err != nil {
			t.Errorf("%s: %v", tc.tmpl, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(string(got), w) {
				t.Errorf("%s: missing\n%s\nin\n%s", tc.tmpl, w, got)
			}
		}
	}
	for _, tc := range []struct{ tmpl, want string }{
		{`{{cpucut "toy.holds" "Processed full" "Full full"}}`, `config "toy.holds": open toy.holds/cost.json`},
		{`{{cpucut "toy.gonum" "Processed full" "Full full"}}`, `cost.json is of config hash 0123456789abcdef, summary.json of abc123`},
		{`{{cpucost "toy" "Processed full"}}`, `rows must come in pairs`},
		{`{{cpucut "toy" "Length-2 full" "Full full"}}`, `row "Length-2 full" has 0 of 2 folds`},
	} {
		if _, err := ResultsDoc(tc.tmpl, fsys); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.tmpl, err, tc.want)
		}
	}
}

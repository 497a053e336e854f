package experiments

import (
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/internal/linalg"
	"github.com/mkpoe/mkpoe/internal/progress"
	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/kernels"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// TestKernelDim checks the ETA prior's kernel dimensions (kernelDim)
// against hand-counted inputs: the feature columns, distinct terms or
// users, a noise kernel's dim, plus the training items missing from the
// modality, at most the items; full rank for the other kernel types.
func TestKernelDim(t *testing.T) {
	features := mat.NewDense(10, 3, nil)
	counts := []map[int]float64{{0: 1, 7: 2}, {7: 1}, nil, {3: 5}}
	sets := [][]int{{1, 2}, {2, 9, 9}, {}, {4}}
	missing := make([]bool, 10)
	missing[0], missing[5] = true, true
	for _, test := range []struct {
		name  string
		k     KernelConfig
		in    kernels.Input
		items int
		keep  float64
		want  int
	}{
		{"linear: its columns", KernelConfig{Type: "linear"}, kernels.Input{Features: features}, 8, 0.8, 3},
		{"linear: columns plus the missing training items", KernelConfig{Type: "linear"}, kernels.Input{Features: features, Missing: missing}, 8, 0.5, 3 + 1},
		{"linear: at most the items", KernelConfig{Type: "linear"}, kernels.Input{Features: features}, 2, 0.2, 2},
		{"tfidf: distinct terms", KernelConfig{Type: "tfidf"}, kernels.Input{Counts: counts}, 4, 1, 3},
		{"cf: distinct users", KernelConfig{Type: "cf"}, kernels.Input{Sets: sets}, 4, 1, 4},
		{"noise: default dim 3", KernelConfig{Type: "noise"}, kernels.Input{N: 10}, 8, 0.8, 3},
		{"noise: its dim", KernelConfig{Type: "noise", Params: map[string]float64{"dim": 5}}, kernels.Input{N: 10}, 8, 0.8, 5},
		{"rbf: full rank", KernelConfig{Type: "rbf"}, kernels.Input{Features: features}, 8, 0.8, 8},
		{"identity: full rank", KernelConfig{Type: "identity"}, kernels.Input{N: 10}, 8, 0.8, 8},
	} {
		if got := kernelDim(test.k, test.in, test.items, test.keep); got != test.want {
			t.Errorf("%s: kernelDim = %d, want %d", test.name, got, test.want)
		}
	}
}

// TestPlanShapes checks the shapes the runner's ETA plans for each row
// (planSize.shape): a k4 row has one block per kernel, a k1 row one block
// of its group's summed dimensions (at most the items), and a row's
// comparisons are the share its training steps keep of the data set's;
// every shape carries the plan's backend, the binary's (progress.BackendFactor),
// and a learned row's solver, rank bound and (full W only) the kernels'
// truncation, as rowSettings gives its fits.
func TestPlanShapes(t *testing.T) {
	c := &Config{
		Kernels:     []KernelConfig{{Name: "a"}, {Name: "b"}, {Name: "c"}},
		Groups:      []GroupConfig{{Name: "ab", Kernels: []string{"a", "b"}}, {Name: "all", Kernels: []string{"a", "b", "c"}}},
		Constraints: ConstraintsConfig{Train: []string{"dedup"}},
		Solver:      SolverConfig{Method: "lowrank", KernelRank: 8, KernelEnergy: 0.9},
		Rows: []RowConfig{
			{Method: "k4", Group: "all", Mode: "full"},
			{Method: "k1", Group: "ab", Mode: "diag"},
			{Method: "k1", Group: "all", Mode: "full", TrainSteps: &[]string{}, Rank: Ranks{3}},
			{Method: "native", Group: "all"},
		},
	}
	ps := planSize{items: 20, comps: 1000, kernelDims: []int{4, 5, 20}, stepShare: map[string]float64{"dedup": 0.5}, backend: "gonum"}
	for _, test := range []struct {
		row, mode        string
		index            int
		dims             []int
		comps            int
		solver           string
		rank, kernelRank int
		kernelEnergy     float64
	}{
		{"k4 full", "full", 0, []int{4, 5, 20}, 500, "lowrank", 0, 8, 0.9},
		{"k1 diag: no truncation", "diag", 1, []int{9}, 500, "lowrank", 0, 0, 0},
		{"k1 full, rank 3", "full", 2, []int{20}, 1000, "lowrank", 3, 8, 0.9},
		{"native: no solver", "native", 3, []int{20}, 500, "", 0, 0, 0},
	} {
		s := ps.shape(c, c.Rows[test.index], test.mode)
		if !slices.Equal(s.Dims, test.dims) || s.Comparisons != test.comps || s.Items != 20 || s.Backend != "gonum" ||
			s.Solver != test.solver || s.Rank != test.rank || s.KernelRank != test.kernelRank || s.KernelEnergy != test.kernelEnergy {
			t.Errorf("%s: shape %+v, want dims %v, %d comparisons, 20 items, backend gonum, solver %q, rank %d, kernel rank %d, energy %g",
				test.row, s, test.dims, test.comps, test.solver, test.rank, test.kernelRank, test.kernelEnergy)
		}
	}

	// The step share is learned by running the steps: dedup keeps 2 of 3.
	ds := &dataset{n: 3, comps: []data.Comparison{{I: 0, J: 1, K: 0, L: 2}, {I: 0, J: 1, K: 0, L: 2}, {I: 1, J: 2, K: 1, L: 0}}}
	c.Protocol.TestFraction = 0
	got := newPlanSize(c, ds)
	if share := got.stepShare["dedup"]; share != 2.0/3 {
		t.Errorf("dedup keeps a share %g of the comparisons, want 2/3", share)
	}
	if got.backend != linalg.Backend() {
		t.Errorf("planned for backend %q, want this binary's, %q", got.backend, linalg.Backend())
	}
}

// TestRunOrder checks that the runner starts a phase's tasks round-robin
// over the rows, each row's in plan order.
func TestRunOrder(t *testing.T) {
	task := func(row int, id string) results.Task { return results.Task{ID: id, Row: row} }
	plan := []results.Task{task(0, "a1"), task(1, "b1"), task(1, "b2"), task(1, "b3"), task(2, "c1"), task(2, "c2")}
	var got []string
	for _, t := range runOrder(plan) {
		got = append(got, t.ID)
	}
	if want := []string{"a1", "b1", "c1", "b2", "c2", "b3"}; !slices.Equal(got, want) {
		t.Errorf("runOrder = %v, want %v", got, want)
	}
}

// TestPriorEstimate checks mkpoe plan's prior estimate on the quickstart:
// it counts the plan's fits, sums the runner's units at their sizes (the
// work), and schedules them on the workers: on one worker the wall time
// is the work, on two at least half of it.
func TestPriorEstimate(t *testing.T) {
	c, err := LoadConfig(filepath.Join("..", "configs", "quickstart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ds, err := c.loadAndCheckData()
	if err != nil {
		t.Fatal(err)
	}
	ps := newPlanSize(c, ds)
	want, wantFits := 0.0, 0
	for _, task := range Plan(c) {
		wantFits += TaskFits(c, task)
		for _, u := range taskUnits(c, task, ps) {
			want += u.Prior * progress.SizeFactor(u.Mode, u.Size)
		}
	}
	for _, workers := range []int{1, 2} {
		work, idle, wall, fits, err := PriorEstimate(c, workers, nil)
		if idle != wall {
			t.Errorf("%d workers: without a rate the wall time %v is not the idle one %v", workers, wall, idle)
		}
		if err != nil {
			t.Fatal(err)
		}
		if fits != wantFits || fits != 65 {
			t.Errorf("fits = %d, want %d (65 in the quickstart)", fits, wantFits)
		}
		if got := work.Seconds(); got <= 0 || fmt.Sprintf("%.6f", got) != fmt.Sprintf("%.6f", want) {
			t.Errorf("work = %gs, want %gs", got, want)
		}
		if lo := work / time.Duration(workers); wall < lo-time.Millisecond || wall > work+time.Millisecond || (workers == 1 && wall.Round(time.Millisecond) != work.Round(time.Millisecond)) {
			t.Errorf("%d workers: wall %v for work %v", workers, wall, work)
		}
	}
}

// TestParseLoadAvg checks the load average read from /proc/loadavg's
// line (mkpoe plan prints it beside its prior estimate).
func TestParseLoadAvg(t *testing.T) {
	for _, test := range []struct {
		line string
		want float64
		ok   bool
	}{
		{"14.20 10.35 4.80 3/107 19007\n", 14.2, true},
		{"0.00 0.01 0.05 1/90 12", 0, true},
		{"", 0, false},
		{"busy 1 2", 0, false},
		{"-1 0 0", -1, false},
	} {
		got, ok := parseLoadAvg(test.line)
		if ok != test.ok || (ok && got != test.want) {
			t.Errorf("parseLoadAvg(%q) = %g, %v; want %g, %v", test.line, got, ok, test.want, test.ok)
		}
	}
}

// TestBetaOffset checks the prior's place of a config's β grid
// (progress.Shape.BetaOffset): the decades of its first β above 0.01, 0
// for a grid relative to β_min; the shipped configs the recorded idle
// timelines ran (internal/progress's idleGridOffset) among them.
func TestBetaOffset(t *testing.T) {
	for _, test := range []struct {
		config string
		want   float64
	}{
		{"quickstart.yaml", 2},
		{"aset400_short.yaml", 3},
		{"aset400_splits.yaml", 0},
		{"aloi10_sensitivity_taxonomy.yaml", 0},
		{"scale_planted2000.yaml", 0}, // relative_to_min
	} {
		c, err := LoadConfig(filepath.Join("..", "configs", test.config))
		if err != nil {
			t.Fatal(err)
		}
		if got := betaOffset(c.BetaGrid); math.Abs(got-test.want) > 1e-12 {
			t.Errorf("%s: β offset %g, want %g", test.config, got, test.want)
		}
		ps := planSize{items: 10, comps: 10, kernelDims: make([]int, len(c.Kernels))}
		if got := ps.shape(c, c.Rows[len(c.Rows)-1], "diag").BetaOffset; math.Abs(got-test.want) > 1e-12 {
			t.Errorf("%s: the plan's shape has β offset %g, want %g", test.config, got, test.want)
		}
	}
}

// TestMachineRate checks plan's measure of the machine's speed: no
// workers, no measurement; else each busy thread's share of a core is
// positive and at most what GOMAXPROCS threads can get among them (the
// process's CPU time also holds the runtime's own threads).
func TestMachineRate(t *testing.T) {
	if _, ok := MachineRate(0, time.Millisecond); ok {
		t.Error("MachineRate(0) measured a rate")
	}
	for _, workers := range []int{1, 2} {
		r, ok := MachineRate(workers, 30*time.Millisecond)
		if bound := float64(runtime.GOMAXPROCS(0)) / float64(workers); !ok || r <= 0 || r > bound+0.1 {
			t.Errorf("MachineRate(%d) = %g, %v; want in (0, %g]", workers, r, ok, bound)
		}
	}
}

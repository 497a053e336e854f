package mkpoe

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/testproblems"
	"gonum.org/v1/gonum/mat"
)

// metrics returns every metric of m, in either form (Model.Metric).
func metrics(m *Model) []*mat.SymDense {
	out := make([]*mat.SymDense, m.Blocks())
	for b := range out {
		out[b] = m.Metric(b)
	}
	return out
}

// kernelObjective is the objective of Eq. 13 (K4, one W per kernel) at the
// metrics ws: Σ_p tr(W⁽ᵖ⁾K⁽ᵖ⁾) + β/|𝒞| Σ_c h(1 + d(i,j) − d(k,l)).
func kernelObjective(ks []mat.Symmetric, cs []data.Comparison, beta float64, ws []*mat.SymDense) float64 {
	n := ks[0].SymmetricDim()
	f := 0.0
	for p, k := range ks {
		var wk mat.Dense
		wk.Mul(ws[p], k)
		f += mat.Trace(&wk)
	}
	d := func(a, b int) float64 {
		s := 0.0
		for p, k := range ks {
			v := mat.NewVecDense(n, nil)
			for t := 0; t < n; t++ {
				v.SetVec(t, k.At(a, t)-k.At(b, t))
			}
			s += mat.Inner(v, ws[p], v)
		}
		return s
	}
	loss := 0.0
	for _, c := range cs {
		loss += math.Max(0, 1+d(c.I, c.J)-d(c.K, c.L))
	}
	return f + beta*loss/float64(len(cs))
}

// factoredTwin is m without its W: the factored model of the same
// projections.
func factoredTwin(m *Model) *Model {
	t := *m
	t.W = nil
	return &t
}

// denseTwin is m with every metric formed and stored as W.
func denseTwin(m *Model) *Model {
	t := *m
	t.W = metrics(m)
	return &t
}

// relNorm is ‖a − b‖_∞ / max(‖b‖_∞, tiny).
func relNorm(a, b mat.Matrix) float64 {
	var d mat.Dense
	d.Sub(a, b)
	return mat.Norm(&d, math.Inf(1)) / math.Max(mat.Norm(b, math.Inf(1)), 1e-300)
}

// factoredFixture is a family of small fits: K4 on two kernels, K1 (Sum),
// LPOE and GNMDS, each with the given solver.
type factoredFit struct {
	name  string
	ks    []mat.Symmetric // nil for features and the identity
	x     *mat.Dense      // features (LPOE)
	n     int
	cs    []data.Comparison
	s     Settings
	model *Model
}

func factoredFixtures(t *testing.T, solver Solver) []factoredFit {
	t.Helper()
	rng := rand.New(rand.NewPCG(21, 5))
	n := 14
	hidden := testproblems.Features(rng, n, 3)
	cs := testproblems.Comparisons(rng, hidden, 90, 0.1, testproblems.TripletsIf(true), 0)
	x := mat.NewDense(n, 3, nil)
	x.Add(hidden, testproblems.Features(rng, n, 3))
	k1, k2 := testproblems.Linear(testproblems.Features(rng, n, 4)), testproblems.RBF(x)
	fits := []factoredFit{
		{name: "K4", ks: []mat.Symmetric{k1, k2}, n: n, cs: cs, s: Settings{Beta: 30, Solver: solver}},
		{name: "K1 sum", ks: []mat.Symmetric{k1, k2}, n: n, cs: cs, s: Settings{Beta: 30, Solver: solver, Combine: Sum}},
		{name: "LPOE", x: x, n: n, cs: cs, s: Settings{Beta: 30, Solver: solver}},
		{name: "GNMDS", n: n, cs: cs, s: Settings{Beta: 300, Solver: solver}},
	}
	for i := range fits {
		f := &fits[i]
		var err error
		switch {
		case f.ks != nil:
			f.model, err = Fit(f.ks, f.cs, &f.s)
		case f.x != nil:
			f.model, err = FitFeatures(f.x, f.cs, &f.s)
		default:
			f.model, err = FitIdentity(f.n, f.cs, &f.s)
		}
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		if f.model.IsZero() {
			t.Fatalf("%s: a zero model is no test", f.name)
		}
	}
	return fits
}

// newRows returns the rows Embed takes for t new items of fit f (random
// kernel or feature rows).
func (f factoredFit) newRows(rng *rand.Rand, t int) []*mat.Dense {
	if f.x != nil {
		_, d := f.x.Dims()
		return []*mat.Dense{testproblems.Features(rng, t, d)}
	}
	var rows []*mat.Dense
	for range f.ks {
		rows = append(rows, testproblems.Features(rng, t, f.n))
	}
	return rows
}

// TestMetricForms: Metric returns a dense model's W itself and a factored
// model's NᵀN, by hand and for the factored twin of dense fits of every
// input kind, where NᵀN is W up to the eigenvalues projection drops.
func TestMetricForms(t *testing.T) {
	t.Parallel()
	n := mat.NewDense(2, 3, []float64{1, 2, 0, 0, 1, 1})
	hand := mat.NewSymDense(3, []float64{1, 2, 0, 2, 5, 1, 0, 1, 1})
	for _, tc := range []struct {
		name     string
		m        *Model
		factored bool
		want     []*mat.SymDense
	}{
		{"hand factored", &Model{Proj: []*mat.Dense{n}}, true, []*mat.SymDense{hand}},
		{"hand dense", &Model{W: []*mat.SymDense{hand}, Proj: []*mat.Dense{n}}, false, []*mat.SymDense{hand}},
		{"hand factored, two blocks", &Model{Proj: []*mat.Dense{n, mat.NewDense(1, 2, []float64{3, -1})}}, true,
			[]*mat.SymDense{hand, mat.NewSymDense(2, []float64{9, -3, -3, 1})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.m.Factored() != tc.factored || tc.m.Blocks() != len(tc.want) {
				t.Fatalf("Factored %v, Blocks %d; want %v, %d", tc.m.Factored(), tc.m.Blocks(), tc.factored, len(tc.want))
			}
			for b, want := range tc.want {
				if got := tc.m.Metric(b); !mat.Equal(got, want) || tc.m.MetricDim(b) != want.SymmetricDim() {
					t.Errorf("Metric(%d) =\n%v\nwant\n%v (MetricDim %d)", b, mat.Formatted(got), mat.Formatted(want), tc.m.MetricDim(b))
				}
			}
			if !tc.factored && tc.m.Metric(0) != tc.m.W[0] {
				t.Error("a dense model's Metric is not its W")
			}
		})
	}
	for _, f := range factoredFixtures(t, Accelerated) {
		t.Run("twin of "+f.name, func(t *testing.T) {
			m := f.model
			if m.Factored() {
				t.Fatal("the default solver gave a factored model")
			}
			tw := factoredTwin(m)
			if !tw.Factored() || tw.Blocks() != m.Blocks() {
				t.Fatalf("twin: Factored %v, Blocks %d", tw.Factored(), tw.Blocks())
			}
			for b := 0; b < m.Blocks(); b++ {
				got := tw.Metric(b)
				var ntn mat.Dense
				ntn.Mul(m.Proj[b].T(), m.Proj[b])
				if e := relNorm(got, &ntn); e > 1e-14 {
					t.Errorf("block %d: ‖Metric − NᵀN‖/‖NᵀN‖ = %.2g", b, e)
				}
				if e := relNorm(got, m.W[b]); e > 1e-8 {
					t.Errorf("block %d: ‖Metric − W‖/‖W‖ = %.2g for the dense model's W", b, e)
				}
				if tw.MetricDim(b) != m.MetricDim(b) {
					t.Errorf("block %d: MetricDim %d, dense %d", b, tw.MetricDim(b), m.MetricDim(b))
				}
			}
		})
	}
}

// TestFactoredTwinEmbedAndShares: a factored model and its dense twin (the
// same model with W formed) embed new items identically and give the same
// kernel shares (tr(NKNᵀ) against tr(WK)), for low-rank fits and for the
// factored twins of dense ones.
func TestFactoredTwinEmbedAndShares(t *testing.T) {
	t.Parallel()
	var pairs []struct {
		name            string
		f               factoredFit
		factored, dense *Model
	}
	for _, f := range factoredFixtures(t, LowRank) {
		pairs = append(pairs, struct {
			name            string
			f               factoredFit
			factored, dense *Model
		}{"lowrank " + f.name, f, f.model, denseTwin(f.model)})
	}
	for _, f := range factoredFixtures(t, Accelerated) {
		pairs = append(pairs, struct {
			name            string
			f               factoredFit
			factored, dense *Model
		}{"accelerated " + f.name, f, factoredTwin(f.model), f.model})
	}
	for _, pc := range pairs {
		t.Run(pc.name, func(t *testing.T) {
			if !pc.factored.Factored() || pc.dense.Factored() {
				t.Fatalf("forms: factored %v, dense %v", pc.factored.Factored(), pc.dense.Factored())
			}
			if pc.f.ks == nil && pc.f.x == nil {
				if _, err := pc.factored.Embed(nil); err != ErrNoOutOfSample {
					t.Errorf("GNMDS: Embed err = %v, want ErrNoOutOfSample", err)
				}
			} else {
				rng := rand.New(rand.NewPCG(8, 1))
				rows := pc.f.newRows(rng, 5)
				ef, err := pc.factored.EmbedWithTraining(rows)
				if err != nil {
					t.Fatal(err)
				}
				ed, err := pc.dense.EmbedWithTraining(rows)
				if err != nil {
					t.Fatal(err)
				}
				if !mat.Equal(ef, ed) {
					t.Error("the factored model embeds new items unlike its dense twin")
				}
				bad := pc.f.newRows(rng, 2)
				bad[0] = mat.NewDense(2, pc.f.n+1, nil)
				_, errF := pc.factored.Embed(bad)
				_, errD := pc.dense.Embed(bad)
				if errF == nil || errD == nil || errF.Error() != errD.Error() {
					t.Errorf("rows of the wrong width: factored %v, dense %v", errF, errD)
				}
			}
			if pc.f.ks == nil {
				return
			}
			sf, err := pc.factored.KernelShares(pc.f.ks)
			if err != nil {
				t.Fatal(err)
			}
			sd, err := pc.dense.KernelShares(pc.f.ks)
			if err != nil {
				t.Fatal(err)
			}
			if len(sf) != len(sd) {
				t.Fatalf("shares %v, dense %v", sf, sd)
			}
			for p := range sf {
				if math.Abs(sf[p]-sd[p]) > 1e-10 {
					t.Errorf("share %d: factored %.15g, dense %.15g", p, sf[p], sd[p])
				}
			}
			if _, err := pc.factored.KernelShares(pc.f.ks[:1]); len(sf) > 0 && err == nil {
				t.Error("KernelShares of a factored model accepted one kernel for two blocks")
			}
		})
	}
}

// TestLowRankFitFactored: every low-rank fit (K4, Sum, LPOE, GNMDS) is a
// factored model whose metrics have the orders of the inputs and, on
// kernels, the objective the fit reports; the training embedding is the
// out-of-sample embedding of the training kernel rows (Sec. 4.3).
func TestLowRankFitFactored(t *testing.T) {
	t.Parallel()
	for _, f := range factoredFixtures(t, LowRank) {
		t.Run(f.name, func(t *testing.T) {
			m := f.model
			if !m.Factored() || m.W != nil {
				t.Fatalf("a low-rank fit gave W of %d blocks, want a factored model", len(m.W))
			}
			want := f.n
			if f.x != nil {
				_, want = f.x.Dims()
			}
			for b := 0; b < m.Blocks(); b++ {
				if d := m.Metric(b).SymmetricDim(); d != want || m.MetricDim(b) != want {
					t.Errorf("block %d: metric of order %d (MetricDim %d), want %d", b, d, m.MetricDim(b), want)
				}
			}
			if err := m.checkShapes(); err != nil {
				t.Errorf("checkShapes: %v", err)
			}
			if f.ks == nil {
				return
			}
			ks := f.ks
			if f.s.Combine == Sum {
				sum := mat.NewSymDense(f.n, nil)
				for _, k := range f.ks {
					sum.AddSym(sum, k)
				}
				ks = []mat.Symmetric{sum}
			}
			if fo := kernelObjective(ks, f.cs, f.s.Beta, metrics(m)); relDiff(fo, m.Objective) > 1e-8 {
				t.Errorf("objective of the metrics %.12g, reported %.12g", fo, m.Objective)
			}
			var rows []*mat.Dense
			for _, k := range f.ks {
				rows = append(rows, denseKernel(k))
			}
			emb, err := m.Embed(rows)
			if err != nil {
				t.Fatal(err)
			}
			if e := relNorm(emb, m.Train); e > 1e-10 {
				t.Errorf("embedding of the training rows differs from Train by %.2g", e)
			}
		})
	}
}

// TestFactoredWarmStart: a factored model (a low-rank fit's, also read back
// from its file) warm-starts the default solver, which forms its W, and the
// low-rank method, which takes its projection, and both reach the cold
// fit's objective.
func TestFactoredWarmStart(t *testing.T) {
	t.Parallel()
	for _, f := range factoredFixtures(t, LowRank)[:2] {
		t.Run(f.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := f.model.WriteJSON(&buf); err != nil {
				t.Fatal(err)
			}
			read, err := ReadJSON(&buf, "init.json")
			if err != nil {
				t.Fatal(err)
			}
			for _, init := range []*Model{f.model, read} {
				for _, solver := range []Solver{Accelerated, LowRank} {
					s := f.s
					s.Beta, s.Solver = 3*f.s.Beta, solver
					cold, err := Fit(f.ks, f.cs, &s)
					if err != nil {
						t.Fatal(err)
					}
					s.Init = init
					warm, err := Fit(f.ks, f.cs, &s)
					if err != nil {
						t.Fatalf("%s from a factored Init: %v", solver, err)
					}
					if !warm.Stats.Converged || relDiff(warm.Objective, cold.Objective) > 2e-3 {
						t.Errorf("%s: warm objective %.8g (converged %v), cold %.8g", solver, warm.Objective, warm.Stats.Converged, cold.Objective)
					}
					if warm.Factored() != (solver == LowRank) {
						t.Errorf("%s: warm fit factored %v", solver, warm.Factored())
					}
				}
			}
		})
	}
}

// TestModelJSONForms: dense models are written with "W" and factored ones
// without, and both read back to the same model (matrices bit for bit).
func TestModelJSONForms(t *testing.T) {
	t.Parallel()
	var models []struct {
		name string
		m    *Model
	}
	for _, solver := range []Solver{Accelerated, LowRank} {
		for _, f := range factoredFixtures(t, solver) {
			models = append(models, struct {
				name string
				m    *Model
			}{string(solver) + " " + f.name, f.model})
		}
	}
	for _, tc := range models {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := tc.m.WriteJSON(&buf); err != nil {
				t.Fatal(err)
			}
			var raw map[string]json.RawMessage
			if err := json.Unmarshal(buf.Bytes(), &raw); err != nil {
				t.Fatal(err)
			}
			if _, hasW := raw["W"]; hasW == tc.m.Factored() {
				t.Errorf("factored %v, file has W: %v", tc.m.Factored(), hasW)
			}
			if _, ok := raw["projection"]; !ok {
				t.Error("no projection in the file")
			}
			got, err := ReadJSON(&buf, "m.json")
			if err != nil {
				t.Fatal(err)
			}
			if got.Factored() != tc.m.Factored() || got.Blocks() != tc.m.Blocks() || len(got.W) != len(tc.m.W) {
				t.Fatalf("read back: factored %v, %d blocks, %d W; want %v, %d, %d",
					got.Factored(), got.Blocks(), len(got.W), tc.m.Factored(), tc.m.Blocks(), len(tc.m.W))
			}
			for b := 0; b < tc.m.Blocks(); b++ {
				if !mat.Equal(got.Proj[b], tc.m.Proj[b]) || !mat.Equal(got.Metric(b), tc.m.Metric(b)) {
					t.Errorf("block %d differs after the round trip", b)
				}
			}
			if !mat.Equal(got.Train, tc.m.Train) || got.N != tc.m.N || got.NumInputs != tc.m.NumInputs ||
				got.Input != tc.m.Input || got.Combine != tc.m.Combine || got.Objective != tc.m.Objective {
				t.Error("the model differs after the round trip")
			}
		})
	}
}

// factoredModelJSON is the file of a low-rank K4 model on two 4-item
// kernels (no "W").
func factoredModelJSON(t testing.TB) []byte {
	k := mat.NewSymDense(4, []float64{1, 0.5, 0, 0, 0.5, 1, 0.2, 0, 0, 0.2, 1, 0.3, 0, 0, 0.3, 1})
	cs := []data.Comparison{data.Triplet(0, 1, 3), data.Triplet(2, 3, 0), data.Triplet(1, 0, 2)}
	m, err := Fit([]mat.Symmetric{k, k}, cs, &Settings{Beta: 10, Solver: LowRank})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Factored() {
		t.Fatal("the low-rank fit is not factored")
	}
	var b bytes.Buffer
	if err := m.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestReadJSONFactoredShapes: a factored model file (no "W") whose
// matrices do not fit together is an error naming the file and the
// matrix; so is a file whose W and projection disagree in blocks.
func TestReadJSONFactoredShapes(t *testing.T) {
	t.Parallel()
	good := factoredModelJSON(t)
	if _, err := ReadJSON(bytes.NewReader(good), "m.json"); err != nil {
		t.Fatal(err)
	}
	edit := func(f func(j map[string]any)) []byte {
		var j map[string]any
		if err := json.Unmarshal(good, &j); err != nil {
			t.Fatal(err)
		}
		f(j)
		b, _ := json.Marshal(j)
		return b
	}
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"one projection for two kernels", edit(func(j map[string]any) {
			j["projection"] = j["projection"].([]any)[:1]
		}), "has 2 projections, got 1"},
		{"no projection", edit(func(j map[string]any) { delete(j, "projection") }), "projection must list at least one block"},
		{"projection of the wrong width", edit(func(j map[string]any) { j["n"] = 5.0 }), "projection[0] must have 5 columns (n = 5), got 4"},
		{"ragged projection", edit(func(j map[string]any) {
			p := j["projection"].([]any)[1].([]any)
			p[0] = p[0].([]any)[:3]
			if len(p) == 1 {
				p = append(p, []any{0.0, 0.0, 0.0, 0.0})
			}
			j["projection"].([]any)[1] = p
		}), "projection[1] row"},
		{"W for one block only", edit(func(j map[string]any) {
			j["W"] = []any{[]any{[]any{1.0}}}
		}), "W and projection must list the same number of blocks"},
		{"embedding width", edit(func(j map[string]any) {
			tr := j["train_embedding"].([]any)
			for i, row := range tr {
				tr[i] = append(row.([]any), 0.0)
			}
		}), "train_embedding must be 4×"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadJSON(bytes.NewReader(tc.b), "m.json")
			if err == nil || !strings.Contains(err.Error(), "m.json") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ReadJSON = %v, want an error naming m.json and %q", err, tc.want)
			}
		})
	}
}

package mkpoe

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/conic"
	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/testproblems"
	"gonum.org/v1/gonum/mat"
)

// The pair kernels (conic.AddPairForms, conic.AddPairDifferences,
// diagDistances, diagGradient) expand squared differences into products so
// that gonum's assembly dot and axpy do the work. The element-by-element forms below are
// the definitions they must match, and the baselines of the benchmarks.

// rowOf returns row i of m as a slice of its backing data.
func rowOf(m *mat.Dense, i int) []float64 {
	raw := m.RawMatrix()
	return raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]
}

// pairFormsElementwise adds (f_a − f_b)·(φ_a − φ_b) = (φ_a − φ_b)ᵀX(φ_a − φ_b).
func pairFormsElementwise(phi, f *mat.Dense, pairs []data.Pair, dist []float64) {
	_, r := phi.Dims()
	for k, q := range pairs {
		ra, rb := rowOf(phi, q.A), rowOf(phi, q.B)
		fa, fb := rowOf(f, q.A), rowOf(f, q.B)
		s := 0.0
		for t := 0; t < r; t++ {
			s += (fa[t] - fb[t]) * (ra[t] - rb[t])
		}
		dist[k] += s
	}
}

// pairDifferencesElementwise adds pw_k (φ_a − φ_b) to row a of tm and
// subtracts it from row b.
func pairDifferencesElementwise(tm, phi *mat.Dense, pairs []data.Pair, pw []float64) {
	_, r := phi.Dims()
	for k, q := range pairs {
		ra, rb := rowOf(phi, q.A), rowOf(phi, q.B)
		ta, tb := rowOf(tm, q.A), rowOf(tm, q.B)
		for t := 0; t < r; t++ {
			v := pw[k] * (ra[t] - rb[t])
			ta[t] += v
			tb[t] -= v
		}
	}
}

// diagDistancesElementwise adds Σ_t w_t (φ_at − φ_bt)², the pairs split
// over the cores.
func diagDistancesElementwise(phi *mat.Dense, pairs []data.Pair, w, dist []float64) {
	raw := phi.RawMatrix()
	r := len(w)
	parallelFor(len(pairs), 2048, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			a := raw.Data[pairs[k].A*raw.Stride : pairs[k].A*raw.Stride+r]
			b := raw.Data[pairs[k].B*raw.Stride : pairs[k].B*raw.Stride+r]
			s := 0.0
			for t, wt := range w {
				v := a[t] - b[t]
				s += wt * v * v
			}
			dist[k] += s
		}
	})
}

// diagGradientElementwise adds Σ_k π_k (φ_at − φ_bt)² to g_t, the
// coordinates split over the cores.
func diagGradientElementwise(phi *mat.Dense, pairs []data.Pair, act []int32, pw, g []float64) {
	raw := phi.RawMatrix()
	parallelFor(len(g), 64, func(lo, hi int) {
		for _, k := range act {
			a := raw.Data[pairs[k].A*raw.Stride+lo : pairs[k].A*raw.Stride+hi]
			b := raw.Data[pairs[k].B*raw.Stride+lo : pairs[k].B*raw.Stride+hi]
			for t := range a {
				v := a[t] - b[t]
				g[lo+t] += pw[k] * v * v
			}
		}
	})
}

// kernelProblem is a problem of one block (diagonal or full) with n items, r
// coordinates and count random triplets.
func kernelProblem(rng *rand.Rand, n, r, count int, diag bool) (*problem, []data.Comparison) {
	phi := testproblems.Features(rng, n, r)
	cs := testproblems.Comparisons(rng, testproblems.Features(rng, n, 2), count, 0.1, testproblems.TripletsIf(true), 0)
	blk := block{diag: diag, phi: phi, r: r}
	if diag {
		blk.c = make([]float64, r)
	}
	return newProblem(n, []block{blk}, cs, 1), cs
}

// closeTo reports whether got is within tol of want relative to scale.
func closeTo(got, want, scale, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Max(1, scale)
}

// TestPairKernelsMatchElementwise checks the expanded pair kernels against
// their element-by-element definitions, on lengths that exercise the
// assembly kernels' tails, with sparse and signed weights, and checks that
// newProblem sorts the distinct pairs by first item without changing which
// pairs the comparisons name.
func TestPairKernelsMatchElementwise(t *testing.T) {
	t.Parallel()
	cases := []struct {
		n, r, count int
		density     float64 // share of non-zero weights
	}{
		{n: 4, r: 1, count: 6, density: 1},
		{n: 7, r: 3, count: 20, density: 0.5},
		{n: 12, r: 5, count: 60, density: 1},
		{n: 30, r: 17, count: 200, density: 0.3},
		{n: 40, r: 64, count: 300, density: 0.8},
		{n: 50, r: 131, count: 400, density: 0.1},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("n%d_r%d_density%g", tc.n, tc.r, tc.density), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.n), uint64(tc.r)))
			sparse := func(k int) []float64 {
				w := make([]float64, k)
				for i := range w {
					if rng.Float64() < tc.density {
						w[i] = rng.NormFloat64()
					}
				}
				return w
			}

			// Full blocks.
			p, cs := kernelProblem(rng, tc.n, tc.r, tc.count, false)
			if !slices.IsSortedFunc(p.pairs, func(a, b data.Pair) int { return a.A*tc.n + a.B - (b.A*tc.n + b.B) }) {
				t.Errorf("pairs not sorted: %v", p.pairs)
			}
			for c, cmp := range cs {
				if p.pairs[p.left[c]] != cmp.Left() || p.pairs[p.right[c]] != cmp.Right() {
					t.Fatalf("comparison %d: pairs %v, %v, want %v, %v", c, p.pairs[p.left[c]], p.pairs[p.right[c]], cmp.Left(), cmp.Right())
				}
			}
			phi := p.blocks[0].phi
			// Reversed pairs, so that the kernels do not rely on the order.
			pairs := slices.Clone(p.pairs)
			slices.Reverse(pairs)
			x := randomSymmetric(rng, tc.r)
			var f mat.Dense
			f.Mul(phi, mat.NewDense(tc.r, tc.r, x))
			got, want := make([]float64, len(pairs)), make([]float64, len(pairs))
			for k := range got {
				got[k] = float64(k) // the kernels add
				want[k] = float64(k)
			}
			conic.AddPairForms(phi, &f, pairs, got)
			pairFormsElementwise(phi, &f, pairs, want)
			for k := range got {
				if !closeTo(got[k], want[k], math.Abs(want[k]), 1e-12) {
					t.Errorf("pair form %d %v: %v, want %v", k, pairs[k], got[k], want[k])
				}
			}
			pw := sparse(len(pairs))
			tmGot, tmWant := mat.NewDense(tc.n, tc.r, nil), mat.NewDense(tc.n, tc.r, nil)
			tmGot.Apply(func(i, j int, _ float64) float64 { return float64(i - j) }, tmGot)
			tmWant.Copy(tmGot)
			conic.AddPairDifferences(tmGot, phi, pairs, pw)
			pairDifferencesElementwise(tmWant, phi, pairs, pw)
			if !mat.EqualApprox(tmGot, tmWant, 1e-12) {
				t.Errorf("pair differences: %v, want %v", mat.Formatted(tmGot), mat.Formatted(tmWant))
			}

			// Diagonal blocks.
			p, _ = kernelProblem(rng, tc.n, tc.r, tc.count, true)
			phi = p.blocks[0].phi
			w := sparse(tc.r)
			for i := range w {
				w[i] = math.Abs(w[i])
			}
			got, want = make([]float64, len(p.pairs)), make([]float64, len(p.pairs))
			p.diagDistances(&p.blocks[0], w, got, &diagScratch{})
			diagDistancesElementwise(phi, p.pairs, w, want)
			for k := range got {
				if !closeTo(got[k], want[k], math.Abs(want[k]), 1e-12) {
					t.Errorf("diagonal distance %d %v: %v, want %v", k, p.pairs[k], got[k], want[k])
				}
			}
			pw = sparse(len(p.pairs))
			var act []int32
			for k, v := range pw {
				if v != 0 {
					act = append(act, int32(k))
				}
			}
			gGot, gWant := make([]float64, tc.r), make([]float64, tc.r)
			for i := range gGot {
				gGot[i], gWant[i] = 1, 1
			}
			p.diagGradient(&p.blocks[0], act, pw, gGot)
			diagGradientElementwise(phi, p.pairs, act, pw, gWant)
			scale := 0.0
			for _, k := range act {
				scale += math.Abs(pw[k])
			}
			for i := range gGot {
				if !closeTo(gGot[i], gWant[i], scale, 1e-12) {
					t.Errorf("diagonal gradient %d: %v, want %v", i, gGot[i], gWant[i])
				}
			}
		})
	}
}

// BenchmarkPairKernels times each pair kernel against its element-by-element
// form at the aset400 fixture's scale: n = 330, r = 330 (an RBF block) and
// about 8700 distinct pairs; the diagonal kernels at r = 330 with every
// coordinate of w non-zero (the first iterations) and about 70% of the
// pairs weighted (docs/solver.md, "Pair kernels").
func BenchmarkPairKernels(b *testing.B) {
	rng := rand.New(rand.NewPCG(330, 4400))
	p, _ := kernelProblem(rng, 330, 330, 4400, false)
	phi := p.blocks[0].phi
	var f mat.Dense
	f.Mul(phi, mat.NewDense(330, 330, randomSymmetric(rng, 330)))
	dist := make([]float64, len(p.pairs))
	weights := func(count int) ([]float64, []int32) {
		pw := make([]float64, count)
		var act []int32
		for k := range pw {
			if rng.Float64() < 0.7 {
				pw[k] = rng.NormFloat64()
				act = append(act, int32(k))
			}
		}
		return pw, act
	}
	pw, _ := weights(len(p.pairs))
	tm := mat.NewDense(330, 330, nil)
	pd, _ := kernelProblem(rng, 330, 330, 4400, true)
	pwd, act := weights(len(pd.pairs))
	distd := make([]float64, len(pd.pairs))
	w := make([]float64, 330)
	for i := range w {
		w[i] = rng.Float64()
	}
	g := make([]float64, 330)
	blk := &pd.blocks[0]
	var sc diagScratch
	for _, bc := range []struct {
		name string
		run  func()
	}{
		{"forms/expanded", func() { conic.AddPairForms(phi, &f, p.pairs, dist) }},
		{"forms/elementwise", func() { pairFormsElementwise(phi, &f, p.pairs, dist) }},
		{"differences/expanded", func() { conic.AddPairDifferences(tm, phi, p.pairs, pw) }},
		{"differences/elementwise", func() { pairDifferencesElementwise(tm, phi, p.pairs, pw) }},
		{"diagDistances/expanded", func() { pd.diagDistances(blk, w, distd, &sc) }},
		{"diagDistances/elementwise", func() { diagDistancesElementwise(blk.phi, pd.pairs, w, distd) }},
		{"diagGradient/expanded", func() { pd.diagGradient(blk, act, pwd, g) }},
		{"diagGradient/elementwise", func() { diagGradientElementwise(blk.phi, pd.pairs, act, pwd, g) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				bc.run()
			}
		})
	}
}

// symmetricWithPositives returns a random symmetric r×r matrix with exactly
// pos positive eigenvalues (the others negative).
func symmetricWithPositives(rng *rand.Rand, r, pos int) []float64 {
	var e mat.EigenSym
	if !e.Factorize(mat.NewSymDense(r, randomSymmetric(rng, r)), true) {
		panic("eigendecomposition failed")
	}
	var q mat.Dense
	e.VectorsTo(&q)
	lam := mat.NewDiagDense(r, nil)
	for k := 0; k < r; k++ {
		v := 0.5 + rng.Float64()
		if k >= pos {
			v = -v
		}
		lam.SetDiag(k, v)
	}
	var a mat.Dense
	a.Product(&q, lam, q.T())
	out := make([]float64, r*r)
	for i := 0; i < r; i++ {
		for j := 0; j < r; j++ {
			out[i*r+j] = (a.At(i, j) + a.At(j, i)) / 2
		}
	}
	return out
}

// TestProjectMarginsMatchesGeneric checks that projectMargins, which takes
// full blocks' distances from the factor their projection formed, gives the
// same point, distances and margins as project followed by margins, through
// a sequence of points that makes projectPSD take each of its three ways
// (part of the spectrum from above, the whole decomposition, part of the
// spectrum from below) and the factor be used or not.
func TestProjectMarginsMatchesGeneric(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(4, 12))
	const n = 15
	cs := testproblems.Comparisons(rng, testproblems.Features(rng, n, 2), 80, 0.1, testproblems.TripletsIf(true), 0)
	blocks := []block{
		{phi: testproblems.Features(rng, n, 12), r: 12},
		{diag: true, phi: testproblems.Features(rng, n, 5), r: 5, c: make([]float64, 5)},
		{phi: testproblems.Features(rng, n, 9), r: 9},
	}
	p := newProblem(n, blocks, cs, 1)
	ws, wsGeneric := p.newWorkspace(), p.newWorkspace()
	// Positive eigenvalues per step for the blocks of order 12 and 9, and
	// the way projectPSD takes for the order-12 block given the previous step.
	steps := []struct {
		pos  [2]int
		rank int // the factor's rank that projectMargins may use; −1: none
	}{
		{pos: [2]int{2, 2}, rank: 2},   // from above (no previous projection)
		{pos: [2]int{6, 4}, rank: 6},   // from above, rank r/2: used
		{pos: [2]int{3, 1}, rank: 3},   // whole decomposition (previous half)
		{pos: [2]int{10, 8}, rank: 10}, // from above, too high to be used
		{pos: [2]int{1, 0}, rank: -1},  // from below (previous 10 of 12)
		{pos: [2]int{0, 0}, rank: 0},   // from above, X = 0
	}
	for s, st := range steps {
		x := make([]float64, p.dim)
		for q, b := range []int{0, 2} {
			blk := p.blocks[b]
			copy(x[blk.off:blk.off+blk.size], symmetricWithPositives(rng, blk.r, st.pos[q]))
		}
		for i := range 5 {
			x[p.blocks[1].off+i] = rng.NormFloat64()
		}
		xg := slices.Clone(x)
		dist, m := make([]float64, len(p.pairs)), make([]float64, len(cs))
		distG, mG := make([]float64, len(p.pairs)), make([]float64, len(cs))
		p.projectMargins(ws, x, dist, m)
		p.project(wsGeneric, xg)
		p.margins(wsGeneric, xg, distG, mG)
		if got := ws.eigs[0].rank; got != st.rank {
			t.Errorf("step %d: factor rank %d, want %d", s, got, st.rank)
		}
		if !slices.Equal(x, xg) {
			t.Errorf("step %d: projected points differ", s)
		}
		for k := range dist {
			if !closeTo(dist[k], distG[k], math.Abs(distG[k]), 1e-12) {
				t.Errorf("step %d: distance %d: %v, want %v", s, k, dist[k], distG[k])
			}
		}
		for c := range m {
			if !closeTo(m[c], mG[c], math.Abs(mG[c]), 1e-12) {
				t.Errorf("step %d: margin %d: %v, want %v", s, c, m[c], mG[c])
			}
		}
	}
}

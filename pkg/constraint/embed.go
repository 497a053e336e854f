package constraint

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/data"
)

// TotalOrder returns the symmetric n×n dissimilarity matrix Δ of McFee &
// Lanckriet (2011, Appendix A, Algorithm 5, "Naïve total order
// construction") for the acyclic comparison set cs over items 0..n-1:
//
//	Δ_ii = 0
//	for each pair (k,l) in topological order:
//	    Δ_kl = Δ_lk = 1                                  if in-degree(k,l) = 0
//	    Δ_kl = Δ_lk = max_{(i,j,k,l) ∈ C} Δ_ij + 1       otherwise
//
// so Δ_kl ≥ Δ_ij + 1 for every comparison (i,j,k,l) in cs, and Δ_kl − 1 is
// the length of the longest path ending at {k,l}.
//
// The graph is over all pairs of items (Sec. 2.1), so a pair that occurs in no
// comparison is an isolated vertex and gets Δ = 1. Deviation: a degenerate
// pair {m,m} keeps Δ_mm = 0 (the paper's loop would overwrite it with 1 when
// {m,m} is a vertex); a comparison (m,m,k,l) then only needs Δ_kl ≥ 1, which
// holds, and a comparison (i,j,m,m) is unsatisfiable and is an error (remove
// it with [Degenerate]).
//
// TotalOrder returns an error if n < 1, if an index is outside [0,n), if cs
// fails [Validate], and a *[CycleError] if cs has a cycle. cs may be empty
// (then Δ = 1 off the diagonal).
func TotalOrder(cs []data.Comparison, n int) (*mat.SymDense, error) {
	if n < 1 {
		return nil, fmt.Errorf("constraint: number of items must be ≥ 1, got %d", n)
	}
	if err := data.ValidateComparisons(cs, n); err != nil {
		return nil, fmt.Errorf("constraint: %w", err)
	}
	if err := Validate(cs); err != nil {
		return nil, err
	}
	for idx, c := range cs {
		if c.K == c.L {
			return nil, fmt.Errorf("constraint: comparison %d %v: its far pair {%d,%d} has distance 0, so d(%d,%d) < 0 cannot hold (remove it with the degenerate step)", idx, c, c.K, c.L, c.I, c.J)
		}
	}
	g := newDigraph(cs)
	out := g.adjacency(true)
	order, acyclic := g.topoOrder(out)
	if !acyclic {
		return nil, g.cycleError(cs, out)
	}
	level := make([]float64, g.order())
	for _, v := range order {
		if p := PairOf(g.ids[v]); p.A == p.B {
			level[v] = 0 // Δ_mm = 0; such a vertex has in-degree 0 (checked above)
		} else if level[v] == 0 {
			level[v] = 1 // in-degree 0
		}
		for _, e := range out.of(v) {
			w := g.dst[e]
			level[w] = math.Max(level[w], level[v]+1)
		}
	}
	delta := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			delta.SetSym(i, j, 1)
		}
	}
	for v, id := range g.ids {
		p := PairOf(id)
		if p.A != p.B {
			delta.SetSym(p.A, p.B, level[v])
		}
	}
	return delta, nil
}

// Embed returns an embedding of items 0..n-1 that satisfies every comparison
// of the acyclic set cs, the constructive proof of McFee & Lanckriet (2011,
// Appendix A). Δ = [TotalOrder](cs, n) is taken as squared dissimilarities,
// classical MDS gives (Eq. 15)
//
//	A = −½ HΔH,   H = I − (1/n) 1 1ᵀ,
//
// the constant shift of Roth et al. (2003) makes it PSD (Eq. 16)
//
//	Â = A − λ_n(A) I ⪰ 0,
//
// and with Â = V Λ̂ Vᵀ row i of the result is item i's point V_i Λ̂^½, so that
//
//	‖g(i) − g(j)‖² = Â_ii + Â_jj − 2Â_ij = Δ_ij − 2λ_n(A)   (i ≠ j).
//
// Since Δ_kl ≥ Δ_ij + 1 for each comparison (i,j,k,l), every comparison
// holds strictly with squared-distance margin ≥ 1 (up to rounding of order
// 1e-12·n·max Δ), so d(i,j) < d(k,l) holds too. Eq. 1 asks for margin > 1;
// scaling the result by any factor > 1 gives it.
//
// The result is n×n' with n' ≤ n−1: eigenvalues of Â at most 1e-9·λ_max(Â)
// (among them the one shifted to 0) are dropped. For n = 1 it is 1×1 zero.
// Embed returns the errors of [TotalOrder]; cs is not modified.
func Embed(cs []data.Comparison, n int) (*mat.Dense, error) {
	delta, err := TotalOrder(cs, n)
	if err != nil {
		return nil, err
	}
	if n == 1 {
		return mat.NewDense(1, 1, nil), nil
	}
	// A = −½ HΔH computed entrywise: A_ij = −½(Δ_ij − r_i − r_j + s) with r
	// the row means of Δ and s its grand mean.
	r := make([]float64, n)
	s := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			r[i] += delta.At(i, j)
		}
		r[i] /= float64(n)
		s += r[i]
	}
	s /= float64(n)
	a := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			a.SetSym(i, j, -0.5*(delta.At(i, j)-r[i]-r[j]+s))
		}
	}
	var eig mat.EigenSym
	if ok := eig.Factorize(a, true); !ok {
		return nil, fmt.Errorf("constraint: eigendecomposition of the %d×%d MDS matrix did not converge", n, n)
	}
	vals := eig.Values(nil) // ascending
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	shift := vals[0] // λ_n(A), the minimum eigenvalue
	top := vals[n-1] - shift
	var cols []int
	for k := n - 1; k >= 0; k-- { // descending, as in the paper's convention
		if vals[k]-shift > 1e-9*top {
			cols = append(cols, k)
		}
	}
	if len(cols) == 0 {
		return mat.NewDense(n, 1, nil), nil
	}
	x := mat.NewDense(n, len(cols), nil)
	for c, k := range cols {
		sc := math.Sqrt(vals[k] - shift)
		for i := 0; i < n; i++ {
			x.Set(i, c, vecs.At(i, k)*sc)
		}
	}
	return x, nil
}

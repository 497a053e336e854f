package mkpoe

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// deflatedEigen bounds λ_min of block b's dual-slack term S = ΦᵀMΦ
// (slackOperator) by splitting ℝʳ into span(L), L the block's factor in
// l (r×k), and its orthogonal complement (docs/solver.md, "Low-rank
// method: the certificate on the complement of the factor").
//
// At a stationary point of the factored objective the gradient 2(I + S)L
// vanishes, so span(L) is an invariant subspace of S for the eigenvalue
// −1: rank-many eigenvalues sit there in a cluster that Lanczos on the
// whole space resolves only after nearly r steps. On the complement the
// rest of the spectrum is separated from −1 and Lanczos stops early. With
// Q an orthonormal basis of span(L), a = λ_min(QᵀSQ), c = ‖(I − QQᵀ)SQ‖₂
// and b a lower estimate of λ_min of S on the complement, every unit
// x = Qu + v (v ⊥ span L) has xᵀSx ≥ a‖u‖² − 2c‖u‖‖v‖ + b‖v‖², so
//
//	λ_min(S) ≥ (a + b)/2 − √(((a − b)/2)² + c²),
//
// which is a − c²/(b − a) to second order in c: tight once L is near
// stationary. The Ritz pairs returned, for rank growth, are the
// complement's, directions a new column can take.
func (lr *lowRank) deflatedEigen(b int, l []float64, want int) (ritz, bool) {
	tn := lr.p.tune.lowRank
	fb := lr.blocks[b]
	r := fb.blk.r
	apply := lr.slackOperator(b)
	q := orthonormalRange(mat.NewDense(r, fb.k, l), tn.rangeTol)
	if q == nil {
		return smallestEigen(r, apply, want, min(r, tn.lanczosSteps), tn.lanczosTol, lr.stop)
	}
	_, kq := q.Dims()
	sq := mat.NewDense(r, kq, nil)
	col, out := make([]float64, r), make([]float64, r)
	for j := 0; j < kq; j++ {
		mat.Col(col, j, q)
		apply(col, out)
		sq.SetCol(j, out)
	}
	var inner, resid mat.Dense
	inner.Mul(q.T(), sq)
	a, ok := smallestSymEigen(&inner)
	if !ok {
		return ritz{}, false
	}
	resid.Mul(q, &inner)
	resid.Sub(sq, &resid)
	var gram mat.Dense
	gram.Mul(resid.T(), &resid)
	cc, ok := largestSymEigen(&gram)
	if !ok {
		return ritz{}, false
	}
	c := math.Sqrt(math.Max(cc, 0))
	if kq >= r {
		return ritz{lower: a - c}, true
	}
	coef, along := make([]float64, kq), make([]float64, r)
	project := func(v []float64) { // v ← (I − QQᵀ)v
		mat.NewVecDense(kq, coef).MulVec(q.T(), mat.NewVecDense(r, v))
		mat.NewVecDense(r, along).MulVec(q, mat.NewVecDense(kq, coef))
		floats.Sub(v, along)
	}
	deflated := func(v, dst []float64) {
		copy(col, v)
		project(col)
		apply(col, dst)
		project(dst)
	}
	start := lanczosStart(r)
	project(start)
	res, ok := smallestEigenFrom(start, deflated, want, min(r-kq, tn.lanczosSteps), tn.lanczosTol, lr.stop)
	if !ok {
		return ritz{}, false
	}
	bl := res.lower
	res.lower = (a+bl)/2 - math.Hypot((a-bl)/2, c)
	return res, true
}

// orthonormalRange returns an orthonormal basis of the range of l (r×k)
// from its thin SVD: the left singular vectors whose singular value is
// above rel of the largest (lowRankTuning.rangeTol); nil if l is zero or
// the SVD fails.
func orthonormalRange(l *mat.Dense, rel float64) *mat.Dense {
	u, _, ok := leadingSingular(l, rel)
	if !ok {
		return nil
	}
	return u
}

// leadingSingular returns the left singular vectors of l (r×k, thin SVD)
// whose singular value is above rel times the largest, as the columns of
// u, and every singular value, descending; u is nil when none is (a zero
// l), ok false when the SVD fails.
func leadingSingular(l *mat.Dense, rel float64) (u *mat.Dense, sv []float64, ok bool) {
	r, _ := l.Dims()
	var svd mat.SVD
	if !svd.Factorize(l, mat.SVDThin) {
		return nil, nil, false
	}
	sv = svd.Values(nil)
	keep := 0
	for _, v := range sv {
		if v > rel*sv[0] {
			keep++
		}
	}
	if keep == 0 {
		return nil, sv, true
	}
	var all mat.Dense
	svd.UTo(&all)
	return mat.DenseCopyOf(all.Slice(0, r, 0, keep)), sv, true
}

// principalColumns returns l·V (r×keep), V the eigenvectors of the Gram
// matrix lᵀl whose eigenvalue is above rel² times the largest: the columns
// of l rotated onto its principal axes (U·Σ of its SVD, up to signs),
// those with a singular value above rel times the largest. W = llᵀ loses
// only the dropped directions. The k×k Gram costs r·k² and its
// eigendecomposition k³, against an r×k SVD; squaring the singular values
// is harmless at the rel of pruning (1e-2), not at orthonormalRange's.
func principalColumns(l *mat.Dense, rel float64) (kept *mat.Dense, keep int, ok bool) {
	r, k := l.Dims()
	gram := mat.NewSymDense(k, nil)
	gram.SymOuterK(1, l.T())
	var es mat.EigenSym
	if !es.Factorize(gram, true) {
		return nil, 0, false
	}
	vals := es.Values(nil) // ascending
	top := vals[k-1]
	if !(top > 0) {
		return nil, 0, true
	}
	first := k
	for first > 0 && vals[first-1] > rel*rel*top {
		first--
	}
	keep = k - first
	var vecs mat.Dense
	es.VectorsTo(&vecs)
	kept = mat.NewDense(r, keep, nil)
	// Largest first, as the SVD orders them.
	rev := mat.NewDense(k, keep, nil)
	for c := 0; c < keep; c++ {
		for i := 0; i < k; i++ {
			rev.Set(i, c, vecs.At(i, k-1-c))
		}
	}
	kept.Mul(l, rev)
	return kept, keep, true
}

// smallestSymEigen returns λ_min of the symmetric part of the square m.
func smallestSymEigen(m *mat.Dense) (float64, bool) {
	vals, ok := symEigenvalues(m)
	if !ok || len(vals) == 0 {
		return math.Inf(1), ok
	}
	return vals[0], true
}

// largestSymEigen returns λ_max of the symmetric part of the square m.
func largestSymEigen(m *mat.Dense) (float64, bool) {
	vals, ok := symEigenvalues(m)
	if !ok || len(vals) == 0 {
		return math.Inf(-1), ok
	}
	return vals[len(vals)-1], true
}

// symEigenvalues returns the ascending eigenvalues of (m + mᵀ)/2.
func symEigenvalues(m *mat.Dense) ([]float64, bool) {
	n, _ := m.Dims()
	if n == 0 {
		return nil, true
	}
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			s.SetSym(i, j, (m.At(i, j)+m.At(j, i))/2)
		}
	}
	var es mat.EigenSym
	if !es.Factorize(s, false) {
		return nil, false
	}
	return es.Values(nil), true
}

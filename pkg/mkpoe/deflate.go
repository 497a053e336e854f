package mkpoe

import (
	"math"

	"github.com/mkpoe/mkpoe/internal/linalg"
	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/conic"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
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
func (lr *lowRank) deflatedEigen(b int, l []float64, want int, need float64) (ritz, bool) {
	tn := lr.p.tune.lowRank
	fb := lr.blocks[b]
	r := fb.blk.r
	apply := lr.slackOperator(b)
	q := rangeBasis(mat.NewDense(r, fb.k, l), tn.rangeTol, tn.cholQRMaxCond)
	if q == nil {
		return smallestEigen(r, apply, want, min(r, tn.lanczosSteps), tn.lanczosTol, lr.stop)
	}
	_, kq := q.Dims()
	sq := lr.slackBlock(b, q)
	col := make([]float64, r)
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
	opt := conic.LanczosOptions{Tol: tn.lanczosTol, Stop: lr.stop}
	if need > math.Inf(-1) {
		opt.Enough = func(theta, resid float64) bool {
			return enoughForGrowth(a, theta, c, resid, need, lr.growTol)
		}
	}
	res, ok := smallestEigenFrom(start, deflated, want, min(r-kq, tn.lanczosSteps), opt)
	if !ok {
		return ritz{}, false
	}
	bl := res.lower
	res.lower = deflatedBound(a, bl, c)
	return res, true
}

// slackBlock returns ΦᵀMΦ·Q for block b (Q r×k, contiguous rows): the
// columns slackOperator would give one by one, in one pass over the pairs
// for all k columns (addGradient: the pair loop on both cores, or
// densePairs' product), as the gradient's Lap(w)·Y is formed.
func (lr *lowRank) slackBlock(b int, q *mat.Dense) *mat.Dense {
	blk := lr.blocks[b].blk
	n, r := lr.p.n, blk.r
	_, k := q.Dims()
	u := mat.NewDense(n, k, nil)
	if d := blk.phiDiag; d != nil {
		for i := 0; i < n; i++ {
			floats.ScaleTo(u.RawRowView(i), d[i], q.RawRowView(i))
		}
	} else {
		u.Mul(blk.phi, q)
	}
	zn := make([]float64, n*k)
	lr.addGradient(u.RawMatrix().Data, k, lr.w, zn)
	floats.Scale(0.5, zn) // addGradient adds 2w_q(u_a − u_b)
	out := mat.NewDense(r, k, nil)
	if d := blk.phiDiag; d != nil {
		for i := 0; i < n; i++ {
			floats.ScaleTo(out.RawRowView(i), d[i], zn[i*k:(i+1)*k])
		}
		return out
	}
	out.Mul(blk.phi.T(), mat.NewDense(n, k, zn))
	return out
}

// enoughForGrowth reports whether a certificate's Lanczos on the
// complement may stop at Ritz value theta with residual resid: when even
// the complement's λ_min at theta (Ritz values only fall as steps are
// added) leaves the deflated bound below need, the lowest bound that
// could certify, the certificate cannot certify, and the run is wanted
// only for rank growth: it stops once no direction can be below −growTol
// (theta − resid above it). A run that finds such a direction goes on to
// lanczosTol, since the columns grown along it are that precise.
func enoughForGrowth(a, theta, c, resid, need, growTol float64) bool {
	if deflatedBound(a, theta, c) >= need {
		return false
	}
	return theta-resid >= -1-growTol
}

// deflatedBound is the bound of deflatedEigen: λ_min ≥ (a + b)/2 −
// √(((a − b)/2)² + c²).
func deflatedBound(a, b, c float64) float64 {
	return (a+b)/2 - math.Hypot((a-b)/2, c)
}

// rangeBasis returns an orthonormal basis of the range of l (r×k) by
// CholeskyQR2 (Fukaya et al. 2014: Q = L·R⁻¹ with RᵀR = LᵀL, done twice
// for orthogonality to rounding), three matrix products and two k×k
// Cholesky factorisations instead of an r×k SVD, which was 19% of a
// dense 100-item fit at 1000·β_min. It falls back to orthonormalRange
// (which drops directions below rel of the largest singular value) when
// a Gram matrix fails to factor or its condition exceeds maxCond
// (lowRankTuning.cholQRMaxCond), where CholeskyQR loses orthogonality.
func rangeBasis(l *mat.Dense, rel, maxCond float64) *mat.Dense {
	r, k := l.Dims()
	if k == 0 || r < k {
		return orthonormalRange(l, rel)
	}
	q := mat.DenseCopyOf(l)
	for pass := 0; pass < 2; pass++ {
		gram := mat.NewSymDense(k, nil)
		gram.SymOuterK(1, q.T())
		var ch mat.Cholesky
		if !ch.Factorize(gram) || ch.Cond() > maxCond {
			return orthonormalRange(l, rel)
		}
		var u mat.TriDense
		ch.UTo(&u)
		raw := q.RawMatrix()
		blas64.Trsm(blas.Right, blas.NoTrans, 1, u.RawTriangular(), blas64.General{Rows: raw.Rows, Cols: raw.Cols, Stride: raw.Stride, Data: raw.Data})
	}
	return q
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
// eigendecomposition k³ (linalg.SymEigen: dsyevd in the OpenBLAS build,
// 8% of a 100-item alm fit's time with gonum's), against an r×k SVD;
// squaring the singular values is harmless at the rel of pruning (1e-2),
// not at orthonormalRange's.
func principalColumns(l *mat.Dense, rel float64) (kept *mat.Dense, keep int, ok bool) {
	r, k := l.Dims()
	gram := mat.NewDense(k, k, nil)
	gram.Mul(l.T(), l)
	vals := make([]float64, k) // ascending
	if !linalg.SymEigen(k, gram.RawMatrix().Data, vals, true) {
		return nil, 0, false
	}
	top := vals[k-1]
	if !(top > 0) {
		return nil, 0, true
	}
	first := k
	for first > 0 && vals[first-1] > rel*rel*top {
		first--
	}
	keep = k - first
	vecs := gram // overwritten with the eigenvectors, by column
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

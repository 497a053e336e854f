package conic

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/internal/linalg"
)

// The interior-point method (doc.go): the problem, the iterates and the
// phases of an iteration (Solve), the Nesterov–Todd scaling, step lengths
// and correctors. (P) is the epigraph form of the MKPOE objective and (D)
// its dual (docs/solver.md, "Interior-point crossover"); the Newton
// systems are in normal.go and pairs.go.

// Block is one block of 𝒦: an order-K PSD cone or a K-dimensional
// orthant, at offset Off in x (Size entries).
type Block struct {
	PSD       bool
	K         int
	Off, Size int
}

// Problem is an instance of (P). The caller sets the blocks, cost, μ, the
// Newton system (which holds B) and the settings; the other fields are
// options.
type Problem struct {
	Blocks []Block
	Dim    int       // K
	NT     int       // |T|, the number of comparisons
	C      []float64 // cost, length K
	Mu     float64   // μ, the bound on every multiplier
	// System is the Newton system: NormalEquations (B explicit) or a
	// PairOperator (B through the item coordinates, comparison space).
	System NewtonSystem
	// Settings is the method's tuning: DefaultSettings unless a test
	// changes a field (the zero value turns the correctors, mixed
	// precision and the Lanczos step lengths off).
	Settings Settings
	// Accept, if not nil, is asked when the stopping rule holds; returning
	// false makes the method go on (to tighter accuracy). pkg/mkpoe's
	// interiorFull uses it to stop only once the certificate on the whole
	// problem holds: small residuals in the ∞-norm do not bound the
	// spectrum of the dual slack tightly enough on their own.
	Accept func(Result) bool
	// AskFrom, if above the method's tolerance, makes it ask Accept as
	// soon as the relative gap and residuals are below AskFrom (with
	// Result.Final false): the whole problem's certificate (1e-3) often
	// holds while the restricted one is still far from its own tolerance,
	// and every interior-point iteration saved is a Newton system.
	AskFrom float64
	// Alpha0, if in (0, μ/2), is the starting multiplier of every
	// comparison (default μ/2). At large β the optimal multipliers do not
	// grow with μ once the box stops binding, and starting at μ/2 puts the
	// dual residual orders of magnitude above the solution's scale.
	Alpha0 float64
	// BalancedStart starts each hinge ξ_c so that its complementarity
	// product ξ_c(μ−α_c) equals the slack's s_c·α_c, leaving the primal
	// equation to the residual, instead of at ξ_c = max(1 + b_cᵀx, 0) + 1,
	// which is primal feasible but puts ξ_c(μ−α_c) ≈ μ, orders of
	// magnitude above every other product at large β: the method then
	// spends its first steps on those products alone. pkg/mkpoe's
	// interiorFull sets it, together with Alpha0 from its estimate of the
	// optimum (docs/solver.md: the two together took a full fit at β = 1e7
	// on the fixture from 56 to 45 iterations, either alone did not help);
	// the diagonal rounds keep the primal-feasible start, with which they
	// were faster. ξ_c is kept at least 1e-8 so that the start stays
	// interior where α_c is tiny.
	BalancedStart bool
	// SnapshotGap, if positive, makes the method keep a copy of the first
	// iterate whose relative gap and residuals are all below it
	// (Result.Snapshot), a start for a later run on more comparisons.
	SnapshotGap float64
	// Start, if not nil, is the starting point instead of the default one:
	// an interior iterate of an earlier run on the same cone (same blocks
	// and cost) whose comparisons are the first of this problem's
	// (Point.Sizes). Each comparison beyond gets a small multiplier (a
	// tenth of the start's mean, Settings.WarmNewAlpha) and ξ, s whose
	// complementarity products equal the start's duality measure ν, which
	// leaves its primal equation to the residual: the start stays as
	// central as the earlier iterate and the dual residual is barely moved
	// (pkg/mkpoe's interiorFull, docs/solver.md "Warm-started rounds").
	Start *Point
	// Step, if not nil, is called after every Newton step with the number
	// of steps taken and how far the new iterate is from the stopping
	// test: the largest of its relative duality gap and relative
	// residuals over the level at which the method may stop (max(tol,
	// AskFrom); at most 1: it may stop there). Progress reports use it;
	// it must not change anything.
	Step func(it int, far float64)
}

// SvecLen is the length of svec of a k×k symmetric matrix.
func SvecLen(k int) int { return k * (k + 1) / 2 }

// SvecOf writes svec(a) of the k×k symmetric matrix a (row-major) into v.
func SvecOf(k int, a []float64, v []float64) {
	p := 0
	for i := 0; i < k; i++ {
		v[p] = a[i*k+i]
		p++
		for j := i + 1; j < k; j++ {
			v[p] = math.Sqrt2 * (a[i*k+j] + a[j*k+i]) / 2
			p++
		}
	}
}

// SmatOf writes the k×k symmetric matrix (row-major) of svec v into a.
func SmatOf(k int, v []float64, a []float64) {
	p := 0
	for i := 0; i < k; i++ {
		a[i*k+i] = v[p]
		p++
		for j := i + 1; j < k; j++ {
			x := v[p] / math.Sqrt2
			a[i*k+j], a[j*k+i] = x, x
			p++
		}
	}
}

// Result is the outcome of Solve.
type Result struct {
	X, Alpha   []float64
	Primal     float64 // cᵀx + μΣξ at the returned point
	Dual       float64 // Σα
	Iterations int
	// Snapshot: the iterate kept by Problem.SnapshotGap, or nil.
	Snapshot *Point
	// Final: the method's own stopping rule holds (Accept was asked for
	// that reason, not because of AskFrom).
	Final bool
}

// Point is an iterate of Solve: primal x, ξ, s; dual S, α; and its
// duality measure ν.
type Point struct {
	iterate
	nu float64
}

// Sizes returns the length of the iterate's x and its number of
// comparisons (of α): a Point starts a Problem of that dimension and at
// least as many comparisons (Problem.Start).
func (pt *Point) Sizes() (dim, comparisons int) { return len(pt.x), len(pt.alpha) }

// ErrStalled reports that the interior-point method could not make
// progress (numerical trouble); the caller falls back.
var ErrStalled = errors.New("mkpoe: interior-point method stalled")

// ntBlock holds the Nesterov–Todd scaling of one PSD block at the current
// point: W = GGᵀ with GᵀSG = G⁻¹XG⁻ᵀ = Λ = diag(lambda), and Ginvt = G⁻ᵀ.
// w and winv hold W and W⁻¹ = G⁻ᵀG⁻¹ themselves: applying the scaling
// (applyScaling, several times per Newton step) as W R W costs two
// products where G(GᵀRG)Gᵀ costs four.
type ntBlock struct {
	g, ginvt *mat.Dense
	w, winv  *mat.Dense
	lambda   []float64
}

// ntScaling computes the NT scaling of X, S ≻ 0 (k×k): with S = L Lᵀ
// (Cholesky) and Lᵀ X L = U Σ² Uᵀ (eigendecomposition), G = X L U Σ^{-3/2},
// G⁻ᵀ = L U Σ^{-1/2} and Λ = Σ, so that GᵀSG = G⁻¹XG⁻ᵀ = Λ and W = GGᵀ
// maps S to X (Todd, Toh & Tütüncü 1998, Sec. 4; the SVD of L_SᵀL_X there
// is replaced by the eigendecomposition of its Gram matrix, which the
// OpenBLAS build runs in LAPACK). It reports false if S is not
// numerically positive definite or Lᵀ X L has a non-positive eigenvalue.
func ntScaling(k int, x, s []float64) (ntBlock, bool) {
	sc := append([]float64(nil), s...)
	cf, ok := factorSPD(k, sc, nil)
	if !ok {
		return ntBlock{}, false
	}
	// L (lower) = Uᵀ of dpotrf's upper factor.
	l := mat.NewDense(k, k, nil)
	for i := 0; i < k; i++ {
		for j := i; j < k; j++ {
			l.Set(j, i, cf.a[i*k+j])
		}
	}
	var xl, lxl mat.Dense
	xl.Mul(mat.NewDense(k, k, x), l)
	lxl.Mul(l.T(), &xl)
	a := append([]float64(nil), lxl.RawMatrix().Data...)
	vals := make([]float64, k)
	if !linalg.SymEigen(k, a, vals, true) {
		return ntBlock{}, false
	}
	sig := make([]float64, k)
	for i, v := range vals {
		if !(v > 0) {
			return ntBlock{}, false
		}
		sig[i] = math.Sqrt(v)
	}
	u := mat.NewDense(k, k, a)
	ginvt := mat.NewDense(k, k, nil)
	ginvt.Mul(l, u)
	g := mat.NewDense(k, k, nil)
	g.Mul(&xl, u)
	for j, sv := range sig {
		r := 1 / math.Sqrt(sv)
		r3 := r * r * r
		for i := 0; i < k; i++ {
			ginvt.Set(i, j, ginvt.At(i, j)*r)
			g.Set(i, j, g.At(i, j)*r3)
		}
	}
	w := mat.NewDense(k, k, nil)
	w.Mul(g, g.T())
	winv := mat.NewDense(k, k, nil)
	winv.Mul(ginvt, ginvt.T())
	return ntBlock{g: g, ginvt: ginvt, w: w, winv: winv, lambda: sig}, true
}

// congruence returns Aᵀ Y A for the k×k matrices (Y symmetric row-major).
func congruence(a mat.Matrix, y []float64, k int) *mat.Dense {
	var ya, out mat.Dense
	ya.Mul(mat.NewDense(k, k, y), a)
	out.Mul(a.T(), &ya)
	return &out
}

// maxStepPSD returns the largest a ≤ 1 with Λ + a·D ⪰ 0 for the scaled
// direction D (k×k), i.e. 1/max(0, −λ_min(Λ^{-1/2} D Λ^{-1/2})), from the
// whole eigenvalue problem: psdStep's exact fall back.
func maxStepPSD(lambda []float64, d *mat.Dense) float64 {
	k := len(lambda)
	a := make([]float64, k*k)
	dd := d.RawMatrix()
	for i := 0; i < k; i++ {
		for j := i; j < k; j++ {
			a[i*k+j] = (dd.Data[i*dd.Stride+j] + dd.Data[j*dd.Stride+i]) / 2 / math.Sqrt(lambda[i]*lambda[j])
		}
	}
	vals := make([]float64, k)
	if !linalg.SymEigen(k, a, vals, false) {
		return 0
	}
	lmin := vals[0]
	if lmin >= -1 {
		return 1
	}
	return -1 / lmin
}

// iterate is a point of the method: primal x and dual slack S (sd) on 𝒦,
// and per comparison the hinge ξ, its slack s (sl) and the multiplier α.
type iterate struct {
	x, sd         []float64
	xi, sl, alpha []float64
}

// direction is a Newton direction, one component per component of an
// iterate: Δx, ΔS, Δξ, Δs, Δα.
type direction struct {
	x, sd         []float64
	xi, sl, alpha []float64
}

// newDirection returns a direction of K cone and nT comparison entries.
func newDirection(K, nT int) direction {
	return direction{x: make([]float64, K), sd: make([]float64, K),
		xi: make([]float64, nT), sl: make([]float64, nT), alpha: make([]float64, nT)}
}

// targets is the complementarity part of a Newton system's right-hand
// side: rc on the cone (as Δx + 𝒲ΔS = rc), rxi for the hinges' products
// ξ(μ−α) and rs for the slacks' s·α.
type targets struct {
	rc      []float64
	rxi, rs []float64
}

// residuals are an iterate's primal residuals r_p = 1 − ξ + s + Bx (per
// comparison) and dual residuals r_d = c + Bᵀα − S (on the cone).
type residuals struct {
	rp, rd []float64
}

// newtonStep is what the solves of one Newton step share: the iterate, its
// NT scalings, Δ_c = ξ_c/(μ−α_c) + s_c/α_c, its residuals and the
// factorisation of the step's Newton matrix.
type newtonStep struct {
	pt    *iterate
	nts   []ntBlock
	delta []float64
	res   *residuals
	chol  *cholFactor
	// wrd is 𝒲 r_d, the same for every solve of the step: computed by the
	// first comparison-space solve.
	wrd []float64
}

// run is the state of one Solve: the current iterate, its residuals and
// duality measure, the scratch of the directions, and the result so far.
type run struct {
	cp      *Problem
	pt      iterate
	order   float64 // ν's denominator: the blocks' orders plus 2|T|
	cScale  float64 // 1 + ‖c‖∞, the scale of the dual residual
	bx      []float64
	btAlpha []float64
	res     residuals
	nu      float64 // duality measure of pt
	far     float64 // pt's distance from the stopping test (Problem.Step)
	aff     direction
	dir     direction
	result  Result
}

// Solve solves (P)/(D) to a relative duality gap and relative
// residuals of about tol. It returns ErrStalled if it cannot.
//
// Each iteration measures the iterate (residuals, gap and the stopping
// test: measure), scales and factors the Newton system (factor), takes
// the affine-scaling predictor (predict) and Mehrotra's corrector with
// Gondzio's centrality correctors (correct), and steps (step).
func Solve(ctx context.Context, cp *Problem, tol float64, maxIter int) (Result, error) {
	nT, K := cp.NT, cp.Dim
	var b *mat.Dense
	switch sys := cp.System.(type) {
	case *NormalEquations:
		b = sys.B
	case *PCGNormalEquations:
		b = sys.B
	}
	if b != nil {
		if r, c := b.Dims(); r != nT || c != K {
			return Result{}, fmt.Errorf("mkpoe: internal error: conic problem B is %d×%d, want %d×%d", r, c, nT, K)
		}
	}
	r := start(cp)
	for it := 1; it <= maxIter; it++ {
		if err := ctx.Err(); err != nil {
			return r.result, fmt.Errorf("mkpoe: fit stopped in the interior-point stage: %w", err)
		}
		r.result.Iterations = it
		stop := r.measure(tol)
		if cp.Step != nil && it > 1 {
			cp.Step(it-1, r.far) // the Newton steps taken so far
		}
		if stop {
			return r.result, nil
		}
		ns, err := r.factor(ctx)
		if err != nil {
			return r.result, err
		}
		t, sigma, ok := r.predict(ns)
		if !ok {
			return r.result, ErrStalled
		}
		ap, ad, ok := r.correct(ns, t, sigma)
		if !ok || !r.step(ap, ad) {
			return r.result, ErrStalled
		}
	}
	return r.result, ErrStalled
}

// start returns a run at the starting point: x = identity (interior of 𝒦),
// ξ and s primal feasible (or balanced: Problem.BalancedStart), α = μ/2
// (or Problem.Alpha0), S = identity shifted to cover the dual residual's
// scale; or the warm start Problem.Start.
func start(cp *Problem) *run {
	nT, K := cp.NT, cp.Dim
	mu := cp.Mu
	x := make([]float64, K)
	sd := make([]float64, K)
	cScale := 1 + floats.Norm(cp.C, math.Inf(1))
	for _, bl := range cp.Blocks {
		if bl.PSD {
			p := 0
			for i := 0; i < bl.K; i++ {
				x[bl.Off+p] = 1
				sd[bl.Off+p] = cScale
				p += bl.K - i
			}
		} else {
			for t := 0; t < bl.K; t++ {
				x[bl.Off+t] = 1
				sd[bl.Off+t] = cScale
			}
		}
	}
	bx := make([]float64, nT)
	cp.MulB(x, bx)
	xi := make([]float64, nT)
	sl := make([]float64, nT)
	alpha := make([]float64, nT)
	for c := range xi {
		alpha[c] = mu / 2
		if cp.Alpha0 > 0 && cp.Alpha0 < mu/2 {
			alpha[c] = cp.Alpha0
		}
		if cp.BalancedStart {
			sl[c] = math.Max(-(1+bx[c]), 0) + 1
			xi[c] = math.Max(sl[c]*alpha[c]/(mu-alpha[c]), 1e-8)
			continue
		}
		xi[c] = math.Max(1+bx[c], 0) + 1
		sl[c] = xi[c] - 1 - bx[c]
	}
	if st := cp.Start; st != nil {
		n := len(st.alpha)
		copy(x, st.x)
		copy(sd, st.sd)
		copy(xi, st.xi)
		copy(sl, st.sl)
		copy(alpha, st.alpha)
		a := math.Min(cp.Settings.WarmNewAlpha*floats.Sum(st.alpha)/float64(max(n, 1)), mu/2)
		if !(a > 0) {
			a = mu / 2
		}
		for c := n; c < nT; c++ {
			alpha[c] = a
			sl[c] = st.nu / a
			xi[c] = st.nu / (mu - a)
		}
	}
	nu0 := 0
	for _, bl := range cp.Blocks {
		nu0 += bl.K
	}
	return &run{
		cp:      cp,
		pt:      iterate{x: x, sd: sd, xi: xi, sl: sl, alpha: alpha},
		order:   float64(nu0 + 2*nT),
		cScale:  cScale,
		bx:      bx,
		btAlpha: make([]float64, K),
		res:     residuals{rp: make([]float64, nT), rd: make([]float64, K)},
		aff:     newDirection(K, nT),
		dir:     newDirection(K, nT),
	}
}

// measure computes the iterate's residuals, duality measure and
// objectives into r, keeps a snapshot (Problem.SnapshotGap), and reports
// whether the method stops there: its own stopping rule at tol without
// Problem.Accept, or Accept's yes once the gap and residuals are below
// tol or Problem.AskFrom.
func (r *run) measure(tol float64) bool {
	cp, pt, res := r.cp, &r.pt, &r.result
	x, sd, xi, sl, alpha := pt.x, pt.sd, pt.xi, pt.sl, pt.alpha
	rp, rd, bx := r.res.rp, r.res.rd, r.bx
	nT, mu := cp.NT, cp.Mu
	cp.MulB(x, bx)
	for c := range rp {
		rp[c] = 1 - xi[c] + sl[c] + bx[c]
	}
	cp.mulBT(alpha, r.btAlpha)
	for k := range rd {
		rd[k] = cp.C[k] + r.btAlpha[k] - sd[k]
	}
	gapCone := floats.Dot(x, sd)
	gapBox := 0.0
	for c := range xi {
		gapBox += xi[c]*(mu-alpha[c]) + sl[c]*alpha[c]
	}
	nu := (gapCone + gapBox) / r.order
	r.nu = nu
	pobj := floats.Dot(cp.C, x) + mu*floats.Sum(xi)
	dobj := floats.Sum(alpha)
	res.X, res.Alpha, res.Primal, res.Dual = x, alpha, pobj, dobj
	relGap := math.Abs(pobj-dobj) / math.Max(1, math.Abs(pobj))
	pres := 0.0
	if nT > 0 {
		pres = floats.Norm(rp, math.Inf(1)) / (1 + floats.Norm(xi, math.Inf(1)) + floats.Norm(sl, math.Inf(1)) + floats.Norm(bx, math.Inf(1)))
	}
	dres := floats.Norm(rd, math.Inf(1)) / r.cScale
	res.Final = relGap <= tol && pres <= tol && dres <= tol
	r.far = math.Max(relGap, math.Max(pres, dres)) / math.Max(tol, cp.AskFrom)
	if g := cp.SnapshotGap; g > 0 && res.Snapshot == nil && relGap <= g && pres <= g && dres <= g {
		res.Snapshot = &Point{iterate: iterate{x: append([]float64(nil), x...), sd: append([]float64(nil), sd...),
			xi: append([]float64(nil), xi...), sl: append([]float64(nil), sl...),
			alpha: append([]float64(nil), alpha...)}, nu: nu}
	}
	if res.Final && cp.Accept == nil {
		return true
	}
	ask := math.Max(tol, cp.AskFrom)
	return cp.Accept != nil && relGap <= ask && pres <= ask && dres <= ask && cp.Accept(*res)
}

// factor computes the NT scalings of the iterate's PSD blocks and forms
// and factors the Newton matrix. It returns ErrStalled if a scaling or
// the factorisation fails, and the context's error if it is cancelled.
func (r *run) factor(ctx context.Context) (*newtonStep, error) {
	cp, pt := r.cp, &r.pt
	nts := make([]ntBlock, len(cp.Blocks))
	scaled := make([]bool, len(cp.Blocks))
	cp.forPSDBlocks(func(b int) {
		bl := cp.Blocks[b]
		xm := make([]float64, bl.K*bl.K)
		sm := make([]float64, bl.K*bl.K)
		SmatOf(bl.K, pt.x[bl.Off:bl.Off+bl.Size], xm)
		SmatOf(bl.K, pt.sd[bl.Off:bl.Off+bl.Size], sm)
		nts[b], scaled[b] = ntScaling(bl.K, xm, sm)
	})
	for b, bl := range cp.Blocks {
		if bl.PSD && !scaled[b] {
			return nil, ErrStalled
		}
	}
	mu := cp.Mu
	delta := make([]float64, cp.NT)
	for c := range delta {
		delta[c] = pt.xi[c]/(mu-pt.alpha[c]) + pt.sl[c]/pt.alpha[c]
	}
	ns := &newtonStep{pt: pt, nts: nts, delta: delta, res: &r.res}
	// The factorisation is the one long step (seconds at |T| ≈ 5000 in
	// pure Go) and cannot be interrupted, so it runs apart and a
	// cancellation returns at once (the abandoned goroutine finishes
	// on its own memory).
	type factored struct {
		chol *cholFactor
		ok   bool
	}
	done := make(chan factored, 1)
	go func() {
		var f factored
		f.chol, f.ok = cp.System.factor(cp, ns)
		done <- f
	}()
	var fac factored
	select {
	case fac = <-done:
	case <-ctx.Done():
		return nil, fmt.Errorf("mkpoe: fit stopped in the interior-point stage: %w", ctx.Err())
	}
	if !fac.ok {
		return nil, ErrStalled
	}
	ns.chol = fac.chol
	return ns, nil
}

// predict takes the predictor (affine-scaling) direction, which targets
// zero complementarity, into r.aff, and returns its targets (scratch for
// the corrector) and the centering parameter σ from the complementarity
// after the affine step (Mehrotra's heuristic, σ = (gap_aff/gap)³).
func (r *run) predict(ns *newtonStep) (targets, float64, bool) {
	cp, pt, aff := r.cp, &r.pt, r.aff
	x, sd, xi, sl, alpha := pt.x, pt.sd, pt.xi, pt.sl, pt.alpha
	mu := cp.Mu
	t := targets{rc: make([]float64, cp.Dim), rxi: make([]float64, cp.NT), rs: make([]float64, cp.NT)}
	for k := range t.rc {
		t.rc[k] = -x[k]
	}
	for c := range t.rxi {
		t.rxi[c] = -xi[c] * (mu - alpha[c])
		t.rs[c] = -sl[c] * alpha[c]
	}
	if !cp.System.solve(cp, ns, t, aff) {
		return t, 0, false
	}
	ap, ad := cp.maxSteps(ns.nts, pt, aff)
	// Complementarity after the affine step.
	gapAff := cp.coneGapAfter(x, sd, aff.x, aff.sd, ap, ad)
	for c := range xi {
		gapAff += (xi[c] + ap*aff.xi[c]) * (mu - alpha[c] - ad*aff.alpha[c])
		gapAff += (sl[c] + ap*aff.sl[c]) * (alpha[c] + ad*aff.alpha[c])
	}
	sigma := math.Pow(math.Max(gapAff, 0)/(r.nu*r.order), 3)
	sigma = math.Min(math.Max(sigma, 0), 1)
	return t, sigma, true
}

// correct takes the corrector direction into r.dir: it targets σν with
// Mehrotra's second-order term (t is the predictor's targets, reused),
// improved by Gondzio's centrality correctors on problems without PSD
// blocks. It returns the direction's largest primal and dual steps.
func (r *run) correct(ns *newtonStep, t targets, sigma float64) (float64, float64, bool) {
	cp, pt, aff, dir := r.cp, &r.pt, r.aff, r.dir
	xi, sl, alpha := pt.xi, pt.sl, pt.alpha
	mu, nu := cp.Mu, r.nu
	if !cp.correctorTargets(ns.nts, pt.x, pt.sd, aff.x, aff.sd, sigma*nu, t.rc) {
		return 0, 0, false
	}
	for c := range t.rxi {
		t.rxi[c] = sigma*nu - xi[c]*(mu-alpha[c]) + aff.xi[c]*aff.alpha[c]
		t.rs[c] = sigma*nu - sl[c]*alpha[c] - aff.sl[c]*aff.alpha[c]
	}
	if !cp.System.solve(cp, ns, t, dir) {
		return 0, 0, false
	}
	ap, ad := cp.maxSteps(ns.nts, pt, dir)
	if cp.Settings.MaxCorrectors > 0 && !cp.hasPSD() {
		ap, ad = cp.centralityCorrect(ns, t, dir, ap, ad, sigma*nu)
	}
	return ap, ad, true
}

// step moves the iterate along r.dir by the damped steps ap (primal) and
// ad (dual). It reports false when both steps are negligible (the method
// is stuck).
func (r *run) step(ap, ad float64) bool {
	damp := r.cp.Settings.StepDamping
	ap, ad = math.Min(1, damp*ap), math.Min(1, damp*ad)
	if ap < 1e-12 && ad < 1e-12 {
		return false
	}
	pt, d := &r.pt, r.dir
	pt.x = addScaledCopy(pt.x, ap, d.x)
	pt.xi = addScaledCopy(pt.xi, ap, d.xi)
	pt.sl = addScaledCopy(pt.sl, ap, d.sl)
	pt.alpha = addScaledCopy(pt.alpha, ad, d.alpha)
	pt.sd = addScaledCopy(pt.sd, ad, d.sd)
	return true
}

// addScaledCopy returns a + s·d as a new slice.
func addScaledCopy(a []float64, s float64, d []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i] + s*d[i]
	}
	return out
}

// MulB computes out = B x.
func (cp *Problem) MulB(x, out []float64) { cp.System.mulB(cp, x, out) }

// mulBT computes out = Bᵀ a.
func (cp *Problem) mulBT(a, out []float64) { cp.System.mulBT(cp, a, out) }

// applyScaling writes 𝒲(r) — x/z·r on orthants, W R W on PSD blocks — or,
// with inverse, 𝒲⁻¹(r) — z/x·r and W⁻¹ R W⁻¹.
func (cp *Problem) applyScaling(nts []ntBlock, x, sd, r, out []float64, inverse bool) {
	for _, bl := range cp.Blocks {
		if bl.PSD {
			continue
		}
		for t := 0; t < bl.K; t++ {
			i := bl.Off + t
			if inverse {
				out[i] = sd[i] / x[i] * r[i]
			} else {
				out[i] = x[i] / sd[i] * r[i]
			}
		}
	}
	cp.forPSDBlocks(func(b int) {
		bl := cp.Blocks[b]
		k := bl.K
		rm := make([]float64, k*k)
		SmatOf(k, r[bl.Off:bl.Off+bl.Size], rm)
		// congruence(a, R) = aᵀRa, and W, W⁻¹ are symmetric.
		a := nts[b].w
		if inverse {
			a = nts[b].winv
		}
		SvecOf(k, congruence(a, rm, k).RawMatrix().Data, out[bl.Off:bl.Off+bl.Size])
	})
}

// maxSteps returns the largest primal and dual steps (≤ 1/0.98 is enough;
// capped at a large value) that keep every cone and box variable positive.
// On PSD blocks they come from psdStep.
func (cp *Problem) maxSteps(nts []ntBlock, pt *iterate, d direction) (float64, float64) {
	ap, ad := 1.0, 1.0
	ratio := func(v, dv float64, a *float64) {
		if dv < 0 {
			*a = math.Min(*a, -v/dv)
		}
	}
	for _, bl := range cp.Blocks {
		if bl.PSD {
			continue
		}
		for t := 0; t < bl.K; t++ {
			i := bl.Off + t
			ratio(pt.x[i], d.x[i], &ap)
			ratio(pt.sd[i], d.sd[i], &ad)
		}
	}
	blockP := make([]float64, len(cp.Blocks))
	blockD := make([]float64, len(cp.Blocks))
	cp.forPSDBlocks(func(b int) {
		bl := cp.Blocks[b]
		r := bl.Off
		blockP[b] = psdStep(bl.K, pt.x[r:r+bl.Size], d.x[r:r+bl.Size], nts[b].ginvt, nts[b].lambda, cp.Settings)
		blockD[b] = psdStep(bl.K, pt.sd[r:r+bl.Size], d.sd[r:r+bl.Size], nts[b].g, nts[b].lambda, cp.Settings)
	})
	for b, bl := range cp.Blocks {
		if bl.PSD {
			ap = math.Min(ap, blockP[b])
			ad = math.Min(ad, blockD[b])
		}
	}
	for c := range pt.xi {
		ratio(pt.xi[c], d.xi[c], &ap)
		ratio(pt.sl[c], d.sl[c], &ap)
		ratio(pt.alpha[c], d.alpha[c], &ad)
		ratio(cp.Mu-pt.alpha[c], -d.alpha[c], &ad)
	}
	return ap, ad
}

// coneGapAfter returns ⟨x + ap·dx, S + ad·dS⟩.
func (cp *Problem) coneGapAfter(x, sd, dx, dS []float64, ap, ad float64) float64 {
	s := 0.0
	for k := range x {
		s += (x[k] + ap*dx[k]) * (sd[k] + ad*dS[k])
	}
	return s
}

// correctorTargets writes into rc the cone part of the corrector's
// right-hand side: on orthants σν/z − x − Δx_aff Δz_aff/z; on PSD blocks
// G Y Gᵀ with Λ∘Y = σνI − Λ² − sym(ΔX̃_aff ΔS̃_aff) (∘ the Jordan product),
// ΔX̃_aff = G⁻¹ΔX_aff G⁻ᵀ and ΔS̃_aff = GᵀΔS_aff G the scaled affine
// directions.
func (cp *Problem) correctorTargets(nts []ntBlock, x, sd, affX, affS []float64, target float64, rc []float64) bool {
	for b, bl := range cp.Blocks {
		if !bl.PSD {
			for t := 0; t < bl.K; t++ {
				i := bl.Off + t
				rc[i] = target/sd[i] - x[i] - affX[i]*affS[i]/sd[i]
			}
			continue
		}
		k := bl.K
		nt := nts[b]
		// The product of the scaled directions (G⁻¹ΔXG⁻ᵀ)(GᵀΔSG) is
		// G⁻¹·ΔXΔS·G: three products instead of the scaled directions'
		// four and their product.
		xm := make([]float64, k*k)
		sm := make([]float64, k*k)
		SmatOf(k, affX[bl.Off:bl.Off+bl.Size], xm)
		SmatOf(k, affS[bl.Off:bl.Off+bl.Size], sm)
		var xs, gxs, prod mat.Dense
		xs.Mul(mat.NewDense(k, k, xm), mat.NewDense(k, k, sm))
		gxs.Mul(nt.ginvt.T(), &xs)
		prod.Mul(&gxs, nt.g)
		y := make([]float64, k*k)
		for i := 0; i < k; i++ {
			for j := 0; j < k; j++ {
				r := -(prod.At(i, j) + prod.At(j, i)) / 2
				if i == j {
					r += target - nt.lambda[i]*nt.lambda[i]
				}
				y[i*k+j] = 2 * r / (nt.lambda[i] + nt.lambda[j])
			}
		}
		// rc = G Y Gᵀ.
		var gy, gyg mat.Dense
		gy.Mul(nt.g, mat.NewDense(k, k, y))
		gyg.Mul(&gy, nt.g.T())
		SvecOf(k, gyg.RawMatrix().Data, rc[bl.Off:bl.Off+bl.Size])
	}
	return true
}

// centralityCorrect applies Gondzio's multiple centrality correctors
// (Gondzio 1996, "Multiple centrality corrections in a primal-dual method
// for linear programming"; Colombo & Gondzio 2008) to the direction d
// with step lengths ap, ad: it asks for longer steps
// ãp = min(1, ap + Settings.CorrectorAspire), ãd likewise, and evaluates
// the element-wise complementarity products (orthant x_t·S_t, hinge
// ξ_c(μ−α_c), slack s_c·α_c) at that trial point; products outside
// [lo·σν, hi·σν] (Settings.CorrectorLow and CorrectorHigh) are pulled
// back into it (a product above is lowered by at most hi·σν) by one more
// solve with the same factorisation and the right-hand side's
// complementarity targets moved by the difference. The corrected
// direction is kept when it lengthens the steps by at least
// Settings.CorrectorGain; PSD blocks keep their Mehrotra targets (their products are not
// element-wise). t holds the corrector's targets and is left changed. At
// most Settings.MaxCorrectors corrections are made. It returns the step
// lengths of the direction kept.
func (cp *Problem) centralityCorrect(ns *newtonStep, t targets, d direction, ap, ad, target float64) (float64, float64) {
	corrAspire, corrGain := cp.Settings.CorrectorAspire, cp.Settings.CorrectorGain
	lo, hi := cp.Settings.CorrectorLow, cp.Settings.CorrectorHigh
	mu := cp.Mu
	pt := ns.pt
	x, sd, xi, sl, alpha := pt.x, pt.sd, pt.xi, pt.sl, pt.alpha
	// pull returns the correction of a trial product v.
	pull := func(v float64) float64 {
		switch {
		case v < lo*target:
			return lo*target - v
		case v > hi*target:
			return math.Max(hi*target-v, -hi*target)
		}
		return 0
	}
	corr := newDirection(len(d.x), len(d.xi))
	for k := 0; k < cp.Settings.MaxCorrectors && (ap < 1 || ad < 1); k++ {
		tp, td := math.Min(1, ap+corrAspire), math.Min(1, ad+corrAspire)
		for _, bl := range cp.Blocks {
			if bl.PSD {
				continue
			}
			for j := 0; j < bl.K; j++ {
				i := bl.Off + j
				t.rc[i] += pull((x[i]+tp*d.x[i])*(sd[i]+td*d.sd[i])) / sd[i]
			}
		}
		for c := range xi {
			t.rxi[c] += pull((xi[c] + tp*d.xi[c]) * (mu - alpha[c] - td*d.alpha[c]))
			t.rs[c] += pull((sl[c] + tp*d.sl[c]) * (alpha[c] + td*d.alpha[c]))
		}
		if !cp.System.solve(cp, ns, t, corr) {
			break
		}
		np, nd := cp.maxSteps(ns.nts, pt, corr)
		if np+nd < ap+ad+corrGain {
			break
		}
		ap, ad = np, nd
		copy(d.x, corr.x)
		copy(d.sd, corr.sd)
		copy(d.xi, corr.xi)
		copy(d.sl, corr.sl)
		copy(d.alpha, corr.alpha)
	}
	return ap, ad
}

// forPSDBlocks calls f(b) for every PSD block b of cp: blocks larger than
// 32×32 through linalg.Parallel, which runs them concurrently as far as
// the process has idle cores, small ones inline (as pkg/mkpoe's forFullBlocks
// does). Each call writes only its own block's outputs, so the results
// do not depend on scheduling. A full-W Newton step's scalings, step
// lengths and products with B and Bᵀ are per block (five blocks of order
// up to 330 on the benchmark fixture), and OpenBLAS runs one thread per
// call (internal/linalg), so this is how they use both cores of a lone
// fit (docs/solver.md, "Parallel factorisation").
func (cp *Problem) forPSDBlocks(f func(b int)) {
	var large []int
	for b, bl := range cp.Blocks {
		switch {
		case !bl.PSD:
		case bl.K <= 32:
			f(b)
		default:
			large = append(large, b)
		}
	}
	linalg.Parallel(len(large), func(t int) { f(large[t]) })
}

// hasPSD reports whether any block of cp is a PSD cone.
func (cp *Problem) hasPSD() bool {
	for _, bl := range cp.Blocks {
		if bl.PSD {
			return true
		}
	}
	return false
}

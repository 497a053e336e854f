package mkpoe

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/mkpoe/mkpoe/internal/linalg"
	"github.com/mkpoe/mkpoe/pkg/data"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Input kinds recorded in a Model.
const (
	InputKernels  = "kernels"  // KPOE/MKPOE on kernel matrices (Alg. 3, 4)
	InputFeatures = "features" // LPOE on a feature matrix (Alg. 2)
	InputIdentity = "identity" // GNMDS: K = I (Sec. 3.3)
)

// ErrNoKernels is returned by Fit when no kernel is given.
var ErrNoKernels = errors.New("mkpoe: at least one kernel is required")

// Fit learns a similarity space from m ≥ 1 kernel matrices (each n×n) and
// relative comparisons cs over items 0..n−1, solving Alg. 4 (MKPOE; Alg. 3
// KPOE for one kernel) of McFee & Lanckriet (2011):
//
//	min_{W⁽ᵖ⁾ ⪰ 0}  Σ_p tr(W⁽ᵖ⁾K⁽ᵖ⁾) + β/|𝒞| Σ_{(i,j,k,l)∈𝒞} h(1 + d(i,j) − d(k,l))
//	d(i,j) = Σ_p (K⁽ᵖ⁾_i − K⁽ᵖ⁾_j)ᵀ W⁽ᵖ⁾ (K⁽ᵖ⁾_i − K⁽ᵖ⁾_j)
//
// With s.Combine = Sum it learns one W on K̂ = Σ_p K⁽ᵖ⁾ (class K₁, Sec. 4.1);
// with s.Mode = Diag every W⁽ᵖ⁾ is diagonal (Sec. 4.4). Kernels are read,
// never modified; they should be PSD (negative eigenvalues are dropped, see
// Settings.EigTol). Fit returns an error for bad settings, nil or non-finite
// kernels, kernels of different sizes, or comparisons naming items outside
// 0..n−1. It is FitContext with context.Background().
func Fit(ks []mat.Symmetric, cs []data.Comparison, s *Settings) (*Model, error) {
	return FitContext(context.Background(), ks, cs, s)
}

// MinBeta returns β_min for the kernels and comparisons of a [Fit] with
// settings s (Mode and Combine; Beta is not needed): the largest β at
// which W = 0 is optimal, so that a fit at β ≤ β_min learns nothing
// (docs/solver.md, "The smallest useful β"). It is what [Stats.MinBeta]
// reports, computed without fitting, for grids given relative to it. It
// validates its inputs like Fit.
func MinBeta(ks []mat.Symmetric, cs []data.Comparison, s *Settings) (float64, error) {
	given := Settings{}
	if s != nil {
		given = *s
	}
	given.Beta, given.Init, given.Recorder = 1, nil, nil
	in, err := kernelInput(ks, cs, &given)
	if err != nil {
		return 0, err
	}
	set, _ := given.withDefaults() // validated by kernelInput
	blocks, _ := formulation(in, set.Mode, true, cutOf(set))
	return newProblem(in.n, blocks, cs, 1).minBeta(), nil
}

// FitContext is [Fit] that stops within about one iteration when ctx is
// cancelled, returning an error that wraps ctx.Err().
func FitContext(ctx context.Context, ks []mat.Symmetric, cs []data.Comparison, s *Settings) (*Model, error) {
	in, err := kernelInput(ks, cs, s)
	if err != nil {
		return nil, err
	}
	set, _ := s.withDefaults() // validated by kernelInput
	return fit(ctx, in, cs, set)
}

// kernelInput validates the inputs of [Fit] and returns the kernels it
// learns on (the sum kernel for Combine: Sum).
func kernelInput(ks []mat.Symmetric, cs []data.Comparison, s *Settings) (input, error) {
	if len(ks) == 0 {
		return input{}, invalidf("%w", ErrNoKernels)
	}
	n := 0
	for p, k := range ks {
		if k == nil {
			return input{}, invalidf("mkpoe: kernel %d is nil", p)
		}
		if p == 0 {
			n = k.SymmetricDim()
		}
		if k.SymmetricDim() != n {
			return input{}, invalidf("mkpoe: kernel %d is %d×%d, want %d×%d like kernel 0", p, k.SymmetricDim(), k.SymmetricDim(), n, n)
		}
		if err := checkFinite(k, n, n, fmt.Sprintf("kernel %d", p)); err != nil {
			return input{}, err
		}
	}
	if n == 0 {
		return input{}, invalidf("mkpoe: kernels must be non-empty, got 0×0")
	}
	set, err := s.withDefaults()
	if err != nil {
		return input{}, err
	}
	if err := data.ValidateComparisons(cs, n); err != nil {
		return input{}, invalidf("mkpoe: %w", err)
	}
	used := ks
	if set.Combine == Sum && len(ks) > 1 {
		sum := mat.NewSymDense(n, nil)
		for _, k := range ks {
			sum.AddSym(sum, k)
		}
		if err := checkFinite(sum, n, n, "the sum kernel"); err != nil {
			return input{}, err
		}
		used = []mat.Symmetric{sum}
	}
	return input{kind: InputKernels, n: n, kernels: used, numInputs: len(ks)}, nil
}

// checkFinite returns an error naming what and the first non-finite entry
// of the r×c matrix a.
func checkFinite(a mat.Matrix, r, c int, what string) error {
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if v := a.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return invalidf("mkpoe: %s has a non-finite entry at row %d, column %d: %v (kernel and feature entries must be finite)", what, i, j, v)
			}
		}
	}
	return nil
}

// FitFeatures learns a linear projection of feature vectors (rows of x, n×D)
// from comparisons: LPOE, Alg. 2 of McFee & Lanckriet (2011), with W D×D
// (diagonal with s.Mode = Diag) and regulariser tr(W). x is not modified.
func FitFeatures(x mat.Matrix, cs []data.Comparison, s *Settings) (*Model, error) {
	return FitFeaturesContext(context.Background(), x, cs, s)
}

// FitFeaturesContext is [FitFeatures] with cancellation (see [FitContext]).
func FitFeaturesContext(ctx context.Context, x mat.Matrix, cs []data.Comparison, s *Settings) (*Model, error) {
	if x == nil {
		return nil, invalidf("mkpoe: feature matrix is nil")
	}
	n, d := x.Dims()
	if n == 0 || d == 0 {
		return nil, invalidf("mkpoe: feature matrix must be non-empty, got %d×%d", n, d)
	}
	if err := checkFinite(x, n, d, "the feature matrix"); err != nil {
		return nil, err
	}
	set, err := s.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := data.ValidateComparisons(cs, n); err != nil {
		return nil, invalidf("mkpoe: %w", err)
	}
	in := input{kind: InputFeatures, n: n, features: mat.DenseCopyOf(x), numInputs: 1}
	return fit(ctx, in, cs, set)
}

// MaxIdentityItems bounds n in FitIdentity: W is a dense n×n matrix (3.2 GB
// at this size, and every iteration decomposes it).
const MaxIdentityItems = 20000

// FitIdentity learns an embedding of n items from comparisons alone: KPOE
// with K = I, which is GNMDS (Sec. 3.3). W then holds the inner products of
// the embedded items, so there is no out-of-sample extension.
func FitIdentity(n int, cs []data.Comparison, s *Settings) (*Model, error) {
	return FitIdentityContext(context.Background(), n, cs, s)
}

// FitIdentityContext is [FitIdentity] with cancellation (see [FitContext]).
func FitIdentityContext(ctx context.Context, n int, cs []data.Comparison, s *Settings) (*Model, error) {
	if n <= 0 {
		return nil, invalidf("mkpoe: number of items must be > 0, got %d", n)
	}
	if n > MaxIdentityItems {
		return nil, invalidf("mkpoe: GNMDS learns a dense %d×%d matrix (%.3g GB): at most %d items", n, n, 8*float64(n)*float64(n)/1e9, MaxIdentityItems)
	}
	set, err := s.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := data.ValidateComparisons(cs, n); err != nil {
		return nil, invalidf("mkpoe: %w", err)
	}
	return fit(ctx, input{kind: InputIdentity, n: n, numInputs: 1}, cs, set)
}

// input is what fit works on: kernels (after the Sum combination), a
// feature matrix, or the identity.
type input struct {
	kind      string
	n         int
	kernels   []mat.Symmetric
	features  *mat.Dense
	numInputs int // kernels the caller gave (before Sum), for out-of-sample rows
}

// eigenbasis is a kernel's factor K ≈ ΦΦᵀ, Φ = UΛ^{1/2}, and B = UΛ^{-1/2}
// (so that W = B Z Bᵀ for Z = Φᵀ W Φ); docs/solver.md, "Formulation".
type eigenbasis struct {
	phi, back *mat.Dense
}

// kernelCut says which eigenpairs of a kernel its eigenbasis keeps:
// those above relTol·λ_max (the numerical rank, Settings.EigTol), and of
// them at most rank leading ones (Settings.KernelRank, 0: all) and only as
// many leading ones as hold energy of the positive eigenvalues' sum
// (Settings.KernelEnergy, 0: all).
type kernelCut struct {
	relTol float64
	rank   int
	energy float64
}

// cutOf is the kernel cut of validated settings.
func cutOf(s Settings) kernelCut {
	return kernelCut{relTol: s.EigTol, rank: s.KernelRank, energy: s.KernelEnergy}
}

// truncates reports whether the cut may keep fewer than the numerical rank.
func (c kernelCut) truncates() bool { return c.rank > 0 || c.energy > 0 }

// keep returns how many of the positive eigenvalues vals (ascending) the
// cut keeps, counted from the largest, and the fraction of their sum kept.
func (c kernelCut) keep(vals []float64) (int, float64) {
	total := floats.Sum(vals)
	k := len(vals)
	if c.rank > 0 && c.rank < k {
		k = c.rank
	}
	if c.energy > 0 {
		kept := 0.0
		for t := 1; t <= k; t++ {
			kept += vals[len(vals)-t]
			if kept >= c.energy*total {
				k = t
				break
			}
		}
	}
	if total == 0 {
		return k, 1
	}
	// At most 1: a model file with 1 + ε would be refused when read.
	return k, math.Min(1, floats.Sum(vals[len(vals)-k:])/total)
}

// kernelEigenbasis returns the eigenbasis of kernel k after the cut, and
// the fraction of its positive eigenvalues' sum the basis keeps (1 unless
// the cut truncates). Bases of large kernels come from eigenCache when a
// fit or MinBeta on the same kernel computed them already.
func kernelEigenbasis(k mat.Symmetric, cut kernelCut) (eigenbasis, float64) {
	if cut.truncates() {
		return eigenCache.basis(k, cut, func() (eigenbasis, float64) { return truncatedEigenbasis(k, cut) })
	}
	if eb, ok := diagonalEigenbasis(k, cut.relTol); ok {
		return eb, 1
	}
	return eigenCache.basis(k, cut, func() (eigenbasis, float64) { return wholeEigenbasis(k, cut.relTol), 1 })
}

// wholeEigenbasis is the eigenbasis of k over its numerical rank (the
// eigenvalues above relTol·λ_max).
func wholeEigenbasis(k mat.Symmetric, relTol float64) eigenbasis {
	n := k.SymmetricDim()
	vals, u := positiveEigen(k, relTol, "a kernel")
	if len(vals) == 0 {
		return zeroEigenbasis(n)
	}
	return scaledEigenbasis(vals, func(i, c int) float64 { return u.At(i, c) }, n)
}

// truncatedEigenbasis is kernelEigenbasis for a cut that truncates: only
// the kept eigenpairs' vectors are computed (linalg.SymEigenLeading), one
// reduction to tridiagonal form instead of the whole decomposition.
func truncatedEigenbasis(k mat.Symmetric, cut kernelCut) (eigenbasis, float64) {
	n := k.SymmetricDim()
	// want eigenpairs of the numerical rank's (as positiveEigen keeps
	// them), holding the fraction energy of their sum.
	want, energy := 0, 1.0
	keep := func(all []float64) int {
		var positive []float64
		for _, i := range numericalRank(all, cut.relTol) {
			positive = append(positive, all[i])
		}
		want, energy = cut.keep(positive)
		return want
	}
	vals := make([]float64, n)
	vecs := make([]float64, n*n)
	m, ok := linalg.SymEigenLeading(n, upperTriangle(k), keep, vals, vecs)
	if !ok {
		panic("mkpoe: eigendecomposition of a kernel failed to converge")
	}
	if m != want {
		// The cut fell inside a tie of eigenvalues, which the pure-Go
		// build's value range cannot split: take the leading ones of the
		// whole decomposition (ties broken by its order).
		all, u := positiveEigen(k, cut.relTol, "a kernel")
		keep, energy := cut.keep(all)
		first := len(all) - keep
		return scaledEigenbasis(all[first:], func(i, c int) float64 { return u.At(i, first+c) }, n), energy
	}
	if m == 0 {
		return zeroEigenbasis(n), 1
	}
	return scaledEigenbasis(vals[:m], func(i, c int) float64 { return vecs[c*n+i] }, n), energy
}

// scaledEigenbasis is Φ = UΛ^{1/2}, B = UΛ^{-1/2} for the eigenvalues vals
// and eigenvector entries u(i, c) (item i, eigenpair c).
func scaledEigenbasis(vals []float64, u func(i, c int) float64, n int) eigenbasis {
	r := len(vals)
	phi := mat.NewDense(n, r, nil)
	back := mat.NewDense(n, r, nil)
	for c, v := range vals {
		s := math.Sqrt(v)
		for i := 0; i < n; i++ {
			phi.Set(i, c, u(i, c)*s)
			back.Set(i, c, u(i, c)/s)
		}
	}
	return eigenbasis{phi: phi, back: back}
}

// diagonalEigenbasis is kernelEigenbasis for a diagonal kernel (the
// identity kernel of GNMDS through Fit, Sec. 3.3) whose every diagonal
// entry is above relTol·max: its eigenvectors are the unit vectors, so Φ =
// diag(√k_ii) and B = diag(1/√k_ii), square and diagonal, which the
// solvers treat as such (block.phiDiag) instead of as dense n×n matrices,
// and no n³ eigendecomposition runs. ok is false for any other kernel.
func diagonalEigenbasis(k mat.Symmetric, relTol float64) (eigenbasis, bool) {
	n := k.SymmetricDim()
	lmax := 0.0
	for i := 0; i < n; i++ {
		lmax = math.Max(lmax, k.At(i, i))
		for j := i + 1; j < n; j++ {
			if k.At(i, j) != 0 {
				return eigenbasis{}, false
			}
		}
	}
	for i := 0; i < n; i++ {
		if v := k.At(i, i); !(v > relTol*lmax && v > 0) {
			return eigenbasis{}, false
		}
	}
	phi := mat.NewDense(n, n, nil)
	back := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		s := math.Sqrt(k.At(i, i))
		phi.Set(i, i, s)
		back.Set(i, i, 1/s)
	}
	return eigenbasis{phi: phi, back: back}, true
}

// positiveEigen returns the eigenvalues of a above relTol·λ_max (and above
// 0), in ascending order, with their eigenvectors as the columns of vecs.
// what names a in the panic raised if the decomposition fails, which only
// happens for non-finite input our own code built.
func positiveEigen(a mat.Symmetric, relTol float64, what string) (vals []float64, vecs *mat.Dense) {
	n := a.SymmetricDim()
	u := upperTriangle(a)
	all := make([]float64, n)
	if !linalg.SymEigen(n, u, all, true) {
		panic("mkpoe: eigendecomposition of " + what + " failed to converge")
	}
	keep := numericalRank(all, relTol)
	vecs = mat.NewDense(n, max(len(keep), 1), nil)
	for c, idx := range keep {
		vals = append(vals, all[idx])
		for i := 0; i < n; i++ {
			vecs.Set(i, c, u[i*n+idx])
		}
	}
	return vals, vecs
}

// upperTriangle copies the upper triangle of a into a row-major n×n slice,
// the input of linalg's eigensolvers.
func upperTriangle(a mat.Symmetric) []float64 {
	n := a.SymmetricDim()
	u := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			u[i*n+j] = a.At(i, j)
		}
	}
	return u
}

// numericalRank returns the indices of the eigenvalues all (ascending)
// that a kernel's eigenbasis keeps: those above relTol·λ_max and above 0.
func numericalRank(all []float64, relTol float64) []int {
	lmax := all[len(all)-1]
	var keep []int
	for i, v := range all {
		if v > relTol*lmax && v > 0 {
			keep = append(keep, i)
		}
	}
	return keep
}

// zeroEigenbasis is the basis of a zero kernel: one zero column, so that
// shapes stay valid.
func zeroEigenbasis(n int) eigenbasis {
	return eigenbasis{phi: mat.NewDense(n, 1, nil), back: mat.NewDense(n, 1, nil)}
}

// denseKernel copies a symmetric matrix into a Dense (fast products).
func denseKernel(k mat.Symmetric) *mat.Dense {
	n := k.SymmetricDim()
	d := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := k.At(i, j)
			d.Set(i, j, v)
			d.Set(j, i, v)
		}
	}
	return d
}

func identity(n int) *mat.Dense {
	d := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		d.Set(i, i, 1)
	}
	return d
}

func ones(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 1
	}
	return v
}

// formulation builds the blocks of the problem: in each kernel's
// eigenbasis when eigen is true (default solver), else in the paper's
// W-space (subgradient solver). backs[p] maps a block's variable Z back to
// W = B Z Bᵀ (nil: W = Z).
func formulation(in input, mode Mode, eigen bool, cut kernelCut) (blocks []block, backs []*mat.Dense) {
	add := func(b block, back *mat.Dense) {
		_, b.r = b.phi.Dims()
		if !b.diag {
			b.phiDiag = diagonalOf(b.phi)
		}
		blocks = append(blocks, b)
		backs = append(backs, back)
	}
	switch in.kind {
	case InputFeatures:
		_, d := in.features.Dims()
		if mode == Diag {
			add(block{diag: true, phi: in.features, c: ones(d)}, nil)
		} else {
			add(block{phi: in.features}, nil)
		}
	case InputIdentity:
		if mode == Diag {
			add(block{diag: true, phi: identity(in.n), c: ones(in.n)}, nil)
		} else {
			add(block{phi: identity(in.n)}, nil)
		}
	case InputKernels:
		for _, k := range in.kernels {
			kd := denseKernel(k)
			switch {
			case mode == Diag:
				c := make([]float64, in.n)
				for t := range c {
					c[t] = math.Max(kd.At(t, t), 0)
				}
				add(block{diag: true, phi: kd, c: c}, nil)
			case eigen:
				eb, energy := kernelEigenbasis(k, cut)
				add(block{phi: eb.phi, energy: energy}, eb.back)
			default:
				reg := mat.NewSymDense(in.n, nil)
				reg.CopySym(k)
				add(block{phi: kd, reg: reg}, nil)
			}
		}
	}
	return blocks, backs
}

func fit(ctx context.Context, in input, cs []data.Comparison, s Settings) (*Model, error) {
	start := time.Now()
	if cutOf(s).truncates() && in.kind != InputKernels {
		return nil, invalidf("mkpoe: Settings.KernelRank and KernelEnergy truncate kernels; a %s input has none", in.kind)
	}
	if s.Rank > 0 {
		dim := in.n
		if in.kind == InputFeatures {
			_, dim = in.features.Dims()
		}
		if s.Rank > dim {
			return nil, invalidf("mkpoe: Settings.Rank must be at most the order of W (%d), got %d", dim, s.Rank)
		}
	}
	auto := s.Solver == Auto
	if auto {
		// Both candidates work in the eigenbasis; memory is checked for
		// the cheaper one now and for the choice once it is made.
		s.Solver = LowRank
	}
	m := methodFor(s.Solver)
	blocks, backs := formulation(in, s.Mode, m.eigenbasis(), cutOf(s))
	p := newProblem(in.n, blocks, cs, s.Beta)
	if s.tuning != nil {
		p.tune = s.tuning
	}
	if err := checkMemory(p, s.Solver); err != nil {
		return nil, err
	}
	// Certificates and β_min need the eigenbasis form (R = I). W-space
	// and the eigenbasis coincide for diagonal W, features and the
	// identity; the subgradient method on full kernel blocks works in
	// W-space and gets one of its own.
	eigen := p
	if !m.eigenbasis() && s.Mode == Full && in.kind == InputKernels {
		zb, _ := formulation(in, s.Mode, true, cutOf(s))
		eigen = newProblem(in.n, zb, cs, s.Beta)
	}
	minBeta := eigen.minBetaUntil(func() bool { return ctx.Err() != nil })
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if auto {
		s.Solver = autoSolver(p, s, minBeta)
		m = methodFor(s.Solver)
		if err := checkMemory(p, s.Solver); err != nil {
			return nil, err
		}
	}
	x0 := make([]float64, p.dim)
	var initFactors []*mat.Dense
	_, lowRank := m.(lowRankMethod)
	switch {
	case s.Init != nil && lowRank && !p.hasDiagBlock():
		// The low-rank method starts from the previous model's factors,
		// never an r×r matrix.
		var err error
		if initFactors, err = lowRankWarmStart(p, s.Init, in); err != nil {
			return nil, err
		}
	case s.Init != nil:
		if err := warmStart(p, backs, s.Init, x0, in); err != nil {
			return nil, err
		}
	}
	sol, err := m.solve(ctx, fitProblem{p: p, x0: x0, s: s, eigen: eigen, init: initFactors})
	if err != nil {
		return nil, err
	}
	blocks = p.blocks
	bound := sol.bound
	// A method that knows its factors (the low-rank method) gives a
	// factored model: W = NᵀN with N from the factor, never formed.
	var ws []*mat.SymDense
	var projs []*mat.Dense
	if sol.factors != nil {
		for b, f := range sol.factors {
			if f == nil {
				projs = append(projs, mat.NewDense(1, metricOrder(&blocks[b], backs[b]), nil))
				continue
			}
			if backs[b] != nil {
				var fw mat.Dense
				fw.Mul(backs[b], f)
				f = &fw
			}
			projs = append(projs, projectionFromFactor(f))
		}
	} else {
		ws = make([]*mat.SymDense, len(blocks))
		for b := range blocks {
			ws[b] = recoverW(&blocks[b], backs[b], sol.x)
		}
	}
	model, err := newModel(in, s, ws, projs...)
	if err != nil {
		return nil, err
	}
	model.Objective = sol.objective
	model.dual = sol.dual
	model.Stats = Stats{
		Iterations: sol.iters,
		Converged:  sol.converged,
		DualBound:  bound,
		Trace:      sol.trace,
		Seconds:    time.Since(start).Seconds(),
		MinBeta:    minBeta,
	}
	model.Stats.RelativeGap = relativeGap(sol.objective, bound)
	for _, b := range blocks {
		model.Stats.BlockDims = append(model.Stats.BlockDims, b.r)
	}
	if cutOf(s).truncates() {
		for _, b := range blocks {
			model.Stats.KernelEnergy = append(model.Stats.KernelEnergy, b.energy)
		}
	}
	return model, nil
}

// metricOrder is the order of a block's metric W = BZBᵀ (n for kernels
// and the identity, D for features): the rows of back, or the block's
// own order where W-space is the block's space (back nil).
func metricOrder(blk *block, back *mat.Dense) int {
	if back != nil {
		r, _ := back.Dims()
		return r
	}
	return blk.r
}

// autoMinItems and autoMaxMultiple delimit where Auto chooses the
// low-rank method: full W, at least autoMinItems items, β at most
// autoMaxMultiple·β_min (docs/solver.md, "Which method runs when").
const (
	autoMinItems    = 300
	autoMaxMultiple = 2.0
)

// autoSolver is Settings.Solver Auto's choice for the problem p at β_min
// minBeta: LowRank where it was measured faster (GNMDS at n = 300 × 6000
// and 1.5·β_min: 0.5 s against 10 s; n = 1000 × 24,000: 21–31 s against
// 618 s; five kernels truncated to rank 100 at n = 2000 × 48,000: 8 s
// against 131 s), Accelerated elsewhere: diagonal blocks, a fixed rank
// aside, small sets and β above 2·β_min, where the low-rank method's
// certificate closes slowly (n = 100 × 4000 at 10·β_min: 120 s against
// 14 s).
func autoSolver(p *problem, s Settings, minBeta float64) Solver {
	if s.Rank > 0 {
		return LowRank
	}
	if p.hasDiagBlock() || p.n < autoMinItems || !(s.Beta <= autoMaxMultiple*minBeta) {
		return Accelerated
	}
	return LowRank
}

// recoverW returns the n×n (or D×D) metric of a block from its variable.
func recoverW(blk *block, back *mat.Dense, x []float64) *mat.SymDense {
	xb := x[blk.off : blk.off+blk.size]
	if blk.diag {
		w := mat.NewSymDense(blk.r, nil)
		for t, v := range xb {
			w.SetSym(t, t, v)
		}
		return w
	}
	z := mat.NewDense(blk.r, blk.r, append([]float64(nil), xb...))
	if back == nil {
		return symPart(z)
	}
	if b := diagonalOf(back); b != nil {
		// A diagonal kernel (diagonalEigenbasis): W = BZBᵀ with B diagonal,
		// in O(n²) and with the bits of the dense products (b_i·z_ij)·b_j.
		// (B, not blk.phiDiag: preconditioning rescales the block.)
		w := mat.NewSymDense(blk.r, nil)
		for i := 0; i < blk.r; i++ {
			for j := i; j < blk.r; j++ {
				wij := (b[i] * xb[i*blk.r+j]) * b[j]
				wji := (b[j] * xb[j*blk.r+i]) * b[i]
				w.SetSym(i, j, (wij+wji)/2)
			}
		}
		return w
	}
	var bz, w mat.Dense
	bz.Mul(back, z)
	w.Mul(&bz, back.T())
	return symPart(&w)
}

func symPart(a mat.Matrix) *mat.SymDense {
	n, _ := a.Dims()
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			s.SetSym(i, j, (a.At(i, j)+a.At(j, i))/2)
		}
	}
	return s
}

// warmStart fills x0 from a previous model on the same inputs.
func warmStart(p *problem, backs []*mat.Dense, init *Model, x0 []float64, in input) error {
	if init.Input != in.kind || init.N != in.n || init.Blocks() != len(p.blocks) {
		return invalidf("mkpoe: Settings.Init must be a model fitted on the same inputs (%s, n=%d, %d blocks), got %s, n=%d, %d blocks",
			in.kind, in.n, len(p.blocks), init.Input, init.N, init.Blocks())
	}
	for b := range p.blocks {
		blk := &p.blocks[b]
		w := init.Metric(b) // formed here for a factored Init (a low-rank fit's)
		xb := x0[blk.off : blk.off+blk.size]
		if blk.diag {
			if w.SymmetricDim() != blk.r {
				return invalidf("mkpoe: Settings.Init block %d has size %d, want %d (same mode and inputs)", b, w.SymmetricDim(), blk.r)
			}
			for t := range xb {
				xb[t] = math.Max(w.At(t, t), 0)
			}
			continue
		}
		z := mat.NewDense(blk.r, blk.r, xb)
		if backs[b] == nil {
			if w.SymmetricDim() != blk.r {
				return invalidf("mkpoe: Settings.Init block %d has size %d, want %d (same mode and inputs)", b, w.SymmetricDim(), blk.r)
			}
			z.Copy(w)
			continue
		}
		// Z = Φᵀ W Φ.
		var wp mat.Dense
		wp.Mul(w, blk.phi)
		z.Mul(blk.phi.T(), &wp)
	}
	p.project(p.newWorkspace(), x0)
	return nil
}

// lowRankWarmStart returns each block's factor L (r×k, X = LLᵀ) of the
// model init fitted on the same inputs, from its projection N (W = NᵀN):
// Z = ΦᵀWΦ = (NΦ)ᵀ(NΦ), so L = (NΦ)ᵀ, or Nᵀ where W-space and the
// eigenbasis coincide (features, the identity); rows of N that are zero
// (W = 0) give no column. O(n·r·k) per block.
func lowRankWarmStart(p *problem, init *Model, in input) ([]*mat.Dense, error) {
	if init.Input != in.kind || init.N != in.n || len(init.Proj) != len(p.blocks) {
		return nil, invalidf("mkpoe: Settings.Init was fitted on other inputs (%s, %d items, %d blocks), want %s, %d items, %d blocks",
			init.Input, init.N, len(init.Proj), in.kind, in.n, len(p.blocks))
	}
	out := make([]*mat.Dense, len(p.blocks))
	for b := range p.blocks {
		blk := &p.blocks[b]
		proj := init.Proj[b]
		k, d := proj.Dims()
		var rows []int
		for i := 0; i < k; i++ {
			if mat.Norm(proj.RowView(i), math.Inf(1)) > 0 {
				rows = append(rows, i)
			}
		}
		if len(rows) == 0 {
			continue
		}
		nz := mat.NewDense(len(rows), d, nil)
		for c, i := range rows {
			nz.SetRow(c, proj.RawRowView(i))
		}
		l := mat.NewDense(blk.r, len(rows), nil)
		switch {
		case in.kind != InputKernels:
			if d != blk.r {
				return nil, invalidf("mkpoe: Settings.Init block %d has order %d, want %d (same inputs)", b, d, blk.r)
			}
			l.Copy(nz.T())
		case blk.phiDiag != nil:
			for i, di := range blk.phiDiag {
				for c := range rows {
					l.Set(i, c, di*nz.At(c, i))
				}
			}
		default:
			if d != in.n {
				return nil, invalidf("mkpoe: Settings.Init block %d has order %d, want %d (same inputs)", b, d, in.n)
			}
			l.Mul(blk.phi.T(), nz.T())
		}
		out[b] = l
	}
	return out, nil
}

// warmCertificate tries to certify the warm start x0 (problem
// coordinates) with the dual point of Settings.Init's fit, clipped to this
// β's box [0, β/|𝒞|]: along an increasing β grid, once no comparison is
// violated the solution stops changing (the paper's grids reach β = 1e7)
// and the previous multipliers stay feasible, so the fit costs one
// certificate instead of an interior-point run. At small β, where W = 0 is
// optimal, every multiplier is at the top of the previous box, and the
// multipliers scaled by the ratio of the βs certify W = 0 at the new β
// (the benchmark fixture's fits at β = 0.1 and 1 cost 0.03–0.04 s
// instead of 0.21–0.28 s); they are tried second. Any multipliers in the box
// give a valid bound after dual scaling (docs/solver.md, "Default
// solver"), so a mismatched Init can only fail to certify, never give a
// wrong certificate. When it does not certify, it returns false and, if
// there is an Init, the warm start's best multiple with its objective and
// no bound (where acceleratedMethod may start the interior-point stage).
func (p *problem) warmCertificate(x0 []float64, s Settings) (solution, bool) {
	if s.Init == nil {
		return solution{}, false
	}
	ws := p.newWorkspace()
	x, m := p.scaledStart(ws, x0)
	f := p.regularizer(x) + p.lossAndWeights(m, 0, nil)
	start := solution{x: x, objective: f}
	nc := len(p.left)
	if len(s.Init.dual) != nc || nc == 0 {
		return start, false
	}
	mu := p.beta / float64(nc)
	// The multipliers as they are, then scaled by the ratio of the βs:
	// where W = 0 stays optimal (small β) every multiplier sits at the
	// top of its box, μ, which the first misses by that ratio.
	scales := []float64{1}
	if r := s.Beta / s.Init.Beta; r > 0 && r != 1 && !math.IsInf(r, 0) {
		scales = append(scales, r)
	}
	alpha := make([]float64, nc)
	g := make([]float64, p.dim)
	pw := make([]float64, len(p.pairs))
	for _, sc := range scales {
		for c, a := range s.Init.dual {
			alpha[c] = math.Min(math.Max(sc*a, 0), mu)
		}
		p.gradient(ws, alpha, pw, g)
		bound := p.dualScale(ws, g) * floats.Sum(alpha)
		if f-bound <= s.Tol*f {
			return solution{x: x, objective: f, bound: bound, converged: true, dual: scaledDual(alpha, bound)}, true
		}
	}
	return start, false
}

// scaledStart returns the best multiple of the warm start x0 (problem
// coordinates) and its margins. An interior-point solution leaves some
// margins a hair above zero, which a larger β multiplies: the best multiple
// of x removes them.
func (p *problem) scaledStart(ws *workspace, x0 []float64) (x, m []float64) {
	m = make([]float64, len(p.left))
	x = append([]float64(nil), x0...)
	p.margins(ws, x, make([]float64, len(p.pairs)), m)
	mu := p.beta / float64(max(len(p.left), 1))
	if sc := bestMultiple(p.regularizer(x), mu, m); sc != 1 {
		floats.Scale(sc, x)
		for c := range m {
			m[c] = 1 + sc*(m[c]-1)
		}
	}
	return x, m
}

// bestMultiple returns the s ≥ 0 minimising f(s·x) = s·reg + μ Σ_c
// max(0, 1 + s(m_c − 1)) for the margins m at x (the regulariser is linear
// and a margin's distance part scales with W), or 1 if no multiple is
// better than x itself. f is convex and piecewise linear in s, with a kink
// at s_c = 1/(1 − m_c) for every comparison with m_c < 1: its slope rises
// through the kinks, and the minimum is at s = 0 or at the first kink
// where the slope turns non-negative.
func bestMultiple(reg, mu float64, m []float64) float64 {
	type kink struct{ s, d float64 }
	var kinks []kink
	slope := reg
	for _, mc := range m {
		// Each term's slope at s = 0 is μ(m_c − 1); those with m_c < 1
		// reach zero at their kink and stay there.
		slope += mu * (mc - 1)
		if d := 1 - mc; d > 0 {
			kinks = append(kinks, kink{1 / d, d})
		}
	}
	best := 0.0
	if slope < 0 {
		sort.Slice(kinks, func(a, b int) bool { return kinks[a].s < kinks[b].s })
		for _, k := range kinks {
			best = k.s
			slope += mu * k.d
			if slope >= 0 {
				break
			}
		}
	}
	value := func(s float64) float64 {
		v := s * reg
		for _, mc := range m {
			v += mu * math.Max(0, 1+s*(mc-1))
		}
		return v
	}
	if value(best) < value(1) {
		return best
	}
	return 1
}

// marginsOf returns the margins 1 + d(i,j) − d(k,l) at x.
func marginsOf(p *problem, x []float64) []float64 {
	m := make([]float64, len(p.left))
	p.margins(p.newWorkspace(), x, make([]float64, len(p.pairs)), m)
	return m
}

// certifyMargins scales α_c = β/|𝒞|·1[m_c > 0] to dual feasibility and
// returns t·Σα (a lower bound on the optimum; docs/solver.md, "The dual and
// the certificate").
func certifyMargins(p *problem, m []float64) float64 {
	alpha := make([]float64, len(m))
	p.lossAndWeights(m, 0, alpha)
	ws := p.newWorkspace()
	g := make([]float64, p.dim)
	p.gradient(ws, alpha, make([]float64, len(p.pairs)), g)
	t := p.dualScale(ws, g)
	if math.IsNaN(t) {
		return 0
	}
	s := 0.0
	for _, a := range alpha {
		s += a
	}
	return t * s
}

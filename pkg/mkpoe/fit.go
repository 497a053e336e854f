package mkpoe

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/mkpoe/mkpoe/pkg/data"
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
	blocks, _ := formulation(in, set.Mode, true, cutOf(set), basisSourceOf(set))
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
		if err := checkFiniteKernel(k, fmt.Sprintf("kernel %d", p)); err != nil {
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

// checkFiniteKernel is checkFinite for a kernel: a mat.Diagonal along its
// diagonal (its only entries), any other over all n² entries.
func checkFiniteKernel(k mat.Symmetric, what string) error {
	d, ok := k.(mat.Diagonal)
	if !ok {
		n := k.SymmetricDim()
		return checkFinite(k, n, n, what)
	}
	for i := 0; i < d.SymmetricDim(); i++ {
		if v := d.At(i, i); math.IsNaN(v) || math.IsInf(v, 0) {
			return invalidf("mkpoe: %s has a non-finite entry at row %d, column %d: %v (kernel and feature entries must be finite)", what, i, i, v)
		}
	}
	return nil
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
	row := formulationRow(s)
	blocks, backs := formulation(in, s.Mode, row.eigenbasis, cutOf(s), basisSourceOf(s))
	p := newProblem(in.n, blocks, cs, s.Beta)
	p.tune = tuningOf(s)
	// Certificates and β_min need the eigenbasis form (R = I). W-space
	// and the eigenbasis coincide for diagonal W, features and the
	// identity; a W-space method on full kernel blocks gets one of its own.
	eigen := p
	if !row.eigenbasis && s.Mode == Full && in.kind == InputKernels {
		zb, _ := formulation(in, s.Mode, true, cutOf(s), basisSourceOf(s))
		eigen = newProblem(in.n, zb, cs, s.Beta)
	}
	// β_min, computed once: route asks for it only to decide Auto.
	minBetaOnce := sync.OnceValue(func() float64 {
		return eigen.minBetaUntil(func() bool { return ctx.Err() != nil })
	})
	row = route(shape{s: s, n: p.n, diag: p.hasDiagBlock(), identity: gnmdsLike(p), minBeta: minBetaOnce, tune: p.tune.route})
	s.Solver = row.name
	if !row.factored {
		// Only the factored methods read a diagonal block's coordinates
		// as its diagonal alone.
		materializeDiagonal(p.blocks, backs)
		materializeDiagonal(eigen.blocks, nil)
	}
	if err := checkMemory(p, row.factored, s.MemoryLimit); err != nil {
		return nil, err
	}
	minBeta := minBetaOnce()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var x0 []float64 // the factored methods start from factors, not x0 (r² for GNMDS)
	if !row.factored {
		x0 = make([]float64, p.dim)
	}
	var initFactors []*mat.Dense
	switch {
	case s.Init != nil && row.factored:
		// A factored method starts from the previous model's factors,
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
	sol, err := row.method.solve(ctx, fitProblem{p: p, x0: x0, s: s, eigen: eigen, init: initFactors, minBeta: minBeta})
	if err != nil {
		return nil, err
	}
	model, err := modelOf(in, s, p.blocks, backs, sol)
	if err != nil {
		return nil, err
	}
	model.Stats.Seconds = time.Since(start).Seconds()
	model.Stats.MinBeta = minBeta
	return model, nil
}

// gnmdsLike reports whether p is GNMDS (Sec. 3.3) for the route: one full
// block whose kernel is diagonal (the identity of FitIdentity, or a
// diagonal kernel such as the harness's identity kernel, diagonalBlock),
// so that `mkpoe fit --identity` and a config's identity row run the same
// method.
func gnmdsLike(p *problem) bool {
	return len(p.blocks) == 1 && !p.blocks[0].diag && p.blocks[0].phiDiag != nil
}

// modelOf is the model of a fit's solution sol on the blocks (with their
// maps back to W-space, backs): a factored model (W = NᵀN, never formed)
// where the method returned factors, else each block's W; with the
// solution's objective, dual point and statistics.
func modelOf(in input, s Settings, blocks []block, backs []*mat.Dense, sol solution) (*Model, error) {
	var ws []*mat.SymDense
	var projs []*mat.Dense
	if sol.factors != nil {
		for b, f := range sol.factors {
			if f == nil {
				projs = append(projs, mat.NewDense(1, metricOrder(&blocks[b], backs[b]), nil))
				continue
			}
			switch {
			case backs[b] != nil:
				var fw mat.Dense
				fw.Mul(backs[b], f)
				f = &fw
			case blocks[b].backDiag != nil:
				f = scaleRows(blocks[b].backDiag, f) // diagonalBlock
			}
			projs = append(projs, projectionFromFactor(f))
		}
	} else {
		// A factored method may return X itself (a small problem solved
		// whole): W = BXBᵀ needs B formed.
		materializeDiagonal(blocks, backs)
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
		Iterations:  sol.iters,
		Converged:   sol.converged,
		Status:      sol.status(s.Tol),
		DualBound:   sol.bound,
		Trace:       sol.trace,
		RelativeGap: relativeGap(sol.objective, sol.bound),
	}
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

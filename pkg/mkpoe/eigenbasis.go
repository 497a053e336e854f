package mkpoe

import (
	"math"

	"github.com/mkpoe/mkpoe/internal/linalg"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

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
// the cut truncates). Bases of large kernels come from the cache when a
// fit or MinBeta on the same kernel computed them already. A diagonal
// kernel whole does not come here (formulation, diagonalKernelBlock).
func kernelEigenbasis(k mat.Symmetric, cut kernelCut, cache basisSource) (eigenbasis, float64) {
	if cut.truncates() {
		return cache.cache.basis(k, cut, cache.minOrder, func() (eigenbasis, float64) { return truncatedEigenbasis(k, cut) })
	}
	return cache.cache.basis(k, cut, cache.minOrder, func() (eigenbasis, float64) { return wholeEigenbasis(k, cut.relTol), 1 })
}

// basisSource is where a fit's kernel eigenbases may come from: the
// caller's cache (Settings.Cache; nil: none) for kernels of order at least
// minOrder.
type basisSource struct {
	cache    *EigenCache
	minOrder int
}

// basisSourceOf is the basis source of validated settings.
func basisSourceOf(s Settings) basisSource {
	return basisSource{cache: s.Cache, minOrder: tuningOf(s).route.eigenCacheMinOrder}
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
func formulation(in input, mode Mode, eigen bool, cut kernelCut, bases basisSource) (blocks []block, backs []*mat.Dense) {
	add := func(b block, back *mat.Dense) {
		if b.phi != nil { // else a diagonalBlock, its order set
			_, b.r = b.phi.Dims()
			if !b.diag {
				b.phiDiag = diagonalOf(b.phi)
			}
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
			add(diagonalBlock(ones(in.n), nil), nil)
		}
	case InputKernels:
		for _, k := range in.kernels {
			switch {
			case mode == Diag:
				kd := denseKernel(k)
				c := make([]float64, in.n)
				for t := range c {
					c[t] = math.Max(kd.At(t, t), 0)
				}
				add(block{diag: true, phi: kd, c: c}, nil)
			case eigen:
				if blk, ok := diagonalKernelBlock(k, cut); ok {
					add(blk, nil)
					continue
				}
				eb, energy := kernelEigenbasis(k, cut, bases)
				add(block{phi: eb.phi, energy: energy}, eb.back)
			default:
				reg := mat.NewSymDense(in.n, nil)
				reg.CopySym(k)
				add(block{phi: denseKernel(k), reg: reg}, nil)
			}
		}
	}
	return blocks, backs
}

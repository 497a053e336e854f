package kernels

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// PPK is the probability product kernel between Gaussian mixture models with
// diagonal covariances, one GMM per item fitted by EM to that item's frames
// (Sec. 5.2.1, MFCC kernel: 8-component diagonal GMMs over delta-MFCCs and
//
//	K^mfcc_ij = ∫ sqrt(p_i(x) p_j(x)) dx,
//
// the probability product kernel of Jebara, Kondor & Howard 2004 with ρ = 1/2).
//
// Between two Gaussians with diagonal variances u, v (per dimension d) the
// kernel ∫ N(x; μ, u)^ρ N(x; ν, v)^ρ dx has the closed form (Jebara et al.
// 2004), a product over dimensions of
//
//	(2π)^((1−2ρ)/2) ρ^(−1/2) sqrt(u_d v_d / (u_d + v_d)) (u_d v_d)^(−ρ/2) exp(−ρ (μ_d − ν_d)² / (2 (u_d + v_d)))
//
// which for ρ = 1/2 is the Bhattacharyya coefficient
// Π_d sqrt(2 sqrt(u_d v_d) / (u_d + v_d)) exp(−(μ_d − ν_d)² / (4 (u_d + v_d))).
// Between mixtures p = Σ_a π_a N_a and q = Σ_b π'_b N'_b we use
//
//	k(p, q) = Σ_a Σ_b (π_a π'_b)^ρ ∫ N_a^ρ N'_b^ρ dx.
//
// Deviation: this component-wise sum equals ∫ p^ρ q^ρ only for ρ = 1; for
// ρ = 1/2 the exact integral has no closed form. The sum is an upper bound of
// it (t ↦ t^ρ is subadditive for ρ ≤ 1) and is itself a kernel: it is the L²
// inner product of φ(p) = Σ_a π_a^ρ N_a^ρ, so the Gram matrix is PSD. Unlike
// the exact kernel, k(p, p) ≥ 1 rather than = 1; use [NormDiag] for a unit
// diagonal.
//
// It reads [Input.Frames]: one frames×D matrix per item, all with the same D;
// each present item needs at least Components frames. The GMM of an item
// depends only on its frames and Seed, so a new item's GMM is fitted exactly
// as a training item's would be (the out-of-sample rule: fit the new item's
// GMM, then evaluate k against the training GMMs).
type PPK struct {
	// Components is the number of mixture components; 0 means 8 (Sec. 5.2.1).
	Components int
	// Rho is ρ > 0; 0 means 1/2 (Sec. 5.2.1).
	Rho float64
	// Seed seeds the EM initialisation of every item's GMM
	// (rand.NewPCG(Seed, Seed), restarted for each item). The default is 0.
	Seed uint64
	// MaxIter caps the EM iterations per item; 0 means 100.
	MaxIter int
	// Tol stops EM when the mean log-likelihood per frame rises by less
	// than Tol·max(1, |L|); 0 means 1e-6.
	Tol float64
	// VarFloor is the smallest variance of any component in any dimension,
	// in squared frame units (MFCC deltas have variances of order 1–100);
	// 0 means 1e-3.
	VarFloor float64
}

func (k PPK) withDefaults() (PPK, error) {
	if k.Components == 0 {
		k.Components = 8
	}
	if k.Rho == 0 {
		k.Rho = 0.5
	}
	if k.MaxIter == 0 {
		k.MaxIter = 100
	}
	if k.Tol == 0 {
		k.Tol = 1e-6
	}
	if k.VarFloor == 0 {
		k.VarFloor = 1e-3
	}
	switch {
	case k.Components < 0:
		return k, fmt.Errorf("kernels: ppk: components must be ≥ 1 (0 means 8), got %d", k.Components)
	case !(k.Rho > 0) || math.IsInf(k.Rho, 0):
		return k, fmt.Errorf("kernels: ppk: rho must be > 0 (0 means 0.5), got %v", k.Rho)
	case k.MaxIter < 0:
		return k, fmt.Errorf("kernels: ppk: max_iter must be ≥ 1 (0 means 100), got %d", k.MaxIter)
	case !(k.Tol > 0) || math.IsInf(k.Tol, 0):
		return k, fmt.Errorf("kernels: ppk: tol must be > 0 (0 means 1e-6), got %v", k.Tol)
	case !(k.VarFloor > 0) || math.IsInf(k.VarFloor, 0):
		return k, fmt.Errorf("kernels: ppk: var_floor must be > 0 (0 means 1e-3), got %v", k.VarFloor)
	}
	return k, nil
}

// GMM is a Gaussian mixture with diagonal covariances.
type GMM struct {
	Weights []float64  // mixing weights π_a, summing to 1
	Means   *mat.Dense // Components×D, row a is μ_a
	Vars    *mat.Dense // Components×D, row a holds the variances of component a
	// LogLik is the mean log-likelihood per frame before each M-step and,
	// last, of the returned parameters; EM makes it non-decreasing.
	LogLik []float64
}

// FitGMM fits a GMM with k.Components diagonal components to frames (one
// frame per row) by EM (Dempster, Laird & Rubin 1977). Initialisation, from
// rand.New(rand.NewPCG(k.Seed, k.Seed)): the means are distinct frames drawn
// uniformly without replacement, every variance is the frames' variance in
// that dimension (at least k.VarFloor), and the weights are equal. The
// M-step floors every variance at k.VarFloor (the constrained maximiser, so
// the likelihood still never falls); a component with no responsibility
// keeps its mean and variances. EM stops after k.MaxIter M-steps or when the
// mean log-likelihood rises by less than k.Tol·max(1, |L|). The result is a
// deterministic function of frames and k. frames is not modified.
func (k PPK) FitGMM(frames *mat.Dense) (*GMM, error) {
	k, err := k.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := k.checkFrames(frames); err != nil {
		return nil, err
	}
	x := mat.DenseCopyOf(frames)
	g := k.initGMM(x)
	m, _ := x.Dims()
	resp := mat.NewDense(m, k.Components, nil)
	for iter := 0; ; iter++ {
		ll := g.eStep(x, resp)
		g.LogLik = append(g.LogLik, ll)
		if n := len(g.LogLik); iter >= k.MaxIter || (n > 1 && ll-g.LogLik[n-2] < k.Tol*math.Max(1, math.Abs(g.LogLik[n-2]))) {
			break
		}
		g.mStep(x, resp, k.VarFloor)
	}
	return g, nil
}

// checkFrames returns an error unless frames is non-nil, has at least
// k.Components rows and only finite values.
func (k PPK) checkFrames(frames *mat.Dense) error {
	if frames == nil {
		return errors.New("kernels: ppk: frames matrix is nil")
	}
	m, d := frames.Dims()
	if m < k.Components {
		return fmt.Errorf("kernels: ppk: need at least components = %d frames, got %d", k.Components, m)
	}
	for i := 0; i < m; i++ {
		for j := 0; j < d; j++ {
			if v := frames.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("kernels: ppk: frame values must be finite, got %v at frame %d, dimension %d (0-based)", v, i, j)
			}
		}
	}
	return nil
}

// initGMM returns the EM starting point of [PPK.FitGMM] for the frames x
// (m×D): k.Components distinct frames drawn as means by
// rand.New(rand.NewPCG(k.Seed, k.Seed)), every variance the frames'
// variance in its dimension (at least k.VarFloor), equal weights.
func (k PPK) initGMM(x *mat.Dense) *GMM {
	m, d := x.Dims()
	K := k.Components
	rng := rand.New(rand.NewPCG(k.Seed, k.Seed))
	g := &GMM{Weights: make([]float64, K), Means: mat.NewDense(K, d, nil), Vars: mat.NewDense(K, d, nil)}
	perm := rng.Perm(m)
	col := make([]float64, m)
	for j := 0; j < d; j++ {
		mat.Col(col, j, x)
		mean := floats.Sum(col) / float64(m)
		var v float64
		for _, c := range col {
			v += (c - mean) * (c - mean)
		}
		v = math.Max(v/float64(m), k.VarFloor)
		for a := 0; a < K; a++ {
			g.Vars.Set(a, j, v)
		}
	}
	for a := 0; a < K; a++ {
		g.Weights[a] = 1 / float64(K)
		g.Means.SetRow(a, x.RawRowView(perm[a]))
	}
	return g
}

// eStep is EM's E-step: it writes the responsibilities of the components
// (columns) for the frames x (rows) into resp and returns the mean
// log-likelihood per frame under g.
func (g *GMM) eStep(x, resp *mat.Dense) float64 {
	m, K := resp.Dims()
	logp := make([]float64, K)
	var ll float64
	logNorm := make([]float64, K) // log π_a − ½ Σ_d log(2π v_ad)
	for a := 0; a < K; a++ {
		logNorm[a] = math.Log(g.Weights[a])
		for _, v := range g.Vars.RawRowView(a) {
			logNorm[a] -= 0.5 * math.Log(2*math.Pi*v)
		}
	}
	for i := 0; i < m; i++ {
		xi := x.RawRowView(i)
		for a := 0; a < K; a++ {
			mu, vr := g.Means.RawRowView(a), g.Vars.RawRowView(a)
			s := logNorm[a]
			for j, xv := range xi {
				dv := xv - mu[j]
				s -= dv * dv / (2 * vr[j])
			}
			logp[a] = s
		}
		lse := floats.LogSumExp(logp)
		ll += lse
		r := resp.RawRowView(i)
		for a := range r {
			r[a] = math.Exp(logp[a] - lse)
		}
	}
	return ll / float64(m)
}

// mStep is EM's M-step with every variance floored at varFloor: it sets
// g's weights, means and variances from the frames x and the
// responsibilities resp. A component with no responsibility keeps its mean
// and variances.
func (g *GMM) mStep(x, resp *mat.Dense, varFloor float64) {
	m, K := resp.Dims()
	for a := 0; a < K; a++ {
		var na float64
		for i := 0; i < m; i++ {
			na += resp.At(i, a)
		}
		g.Weights[a] = na / float64(m)
		if na < 1e-12*float64(m) {
			continue
		}
		mu, vr := g.Means.RawRowView(a), g.Vars.RawRowView(a)
		for j := range mu {
			var s float64
			for i := 0; i < m; i++ {
				s += resp.At(i, a) * x.At(i, j)
			}
			mu[j] = s / na
		}
		for j := range vr {
			var s float64
			for i := 0; i < m; i++ {
				dv := x.At(i, j) - mu[j]
				s += resp.At(i, a) * dv * dv
			}
			vr[j] = math.Max(s/na, varFloor)
		}
	}
}

// Fit implements [Kernel]: it fits one GMM per present training item.
func (k PPK) Fit(train Input) (Fitted, error) {
	k, err := k.withDefaults()
	if err != nil {
		return nil, err
	}
	if train.Frames == nil {
		return nil, errors.New("kernels: ppk kernel needs Input.Frames (one frames×D matrix per item)")
	}
	f := &PPKFit{k: k, GMMs: make([]*GMM, len(train.Frames)), dim: -1}
	for i, fr := range train.Frames {
		if train.missing(i) {
			continue
		}
		if f.GMMs[i], err = f.fitItem(fr, i, "training"); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// PPKFit is a fitted [PPK] kernel. GMMs[i] is the GMM of training item i
// (nil for missing items); it must not be modified.
type PPKFit struct {
	k    PPK
	dim  int
	GMMs []*GMM
}

func (f *PPKFit) fitItem(fr *mat.Dense, i int, which string) (*GMM, error) {
	if fr == nil {
		return nil, fmt.Errorf("kernels: ppk: %s item %d has no frames (nil); mark it in Input.Missing", which, i)
	}
	_, d := fr.Dims()
	if f.dim >= 0 && d != f.dim {
		return nil, fmt.Errorf("kernels: ppk: %s item %d has frames of dimension %d, but the training frames have dimension %d", which, i, d, f.dim)
	}
	if f.dim < 0 {
		f.dim = d
	}
	g, err := f.k.FitGMM(fr)
	if err != nil {
		return nil, fmt.Errorf("%w (%s item %d)", err, which, i)
	}
	return g, nil
}

// ProductKernel returns the probability product kernel with exponent rho
// between the mixtures p and q (see [PPK]).
func ProductKernel(p, q *GMM, rho float64) float64 {
	_, d := p.Means.Dims()
	c := float64(d) * ((1-2*rho)/2*math.Log(2*math.Pi) - 0.5*math.Log(rho))
	var sum float64
	for a, pa := range p.Weights {
		if pa == 0 {
			continue
		}
		mu, u := p.Means.RawRowView(a), p.Vars.RawRowView(a)
		for b, qb := range q.Weights {
			if qb == 0 {
				continue
			}
			nu, v := q.Means.RawRowView(b), q.Vars.RawRowView(b)
			s := c + rho*math.Log(pa*qb)
			for j := range mu {
				w := u[j] + v[j]
				dm := mu[j] - nu[j]
				s += 0.5*math.Log(u[j]*v[j]/w) - rho/2*math.Log(u[j]*v[j]) - rho*dm*dm/(2*w)
			}
			sum += math.Exp(s)
		}
	}
	return sum
}

// Gram implements [Fitted].
func (f *PPKFit) Gram() *mat.SymDense {
	n := len(f.GMMs)
	g := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		if f.GMMs[i] == nil {
			continue
		}
		for j := i; j < n; j++ {
			if f.GMMs[j] != nil {
				g.SetSym(i, j, ProductKernel(f.GMMs[i], f.GMMs[j], f.k.Rho))
			}
		}
	}
	return g
}

// Cross implements [Fitted]: it fits a GMM to each present new item.
func (f *PPKFit) Cross(test Input) (*mat.Dense, []float64, error) {
	if test.Frames == nil {
		return nil, nil, errors.New("kernels: ppk kernel needs Input.Frames (one frames×D matrix per item)")
	}
	ff := *f
	rows := mat.NewDense(len(test.Frames), len(f.GMMs), nil)
	self := make([]float64, len(test.Frames))
	for r, fr := range test.Frames {
		if test.missing(r) {
			continue
		}
		g, err := ff.fitItem(fr, r, "new")
		if err != nil {
			return nil, nil, err
		}
		self[r] = ProductKernel(g, g, f.k.Rho)
		for j, h := range f.GMMs {
			if h != nil {
				rows.Set(r, j, ProductKernel(g, h, f.k.Rho))
			}
		}
	}
	return rows, self, nil
}

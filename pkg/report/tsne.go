package report

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// TSNESettings are the parameters of [TSNE]. The zero value of each field
// means its documented default.
type TSNESettings struct {
	// Perplexity is the effective number of neighbours (default 30, lowered
	// to (n−1)/3 for small n as perplexity must stay well below n).
	Perplexity float64
	// Iterations is the number of gradient steps (default 1000).
	Iterations int
	// Exaggeration multiplies P for the first ExaggerationIters steps
	// (defaults 12 and 250, as scikit-learn).
	Exaggeration      float64
	ExaggerationIters int
	// LearningRate is the step size (default max(n/Exaggeration/4, 50),
	// scikit-learn's "auto").
	LearningRate float64
	// Seed seeds the initial layout, N(0, 10⁻⁴ I) (default 0 is a valid seed).
	Seed uint64
}

// TSNEResult is a 2-D map and its diagnostics.
type TSNEResult struct {
	Y          *mat.Dense // n×2 map, centred
	KL         float64    // final Kullback–Leibler divergence KL(P‖Q)
	Perplexity float64    // the perplexity used
}

// TSNE maps the rows of x (n×d, n ≥ 4) to the plane by exact t-SNE (van
// der Maaten & Hinton 2008, Sec. 3 and Alg. 1): P from Gaussian
// conditionals whose bandwidths are found by binary search to match the
// perplexity, symmetrised,
//
//	p_j|i = exp(−β_i‖x_i−x_j‖²) / Σ_k≠i exp(−β_i‖x_i−x_k‖²),  H(P_i) = log(Perplexity),
//	p_ij = (p_j|i + p_i|j) / 2n,
//
// a Student-t (one degree of freedom) kernel in the map,
// q_ij ∝ (1+‖y_i−y_j‖²)⁻¹, and gradient descent on KL(P‖Q) with
//
//	∂KL/∂y_i = 4 Σ_j (p_ij − q_ij)(1+‖y_i−y_j‖²)⁻¹ (y_i − y_j),
//
// momentum (0.5 during early exaggeration, then 0.8) and per-coordinate
// adaptive gains (Jacobs 1988), as the authors' reference tsne.py. The
// cost is O(n²) per iteration: meant for the few hundred training items
// of a report. The result is a deterministic function of x and s.Seed.
// x is not modified; s may be nil (defaults). It returns an error for
// fewer than 4 rows or non-finite values.
//
// References:
//
//	L. van der Maaten, G. Hinton. Visualizing data using t-SNE. JMLR 9 (2008) 2579–2605.
func TSNE(x mat.Matrix, s *TSNESettings) (*TSNEResult, error) {
	n, _ := x.Dims()
	if n < 4 {
		return nil, fmt.Errorf("report: t-SNE needs at least 4 points, got %d", n)
	}
	set, err := s.withDefaults(n)
	if err != nil {
		return nil, err
	}
	d2, err := squaredDistances(x)
	if err != nil {
		return nil, err
	}
	p := jointP(d2, n, set.Perplexity)

	rng := rand.New(rand.NewPCG(set.Seed, 0x7453_4e45))
	y := make([]float64, 2*n)
	for i := range y {
		y[i] = 1e-2 * rng.NormFloat64()
	}
	grad := make([]float64, 2*n)
	update := make([]float64, 2*n)
	gains := make([]float64, 2*n)
	for i := range gains {
		gains[i] = 1
	}
	num := make([]float64, n*n)
	var kl float64
	for it := 0; it < set.Iterations; it++ {
		exag, momentum := 1.0, 0.8
		if it < set.ExaggerationIters {
			exag, momentum = set.Exaggeration, 0.5
		}
		sum := studentT(y, num, n)
		klGradient(grad, y, p, num, sum, exag, n)
		for k := range y {
			if (grad[k] > 0) != (update[k] > 0) {
				gains[k] += 0.2
			} else {
				gains[k] *= 0.8
			}
			gains[k] = math.Max(gains[k], 0.01)
			update[k] = momentum*update[k] - set.LearningRate*gains[k]*grad[k]
			y[k] += update[k]
		}
		centre(y, n)
		if it == set.Iterations-1 {
			kl = klDivergence(p, num, sum, n)
		}
	}
	return &TSNEResult{Y: mat.NewDense(n, 2, y), KL: kl, Perplexity: set.Perplexity}, nil
}

// withDefaults returns a copy of s (nil means all defaults) for n points
// with every zero field set to its documented default and the perplexity
// capped at (n−1)/3, or an error for a negative perplexity.
func (s *TSNESettings) withDefaults(n int) (TSNESettings, error) {
	var set TSNESettings
	if s != nil {
		set = *s
	}
	if set.Perplexity == 0 {
		set.Perplexity = 30
	}
	if set.Perplexity < 0 {
		return set, fmt.Errorf("report: TSNESettings.Perplexity must be > 0, got %g", set.Perplexity)
	}
	set.Perplexity = math.Min(set.Perplexity, float64(n-1)/3)
	if set.Iterations == 0 {
		set.Iterations = 1000
	}
	if set.Exaggeration == 0 {
		set.Exaggeration = 12
	}
	if set.ExaggerationIters == 0 {
		set.ExaggerationIters = 250
	}
	if set.LearningRate == 0 {
		set.LearningRate = math.Max(float64(n)/set.Exaggeration/4, 50)
	}
	return set, nil
}

// squaredDistances returns ‖x_i−x_j‖² between the rows of x (n×n,
// row-major), or an error if any is not finite.
func squaredDistances(x mat.Matrix) ([]float64, error) {
	n, d := x.Dims()
	d2 := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			s := 0.0
			for k := 0; k < d; k++ {
				v := x.At(i, k) - x.At(j, k)
				s += v * v
			}
			if math.IsNaN(s) || math.IsInf(s, 0) {
				return nil, errors.New("report: t-SNE input has non-finite values")
			}
			d2[i*n+j], d2[j*n+i] = s, s
		}
	}
	return d2, nil
}

// studentT writes the map's Student-t affinities (1+‖y_i−y_j‖²)⁻¹ into num
// (n×n, row-major; the diagonal is left alone) and returns their sum over
// i ≠ j, the normaliser of q_ij.
func studentT(y, num []float64, n int) float64 {
	sum := 0.0
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			dx, dy := y[2*i]-y[2*j], y[2*i+1]-y[2*j+1]
			v := 1 / (1 + dx*dx + dy*dy)
			num[i*n+j], num[j*n+i] = v, v
			sum += 2 * v
		}
	}
	return sum
}

// klGradient writes ∂KL/∂y_i = 4 Σ_j (exag·p_ij − q_ij)(1+‖y_i−y_j‖²)⁻¹ (y_i − y_j)
// into grad, with q_ij = num_ij/sum floored at 1e-12.
func klGradient(grad, y, p, num []float64, sum, exag float64, n int) {
	for i := range grad {
		grad[i] = 0
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i == j {
				continue
			}
			q := math.Max(num[i*n+j]/sum, 1e-12)
			f := 4 * (exag*p[i*n+j] - q) * num[i*n+j]
			grad[2*i] += f * (y[2*i] - y[2*j])
			grad[2*i+1] += f * (y[2*i+1] - y[2*j+1])
		}
	}
}

func centre(y []float64, n int) {
	var mx, my float64
	for i := 0; i < n; i++ {
		mx += y[2*i]
		my += y[2*i+1]
	}
	mx /= float64(n)
	my /= float64(n)
	for i := 0; i < n; i++ {
		y[2*i] -= mx
		y[2*i+1] -= my
	}
}

func klDivergence(p, num []float64, sum float64, n int) float64 {
	kl := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i == j || p[i*n+j] <= 1e-12 {
				continue
			}
			q := math.Max(num[i*n+j]/sum, 1e-12)
			kl += p[i*n+j] * math.Log(p[i*n+j]/q)
		}
	}
	return kl
}

// jointP returns the symmetrised affinities p_ij = (p_j|i + p_i|j)/2n,
// floored at 1e-12, from squared distances d2 (n×n, row-major).
func jointP(d2 []float64, n int, perplexity float64) []float64 {
	cond := make([]float64, n*n)
	for i := 0; i < n; i++ {
		conditionalRow(d2[i*n:(i+1)*n], i, perplexity, cond[i*n:(i+1)*n])
	}
	p := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i != j {
				p[i*n+j] = math.Max((cond[i*n+j]+cond[j*n+i])/(2*float64(n)), 1e-12)
			}
		}
	}
	return p
}

// conditionalRow sets row[j] = p_j|i for the precision β_i whose
// distribution has entropy log(perplexity) (natural log), found by
// bisection on β (doubling until bracketed) to |H − log(perplexity)| <
// 1e-10 or 200 steps. It returns β_i and the entropy reached.
func conditionalRow(d2 []float64, i int, perplexity float64, row []float64) (beta, h float64) {
	target := math.Log(perplexity)
	// Distances shifted by the smallest positive one keep exp() in range.
	minD := math.Inf(1)
	for j, v := range d2 {
		if j != i && v < minD {
			minD = v
		}
	}
	entropy := func(beta float64) float64 {
		sum, dot := 0.0, 0.0
		for j, v := range d2 {
			if j == i {
				row[j] = 0
				continue
			}
			e := math.Exp(-beta * (v - minD))
			row[j] = e
			sum += e
			dot += e * (v - minD)
		}
		for j := range row {
			row[j] /= sum
		}
		// H = log Σ e + β Σ p_j d_j (shifted distances).
		return math.Log(sum) + beta*dot/sum
	}
	lo, hi := 0.0, math.Inf(1)
	// Start from the scale of the distances so that the search is short.
	beta, mean := 1.0, 0.0
	for j, v := range d2 {
		if j != i {
			mean += v - minD
		}
	}
	if mean /= float64(len(d2) - 1); mean > 0 {
		beta = 1 / mean
	}
	for step := 0; step < 200; step++ {
		h = entropy(beta)
		diff := h - target
		if math.Abs(diff) < 1e-10 {
			break
		}
		if diff > 0 { // too flat: raise the precision
			lo = beta
			if math.IsInf(hi, 1) {
				beta *= 2
			} else {
				beta = (beta + hi) / 2
			}
		} else {
			hi = beta
			beta = (beta + lo) / 2
		}
	}
	return beta, h
}

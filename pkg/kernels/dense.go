package kernels

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// pairFit is a raw kernel k(x, y) over the rows of a dense feature matrix.
type pairFit struct {
	kind string
	x    *mat.Dense // training features (a private copy)
	miss []bool
	k    func(x, y []float64) float64
	// check validates the rows of a feature matrix; which is "training" or "new".
	check func(f *mat.Dense, which string, miss func(int) bool) error
}

func newPairFit(kind string, train Input, k func(x, y []float64) float64, check func(*mat.Dense, string, func(int) bool) error) (*pairFit, error) {
	f, err := train.features(kind)
	if err != nil {
		return nil, err
	}
	if check != nil {
		if err := check(f, "training", train.missing); err != nil {
			return nil, err
		}
	}
	return &pairFit{kind: kind, x: mat.DenseCopyOf(f), miss: train.Missing, k: k, check: check}, nil
}

func (p *pairFit) missing(i int) bool { return p.miss != nil && p.miss[i] }

func (p *pairFit) Gram() *mat.SymDense {
	n, _ := p.x.Dims()
	g := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		if p.missing(i) {
			continue
		}
		xi := p.x.RawRowView(i)
		for j := i; j < n; j++ {
			if !p.missing(j) {
				g.SetSym(i, j, p.k(xi, p.x.RawRowView(j)))
			}
		}
	}
	return g
}

func (p *pairFit) Cross(test Input) (*mat.Dense, []float64, error) {
	f, err := test.features(p.kind)
	if err != nil {
		return nil, nil, err
	}
	n, d := p.x.Dims()
	t, dt := f.Dims()
	if dt != d {
		return nil, nil, fmt.Errorf("kernels: %s: new items have %d features but the training items have %d", p.kind, dt, d)
	}
	if p.check != nil {
		if err := p.check(f, "new", test.missing); err != nil {
			return nil, nil, err
		}
	}
	rows := mat.NewDense(t, n, nil)
	self := make([]float64, t)
	x := make([]float64, d)
	for r := 0; r < t; r++ {
		if test.missing(r) {
			continue
		}
		mat.Row(x, r, f)
		self[r] = p.k(x, x)
		for j := 0; j < n; j++ {
			if !p.missing(j) {
				rows.Set(r, j, p.k(x, p.x.RawRowView(j)))
			}
		}
	}
	return rows, self, nil
}

// Linear is the linear kernel over feature vectors (Sec. 5.1: "a simple
// linear kernel over the grayscale intensity values of the images"):
//
//	k(x, y) = xᵀy
//
// It reads [Input.Features] and has no parameters.
type Linear struct{}

// Fit implements [Kernel].
func (Linear) Fit(train Input) (Fitted, error) {
	return newPairFit("linear", train, dot, nil)
}

func dot(x, y []float64) float64 {
	var s float64
	for i, v := range x {
		s += v * y[i]
	}
	return s
}

func sqDist(x, y []float64) float64 {
	var s float64
	for i, v := range x {
		d := v - y[i]
		s += d * d
	}
	return s
}

// RBF is the Gaussian (radial basis function) kernel over feature vectors,
// used for the colour and intensity histograms of Sec. 5.1 ("Gaussian
// kernels over histograms"; the paper gives no bandwidth):
//
//	k(x, y) = exp(−‖x − y‖² / (2σ²))
//
// It reads [Input.Features]. k(x, x) = 1.
type RBF struct {
	// Bandwidth is σ > 0. If it is zero, σ is set by the median heuristic:
	// the median of the Euclidean distances ‖x_i − x_j‖ over all pairs
	// i < j of present training items (the mean of the two middle values
	// for an even number of pairs). The default is 0 (median).
	Bandwidth float64
	// MedianScale multiplies the median of the heuristic (σ = scale ×
	// median; 0 means 1), to study how results depend on the bandwidth.
	// It applies only with Bandwidth 0.
	MedianScale float64
}

// Fit implements [Kernel]. With the median heuristic it needs at least two
// present training items and a positive median distance.
func (k RBF) Fit(train Input) (Fitted, error) {
	sigma := k.Bandwidth
	if sigma < 0 || math.IsNaN(sigma) || math.IsInf(sigma, 0) {
		return nil, fmt.Errorf("kernels: rbf: bandwidth must be > 0 (or 0 for the median heuristic), got %v", sigma)
	}
	f, err := train.features("rbf")
	if err != nil {
		return nil, err
	}
	scale := k.MedianScale
	if scale < 0 || math.IsNaN(scale) || math.IsInf(scale, 0) || (scale != 0 && sigma != 0) {
		return nil, fmt.Errorf("kernels: rbf: median_scale must be > 0 (0 means 1) and only with the median heuristic (bandwidth 0), got %v with bandwidth %v", scale, sigma)
	}
	if sigma == 0 {
		sigma, err = MedianDistance(f, train.Missing)
		if err != nil {
			return nil, err
		}
		if scale != 0 {
			sigma *= scale
		}
	}
	c := -1 / (2 * sigma * sigma)
	p, err := newPairFit("rbf", train, func(x, y []float64) float64 { return math.Exp(c * sqDist(x, y)) }, nil)
	if err != nil {
		return nil, err
	}
	return &RBFFit{pairFit: p, Sigma: sigma}, nil
}

// RBFFit is a fitted [RBF] kernel; Sigma is the bandwidth it uses (fixed or
// from the median heuristic on the training items).
type RBFFit struct {
	*pairFit
	Sigma float64
}

// MedianDistance returns the median Euclidean distance between the rows of x
// over all pairs i < j with neither row marked in missing (which may be nil).
// It is an error if there are fewer than two such rows or the median is 0.
func MedianDistance(x *mat.Dense, missing []bool) (float64, error) {
	n, _ := x.Dims()
	var keep []int
	for i := 0; i < n; i++ {
		if missing == nil || !missing[i] {
			keep = append(keep, i)
		}
	}
	if len(keep) < 2 {
		return 0, fmt.Errorf("kernels: rbf: the median heuristic needs at least 2 training items, got %d; set the bandwidth", len(keep))
	}
	ds := make([]float64, 0, len(keep)*(len(keep)-1)/2)
	for a, i := range keep {
		for _, j := range keep[a+1:] {
			ds = append(ds, math.Sqrt(sqDist(x.RawRowView(i), x.RawRowView(j))))
		}
	}
	sort.Float64s(ds)
	med := ds[len(ds)/2]
	if len(ds)%2 == 0 {
		med = (ds[len(ds)/2-1] + med) / 2
	}
	if !(med > 0) {
		return 0, fmt.Errorf("kernels: rbf: the median pairwise distance of the training items is %v (most rows are equal); set the bandwidth", med)
	}
	return med, nil
}

// DefaultChiSquareSigma is the χ² kernel scale the paper fixes for auto-tags
// (Sec. 5.2.1: "In these experiments, we fixed σ=256").
const DefaultChiSquareSigma = 256

// ChiSquare is the RBF kernel on the χ² distance between histograms or
// multinomials q_i (Sec. 5.2.1, auto-tags kernel K^at):
//
//	k(q_i, q_j) = exp(−σ Σ_t (q_i(t) − q_j(t))² / (q_i(t) + q_j(t)))
//
// Terms with q_i(t) + q_j(t) = 0 count 0. It reads [Input.Features] (one
// histogram per row), whose values must be ≥ 0. k(q, q) = 1. The inputs are
// used as given (not renormalised to sum 1).
type ChiSquare struct {
	// Sigma is σ > 0; zero means [DefaultChiSquareSigma] (256).
	Sigma float64
}

// Fit implements [Kernel]. A negative value is an error naming its row and
// column.
func (k ChiSquare) Fit(train Input) (Fitted, error) {
	sigma := k.Sigma
	if sigma == 0 {
		sigma = DefaultChiSquareSigma
	}
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return nil, fmt.Errorf("kernels: chi2: sigma must be > 0 (0 means %d), got %v", DefaultChiSquareSigma, k.Sigma)
	}
	kf := func(x, y []float64) float64 {
		var s float64
		for i, a := range x {
			b := y[i]
			if a+b > 0 {
				d := a - b
				s += d * d / (a + b)
			}
		}
		return math.Exp(-sigma * s)
	}
	return newPairFit("chi2", train, kf, checkNonNegative)
}

func checkNonNegative(f *mat.Dense, which string, miss func(int) bool) error {
	r, c := f.Dims()
	for i := 0; i < r; i++ {
		if miss(i) {
			continue
		}
		for j := 0; j < c; j++ {
			if v := f.At(i, j); v < 0 {
				return fmt.Errorf("kernels: chi2: histogram values must be ≥ 0, got %v at row %d, column %d (0-based) of the %s items", v, i, j, which)
			}
		}
	}
	return nil
}

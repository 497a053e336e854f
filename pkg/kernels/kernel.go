package kernels

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Kernel is an unfitted kernel function with its hyperparameters. The zero
// value of every kernel type in this package is usable and means the
// documented defaults.
type Kernel interface {
	// Fit computes the training statistics the kernel needs from train and
	// returns the raw (unnormalised) fitted kernel. Fit validates the
	// hyperparameters and the input, and does not modify train. Items with
	// train.Missing[i] set are skipped: their data are not read and they do
	// not enter any statistic.
	Fit(train Input) (Fitted, error)
}

// Fitted is a raw kernel fitted on n training items. Entries that involve a
// missing item are unspecified (Fit in this package overwrites them).
type Fitted interface {
	// Gram returns a new n×n raw Gram matrix of the training items.
	Gram() *mat.SymDense
	// Cross returns the t×n raw kernel values of the new items in test
	// against the training items, and the t raw self-similarities
	// k(x_r, x_r) of the new items (needed to normalise their rows).
	Cross(test Input) (rows *mat.Dense, self []float64, err error)
}

// Normalization is a normalisation of a Gram matrix; the zero value is
// [NormNone].
type Normalization int

const (
	// NormNone leaves the kernel as it is.
	NormNone Normalization = iota
	// NormDiag scales to unit diagonal:
	//	K'_ij = K_ij / sqrt(K_ii K_jj)
	// An item with K_ii ≤ 0 gets K'_ii = 1 and a zero row otherwise
	// (for a PSD kernel K_ii = 0 means its row is zero).
	NormDiag
	// NormTrace scales the kernel by c = n / tr K (computed on the training
	// Gram), so that tr K' = n, the trace of a unit-diagonal kernel; new
	// rows are scaled by the same c.
	NormTrace
	// NormCenter centres the kernel in feature space, K' = HKH with
	// H = I − 11ᵀ/n; new rows are centred with the training means only
	// (see [Model.Rows]).
	NormCenter
)

var normNames = [...]string{"none", "diag", "trace", "center"}

func (z Normalization) String() string {
	if z < 0 || int(z) >= len(normNames) {
		return fmt.Sprintf("Normalization(%d)", int(z))
	}
	return normNames[z]
}

// ParseNormalization parses "none" (or ""), "diag", "trace" or "center",
// case aside.
func ParseNormalization(s string) (Normalization, error) {
	if s == "" {
		return NormNone, nil
	}
	for i, name := range normNames {
		if strings.EqualFold(s, name) {
			return Normalization(i), nil
		}
	}
	return 0, fmt.Errorf("kernels: unknown normalization %q (valid: none, diag, trace, center)", s)
}

// Options are the settings of [Fit]. The zero value means no normalisation.
type Options struct {
	// Normalize is applied after the missing items have been filled in
	// with identity rows and columns.
	Normalize Normalization
}

// Model is a kernel fitted on n training items: the normalised training Gram
// matrix and the statistics needed to compute rows of new items. A Model is
// immutable and safe for concurrent use if its Fitted is.
type Model struct {
	raw     Fitted
	norm    Normalization
	n       int
	missing []bool // nil if no training item is missing

	gram *mat.SymDense // normalised training Gram

	diag  []float64 // raw training self-similarities (NormDiag)
	scale float64   // n / tr K (NormTrace)
	means []float64 // column means of the raw training Gram (NormCenter)
	grand float64   // mean of the raw training Gram (NormCenter)
}

// Fit fits k on train and returns the Model with the normalised Gram matrix
// (McFee & Lanckriet 2011, Sec. 5). Missing training items (train.Missing)
// get identity rows and columns in the raw Gram (Sec. 5.2.1), which is then
// normalised with opt.Normalize. It returns an error for invalid
// hyperparameters or input; train is not modified.
func Fit(k Kernel, train Input, opt Options) (*Model, error) {
	if k == nil {
		return nil, errors.New("kernels: Fit needs a kernel, got nil")
	}
	if opt.Normalize < NormNone || opt.Normalize > NormCenter {
		return nil, fmt.Errorf("kernels: Options.Normalize must be one of none, diag, trace, center, got %v", opt.Normalize)
	}
	n, err := train.Len()
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, errors.New("kernels: Fit needs at least one training item, got 0")
	}
	raw, err := k.Fit(train)
	if err != nil {
		return nil, err
	}
	g := raw.Gram()
	if r := g.SymmetricDim(); r != n {
		panic(fmt.Sprintf("kernels: %T.Gram is %d×%d, want %d×%d", raw, r, r, n, n))
	}
	m := &Model{raw: raw, norm: opt.Normalize, n: n}
	if train.Missing != nil {
		m.missing = append([]bool(nil), train.Missing...)
		for i, miss := range m.missing {
			if !miss {
				continue
			}
			for j := 0; j < n; j++ {
				g.SetSym(i, j, 0)
			}
			g.SetSym(i, i, 1)
		}
	}
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			if v := g.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("kernels: %T gave a non-finite kernel value %v for items %d and %d", k, v, i, j)
			}
		}
	}
	switch opt.Normalize {
	case NormDiag:
		m.diag = make([]float64, n)
		for i := range m.diag {
			m.diag[i] = g.At(i, i)
		}
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				g.SetSym(i, j, diagNorm(g.At(i, j), m.diag[i], m.diag[j]))
			}
			if m.diag[i] <= 0 {
				g.SetSym(i, i, 1)
			}
		}
	case NormTrace:
		tr := mat.Trace(g)
		if !(tr > 0) {
			return nil, fmt.Errorf("kernels: trace normalisation needs a Gram matrix with positive trace, got tr K = %g", tr)
		}
		m.scale = float64(n) / tr
		g.ScaleSym(m.scale, g)
	case NormCenter:
		m.means = make([]float64, n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				m.means[j] += g.At(i, j)
			}
		}
		for j := range m.means {
			m.means[j] /= float64(n)
			m.grand += m.means[j]
		}
		m.grand /= float64(n)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				g.SetSym(i, j, g.At(i, j)-m.means[i]-m.means[j]+m.grand)
			}
		}
	}
	m.gram = g
	return m, nil
}

// diagNorm returns k/sqrt(a b), or 0 if a or b is not positive.
func diagNorm(k, a, b float64) float64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	return k / math.Sqrt(a*b)
}

// N returns the number of training items.
func (m *Model) N() int { return m.n }

// Fitted returns the raw fitted kernel (for example a [*PPKFit], to read
// the per-item GMMs).
func (m *Model) Fitted() Fitted { return m.raw }

// Gram returns a copy of the normalised n×n training Gram matrix.
func (m *Model) Gram() *mat.SymDense {
	g := mat.NewSymDense(m.n, nil)
	g.CopySym(m.gram)
	return g
}

// Rows returns the t×n kernel rows of the new items in test against the
// training items, normalised with the training statistics only:
//
//	none:   k(x, x_j)
//	diag:   k(x, x_j) / sqrt(k(x, x) k(x_j, x_j))
//	trace:  c k(x, x_j),  c = n / tr K_train
//	center: k(x, x_j) − (1/n) Σ_l k(x, x_l) − (1/n) Σ_i K_ij + (1/n²) Σ_il K_il
//
// The centring formula is that of Schölkopf, Smola & Müller (1998): the row
// of φ(x) − φ̄ against φ(x_j) − φ̄, with φ̄ the training mean in feature space.
// Before normalisation, the raw value against a missing training item is 0
// and a missing new item (test.Missing[r]) has a zero raw row and raw
// self-similarity 1, i.e. it behaves as a feature vector orthogonal to all
// others; so its row is zero for none, diag and trace, and the centred zero
// row −(1/n) Σ_i K_ij + (1/n²) Σ_il K_il for center.
//
// test must hold the same kind of data as the training input, with the same
// dimension. test is not modified.
func (m *Model) Rows(test Input) (*mat.Dense, error) {
	rows, _, err := m.RowsSelf(test)
	return rows, err
}

// RowsSelf returns [Model.Rows] and the self-similarities k(x, x) of the
// new items, normalised as their rows are (none: k(x,x); diag: 1, or 0
// for a zero item; trace: c k(x,x); center: k(x,x) − (2/n) Σ_l k(x,x_l) +
// (1/n²) Σ_il K_il). With them the native space places new items among
// the training items: d(x, x_j) = k(x,x) + K_jj − 2k(x,x_j).
func (m *Model) RowsSelf(test Input) (*mat.Dense, []float64, error) {
	t, err := test.Len()
	if err != nil {
		return nil, nil, err
	}
	if t == 0 {
		return nil, nil, errors.New("kernels: Rows needs at least one new item, got 0")
	}
	rows, self, err := m.raw.Cross(test)
	if err != nil {
		return nil, nil, err
	}
	if r, c := rows.Dims(); r != t || c != m.n || len(self) != t {
		panic(fmt.Sprintf("kernels: %T.Cross gave %d×%d rows and %d self-similarities, want %d×%d and %d", m.raw, r, c, len(self), t, m.n, t))
	}
	for r := 0; r < t; r++ {
		if test.missing(r) {
			for j := 0; j < m.n; j++ {
				rows.Set(r, j, 0)
			}
			self[r] = 1
			continue
		}
		for j, miss := range m.missing {
			if miss {
				rows.Set(r, j, 0)
			}
		}
		for j := 0; j < m.n; j++ {
			if v := rows.At(r, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nil, fmt.Errorf("kernels: %T gave a non-finite kernel value %v for new item %d and training item %d", m.raw, v, r, j)
			}
		}
	}
	switch m.norm {
	case NormDiag:
		for r := 0; r < t; r++ {
			for j := 0; j < m.n; j++ {
				rows.Set(r, j, diagNorm(rows.At(r, j), self[r], m.diag[j]))
			}
			self[r] = diagNorm(self[r], self[r], self[r])
		}
	case NormTrace:
		rows.Scale(m.scale, rows)
		for r := range self {
			self[r] *= m.scale
		}
	case NormCenter:
		for r := 0; r < t; r++ {
			row := rows.RawRowView(r)
			var mean float64
			for _, v := range row {
				mean += v
			}
			mean /= float64(m.n)
			for j := range row {
				row[j] += -mean - m.means[j] + m.grand
			}
			self[r] += -2*mean + m.grand
		}
	}
	return rows, self, nil
}

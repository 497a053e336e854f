package mkpoe

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// ErrNoOutOfSample is returned when new items are asked of a GNMDS model,
// which learns the training items' inner products directly (Sec. 3.3).
var ErrNoOutOfSample = errors.New("mkpoe: a GNMDS (identity kernel) model has no out-of-sample extension")

// Model is a learned similarity space. It is immutable after Fit.
type Model struct {
	Input   string  // InputKernels, InputFeatures or InputIdentity
	Mode    Mode    // Full or Diag
	Combine Combine // Separate or Sum
	Beta    float64
	Solver  Solver
	N       int // number of training items
	// NumInputs is the number of kernel-row matrices Embed expects for new
	// items (the number of kernels given to Fit, also with Sum).
	NumInputs int
	// W holds one metric per block: W⁽ᵖ⁾ (n×n) per kernel, one W on the sum
	// kernel with Sum, or W (D×D) for features. Diagonal W are full matrices
	// with zeros off the diagonal. W is nil in a factored model (see
	// [Model.Factored]), which holds its metrics only as Proj, W⁽ᵖ⁾ =
	// N⁽ᵖ⁾ᵀN⁽ᵖ⁾: read the metrics through [Model.Metric], which works for
	// both forms.
	W []*mat.SymDense
	// Proj holds N⁽ᵖ⁾ = Λ^{1/2}Vᵀ from W⁽ᵖ⁾ = VΛVᵀ, keeping the positive
	// eigenvalues (Sec. 3.2): g(x) = (N⁽ᵖ⁾ K⁽ᵖ⁾_x)_p concatenated (Sec. 4.3).
	// In a factored model it defines the metric: W⁽ᵖ⁾ = N⁽ᵖ⁾ᵀN⁽ᵖ⁾.
	Proj []*mat.Dense
	// Train is the embedding of the training items, one row per item.
	Train *mat.Dense
	// Objective is the final value of the objective of Alg. 4.
	Objective float64
	Stats     Stats
	// dual is the fit's certifying dual point (one multiplier per training
	// comparison), kept in memory for warm starts (warmCertificate); not
	// saved with the model.
	dual []float64
}

// Stats are the solver's diagnostics.
type Stats struct {
	Iterations int
	// Converged reports that the fit stopped by its method's rule before
	// Settings.MaxIter: Status is StatusCertified or StatusStationary.
	// Whether its gap is certified to Tol is Status's to say.
	Converged bool
	// Status says how the fit stopped: certified to Tol, stationary short
	// of the certificate (a fixed rank), or at MaxIter ([FitStatus]). ""
	// in model files written before it was recorded: unknown.
	Status      FitStatus
	DualBound   float64   // certified lower bound on the optimum (0 if none)
	RelativeGap float64   // (Objective − DualBound)/Objective
	Trace       []float64 // exact objective after each iteration
	Seconds     float64
	BlockDims   []int // size of each block's variable (kernel numerical rank in the eigenbasis)
	// KernelEnergy is, when Settings.KernelRank or KernelEnergy truncated
	// the kernels, the fraction of each kernel's positive eigenvalues' sum
	// its block kept (nil without truncation).
	KernelEnergy []float64
	// MinBeta is β_min, the largest β at which W = 0 is optimal for these
	// inputs and comparisons (+Inf: at every β): a fit at β ≤ MinBeta
	// returns W = 0, every comparison a tie. It scales with the data, not
	// with n alone, so a β grid is best read relative to it
	// (docs/solver.md, "The smallest useful β"). Not stored in model files.
	MinBeta float64
}

// FitStatus says how a fit stopped, and so what Stats.RelativeGap means.
type FitStatus string

const (
	// StatusCertified: a duality-gap certificate proves the objective
	// within Settings.Tol (relative) of the convex problem's optimum
	// (RelativeGap ≤ Tol).
	StatusCertified FitStatus = "certified"
	// StatusStationary: the method stopped by its own rule without that
	// certificate. A fit at a fixed rank (Settings.Rank) stops so at a
	// stationary point of its non-convex factored problem, and the
	// subgradient method once its steps stop improving; RelativeGap is
	// then the certified distance to the convex problem's optimum, a bound
	// that need not close (gaps near 1 at small ranks are common).
	StatusStationary FitStatus = "stationary"
	// StatusNotConverged: the fit stopped at Settings.MaxIter above Tol.
	StatusNotConverged FitStatus = "not_converged"
)

// IsZero reports whether the model maps every training item to the origin
// (W = 0 on the span of the training kernels): every distance is then 0 and
// every comparison ties, which the paper's accuracy counts as an error
// (Appendix C), so such a model scores 0. Small β gives it: the trace
// regulariser outweighs the hinge losses (Eq. 13).
func (m *Model) IsZero() bool {
	if m.Train == nil {
		return false
	}
	for _, v := range m.Train.RawMatrix().Data {
		if v != 0 {
			return false
		}
	}
	return true
}

// Factored reports whether the model holds its metrics only as the
// projections Proj (W⁽ᵖ⁾ = N⁽ᵖ⁾ᵀN⁽ᵖ⁾, W nil): the models of the low-rank
// solver, whose N has k ≪ n rows, so that neither memory nor the model
// file grows with n². [Model.Metric] forms W⁽ᵖ⁾ when it is needed.
func (m *Model) Factored() bool { return m.W == nil && len(m.Proj) > 0 }

// Blocks returns the number of metrics W⁽ᵖ⁾ of the model: one per kernel
// (K4), or one (Sum, features, identity).
func (m *Model) Blocks() int {
	if m.W != nil {
		return len(m.W)
	}
	return len(m.Proj)
}

// MetricDim returns the order of the metric W⁽ᵇ⁾ (n for kernels and the
// identity, D for features) without forming it.
func (m *Model) MetricDim(b int) int {
	if m.W != nil {
		return m.W[b].SymmetricDim()
	}
	_, c := m.Proj[b].Dims()
	return c
}

// Metric returns the metric W⁽ᵇ⁾ of block b, 0 ≤ b < [Model.Blocks], in
// either form of the model: the stored W[b] of a dense model (not a copy:
// do not modify it), or N⁽ᵇ⁾ᵀN⁽ᵇ⁾ formed from Proj[b] for a factored one,
// a new n×n matrix at O(k·n²) per call (callers that read it more than
// once should keep it).
func (m *Model) Metric(b int) *mat.SymDense {
	if m.W != nil {
		return m.W[b]
	}
	_, d := m.Proj[b].Dims()
	w := mat.NewSymDense(d, nil)
	w.SymOuterK(1, m.Proj[b].T())
	return w
}

// Dim returns the dimension of the embedding.
func (m *Model) Dim() int {
	_, d := m.Train.Dims()
	return d
}

// projectionTolerance is the relative cut below which eigenvalues of W are
// treated as zero when the embedding is formed.
const projectionTolerance = 1e-9

// projectionFromFactor is projection for w = FFᵀ given F (d×k): with
// FᵀF = QΣ²Qᵀ, w's eigenvectors are FQΣ⁻¹ with eigenvalues Σ², so N =
// Σ(FQΣ⁻¹)ᵀ = (FQ)ᵀ over the eigenvalues above projectionTolerance·λ_max:
// O(d·k²) instead of a d³ eigendecomposition (the low-rank method's
// models, whose W is known as a factor).
func projectionFromFactor(f *mat.Dense) *mat.Dense {
	d, k := f.Dims()
	var g mat.SymDense
	g.SymOuterK(1, f.T())
	vals, q := positiveEigen(&g, projectionTolerance, "FᵀF")
	if len(vals) == 0 || k == 0 {
		return mat.NewDense(1, d, nil)
	}
	out := mat.NewDense(len(vals), d, nil)
	for r := range vals {
		c := len(vals) - 1 - r
		out.RowView(r).(*mat.VecDense).MulVec(f, q.ColView(c))
	}
	return out
}

// newModel builds the model of the metrics ws; projs, if not nil, are
// their projections already (projectionFromFactor), else computed. With ws
// nil the model is factored (W = NᵀN for the projections projs, W not
// kept).
func newModel(in input, s Settings, ws []*mat.SymDense, projs ...*mat.Dense) (*Model, error) {
	m := &Model{Input: in.kind, Mode: s.Mode, Combine: s.Combine, Beta: s.Beta, Solver: s.Solver,
		N: in.n, NumInputs: in.numInputs, W: ws}
	if in.kind == InputKernels && len(in.kernels) == 1 && in.numInputs > 1 {
		m.Combine = Sum
	} else if in.numInputs == 1 {
		m.Combine = Separate
	}
	m.Proj = projs
	if m.Proj == nil {
		for _, w := range ws {
			m.Proj = append(m.Proj, projection(w))
		}
	}
	var parts []*mat.Dense
	for b, proj := range m.Proj {
		var x mat.Dense
		switch in.kind {
		case InputKernels:
			if d, ok := in.kernels[b].(mat.Diagonal); ok {
				// K·Nᵀ with K diagonal, entry by entry the dense
				// product's k_ii·N_ji, without n² At calls.
				x.CloneFrom(scaleRows(diagonalEntries(d), mat.DenseCopyOf(proj.T())))
				break
			}
			x.Mul(in.kernels[b], proj.T())
		case InputFeatures:
			x.Mul(in.features, proj.T())
		case InputIdentity:
			x.CloneFrom(proj.T())
		}
		parts = append(parts, &x)
	}
	m.Train = hcat(in.n, parts)
	return m, nil
}

// projection returns N = Λ^{1/2}Vᵀ over the eigenvalues of w above
// projectionTolerance·λ_max (at least one row, zero if w = 0).
func projection(w *mat.SymDense) *mat.Dense {
	d := w.SymmetricDim()
	if isDiagonal(w) {
		return diagonalProjection(w)
	}
	vals, v := positiveEigen(w, projectionTolerance, "W")
	if len(vals) == 0 {
		return mat.NewDense(1, d, nil)
	}
	// Rows by decreasing eigenvalue.
	out := mat.NewDense(len(vals), d, nil)
	for r := range vals {
		k := len(vals) - 1 - r
		s := math.Sqrt(vals[k])
		for i := 0; i < d; i++ {
			out.Set(r, i, s*v.At(i, k))
		}
	}
	return out
}

// isDiagonal reports whether every off-diagonal entry of w is zero (every
// W of a Diag fit, Sec. 4.4).
func isDiagonal(w *mat.SymDense) bool {
	d := w.SymmetricDim()
	for i := 0; i < d; i++ {
		for j := i + 1; j < d; j++ {
			if w.At(i, j) != 0 {
				return false
			}
		}
	}
	return true
}

// diagonalProjection is projection for a diagonal w, whose eigenvectors are
// the unit vectors: one row √w_kk·e_kᵀ per entry above
// projectionTolerance·max_k w_kk, by decreasing entry (ties by index).
func diagonalProjection(w *mat.SymDense) *mat.Dense {
	d := w.SymmetricDim()
	lmax := 0.0
	for k := 0; k < d; k++ {
		lmax = math.Max(lmax, w.At(k, k))
	}
	var keep []int
	for k := 0; k < d; k++ {
		if v := w.At(k, k); v > projectionTolerance*lmax && v > 0 {
			keep = append(keep, k)
		}
	}
	if len(keep) == 0 {
		return mat.NewDense(1, d, nil)
	}
	sort.SliceStable(keep, func(a, b int) bool { return w.At(keep[a], keep[a]) > w.At(keep[b], keep[b]) })
	out := mat.NewDense(len(keep), d, nil)
	for r, k := range keep {
		out.Set(r, k, math.Sqrt(w.At(k, k)))
	}
	return out
}

// hcat concatenates matrices with n rows side by side.
func hcat(n int, parts []*mat.Dense) *mat.Dense {
	total := 0
	for _, p := range parts {
		_, c := p.Dims()
		total += c
	}
	out := mat.NewDense(n, total, nil)
	col := 0
	for _, p := range parts {
		_, c := p.Dims()
		out.Slice(0, n, col, col+c).(*mat.Dense).Copy(p)
		col += c
	}
	return out
}

// Embed returns the embedding of t new items, one row each, from their
// kernel rows against the training items (one t×n matrix per kernel given
// to Fit, in the same order; summed for a Sum model) or, for an LPOE model,
// their t×D feature rows: g(x) = (N⁽ᵖ⁾K⁽ᵖ⁾_x)_p (Sec. 3.2, 4.3). rows are
// not modified.
func (m *Model) Embed(rows []*mat.Dense) (*mat.Dense, error) {
	if m.Input == InputIdentity {
		return nil, ErrNoOutOfSample
	}
	if len(rows) != m.NumInputs {
		return nil, fmt.Errorf("mkpoe: Embed needs %d matrices of new-item rows (one per input kernel), got %d", m.NumInputs, len(rows))
	}
	t, _ := rows[0].Dims()
	for p, r := range rows {
		rt, rc := r.Dims()
		if want := m.MetricDim(0); m.Input == InputFeatures && rc != want {
			return nil, fmt.Errorf("mkpoe: feature rows must have %d columns, got %d", want, rc)
		}
		if m.Input == InputKernels && rc != m.N {
			return nil, fmt.Errorf("mkpoe: kernel rows %d must have %d columns (one per training item), got %d", p, m.N, rc)
		}
		if rt != t {
			return nil, fmt.Errorf("mkpoe: kernel rows %d have %d rows, want %d like the first", p, rt, t)
		}
	}
	inputs := rows
	if m.Blocks() == 1 && len(rows) > 1 {
		sum := mat.DenseCopyOf(rows[0])
		for _, r := range rows[1:] {
			sum.Add(sum, r)
		}
		inputs = []*mat.Dense{sum}
	}
	var parts []*mat.Dense
	for b, proj := range m.Proj {
		var x mat.Dense
		x.Mul(inputs[b], proj.T())
		parts = append(parts, &x)
	}
	return hcat(t, parts), nil
}

// EmbedWithTraining returns the training items' embedding followed by the
// new items' (Embed(rows)), one row each: training item r is row r, new item
// q is row N+q, the numbering of data.SplitComparisons, so that held-out
// comparisons can be scored on it directly (eval.EmbeddingDistance).
func (m *Model) EmbedWithTraining(rows []*mat.Dense) (*mat.Dense, error) {
	emb, err := m.Embed(rows)
	if err != nil {
		return nil, err
	}
	nt, d := m.Train.Dims()
	t, _ := emb.Dims()
	all := mat.NewDense(nt+t, d, nil)
	all.Stack(m.Train, emb)
	return all, nil
}

// KernelShares returns, for a model with one W per kernel (K4, Sec. 4),
// each kernel's share tr(W⁽ᵖ⁾K⁽ᵖ⁾) / Σ_q tr(W⁽q⁾K⁽q⁾) of the trace
// regulariser of Eq. 13: how much of the learned space kernel p carries
// (Sec. 5.1.4 reads the learned weights this way). grams are the training
// kernels given to Fit, in the same order. It returns nil for a model with
// a single W (K1 on the sum kernel, one kernel, LPOE, GNMDS). Negative
// traces (round-off of a zero block) count as 0; all zero gives all 0. For a
// factored model the trace is tr(NKNᵀ), O(k·n²), W not formed.
func (m *Model) KernelShares(grams []mat.Symmetric) ([]float64, error) {
	blocks := m.Blocks()
	if blocks < 2 {
		return nil, nil
	}
	if len(grams) != blocks {
		return nil, fmt.Errorf("mkpoe: KernelShares needs %d kernels (one per W), got %d", blocks, len(grams))
	}
	shares := make([]float64, len(grams))
	total := 0.0
	for p, g := range grams {
		if n, d := g.SymmetricDim(), m.MetricDim(p); n != d {
			return nil, fmt.Errorf("mkpoe: KernelShares: kernel %d is %d×%d, W is %d×%d", p, n, n, d, d)
		}
		d, diagonal := g.(mat.Diagonal)
		if m.W == nil {
			// tr(NᵀNK) = tr(NKNᵀ) = Σ_{r,i} (NK)_ri N_ri.
			var nk mat.Dense
			if diagonal {
				// NK = N·diag(k), entry by entry the dense product's.
				nk.CloneFrom(scaleRows(diagonalEntries(d), mat.DenseCopyOf(m.Proj[p].T())).T())
			} else {
				nk.Mul(m.Proj[p], g)
			}
			nk.MulElem(&nk, m.Proj[p])
			shares[p] = math.Max(mat.Sum(&nk), 0)
		} else {
			var wk mat.Dense
			if diagonal {
				wk.CloneFrom(scaleRows(diagonalEntries(d), mat.DenseCopyOf(m.W[p])).T()) // (diag(k)·W)ᵀ = W·diag(k)
			} else {
				wk.Mul(m.W[p], g)
			}
			shares[p] = math.Max(mat.Trace(&wk), 0)
		}
		total += shares[p]
	}
	if total > 0 {
		for p := range shares {
			shares[p] /= total
		}
	}
	return shares, nil
}

// modelJSON is the file form of a Model ("mkpoe-model/1"); see
// [Model.WriteJSON] for the two forms of its metrics.
type modelJSON struct {
	Format  string  `json:"format"`
	Input   string  `json:"input"`
	Mode    string  `json:"mode"`
	Combine string  `json:"combine"`
	Beta    float64 `json:"beta"`
	Solver  string  `json:"solver"`
	// Seed is ignored: models before 2026-11-23 recorded Settings.Seed,
	// which no solver used (both are deterministic).
	Seed         uint64    `json:"seed,omitempty"`
	N            int       `json:"n"`
	NumInputs    int       `json:"num_inputs"`
	Objective    float64   `json:"objective"`
	DualBound    float64   `json:"dual_bound"`
	RelativeGap  float64   `json:"relative_gap"`
	Iterations   int       `json:"iterations"`
	Converged    bool      `json:"converged"`
	Status       string    `json:"status,omitempty"`
	Seconds      float64   `json:"seconds"`
	BlockDims    []int     `json:"block_dims"`
	KernelEnergy []float64 `json:"kernel_energy,omitempty"`
	Trace        []float64 `json:"objective_trace"`
	// W is absent in the file of a factored model (Model.Factored).
	W          [][][]float64 `json:"W,omitempty"`
	Projection [][][]float64 `json:"projection"`
	Train      [][]float64   `json:"train_embedding"`
}

// ModelFormat is the format tag of model files.
const ModelFormat = "mkpoe-model/1"

func rowsOf(a mat.Matrix) [][]float64 {
	r, c := a.Dims()
	out := make([][]float64, r)
	for i := range out {
		out[i] = make([]float64, c)
		for j := range out[i] {
			out[i][j] = a.At(i, j)
		}
	}
	return out
}

func denseOf(rows [][]float64, what string) (*mat.Dense, error) {
	if len(rows) == 0 || len(rows[0]) == 0 {
		return nil, fmt.Errorf("mkpoe: model %s must be a non-empty matrix", what)
	}
	c := len(rows[0])
	out := mat.NewDense(len(rows), c, nil)
	for i, r := range rows {
		if len(r) != c {
			return nil, fmt.Errorf("mkpoe: model %s row %d has %d values, want %d", what, i, len(r), c)
		}
		out.SetRow(i, r)
	}
	return out, nil
}

// WriteJSON writes the model as JSON, format [ModelFormat]: one object
// with the settings ("input", "mode", "combine", "beta", "solver", "n",
// "num_inputs"), the solver's statistics ("objective", "dual_bound",
// "relative_gap", "iterations", "converged", "status", "seconds", "block_dims",
// "objective_trace"), and the matrices as arrays of rows: "projection"
// (one N⁽ᵖ⁾ per block, k_p rows of n, or D for features),
// "train_embedding" (n rows of Σ_p k_p) and, for a dense model only, "W"
// (one n×n, or D×D, metric per block). A factored model (Model.Factored,
// the low-rank solver's) is written without "W": its metrics are
// W⁽ᵖ⁾ = N⁽ᵖ⁾ᵀN⁽ᵖ⁾, and the file grows with k·n instead of n².
func (m *Model) WriteJSON(w io.Writer) error {
	j := modelJSON{Format: ModelFormat, Input: m.Input, Mode: m.Mode.String(), Combine: m.Combine.String(), Beta: m.Beta,
		Solver: string(m.Solver), N: m.N, NumInputs: m.NumInputs, Objective: m.Objective,
		DualBound: m.Stats.DualBound, RelativeGap: m.Stats.RelativeGap, Iterations: m.Stats.Iterations,
		Converged: m.Stats.Converged, Status: string(m.Stats.Status), Seconds: m.Stats.Seconds, BlockDims: m.Stats.BlockDims, KernelEnergy: m.Stats.KernelEnergy, Trace: m.Stats.Trace,
		Train: rowsOf(m.Train)}
	for b := range m.W {
		j.W = append(j.W, rowsOf(m.W[b]))
	}
	for b := range m.Proj {
		j.Projection = append(j.Projection, rowsOf(m.Proj[b]))
	}
	enc := json.NewEncoder(w)
	return enc.Encode(j)
}

// ReadJSON reads a model written by WriteJSON, in either form: with "W"
// (a dense model, as every file before factored models) or without it (a
// factored model, W nil, metrics from "projection"). It checks that the
// matrices fit together (one block per input kernel, W square and n×n,
// each projection's columns the order of its W, or n without W, the
// training embedding n × the projections' rows). name is used in
// messages.
func ReadJSON(r io.Reader, name string) (*Model, error) {
	var j modelJSON
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return nil, fmt.Errorf("mkpoe: reading model %s: %w", name, err)
	}
	if j.Format != ModelFormat {
		return nil, fmt.Errorf("mkpoe: reading model %s: format must be %q, got %q", name, ModelFormat, j.Format)
	}
	mode, err := ParseMode(j.Mode)
	if err != nil {
		return nil, fmt.Errorf("mkpoe: reading model %s: %w", name, err)
	}
	comb, err := ParseCombine(j.Combine)
	if err != nil {
		return nil, fmt.Errorf("mkpoe: reading model %s: %w", name, err)
	}
	switch j.Input {
	case InputKernels, InputFeatures, InputIdentity:
	default:
		return nil, fmt.Errorf("mkpoe: reading model %s: input must be kernels, features or identity, got %q", name, j.Input)
	}
	if len(j.Projection) == 0 {
		return nil, fmt.Errorf("mkpoe: reading model %s: projection must list at least one block", name)
	}
	if len(j.W) != 0 && len(j.W) != len(j.Projection) {
		return nil, fmt.Errorf("mkpoe: reading model %s: W and projection must list the same number of blocks (or W none, a factored model), got %d and %d", name, len(j.W), len(j.Projection))
	}
	switch FitStatus(j.Status) {
	case "", StatusCertified, StatusStationary, StatusNotConverged:
	default:
		return nil, fmt.Errorf("mkpoe: reading model %s: status must be %s, %s or %s, got %q", name, StatusCertified, StatusStationary, StatusNotConverged, j.Status)
	}
	m := &Model{Input: j.Input, Mode: mode, Combine: comb, Beta: j.Beta, Solver: Solver(j.Solver), N: j.N,
		NumInputs: j.NumInputs, Objective: j.Objective,
		Stats: Stats{Iterations: j.Iterations, Converged: j.Converged, Status: FitStatus(j.Status), DualBound: j.DualBound, RelativeGap: j.RelativeGap,
			Trace: j.Trace, Seconds: j.Seconds, BlockDims: j.BlockDims, KernelEnergy: j.KernelEnergy}}
	for b := range j.W {
		w, err := denseOf(j.W[b], fmt.Sprintf("W[%d]", b))
		if err != nil {
			return nil, fmt.Errorf("%w (in %s)", err, name)
		}
		if r, c := w.Dims(); r != c {
			return nil, fmt.Errorf("mkpoe: reading model %s: W[%d] must be square, got %d×%d", name, b, r, c)
		}
		m.W = append(m.W, symPart(w))
	}
	for b := range j.Projection {
		p, err := denseOf(j.Projection[b], fmt.Sprintf("projection[%d]", b))
		if err != nil {
			return nil, fmt.Errorf("%w (in %s)", err, name)
		}
		m.Proj = append(m.Proj, p)
	}
	if m.Train, err = denseOf(j.Train, "train_embedding"); err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, name)
	}
	if err := m.checkShapes(); err != nil {
		return nil, fmt.Errorf("mkpoe: reading model %s: %w", name, err)
	}
	return m, nil
}

// checkShapes checks that a model's matrices fit together (Sec. 4.3): one
// block per input kernel (one for Sum, features and identity); each W
// n×n for kernels and identity, and each projection r_b × dim W_b (r_b × n
// for kernels and identity in a factored model, which has no W); the
// training embedding n × Σ_b r_b.
func (m *Model) checkShapes() error {
	if m.N <= 0 {
		return fmt.Errorf("n must be > 0, got %d", m.N)
	}
	if m.NumInputs <= 0 {
		return fmt.Errorf("num_inputs must be > 0, got %d", m.NumInputs)
	}
	wantBlocks := 1
	if m.Input == InputKernels && m.Combine != Sum {
		wantBlocks = m.NumInputs
	}
	factored := m.W == nil
	if factored && len(m.Proj) != wantBlocks {
		return fmt.Errorf("a factored %s model with %d inputs (combine %s) has %d projections, got %d", m.Input, m.NumInputs, m.Combine, wantBlocks, len(m.Proj))
	}
	if !factored && len(m.W) != wantBlocks {
		return fmt.Errorf("a %s model with %d inputs (combine %s) has %d W, got %d", m.Input, m.NumInputs, m.Combine, wantBlocks, len(m.W))
	}
	if !factored && len(m.Proj) != len(m.W) {
		return fmt.Errorf("a model with %d W has %d projections, got %d", len(m.W), len(m.W), len(m.Proj))
	}
	dim := 0
	for b, proj := range m.Proj {
		r, c := proj.Dims()
		if factored {
			if m.Input != InputFeatures && c != m.N {
				return fmt.Errorf("block %d: projection[%d] must have %d columns (n = %d), got %d", b, b, m.N, m.N, c)
			}
			dim += r
			continue
		}
		k := m.W[b].SymmetricDim()
		if m.Input != InputFeatures && k != m.N {
			return fmt.Errorf("block %d: W[%d] must be %d×%d (n = %d), got %d×%d", b, b, m.N, m.N, m.N, k, k)
		}
		if c != k {
			return fmt.Errorf("projection[%d] must have %d columns (W[%d] is %d×%d), got %d", b, k, b, k, k, c)
		}
		dim += r
	}
	if r, c := m.Train.Dims(); r != m.N || c != dim {
		return fmt.Errorf("train_embedding must be %d×%d (n × the projections' rows), got %d×%d", m.N, dim, r, c)
	}
	if e := m.Stats.KernelEnergy; e != nil {
		if len(e) != m.Blocks() {
			return fmt.Errorf("kernel_energy must list one fraction per block (%d), got %d", m.Blocks(), len(e))
		}
		for b, v := range e {
			if !(v > 0 && v <= 1) {
				return fmt.Errorf("kernel_energy[%d] must be in (0, 1], got %v", b, v)
			}
		}
	}
	return nil
}

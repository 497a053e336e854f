package progress

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"
)

// Unit is one piece of work of a run whose time the ETA predicts: one fit,
// or a native task (which fits nothing). docs/progress.md, "How the ETA is
// computed", describes the estimate.
type Unit struct {
	// Row names the row's fits: method, mode and input digest, e.g.
	// "k4full-1f2e3d4c" ("native-…" for a native task).
	Row string
	// Mode is "diag", "full" or "native".
	Mode string
	// Beta is the fit's index in the β grid; -1 for a refit, whose β is
	// chosen by its cv tasks (any β of the grid).
	Beta int
	// Size is the fit's training size relative to the split's training
	// set: (F−1)/F for a cv fold of F inner folds, 1 for a refit or a
	// native task (0: 1).
	Size float64
	// Prior is the prior seconds of the unit (PriorSeconds; 0: 1). Only
	// ratios of priors matter: they relate units of which nothing
	// comparable has finished to the ones that have.
	Prior float64
	// Refit marks a refit's fit: its cost is extrapolated from its row's
	// cv fits and corrected by its row's finished refits
	// (refitCorrection), which in turn do not count among the cv fits.
	Refit bool
}

// SizeExponent is how a fit's time grows with its training size: time ∝
// Size^SizeExponent(mode). A diag fit's work grows with the kernel blocks
// and the comparisons (1.5); a full fit's far faster (7): a block of full
// rank has a dimension per item, its W a variable per pair of dimensions,
// and the interior-point stage's Newton systems, one equation per
// variable (docs/solver.md), cost up to the cube of that. With
// RefitFactor it sets a refit's cost against its folds' fits: in
// configs/quickstart.yaml (3 inner folds) the k1 full refit, on 1.5 times
// its folds' items, took 17 times as long as a fold's fit at its β (the
// k4 full refit 7.8 times), on aset400 (10 folds) 1.1 times. At 3 the ETA
// was 53–68% low on the quickstart (docs/notes/progress-log.md).
func SizeExponent(mode string) float64 {
	if mode == "full" {
		return 7
	}
	return 1.5
}

// BetaStep is how much dearer PriorSeconds makes a fit per step up the β
// grid; a fit of unknown β (a refit's, before it has chosen) is taken at
// index unknownBeta.
const (
	BetaStep    = 1.3
	unknownBeta = 1.5
)

// atBeta returns unit u at index b of the β grid. A refit's unit (Beta
// -1, its Prior at index unknownBeta) has its Prior moved to index b. An
// index b < 0 (not in the grid) leaves u as it is.
func (u Unit) atBeta(b int) Unit {
	if b < 0 {
		return u
	}
	if u.Beta == -1 {
		if u.Prior <= 0 {
			u.Prior = 1
		}
		u.Prior *= math.Pow(BetaStep, float64(b)-unknownBeta)
	}
	u.Beta = b
	return u
}

// BlocksExponent is how a diag fit's time grows with its row's kernel
// blocks in PriorSeconds: time ∝ blocks^BlocksExponent. Measured on the
// recorded runs of internal/progress/testdata (a k4 diag row's cv tasks
// against its run's k1 diag rows'): 2.4 times as long with 5 kernels, 2.8
// to 5.1 times (geometric mean 3.8) with 9, far less than the kernels'
// count, as the blocks share one problem's comparisons and iterations.
const BlocksExponent = 0.6

// RefitFactor is how much dearer a refit's one fit of the given mode is
// than PriorSeconds at its size says (the runner's refit units carry it
// in their Prior): with SizeExponent it sets a refit's cost relative to
// its row's cv fits at the same β, RefitFactor × (1/Size)^SizeExponent.
// A cv task sweeps the β grid warm-starting each fit from the previous
// one and spreads its fold's setup (kernels, scoring) over the sweep; a
// refit starts cold at its β and pays its split's setup and the test
// set's scoring alone. Measured on idle recorded runs (refit over its
// row's mean cv fit at its β, geometric means): diag 4.5 and 2.5
// (quickstart, 3 inner folds), 5.3 and 5.6 (aloi10_sensitivity_bandwidth,
// 5 folds), 2.0 and 1.3 (aset400_splits, aset400_single_kernels, 10
// folds); full 17 and 7.8 (quickstart), 1.1 (aset400_single_kernels).
//
// In the pure-Go build a full refit is 1.7 times dearer again against
// its cv fits: it fits cold, on more items, where the pure-Go build's
// dense linear algebra trails OpenBLAS most (BackendFactor). Measured on
// the configs recorded alone in both builds (a full row's refit over its
// cv tasks in the pure-Go build, against the same in the OpenBLAS
// build): 2.1 and 1.6 (quickstart's k1 and k4 rows), 1.6, 1.5 and 1.7
// (aset400_single_kernels); a diag refit's ratio is 0.6–1.0.
//
// Once a diag row's cv fits have finished, the ETA prices its refits
// from the row's dearest cv fit instead (ColdRefitFactor); RefitFactor
// remains their prior (mkpoe plan) and the fallback.
func RefitFactor(s Shape) float64 {
	switch {
	case s.Mode != "full":
		return refitFactorDiag
	case s.Backend == "gonum":
		return refitFactorFullGonum
	}
	return refitFactorFull
}

const (
	refitFactorDiag      = 2
	refitFactorFull      = 1
	refitFactorFullGonum = 1.7
)

// Shape is what the prior knows of a fit before it runs: its mode, the
// split's training set and its row's kernel blocks.
type Shape struct {
	// Mode is "diag", "full", or "native" for a native task.
	Mode string
	// Items and Comparisons are the split's training items and
	// comparisons (a cv fold's fits scale them by Unit.Size).
	Items, Comparisons int
	// Dims holds each kernel block's dimension on the training items: a
	// k4 row has one block per kernel, any other row one (its kernel, or
	// its group's sum). A dimension is the kernel's rank bound, e.g. a
	// linear kernel's feature columns, at most Items (experiments'
	// kernelDim). Empty: one block of dimension Items.
	Dims []int
	// Backend is the linear-algebra build the fit runs in, as
	// linalg.Backend() names it: "openblas", or "gonum" for the pure-Go
	// build (BackendFactor). Empty: "openblas", the build PriorSeconds
	// is calibrated on.
	Backend string
	// Solver is the row's solver as mkpoe.Settings.Solver names it
	// ("auto", "accelerated", "lowrank", "alm", "subgradient"; empty:
	// mkpoe.DefaultSolver, "auto"). Rank, if positive, bounds every W's rank
	// (mkpoe.Settings.Rank; the low-rank method at that many columns).
	// KernelRank, if positive, truncates every kernel of a full W to its
	// KernelRank leading eigenpairs, and KernelEnergy, in (0, 1), to those
	// holding that share of its eigenvalues (mkpoe.Settings). PriorSeconds
	// uses them through a full fit's block sizes (fullDimFactor).
	Solver           string
	Rank, KernelRank int
	KernelEnergy     float64
	// BetaOffset is how many steps of BetaStep the grid's first β lies
	// above the first β of the grids PriorSeconds is calibrated on,
	// 0.01, in decades: log10(β₀/0.01) for a grid of absolute β
	// (configs/aset400_short.yaml's [10, 100]: 3), 0 for one relative to
	// β_min. It scales every fit of a run alike: the ETA, which relates a
	// run's units to each other, does not see it; mkpoe plan does.
	BetaOffset float64
}

// BackendFactor is how many times as long a fit of the given mode takes
// in the given build as in the OpenBLAS build that PriorSeconds is
// calibrated on: 1 for "openblas" (or ""); for the pure-Go build
// ("gonum") the ratio measured on the same configs recorded alone on the
// machine in both builds (internal/progress/testdata/timeline-*-idle.tsv
// against timeline-*-gonum-idle.tsv, task seconds per mode summed over
// quickstart, aset400_splits and aset400_single_kernels): diag 2.3 (639 s
// against 282 s), full 4.6 (2764 s against 604 s), native 1.1. A full
// fit's dense eigendecompositions and Newton systems are where gonum's
// pure-Go LAPACK trails OpenBLAS most.
func BackendFactor(backend, mode string) float64 {
	if backend != "gonum" {
		return 1
	}
	switch mode {
	case "full":
		return gonumFactorFull
	case "native":
		return gonumFactorNative
	}
	return gonumFactorDiag
}

const (
	gonumFactorDiag   = 2.3
	gonumFactorFull   = 4.6
	gonumFactorNative = 1.1
)

// FullFixedShare is the part of a full fit's cost that does not grow with
// its kernels' dimensions (PriorSeconds): the comparisons' distances and
// the bookkeeping of every iteration. The rest grows as the sum over the
// blocks of (dimension/items)², the size of the blocks' W. Measured on the
// idle recorded runs of internal/progress/testdata, seconds per solver
// iteration of a full cv task on aset400 (330 training items): 0.017 for
// the genre kernel (dimension 72) against 0.065–0.068 for the tags and
// the listening kernels (dimension 330) and K1 on their sum; 0.157–0.164
// for K4 on two or three kernels, two of dimension 330, and 0.089 for K4
// on the tags and genre kernels.
const FullFixedShare = 0.2

// PriorSeconds is the documented per-fit prior (docs/progress.md, "The
// prior"): the seconds of one fit of shape s at β index beta of the grid
// (-1: unknown, taken as the grid's middle, 1.5), the grid's first β
// s.BetaOffset decades above 0.01.
//
// It is calibrated on runs of the OpenBLAS build alone on a 2-core machine
// (internal/progress/testdata/timeline-*-idle.tsv), a shape of another
// build scaled by BackendFactor, and is rough: a diag
// fit takes about the same time on 48, 160 or 330 items and grows with the
// kernel blocks (as blocks^BlocksExponent) and the comparisons' square
// root; a full fit grows with items^0.6, the comparisons and its blocks'
// dimensions (FullFixedShare); a native task with the items' square root;
// and each step up the β grid makes a fit about BetaStep (1.3) times
// dearer.
func PriorSeconds(s Shape, beta int) float64 {
	items := math.Max(float64(s.Items), 1)
	n := items / 48
	m := math.Max(float64(s.Comparisons), 1) / 2000
	p := math.Pow(math.Max(float64(len(s.Dims)), 1), BlocksExponent)
	b := float64(beta)
	if beta < 0 {
		b = unknownBeta
	}
	g := math.Pow(BetaStep, b+s.BetaOffset)
	f := BackendFactor(s.Backend, s.Mode)
	switch s.Mode {
	case "native":
		return f * 0.013 * math.Sqrt(n)
	case "full":
		return f * 0.25 * math.Pow(n, 0.6) * m * g * fullDimFactor(s, items)
	}
	return f * 0.015 * p * math.Sqrt(m) * g
}

// fullDimFactor is a full fit's cost relative to one block of full rank:
//
//	FullFixedShare + (1 − FullFixedShare) Σ_p (d_p/items)(r_p/items)
//
// with d_p block p's dimension (at most items, and at most s.KernelRank
// when the kernels are truncated: the fit learns W⁽ᵖ⁾ on d_p
// eigenvectors) and r_p the columns of its W: d_p, or min(d_p, s.Rank)
// for a rank-bounded fit, whose W = LLᵀ has d_p × Rank variables instead
// of d_p². No dimensions: one block of full rank.
//
// The truncation and the rank bound enter as the variables they leave,
// the measured rule for the blocks' dimensions (FullFixedShare); no
// recorded run used them, so their effect on a fit's time is not
// calibrated. KernelEnergy's share of eigenpairs is known only once the
// kernels' spectra are: the prior keeps the dimension, an upper bound, and
// so does a low-rank fit without Rank, whose columns grow as it runs.
func fullDimFactor(s Shape, items float64) float64 {
	dims := s.Dims
	if len(dims) == 0 {
		dims = []int{int(items)}
	}
	sum := 0.0
	for _, d := range dims {
		dp := math.Min(math.Max(float64(d), 1), items)
		if s.KernelRank > 0 {
			dp = math.Min(dp, float64(s.KernelRank))
		}
		rp := dp
		if s.Rank > 0 {
			rp = math.Min(dp, float64(s.Rank))
		}
		sum += dp / items * rp / items
	}
	return FullFixedShare + (1-FullFixedShare)*sum
}

// SizeFactor is how much a fit of the given mode on a share size of its
// split's training set costs against one on the whole of it:
// size^SizeExponent(mode), for a full fit at least MinFullSizeFactor.
func SizeFactor(mode string, size float64) float64 {
	f := math.Pow(size, SizeExponent(mode))
	if mode == "full" {
		f = math.Max(f, MinFullSizeFactor)
	}
	return f
}

// MinFullSizeFactor bounds SizeFactor of a full fit below: the ETA puts
// a full refit at most RefitFactor/MinFullSizeFactor times its folds'
// fit at its β, however few the inner folds. At 2 inner folds
// (aset400_short, size 0.5) size^7 made the k1 full refit 128 × 1.7
// times its folds' fit at its β; it took 33 times as long (46 s against
// 1.4 s in the pure-Go build), about what the quickstart's k1 full refit
// took at 3 folds (35 times, where size^7 = 0.059 holds). The bound is
// set from that one run.
const MinFullSizeFactor = 0.05

// Weight is the unit's prior at its training size, Prior × SizeFactor
// (Size and Prior 0 read as 1): the seconds the prior expects of it
// (mkpoe plan's estimate), and what the ETA divides a finished unit's
// time by to compare units.
func (u Unit) Weight() float64 {
	s := u.Size
	if s <= 0 {
		s = 1
	}
	p := u.Prior
	if p <= 0 {
		p = 1
	}
	return SizeFactor(u.Mode, s) * p
}

// sample is a finished unit and the seconds it took.
type sample struct {
	u   Unit
	sec float64
}

// stat accumulates the normalised times (seconds / weight) of a group of
// finished units.
type stat struct{ n, sum, sumsq, maxSize float64 }

func (s *stat) add(v, size float64) {
	s.n++
	s.sum += v
	s.sumsq += v * v
	s.maxSize = math.Max(s.maxSize, size)
}

// size is a unit's Size, 0 read as 1.
func (u Unit) size() float64 {
	if u.Size <= 0 {
		return 1
	}
	return u.Size
}

// Extrapolating to a larger training size than any finished unit of the
// group (a refit from its cv folds' fits) widens the range by these
// factors more.
const extrapolateLo, extrapolateHi = 0.7, 1.3

// A full refit's widening, from its folds' fits (fullExtrapolateLo, Hi).
const fullExtrapolateLo, fullExtrapolateHi = 0.85, 1.15

// Levels of the estimate, most similar first, and how far each widens the
// range below and above its mean: the fallbacks are less sure, and err
// low (a row's unseen β are dearer than its seen ones).
var levels = [...]struct{ lo, hi float64 }{
	{0.85, 1.2}, // same row and β index
	{0.8, 1.3},  // same row, times its mode's cost at this β over theirs
	{0.75, 1.4}, // same mode and β index
	{0.7, 1.6},  // same row
	{0.6, 1.8},  // same mode
	{0.5, 2.0},  // any finished unit of the same kind (fit or native)
	{0.3, 3.0},  // a native task, from the fits (by their priors)
}

type rowBeta struct {
	key  string
	beta int
}

// estimator holds the finished units' statistics by group.
type estimator struct {
	samples []sample
	dirty   bool
	rowBeta map[rowBeta]*stat
	modeB   map[rowBeta]*stat
	row     map[string]*stat
	mode    map[string]*stat
	kind    map[bool]*stat // true: native
	// rowRatio holds a row's times over its mode's mean at the same β.
	rowRatio map[string]*stat
	// refitRatio holds, per row, the logarithms of its finished refits'
	// times over what the other units estimate for them (refitCorrection).
	refitRatio map[string]*stat
	nBeta      int
}

func (e *estimator) add(u Unit, sec float64) int {
	e.samples = append(e.samples, sample{u, sec})
	e.dirty = true
	if u.Beta+1 > e.nBeta {
		e.nBeta = u.Beta + 1
	}
	return len(e.samples) - 1
}

func (e *estimator) rebuild() {
	if !e.dirty {
		return
	}
	e.dirty = false
	e.rowBeta, e.modeB = map[rowBeta]*stat{}, map[rowBeta]*stat{}
	e.row, e.mode, e.kind = map[string]*stat{}, map[string]*stat{}, map[bool]*stat{}
	get := func(m map[rowBeta]*stat, k rowBeta) *stat {
		if m[k] == nil {
			m[k] = &stat{}
		}
		return m[k]
	}
	gets := func(m map[string]*stat, k string) *stat {
		if m[k] == nil {
			m[k] = &stat{}
		}
		return m[k]
	}
	for _, s := range e.samples {
		if s.u.Refit && s.u.Beta >= 0 {
			continue // refitCorrection
		}
		v := s.sec / s.u.Weight()
		if s.u.Beta >= 0 {
			get(e.rowBeta, rowBeta{s.u.Row, s.u.Beta}).add(v, s.u.size())
			get(e.modeB, rowBeta{s.u.Mode, s.u.Beta}).add(v, s.u.size())
		}
		gets(e.row, s.u.Row).add(v, s.u.size())
		gets(e.mode, s.u.Mode).add(v, s.u.size())
		native := s.u.Mode == "native"
		if e.kind[native] == nil {
			e.kind[native] = &stat{}
		}
		e.kind[native].add(v, s.u.size())
	}
	e.rowRatio = map[string]*stat{}
	for _, s := range e.samples {
		if s.u.Beta < 0 || s.u.Refit {
			continue
		}
		m := e.modeB[rowBeta{s.u.Mode, s.u.Beta}]
		gets(e.rowRatio, s.u.Row).add(s.sec/s.u.Weight()/(m.sum/m.n), s.u.size())
	}
	e.refitRatio = map[string]*stat{}
	for _, s := range e.samples {
		if !s.u.Refit || s.u.Beta < 0 {
			continue
		}
		if _, mid, _, ok := e.baseCost(s.u, false); ok && mid > 0 && s.sec > 0 {
			gets(e.refitRatio, s.u.Row).add(math.Log(s.sec/mid), 1)
		}
	}
}

// refitCorrection is the factor by which a refit of row row costs more
// than the cv fits' extrapolation says, from the row's finished refits:
// the geometric mean of their ratios, shrunk towards 1 as
// exp(n/(n+RefitShrink) × mean log ratio) for n refits; 1 if none has
// finished.
func (e *estimator) refitCorrection(row string) float64 {
	g := e.refitRatio[row]
	if g == nil || g.n == 0 {
		return 1
	}
	return math.Exp(g.n / (g.n + RefitShrink) * g.sum / g.n)
}

// RefitShrink weighs the refit correction of a row's first refits
// (refitCorrection): after n refits the correction is n/(n+2) of their
// mean log ratio. Measured on the replays (docs/notes/progress-log.md,
// 2026-11-29): at 1 (half the ratio after one refit) the synthetic
// quickstart-like run of 5 splits on 1 worker was +25% at 75% with the
// truth below the range (its diag refits' ratios scatter 1–9 with the
// β, the scoring after a fit weighing on the cheapest fits); at 2 it is
// +19%. The recorded loaded ALOI run (refits 4–8 times what the cv fits
// said) needs the correction: at 90% its middle went from 4.0 times to
// 2.8 times too low (wall time).
const RefitShrink = 2.0

// cost estimates the seconds of unit u: low, middle and high, and false
// if nothing comparable (no unit of its kind) has finished. A refit's
// estimate from the cv fits is corrected by its row's finished refits
// (refitCorrection).
func (e *estimator) cost(u Unit) (lo, mid, hi float64, ok bool) {
	if g := e.refitRatio[u.Row]; u.Refit && g != nil && g.n > 0 {
		// Not an extrapolation from the cv fits alone any more: the
		// row's refits have shown what they cost against them.
		lo, mid, hi, ok = e.baseCost(u, false)
		f := e.refitCorrection(u.Row)
		return lo * f, mid * f, hi * f, ok
	}
	return e.baseCost(u, true)
}

// baseCost is cost without the refits' correction; extrapolate widens
// the range of a unit larger than its group's (extrapolateLo, Hi).
func (e *estimator) baseCost(u Unit, extrapolate bool) (lo, mid, hi float64, ok bool) {
	if u.Beta == -1 && u.Mode != "native" && e.nBeta > 0 {
		// A refit: its β is any of the grid's, chosen later. Its range
		// is the mean of its ranges at every β, not their lowest to
		// highest: a run's refits choose various β, and taking each at
		// the grid's dearest β put the high end far off (the recorded
		// runs' 50 refits).
		for b := 0; b < e.nBeta; b++ {
			l, m, h, k := e.baseCost(u.atBeta(b), extrapolate)
			if !k {
				return 0, 0, 0, false
			}
			lo, mid, hi = lo+l/float64(e.nBeta), mid+m/float64(e.nBeta), hi+h/float64(e.nBeta)
		}
		return lo, mid, hi, true
	}
	if u.Refit && u.Mode == "diag" && u.Beta >= 0 {
		if b, ok := e.coldBeta(u.Row); ok {
			// A diag refit fits cold: priced from its row's dearest cv
			// fit (coldRefit), not its fit at the refit's β.
			c := u
			c.Prior *= math.Pow(BetaStep, float64(b-u.Beta))
			c.Beta, c.Refit = b, false
			lo, mid, hi, ok = e.baseCost(c, extrapolate)
			f := ColdRefitFactor / refitFactorDiag
			return lo * f, mid * f, hi * f, ok
		}
	}
	var groups [len(levels)]*stat
	if u.Beta >= 0 {
		groups[0], groups[2] = e.rowBeta[rowBeta{u.Row, u.Beta}], e.modeB[rowBeta{u.Mode, u.Beta}]
		if r := e.rowRatio[u.Row]; r != nil && groups[2] != nil {
			// The row's β seen so far relative to its mode's at the same
			// β, applied to its mode's cost at this β.
			m := groups[2].sum / groups[2].n
			groups[1] = &stat{n: r.n, sum: r.sum * m, sumsq: r.sumsq * m * m, maxSize: r.maxSize}
		}
	}
	groups[3], groups[4], groups[5] = e.row[u.Row], e.mode[u.Mode], e.kind[u.Mode == "native"]
	if u.Mode == "native" {
		// Natives are cheap: the fits' times, scaled by the priors, will
		// do. A fit is never estimated from natives.
		groups[6] = e.kind[false]
	}
	for i, g := range groups {
		if g == nil || g.n == 0 {
			continue
		}
		mean := g.sum / g.n
		// The mean's standard error: its error is shared by every unit
		// estimated from it, while the units' own scatter about it
		// averages out over the work left.
		se := math.Sqrt(math.Max(g.sumsq/g.n-mean*mean, 0) / g.n)
		w := u.Weight()
		lo, hi := math.Max(math.Min(levels[i].lo*mean, mean-se), 0), math.Max(levels[i].hi*mean, mean+se)
		if extrapolate && u.size() > g.maxSize {
			if u.Mode == "full" {
				lo, hi = lo*fullExtrapolateLo, hi*fullExtrapolateHi
			} else {
				lo, hi = lo*extrapolateLo, hi*extrapolateHi
			}
		}
		return lo * w, mean * w, hi * w, true
	}
	return 0, 0, 0, false
}

// ColdRefitFactor is a diag refit's time over its row's dearest cv fit
// (the mean over the row's folds at each β, the dearest β taken) at the
// refit's larger size (SizeFactor): the ETA prices a diag refit so once
// its row's cv fits have ended (coldBeta). A cv task sweeps the β grid,
// each fit warm-started from the one before, so that its first fit that
// moves is cold and dear and the later ones cheap; a refit starts cold
// at its β and takes about the cold fit's iterations, whatever its β
// (on the loaded ALOI run 38–67 against the cold fits' 39–52, against
// 8–39 at the refit's β). Measured on the recorded runs of the tuning
// set (internal/progress/testdata, the geometric mean over runs of each
// run's diag refits' geometric mean ratio): 1.14, the runs' 0.5–4.4
// (4.4 on aset400_short, whose diag refits of 0.1–0.5 s are mostly
// setup and scoring). Within a run the ratio scatters less than the
// refit's over its cv fits at its β: on the loaded ALOI run 1.0–3.2
// against 3–43. Against RefitFactor at their β the runs' refits took
// 0.4–3.5 times what it says, 3.5 and 4.0 on the two loaded ALOI runs
// (docs/notes/progress-log.md, 2026-11-29).
const ColdRefitFactor = 1.2

// coldBeta is the β index of row's dearest cv fit: the index whose
// finished fits (their mean) took longest; false if none has finished.
func (e *estimator) coldBeta(row string) (int, bool) {
	best, at := -1.0, -1
	for b := 0; b < e.nBeta; b++ {
		g := e.rowBeta[rowBeta{row, b}]
		if g == nil || g.n == 0 {
			continue
		}
		// The mean seconds at b: its normalised mean times a weight at
		// b, the same for every b but the β step.
		if sec := g.sum / g.n * math.Pow(BetaStep, float64(b)); sec > best {
			best, at = sec, b
		}
	}
	return at, at >= 0
}

// Estimate is an ETA: the time left is likely between Low and High; Mid
// is their middle.
type Estimate struct{ Low, Mid, High time.Duration }

// String prints the range, "2m10s–3m05s", or one value when both ends
// print alike.
func (e Estimate) String() string {
	lo, hi := FormatDuration(e.Low), FormatDuration(e.High)
	if lo == hi {
		return lo
	}
	return lo + "–" + hi
}

// RoundRobin returns items in the order a run starts its tasks:
// round-robin over their rows (row(item)), each row's items in their given
// order: every row's first item, then every row's second, and so on. Every
// row then has finished work early in the run, and the ETA learns each
// row's cost from its own fits rather than from other rows'
// (docs/progress.md, "How the ETA is computed").
func RoundRobin[T any, K comparable](items []T, row func(T) K) []T {
	type ranked struct {
		item T
		rank int
	}
	seen := map[K]int{}
	rs := make([]ranked, len(items))
	for i, it := range items {
		k := row(it)
		rs[i] = ranked{it, seen[k]}
		seen[k]++
	}
	slices.SortStableFunc(rs, func(a, b ranked) int { return cmp.Compare(a.rank, b.rank) })
	out := make([]T, len(items))
	for i, r := range rs {
		out[i] = r.item
	}
	return out
}

// Schedule returns the seconds that tasks of the given seconds take on
// workers workers, each in order to the worker free first, phase 1 after
// phase 0 has ended: the ETA's schedule (docs/progress.md), for mkpoe
// plan's prior estimate.
func Schedule(workers int, phases [2][]float64) float64 {
	return schedule(workers, [2][]float64{}, phases, nil)
}

// PriorCPU is the CPU seconds a prior second (PriorSeconds, the idle
// calibration's wall seconds) of a fit of the given mode holds: mkpoe
// plan turns its prior into CPU seconds with it and schedules them at
// the machine's measured rate (ScheduleAt, TaskRates). A config's CPU
// seconds do not change with the load (the quickstart took 9.9–10.9
// CPU s in six recorded runs of 12 to 34 s, aset400_short 40.7–43.5 in
// seven of 41 to 113 s); against the prior they differ by config. Tuned
// on the four runs recorded with the CPU time before the others (the
// geometric mean over them of their tasks' CPU seconds, the process's
// shared equally among the tasks running, over their prior): diag 0.46
// (quickstart 0.26, aset400_short 0.56, aset400_splits 0.70,
// aloi10_sensitivity_taxonomy 0.44), full 0.75 (quickstart 0.55,
// aset400_short 1.03), native 1 (0.1 s or less); the rest are held out
// (docs/notes/progress-log.md, 2026-11-29).
func PriorCPU(mode string) float64 {
	switch mode {
	case "diag":
		return priorCPUDiag
	case "full":
		return priorCPUFull
	}
	return 1
}

const (
	priorCPUDiag = 0.46
	priorCPUFull = 0.75
)

// ScheduleAt is Schedule for tasks given in CPU seconds, each running
// task progressing at rate(j) CPU seconds per second while j tasks run
// (TaskRates): its wall time. A nil rate is 1 whatever j.
func ScheduleAt(workers int, phases [2][]float64, rate func(j int) float64) float64 {
	return schedule(workers, [2][]float64{}, phases, rate)
}

// schedule returns the time the tasks left take on workers workers:
// phase 0 tasks (busy: the running ones' work left; queue: the waiting
// ones' work, in order) go to the worker free first; phase 1 starts when
// phase 0 has ended. While j tasks run, each does rate(j) of its work per
// second (nil: 1), so that a lone last task may run faster than it did
// beside others (TaskRates).
func schedule(workers int, busy [2][]float64, queue [2][]float64, rate func(j int) float64) float64 {
	workers = max(workers, 1)
	t := 0.0
	for p := 0; p < 2; p++ {
		run := append([]float64(nil), busy[p]...)
		q := queue[p]
		for len(run) > 0 || len(q) > 0 {
			for len(run) < workers && len(q) > 0 {
				run, q = append(run, q[0]), q[1:]
			}
			v := 1.0
			if rate != nil {
				v = rate(len(run))
			}
			m := slices.Min(run)
			t += m / v
			kept := run[:0]
			for _, w := range run {
				if w -= m; w > 1e-12 {
					kept = append(kept, w)
				}
			}
			run = kept
		}
	}
	return t
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func (e Estimate) text() string { return fmt.Sprintf("ETA %s", e) }

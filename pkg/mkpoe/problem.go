package mkpoe

import (
	"cmp"
	"math"
	"slices"
	"sync"

	"github.com/mkpoe/mkpoe/internal/linalg"
	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/conic"
	"gonum.org/v1/gonum/mat"
)

// block is one kernel's part of the optimisation variable, in a basis where
// every distance is a quadratic form in item coordinates:
//
//	full: d⁽ᵖ⁾(i,j) = (φ_i − φ_j)ᵀ X (φ_i − φ_j),  X ⪰ 0 (r×r),  reg ⟨X, R⟩
//	diag: d⁽ᵖ⁾(i,j) = Σ_t x_t (φ_it − φ_jt)²,      x ≥ 0 (r),     reg Σ_t c_t x_t
//
// For a kernel in its eigenbasis (default solver) φ_i is row i of UΛ^{1/2}
// and R = I; in the paper's W-space (subgradient solver) φ_i = K_i and R = K
// (Appendix B); for LPOE (Alg. 2) φ_i = x_i and R = I.
type block struct {
	diag bool
	phi  *mat.Dense    // n×r item coordinates; nil: diag(phiDiag), see diagonalBlock
	r    int           // columns of phi
	reg  *mat.SymDense // full only: R; nil means the identity
	c    []float64     // diag only: regulariser weights c_t ≥ 0
	// regDiag, for a full block with reg == nil, makes the regulariser
	// Σ_k regDiag_k X_kk (nil means tr(X)). Preconditioning sets it.
	regDiag []float64
	// phiDiag, for a full block whose phi is square diagonal (GNMDS,
	// K = I, and its preconditioned form), is that diagonal (diagonalOf);
	// nil otherwise. Set with phi, in formulation and precondition.
	phiDiag []float64
	// backDiag, for a block of a diagonal kernel kept as its diagonal
	// alone (phi nil, diagonalBlock), is the diagonal of the map back to
	// W-space, B = diag(1/√k_ii); nil otherwise.
	backDiag []float64
	// energy is, for a kernel's eigenbasis, the fraction of the kernel's
	// positive eigenvalues' sum that phi keeps (kernelEigenbasis).
	energy float64
	off    int // offset of this block in the flat variable
	size   int // r*r (full) or r (diag)
}

// problem is the MKPOE objective of Alg. 4 over a set of blocks,
//
//	f(X) = Σ_p reg_p(X⁽ᵖ⁾) + β/|𝒞| Σ_𝒞 h(1 + d(i,j) − d(k,l)),
//
// with d the sum of the blocks' distances. The variable is a flat vector
// holding every block (full blocks row-major r×r, symmetric).
type problem struct {
	n      int
	blocks []block
	pairs  []data.Pair // the distinct item pairs the comparisons use
	left   []int32     // per comparison: index in pairs of {i,j}
	right  []int32     // per comparison: index in pairs of {k,l}
	beta   float64
	dim    int
	tune   *tuning // the solver's constants (fit sets Settings.tuning here)
	// iterativeNewton: the interior-point stage's K-space Newton systems
	// are conic.PCGNormalEquations (restrictedProblem), not formed whole.
	iterativeNewton bool
}

// newProblem indexes the distinct pairs of cs and lays out the blocks.
func newProblem(n int, blocks []block, cs []data.Comparison, beta float64) *problem {
	p := &problem{n: n, blocks: blocks, beta: beta, tune: defaultTuning()}
	index := make(map[data.Pair]int32, 2*len(cs))
	lookup := func(q data.Pair) int32 {
		if k, ok := index[q]; ok {
			return k
		}
		k := int32(len(p.pairs))
		index[q] = k
		p.pairs = append(p.pairs, q)
		return k
	}
	p.left = make([]int32, len(cs))
	p.right = make([]int32, len(cs))
	for c, comparison := range cs {
		p.left[c] = lookup(comparison.Left())
		p.right[c] = lookup(comparison.Right())
	}
	// Sorted by first item, so that diagGradient sums the pairs of one item
	// together.
	order := make([]int32, len(p.pairs))
	for k := range order {
		order[k] = int32(k)
	}
	slices.SortFunc(order, func(x, y int32) int {
		a, b := p.pairs[x], p.pairs[y]
		if c := cmp.Compare(a.A, b.A); c != 0 {
			return c
		}
		return cmp.Compare(a.B, b.B)
	})
	sorted := make([]data.Pair, len(p.pairs))
	renumber := make([]int32, len(p.pairs))
	for k, old := range order {
		sorted[k] = p.pairs[old]
		renumber[old] = int32(k)
	}
	p.pairs = sorted
	for c := range cs {
		p.left[c] = renumber[p.left[c]]
		p.right[c] = renumber[p.right[c]]
	}
	p.layout()
	return p
}

// layout sets each block's offset and size in the flat variable and p.dim.
func (p *problem) layout() {
	off := 0
	for b := range p.blocks {
		blk := &p.blocks[b]
		blk.off = off
		if blk.diag {
			blk.size = blk.r
		} else {
			blk.size = blk.r * blk.r
		}
		off += blk.size
	}
	p.dim = off
}

// withBlocks returns p over other blocks (the same comparisons, pairs, β
// and tuning), laid out anew.
func (p *problem) withBlocks(blocks []block) *problem {
	q := *p
	q.blocks = blocks
	q.layout()
	return &q
}

// workspace holds scratch matrices reused across iterations.
type workspace struct {
	g    []*mat.Dense // per full block: n×r products
	act  []int32      // pairs with non-zero weight in the last gradient
	inc  incState     // gradientIncremental's state (diagonal problems)
	eigs []eigWS      // per block: eigensolver scratch (blocks run concurrently)
	diag diagScratch  // diagDistances' buffers (blocks run one after the other)
}

// eigWS is one block's eigendecomposition scratch: the matrix, overwritten
// by the eigenvectors, and the eigenvalues.
type eigWS struct {
	a, vals []float64
	// vecs holds eigenvectors of a range (projectPSD), positives the
	// number of positive eigenvalues found by the last projection.
	vecs      []float64
	positives int
	// factor, after projectPSD, holds F (rank×r, row-major) with the
	// projected matrix X = FᵀF, when the projection formed X that way
	// (rank ≥ 0; −1: it did not). projectMargins reads it.
	factor []float64
	rank   int
	// factorBuf holds F when the projection decomposed the whole matrix
	// (otherwise factor is a view of vecs).
	factorBuf []float64
}

// decompose computes the eigenvalues (and, if vectors, the eigenvectors) of
// the symmetric r×r matrix ws.a by linalg.SymEigen, reusing the scratch.
func (ws *eigWS) decompose(r int, vectors bool) {
	if cap(ws.vals) < r {
		ws.vals = make([]float64, r)
	}
	ws.vals = ws.vals[:r]
	if !linalg.SymEigen(r, ws.a, ws.vals, vectors) {
		panic("mkpoe: eigendecomposition failed to converge")
	}
}

// matrix returns ws.a resized to r×r.
func (ws *eigWS) matrix(r int) []float64 {
	if cap(ws.a) < r*r {
		ws.a = make([]float64, r*r)
	}
	ws.a = ws.a[:r*r]
	return ws.a
}

func (p *problem) newWorkspace() *workspace {
	ws := &workspace{g: make([]*mat.Dense, len(p.blocks)), eigs: make([]eigWS, len(p.blocks))}
	for b, blk := range p.blocks {
		if !blk.diag {
			ws.g[b] = mat.NewDense(p.n, blk.r, nil)
		}
	}
	return ws
}

// blockMatrix returns the r×r matrix of a full block as a view of x.
func (blk *block) matrix(x []float64) *mat.Dense {
	return mat.NewDense(blk.r, blk.r, x[blk.off:blk.off+blk.size])
}

// distances writes d(a,b) for every distinct pair into dist (length len(pairs)).
func (p *problem) distances(ws *workspace, x []float64, dist []float64) {
	p.distancesFactored(ws, x, dist, false)
}

// projectMargins projects x onto the feasible set (project) and writes its
// distances and margins. A full block whose projection formed X = FᵀF from
// few eigenpairs (rank ≤ r/2) gets its distances from the factor,
// d(a,b) = ‖Y_a − Y_b‖² with Y = ΦFᵀ (n×rank): n·r·rank + |pairs|·rank
// multiply-adds instead of n·r² + |pairs|·r. On the aset400-scale fixture
// the two 330×330 blocks keep fewer than 10 positive eigenvalues at every
// first-order iteration at β = 100, and 60–80 at β = 1e4.
func (p *problem) projectMargins(ws *workspace, x []float64, dist, m []float64) {
	p.project(ws, x)
	p.distancesFactored(ws, x, dist, true)
	p.marginsFrom(dist, m)
}

// distancesFactored is distances; with factored, full blocks use the
// factors that the last projection of x left in ws (projectMargins).
func (p *problem) distancesFactored(ws *workspace, x []float64, dist []float64, factored bool) {
	for k := range dist {
		dist[k] = 0
	}
	for b := range p.blocks {
		blk := &p.blocks[b]
		r := blk.r
		if blk.diag {
			p.diagDistances(blk, x[blk.off:blk.off+r], dist, &ws.diag)
			continue
		}
		if d := blk.phiDiag; d != nil {
			addDiagonalPairForms(d, x[blk.off:blk.off+blk.size], p.pairs, dist)
			continue
		}
		if e := &ws.eigs[b]; factored && e.rank >= 0 && 2*e.rank <= r {
			addFactorForms(blk.phi, e.factor, e.rank, p.pairs, dist)
			continue
		}
		g := ws.g[b]
		g.Mul(blk.phi, blk.matrix(x))
		conic.AddPairForms(blk.phi, g, p.pairs, dist)
	}
}

// addFactorForms adds ‖F(φ_a − φ_b)‖² = (φ_a − φ_b)ᵀFᵀF(φ_a − φ_b) to
// dist[k] for every pair k = (a,b), F rank×r row-major.
func addFactorForms(phi *mat.Dense, factor []float64, rank int, pairs []data.Pair, dist []float64) {
	if rank == 0 {
		return
	}
	_, r := phi.Dims()
	var y mat.Dense
	y.Mul(phi, mat.NewDense(rank, r, factor[:rank*r]).T())
	yr := y.RawMatrix()
	for k, q := range pairs {
		ya := yr.Data[q.A*yr.Stride : q.A*yr.Stride+rank]
		yb := yr.Data[q.B*yr.Stride : q.B*yr.Stride+rank]
		s := 0.0
		for j, v := range ya {
			d := v - yb[j]
			s += d * d
		}
		dist[k] += s
	}
}

// diagonalOf returns the diagonal of phi if phi is a square diagonal
// matrix (GNMDS, K = I, Sec. 3.3, and its preconditioned form), else nil.
// Then a pair's distance and the gradient cost O(1) instead of O(r)
// (addDiagonalPairForms, addDiagonalPairDifferences).
func diagonalOf(phi *mat.Dense) []float64 {
	n, r := phi.Dims()
	if n != r {
		return nil
	}
	raw := phi.RawMatrix()
	for i := 0; i < n; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+n]
		for j, v := range row {
			if v != 0 && j != i {
				return nil
			}
		}
	}
	d := make([]float64, n)
	for i := range d {
		d[i] = raw.Data[i*raw.Stride+i]
	}
	return d
}

// addDiagonalPairForms adds (e_a − e_b)ᵀ Φ X Φᵀ (e_a − e_b) = d_a² X_aa +
// d_b² X_bb − 2 d_a d_b X_ab to dist for every pair (a,b), for Φ = diag(d)
// and X row-major r×r (symmetric).
func addDiagonalPairForms(d, x []float64, pairs []data.Pair, dist []float64) {
	r := len(d)
	for k, q := range pairs {
		a, b := q.A, q.B
		dist[k] += d[a]*d[a]*x[a*r+a] + d[b]*d[b]*x[b*r+b] - 2*d[a]*d[b]*x[a*r+b]
	}
}

// addDiagonalPairDifferences adds Φᵀ S Φ = D S D to the row-major r×r g,
// S = Σ_k pw_k (e_a − e_b)(e_a − e_b)ᵀ, for Φ = diag(d).
func addDiagonalPairDifferences(d []float64, pairs []data.Pair, pw, g []float64) {
	r := len(d)
	for k, q := range pairs {
		w := pw[k]
		if w == 0 {
			continue
		}
		a, b := q.A, q.B
		g[a*r+a] += w * d[a] * d[a]
		g[b*r+b] += w * d[b] * d[b]
		v := w * d[a] * d[b]
		g[a*r+b] -= v
		g[b*r+a] -= v
	}
}

// margins writes m_c = 1 + d(i,j) − d(k,l) for every comparison.
func (p *problem) margins(ws *workspace, x []float64, dist, m []float64) {
	p.distances(ws, x, dist)
	p.marginsFrom(dist, m)
}

// marginsFrom writes m_c = 1 + d(i,j) − d(k,l) from the pair distances.
func (p *problem) marginsFrom(dist, m []float64) {
	for c := range m {
		m[c] = 1 + dist[p.left[c]] - dist[p.right[c]]
	}
}

// regularizer returns Σ_p reg_p(x).
func (p *problem) regularizer(x []float64) float64 {
	s := 0.0
	for b := range p.blocks {
		blk := &p.blocks[b]
		xb := x[blk.off : blk.off+blk.size]
		if blk.diag {
			for t, v := range xb {
				s += blk.c[t] * v
			}
			continue
		}
		if blk.reg == nil {
			for t := 0; t < blk.r; t++ {
				s += blk.regWeight(t) * xb[t*blk.r+t]
			}
			continue
		}
		rr := blk.reg.RawSymmetric()
		for i := 0; i < blk.r; i++ {
			for j := 0; j < blk.r; j++ {
				var rij float64
				if i <= j {
					rij = rr.Data[i*rr.Stride+j]
				} else {
					rij = rr.Data[j*rr.Stride+i]
				}
				s += xb[i*blk.r+j] * rij
			}
		}
	}
	return s
}

// gradient writes into g the gradient of reg + Σ_c α_c (1 + d(i,j) − d(k,l)):
//
//	full: R + Φᵀ S Φ,  diag: c + diag(Φᵀ S Φ),  S = Σ_c α_c (E_ij − E_kl)
//
// (Appendix B: "collect all (E_ij − E_kl) terms and then pre- and
// post-multiply by K"). pw is scratch of length len(pairs).
func (p *problem) gradient(ws *workspace, alpha, pw, g []float64) {
	for k := range pw {
		pw[k] = 0
	}
	for c, a := range alpha {
		if a != 0 {
			pw[p.left[c]] += a
			pw[p.right[c]] -= a
		}
	}
	ws.act = ws.act[:0]
	for k, w := range pw {
		if w != 0 {
			ws.act = append(ws.act, int32(k))
		}
	}
	for b := range p.blocks {
		blk := &p.blocks[b]
		r := blk.r
		gb := g[blk.off : blk.off+blk.size]
		if blk.diag {
			copy(gb, blk.c)
			p.diagGradient(blk, ws.act, pw, gb)
			continue
		}
		if d := blk.phiDiag; d != nil {
			for i := range gb {
				gb[i] = 0
			}
			addDiagonalPairDifferences(d, p.pairs, pw, gb)
		} else {
			// T = S Φ.
			tm := ws.g[b]
			tm.Zero()
			conic.AddPairDifferences(tm, blk.phi, p.pairs, pw)
			gm := mat.NewDense(r, r, gb)
			gm.Mul(blk.phi.T(), tm)
			for i := 0; i < r; i++ {
				for j := i + 1; j < r; j++ {
					v := (gb[i*r+j] + gb[j*r+i]) / 2
					gb[i*r+j], gb[j*r+i] = v, v
				}
			}
		}
		if blk.reg == nil {
			for t := 0; t < r; t++ {
				gb[t*r+t] += blk.regWeight(t)
			}
		} else {
			rr := blk.reg.RawSymmetric()
			for i := 0; i < r; i++ {
				for j := i; j < r; j++ {
					v := rr.Data[i*rr.Stride+j]
					gb[i*r+j] += v
					if j != i {
						gb[j*r+i] += v
					}
				}
			}
		}
	}
}

// project maps x onto the feasible set in place: every full block onto the
// PSD cone by clipping its eigenvalues at 0, every diagonal block onto the
// non-negative orthant (Appendix B). It returns nothing; x is changed.
//
// Full blocks are projected concurrently (one goroutine each, own scratch):
// the eigendecompositions dominate a full-W iteration, and the benchmark
// fixture has two 330×330 blocks, so this uses both cores. Each block's
// result does not depend on scheduling.
func (p *problem) project(ws *workspace, x []float64) {
	p.forFullBlocks(func(b int) {
		blk := &p.blocks[b]
		projectPSD(&ws.eigs[b], blk.r, x[blk.off:blk.off+blk.size])
	})
	for b := range p.blocks {
		blk := &p.blocks[b]
		if !blk.diag {
			continue
		}
		xb := x[blk.off : blk.off+blk.size]
		for t, v := range xb {
			if v < 0 {
				xb[t] = 0
			}
		}
	}
}

// forFullBlocks calls f(b) for every full block b, concurrently when there
// are several blocks larger than 32×32 (small ones, and a single large
// one, run inline on the calling goroutine: the harness's CPU time of a
// task counts that goroutine's thread, experiments/taskclock.go).
func (p *problem) forFullBlocks(f func(b int)) {
	large := 0
	for b := range p.blocks {
		if !p.blocks[b].diag && p.blocks[b].r > 32 {
			large++
		}
	}
	var wg sync.WaitGroup
	for b := range p.blocks {
		blk := &p.blocks[b]
		if blk.diag {
			continue
		}
		if blk.r <= 32 || large == 1 {
			f(b)
			continue
		}
		wg.Add(1)
		go func(b int) {
			defer wg.Done()
			f(b)
		}(b)
	}
	wg.Wait()
}

// projectPSD replaces the symmetric r×r matrix held row-major in a by its
// nearest PSD matrix in Frobenius norm: eigenvalues clipped at 0.
func projectPSD(ws *eigWS, r int, a []float64) {
	ws.rank = -1
	sym := ws.matrix(r)
	norm2 := 0.0
	for i := 0; i < r; i++ {
		for j := i; j < r; j++ {
			v := (a[i*r+j] + a[j*r+i]) / 2
			sym[i*r+j] = v
			if i == j {
				norm2 += v * v
			} else {
				norm2 += 2 * v * v
			}
		}
	}
	// Every eigenvalue lies in [−‖A‖_F, ‖A‖_F].
	bound := math.Sqrt(norm2)*(1+1e-12) + 1e-300
	if cap(ws.vals) < r {
		ws.vals = make([]float64, r)
	}
	if cap(ws.vecs) < r*r {
		ws.vecs = make([]float64, r*r)
	}
	out := mat.NewDense(r, r, a)
	// When one side of the spectrum is small (guessed from the previous
	// projection of this block: iterates change little), only that side is
	// computed: A⁺ = V₊Λ₊V₊ᵀ from the positive eigenpairs, or A − V₋Λ₋V₋ᵀ
	// from the non-positive ones. dsyevr at r = 330 (OpenBLAS, one
	// thread): 4.9 ms for 3% of the eigenpairs, 7.4 ms for 10%, 15 ms for
	// 25%, 35 ms for 50%, against 14 ms for the whole dsyevd
	// (BenchmarkProjection330 in internal/linalg): beyond a fifth, the
	// whole decomposition is cheaper.
	switch side := min(ws.positives, r-ws.positives); {
	case 5*side > r:
		ws.projectWhole(r, out)
	case 2*ws.positives <= r:
		ws.projectPositiveSide(r, sym, bound, out)
	default:
		ws.projectNegativeSide(r, sym, bound, a, out)
	}
}

// projectWhole is projectPSD from the whole decomposition of ws's matrix:
// A⁺ = V₊ Λ₊ V₊ᵀ = FᵀF, the rows of F the vectors √λ_k v_k of the
// positive part, written to out.
func (ws *eigWS) projectWhole(r int, out *mat.Dense) {
	ws.decompose(r, true)
	vecs := ws.a
	pos := 0
	for _, v := range ws.vals[:r] {
		if v > 0 {
			pos++
		}
	}
	ws.positives = pos
	ws.rank = pos
	if pos == 0 {
		out.Zero()
		return
	}
	if cap(ws.factorBuf) < pos*r {
		ws.factorBuf = make([]float64, pos*r)
	}
	ws.factor = ws.factorBuf[:pos*r]
	row := 0
	for k, v := range ws.vals[:r] {
		if v <= 0 {
			continue
		}
		s := math.Sqrt(v)
		fk := ws.factor[row*r : row*r+r]
		for i := range fk {
			fk[i] = vecs[i*r+k] * s
		}
		row++
	}
	f := mat.NewDense(pos, r, ws.factor)
	out.Mul(f.T(), f)
}

// projectPositiveSide is projectPSD from the eigenpairs of sym in (0,
// bound]: A⁺ = (V₊Λ₊^{1/2})(V₊Λ₊^{1/2})ᵀ, vectors held as rows, written to
// out.
func (ws *eigWS) projectPositiveSide(r int, sym []float64, bound float64, out *mat.Dense) {
	vals, vecs := ws.vals[:r], ws.vecs[:r*r]
	m, ok := linalg.SymEigenRange(r, sym, 0, bound, vals, vecs)
	if !ok {
		panic("mkpoe: eigendecomposition failed to converge")
	}
	ws.positives = m
	ws.rank = m
	ws.factor = vecs[:m*r]
	if m == 0 {
		out.Zero()
		return
	}
	f := mat.NewDense(m, r, vecs[:m*r])
	for k := 0; k < m; k++ {
		s := math.Sqrt(vals[k])
		row := vecs[k*r : k*r+r]
		for i := range row {
			row[i] *= s
		}
	}
	out.Mul(f.T(), f)
}

// projectNegativeSide is projectPSD from the eigenpairs of sym in
// [−bound, 0]: A⁺ = A + (V₋|Λ₋|^{1/2})(V₋|Λ₋|^{1/2})ᵀ, with a (out's data)
// made symmetric first.
func (ws *eigWS) projectNegativeSide(r int, sym []float64, bound float64, a []float64, out *mat.Dense) {
	vals, vecs := ws.vals[:r], ws.vecs[:r*r]
	m, ok := linalg.SymEigenRange(r, sym, -bound, 0, vals, vecs)
	if !ok {
		panic("mkpoe: eigendecomposition failed to converge")
	}
	ws.positives = r - m
	ws.rank = -1
	// A⁺ = A − V₋Λ₋V₋ᵀ needs A itself symmetric (sym, its symmetric
	// part, went to the eigensolver).
	for i := 0; i < r; i++ {
		for j := i + 1; j < r; j++ {
			v := (a[i*r+j] + a[j*r+i]) / 2
			a[i*r+j], a[j*r+i] = v, v
		}
	}
	if m == 0 {
		return
	}
	g := mat.NewDense(m, r, vecs[:m*r])
	for k := 0; k < m; k++ {
		s := math.Sqrt(-vals[k])
		row := vecs[k*r : k*r+r]
		for i := range row {
			row[i] *= s
		}
	}
	var gg mat.Dense
	gg.Mul(g.T(), g)
	out.Add(out, &gg)
}

// dualScale returns the largest t ≤ 1 with R + t·ΦᵀSΦ ⪰ 0 in every block,
// where g = R + ΦᵀSΦ is the gradient at multipliers α (S = Σ_c α_c (E_ij −
// E_kl)): t·α is dual feasible, and t·Σα a certified lower bound
// (docs/solver.md, "The dual and the certificate"). It is NaN for a
// W-space block (R ≠ I), which is certified through its eigenbasis problem.
func (p *problem) dualScale(ws *workspace, g []float64) float64 {
	return math.Min(1, p.feasibleScale(ws, g))
}

// feasibleScale is dualScale without the cap at 1: the largest t with
// R + t·ΦᵀSΦ ⪰ 0 in every block (+Inf if ΦᵀSΦ ⪰ 0 everywhere; 0 if a
// diagonal coordinate without regulariser weight has a negative entry).
func (p *problem) feasibleScale(ws *workspace, g []float64) float64 {
	t := math.Inf(1)
	for b := range p.blocks {
		blk := &p.blocks[b]
		gb := g[blk.off : blk.off+blk.size]
		if blk.diag {
			for k, v := range gb {
				s := v - blk.c[k] // (Φᵀ S Φ)_kk
				if s < 0 {
					if blk.c[k] <= 0 {
						return 0
					}
					t = math.Min(t, blk.c[k]/(-s))
				}
			}
			continue
		}
		if blk.reg != nil {
			// The certificate needs R = I (eigenbasis form); W-space blocks
			// are certified through their eigenbasis problem instead.
			return math.NaN()
		}
	}
	// λ_min(D⁻¹ Φᵀ S Φ D⁻¹) of every full block with regulariser
	// Σ_k D²_kk X_kk (D = I unless preconditioned), concurrently (see
	// project): R + tΦᵀSΦ ⪰ 0 ⇔ I + t D⁻¹ΦᵀSΦD⁻¹ ⪰ 0.
	lmins := make([]float64, len(p.blocks))
	p.forFullBlocks(func(b int) {
		blk := &p.blocks[b]
		gb := g[blk.off : blk.off+blk.size]
		r := blk.r
		e := &ws.eigs[b]
		sym := e.matrix(r)
		for i := 0; i < r; i++ {
			di := math.Sqrt(blk.regWeight(i))
			for j := i; j < r; j++ {
				v := gb[i*r+j]
				if i == j {
					v -= blk.regWeight(i)
				}
				sym[i*r+j] = v / (di * math.Sqrt(blk.regWeight(j)))
			}
		}
		e.decompose(r, false)
		lmins[b] = e.vals[0]
	})
	for b := range p.blocks {
		if p.blocks[b].diag {
			continue
		}
		if lmin := lmins[b]; lmin < 0 {
			t = math.Min(t, 1/(-lmin))
		}
	}
	return t
}

// regWeight returns the regulariser weight of X_kk for a full block with
// reg == nil (1 unless preconditioned).
func (blk *block) regWeight(k int) float64 {
	if blk.regDiag == nil {
		return 1
	}
	return blk.regDiag[k]
}

// totalOrder is the sum of the blocks' orders r (a restricted problem's
// subspace dimension in the low-rank method's progress reports).
func (p *problem) totalOrder() int {
	r := 0
	for _, blk := range p.blocks {
		r += blk.r
	}
	return r
}

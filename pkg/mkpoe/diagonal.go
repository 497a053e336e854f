package mkpoe

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Diagonal kernels without n×n matrices (docs/solver.md, "Formulation").
//
// A diagonal kernel, such as the identity of GNMDS (Sec. 3.3), whose every
// diagonal entry is above relTol·max has the unit vectors as eigenvectors:
// Φ = diag(√k_ii) and B = diag(1/√k_ii), square and diagonal. formulation
// keeps such a block as those diagonals alone (phi nil, phiDiag and
// backDiag: diagonalBlock), and so does the identity input of FitIdentity
// (phiDiag = 1, no map back). The factored methods (lowrank, alm) and the
// Lanczos β_min read only phiDiag, so a GNMDS fit on 10⁴ items holds no
// 10⁴ × 10⁴ matrix; every other method gets the dense diagonal matrices
// (materializeDiagonal), the same entries as before, when it is chosen.
// A kernel given as a mat.Diagonal (e.g. *mat.DiagDense) is read along its
// diagonal, never as n² entries.

// diagonalKernel returns Φ's and B's diagonals (√k_ii, 1/√k_ii) when k is
// diagonal with every diagonal entry above relTol·max and above 0; ok is
// false for any other kernel.
func diagonalKernel(k mat.Symmetric, relTol float64) (phiDiag, backDiag []float64, ok bool) {
	n := k.SymmetricDim()
	var diag []float64
	if d, isDiag := k.(mat.Diagonal); isDiag {
		diag = diagonalEntries(d)
	} else {
		diag = make([]float64, n)
		for i := 0; i < n; i++ {
			diag[i] = k.At(i, i)
			for j := i + 1; j < n; j++ {
				if k.At(i, j) != 0 {
					return nil, nil, false
				}
			}
		}
	}
	lmax := 0.0
	for _, v := range diag {
		lmax = math.Max(lmax, v)
	}
	for _, v := range diag {
		if !(v > relTol*lmax && v > 0) {
			return nil, nil, false
		}
	}
	phiDiag, backDiag = diag, make([]float64, n)
	for i, v := range diag {
		s := math.Sqrt(v)
		phiDiag[i], backDiag[i] = s, 1/s
	}
	return phiDiag, backDiag, true
}

// diagonalKernelBlock is the full eigenbasis block of a diagonal kernel k
// (diagonalKernel), kept as its diagonals; ok is false for any other
// kernel or a cut that truncates (a diagonal kernel's eigenvalues tie, and
// truncation keeps its ties' order from the decomposition).
func diagonalKernelBlock(k mat.Symmetric, cut kernelCut) (block, bool) {
	if cut.truncates() {
		return block{}, false
	}
	phiDiag, backDiag, ok := diagonalKernel(k, cut.relTol)
	if !ok {
		return block{}, false
	}
	return diagonalBlock(phiDiag, backDiag), true
}

// diagonalBlock is a full block with coordinates Φ = diag(phiDiag) and map
// back B = diag(backDiag) (nil: W = Z, the identity input), phi not formed.
func diagonalBlock(phiDiag, backDiag []float64) block {
	return block{r: len(phiDiag), phiDiag: phiDiag, backDiag: backDiag}
}

// diagonalDense is the square matrix diag(d).
func diagonalDense(d []float64) *mat.Dense {
	m := mat.NewDense(len(d), len(d), nil)
	for i, v := range d {
		m.Set(i, i, v)
	}
	return m
}

// materializeDiagonal forms the dense coordinates (and, with backs not
// nil, the dense map back) of every block kept as its diagonal
// (diagonalBlock), for the methods that read them as matrices.
func materializeDiagonal(blocks []block, backs []*mat.Dense) {
	for b := range blocks {
		blk := &blocks[b]
		if blk.phi == nil && blk.phiDiag != nil {
			blk.phi = diagonalDense(blk.phiDiag)
		}
		if backs != nil && backs[b] == nil && blk.backDiag != nil {
			backs[b] = diagonalDense(blk.backDiag)
		}
	}
}

// scaleRows returns diag(d)·f, entry by entry the product d_i·f_ij that
// the dense product with diagonalDense(d) gives.
func scaleRows(d []float64, f *mat.Dense) *mat.Dense {
	r, c := f.Dims()
	out := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		row, src := out.RawRowView(i), f.RawRowView(i)
		for j, v := range src {
			row[j] = d[i] * v
		}
	}
	return out
}

// diagonalEntries returns the diagonal of d.
func diagonalEntries(d mat.Diagonal) []float64 {
	out := make([]float64, d.SymmetricDim())
	for i := range out {
		out[i] = d.At(i, i)
	}
	return out
}

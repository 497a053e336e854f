package mkpoe

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/conic"
	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/testproblems"
)

// TestDiagLipschitzCoversNorm checks lipschitzEstimate on diagonal
// problems, whose power iterations stop early (diagLipschitzGrowth),
// against the exact ‖A‖² = λ_max(AᵀA) of the margins' linear map A (the
// rows of restrict's B on the whole problem): the Rayleigh quotient it
// returns never exceeds ‖A‖², and with the safety factor 1.1 it covers
// it, so the first step's size is not too long.
func TestDiagLipschitzCoversNorm(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewPCG(seed, 17))
		n := 30 + 10*int(seed)
		hidden := testproblems.Features(rng, n, 3)
		ks := []mat.Symmetric{testproblems.Linear(testproblems.Features(rng, n, 6)), testproblems.RBF(testproblems.Features(rng, n, 4))}
		cs := testproblems.Comparisons(rng, hidden, 40*n, 0.1, testproblems.TripletsIf(true), 0)
		const beta, delta = 100.0, 1.0
		in := input{kind: InputKernels, n: n, kernels: ks, numInputs: len(ks)}
		blocks, _ := formulation(in, Diag, true, kernelCut{relTol: 1e-10}, basisSource{})
		p := newProblem(n, blocks, cs, beta)
		ws := p.newWorkspace()
		est := p.lipschitzEstimate(ws, delta, make([]float64, len(p.pairs)), make([]float64, len(p.pairs)))
		quotient := est / 1.1 / (beta / (float64(len(p.left)) * delta))

		cp, _ := p.restrict(wholeWorkingSet(p))
		var ata mat.SymDense
		ata.SymOuterK(1, cp.System.(*conic.NormalEquations).B.T())
		var eig mat.EigenSym
		if !eig.Factorize(&ata, false) {
			t.Fatal("eigendecomposition failed")
		}
		vals := eig.Values(nil)
		norm := vals[len(vals)-1]
		if quotient > norm*(1+1e-9) || 1.1*quotient < norm {
			t.Errorf("seed %d: Rayleigh quotient %.6g, exact ‖A‖² %.6g: want quotient ≤ ‖A‖² ≤ 1.1·quotient", seed, quotient, norm)
		}
		t.Logf("seed %d: %d comparisons, %d coordinates: quotient %.6g, ‖A‖² %.6g (%.2f%% below)", seed, len(p.left), p.dim, quotient, norm, 100*(1-quotient/norm))
	}
}

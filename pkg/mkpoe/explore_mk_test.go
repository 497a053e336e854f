package mkpoe

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/data"
)

// opt-in exploration (not committed): multi-kernel fits at scale.
func TestExploreMK(t *testing.T) {
	if os.Getenv("MKPOE_EXPLORE_MK") == "" {
		t.Skip("opt-in")
	}
	n, _ := strconv.Atoi(os.Getenv("N"))
	m, _ := strconv.Atoi(os.Getenv("M"))
	mult, _ := strconv.ParseFloat(os.Getenv("MULT"), 64)
	kr, _ := strconv.Atoi(os.Getenv("KRANK"))
	nk, _ := strconv.Atoi(os.Getenv("NK"))
	mode := Full
	if os.Getenv("MODE") == "diag" {
		mode = Diag
	}
	pl, _ := data.GeneratePlanted(data.PlantedSpec{N: n, Dim: 5, Triplets: m * 5 / 4, Flip: 0.1, Seed: 1})
	train, test := pl.Triplets[:m], pl.Triplets[m:]
	rng := rand.New(rand.NewPCG(5, 6))
	noisy := mat.NewDense(n, 5, nil)
	noisy.Add(pl.Points, randomFeatures(rng, n, 5))
	half := mat.DenseCopyOf(pl.Points.Slice(0, n, 0, 2))
	ks := []mat.Symmetric{linearKernel(pl.Points), rbfKernel(noisy), linearKernel(randomFeatures(rng, n, 3)), rbfKernel(half), linearKernel(randomFeatures(rng, n, 10))}[:nk]
	t0 := time.Now()
	s := &Settings{Mode: mode, KernelRank: kr}
	mb, err := MinBeta(ks, train, s)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("β_min %.4g in %.2fs", mb, time.Since(t0).Seconds())
	for _, sv := range []Solver{Solver(os.Getenv("SOLVER"))} {
		s := &Settings{Beta: mult * mb, Mode: mode, KernelRank: kr, Solver: sv, MaxIter: 20000}
		t0 := time.Now()
		mod, err := Fit(ks, train, s)
		if err != nil {
			t.Fatal(err)
		}
		emb := mod.Train
		correct := 0
		d := func(a, b int) float64 {
			s := 0.0
			for c := 0; c < emb.RawMatrix().Cols; c++ {
				v := emb.At(a, c) - emb.At(b, c)
				s += v * v
			}
			return s
		}
		for _, c := range test {
			if d(c.I, c.J) < d(c.K, c.L) {
				correct++
			}
		}
		t.Logf("%s %s krank %d β=%.4g: %.2fs iters %d gap %.2g conv %v dim %d acc %.3f energy %v", sv, mode, kr, s.Beta, time.Since(t0).Seconds(), mod.Stats.Iterations, mod.Stats.RelativeGap, mod.Stats.Converged, mod.Dim(), float64(correct)/float64(len(test)), mod.Stats.KernelEnergy)
	}
}

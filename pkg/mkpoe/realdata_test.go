package mkpoe_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/eval"
	"github.com/mkpoe/mkpoe/pkg/kernels"
	"github.com/mkpoe/mkpoe/pkg/mkpoe"
	"gonum.org/v1/gonum/mat"
)

// aset400 loads data/aset400 (scripts/fetch_aset400.sh; CI runs it with
// --mirror ../shared/data) or skips the test.
func aset400(t *testing.T) *data.Aset400 {
	t.Helper()
	dir := filepath.Join("..", "..", "data", "aset400")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real data not found at %s (run scripts/fetch_aset400.sh): %v", dir, err)
	}
	a, err := data.LoadAset400(dir)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestGNMDSAset400HeldOut fits GNMDS (K = I, Sec. 3.3) on 80% of the aset400
// triplets and scores the other 20% (same artists: GNMDS has no
// out-of-sample extension).
func TestGNMDSAset400HeldOut(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("long (a 412×412 SDP: about 40 s pure Go, 6 s with OpenBLAS)")
	}
	a := aset400(t)
	rng := rand.New(rand.NewPCG(2026, 1))
	cs := append([]data.Comparison(nil), a.Comparisons...)
	rng.Shuffle(len(cs), func(i, j int) { cs[i], cs[j] = cs[j], cs[i] })
	cut := len(cs) * 8 / 10
	train, test := cs[:cut], cs[cut:]
	m, err := mkpoe.FitIdentity(len(a.Names), train, &mkpoe.Settings{Beta: 1000, Tol: 1e-2})
	if err != nil {
		t.Fatal(err)
	}
	trainAcc := eval.Accuracy(train, eval.EmbeddingDistance(m.Train))
	testAcc := eval.Accuracy(test, eval.EmbeddingDistance(m.Train))
	t.Logf("GNMDS β=1000: %d train / %d held-out triplets, dimension %d, train accuracy %.4f, held-out accuracy %.4f, %d iterations, gap %.2g, %.1fs",
		len(train), len(test), m.Dim(), trainAcc, testAcc, m.Stats.Iterations, m.Stats.RelativeGap, m.Stats.Seconds)
	// Random guessing scores 0.5; a fitted GNMDS generalises to held-out
	// comparisons among the same artists (measured: 0.843 held-out, 0.937 train).
	if testAcc < 0.75 || trainAcc < testAcc {
		t.Errorf("held-out accuracy %.4f (train %.4f): want ≥ 0.75 and ≤ train", testAcc, trainAcc)
	}
}

// TestGenreKernelBeatsNative learns KPOE on a genre-label kernel (cosine of
// the 58 genre indicators; artists without genres get identity rows, Sec.
// 5.2.1) over a random 80/20 split of artists, and checks that the learned
// space orders the test comparisons (i in test, j and k in train; Sec. 5.2.2)
// better than the kernel's native space.
func TestGenreKernelBeatsNative(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: a full fit on aset400 (about 60 s)")
	}
	a := aset400(t)
	n := len(a.Names)
	rng := rand.New(rand.NewPCG(2026, 2))
	perm := rng.Perm(n)
	isTest := make([]bool, n)
	for _, i := range perm[:n/5] {
		isTest[i] = true
	}
	var trainIdx, testIdx []int
	pos := make([]int, n) // index within its side of the split
	for i := 0; i < n; i++ {
		if isTest[i] {
			pos[i] = len(testIdx)
			testIdx = append(testIdx, i)
		} else {
			pos[i] = len(trainIdx)
			trainIdx = append(trainIdx, i)
		}
	}
	labels := func(idx []int) (*mat.Dense, []bool) {
		x := mat.NewDense(len(idx), 58, nil)
		missing := make([]bool, len(idx))
		for r, i := range idx {
			x.SetRow(r, a.GenreLabels.RawRowView(i))
			missing[r] = mat.Sum(x.RowView(r)) == 0
		}
		return x, missing
	}
	trX, trMissing := labels(trainIdx)
	teX, teMissing := labels(testIdx)
	km, err := kernels.Fit(kernels.Linear{}, kernels.Input{Features: trX, Missing: trMissing}, kernels.Options{Normalize: kernels.NormDiag})
	if err != nil {
		t.Fatal(err)
	}
	kTrain := km.Gram()
	rows, err := km.Rows(kernels.Input{Features: teX, Missing: teMissing})
	if err != nil {
		t.Fatal(err)
	}
	// Training comparisons: all items in train, renumbered; test: i in test
	// (numbered after the training items), j and k in train.
	var trainCs, testCs []data.Comparison
	nt := len(trainIdx)
	for _, c := range a.Comparisons {
		switch {
		case !isTest[c.I] && !isTest[c.J] && !isTest[c.L]:
			trainCs = append(trainCs, data.Triplet(pos[c.I], pos[c.J], pos[c.L]))
		case isTest[c.I] && !isTest[c.J] && !isTest[c.L]:
			testCs = append(testCs, data.Triplet(nt+pos[c.I], pos[c.J], pos[c.L]))
		}
	}
	// Native distances on the joint kernel [K_train, rowsᵀ; rows, k(x,x)].
	self := make([]float64, len(testIdx))
	for r := range self {
		self[r] = 1 // unit-diagonal normalisation (missing test items: 1 as well)
	}
	native := func(i, j int) float64 {
		kv := func(a, b int) float64 {
			switch {
			case a < nt && b < nt:
				return kTrain.At(a, b)
			case a >= nt && b >= nt:
				if a == b {
					return self[a-nt]
				}
				return 0 // never needed: test comparisons have one test item
			case a >= nt:
				return rows.At(a-nt, b)
			default:
				return rows.At(b-nt, a)
			}
		}
		return kv(i, i) + kv(j, j) - 2*kv(i, j)
	}
	nativeAcc := eval.Accuracy(testCs, native)
	for _, mode := range []mkpoe.Mode{mkpoe.Diag, mkpoe.Full} {
		m, err := mkpoe.Fit([]mat.Symmetric{kTrain}, trainCs, &mkpoe.Settings{Beta: 100, Mode: mode, Tol: 1e-2})
		if err != nil {
			t.Fatal(err)
		}
		emb, err := m.Embed([]*mat.Dense{rows})
		if err != nil {
			t.Fatal(err)
		}
		all := mat.NewDense(nt+len(testIdx), m.Dim(), nil)
		all.Stack(m.Train, emb)
		acc := eval.Accuracy(testCs, eval.EmbeddingDistance(all))
		t.Logf("genre kernel, %s: %d train / %d test artists, %d train / %d test triplets: native %.4f, learned %.4f (β=100, %d iterations, %.1fs)",
			mode, nt, len(testIdx), len(trainCs), len(testCs), nativeAcc, acc, m.Stats.Iterations, m.Stats.Seconds)
		if acc <= nativeAcc {
			t.Errorf("%s: learned accuracy %.4f does not beat native %.4f", mode, acc, nativeAcc)
		}
	}
}

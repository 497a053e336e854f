package eval

import (
	"fmt"
	"math"

	"github.com/mkpoe/mkpoe/pkg/data"
	"gonum.org/v1/gonum/mat"
)

// Distance returns the squared distance between items i and j.
type Distance func(i, j int) float64

// Accuracy returns the fraction of comparisons (i,j,k,l) in cs with
// d(i,j) < d(k,l) strictly (ties are errors): GAUC of McFee & Lanckriet
// (2011, Appendix C, Eq. 18). It returns 0 for an empty cs. d must accept
// every index in cs.
func Accuracy(cs []data.Comparison, d Distance) float64 {
	if len(cs) == 0 {
		return 0
	}
	correct := 0
	for _, c := range cs {
		if d(c.I, c.J) < d(c.K, c.L) {
			correct++
		}
	}
	return float64(correct) / float64(len(cs))
}

// Outcome is how a distance answers one comparison (i,j,k,l): Right when
// d(i,j) < d(k,l), Tie when they are equal, Wrong otherwise. The paper's
// accuracy counts ties as errors (Appendix C); a tie is no evidence either
// way, so Tally also reports ties counted as one half and the tie rate.
type Outcome byte

// Outcomes, as stored one character per comparison in task files.
const (
	Right Outcome = 'r'
	Tie   Outcome = 't'
	Wrong Outcome = 'w'
)

// Outcomes returns the outcome of every comparison of cs under d.
func Outcomes(cs []data.Comparison, d Distance) []Outcome {
	out := make([]Outcome, len(cs))
	for n, c := range cs {
		a, b := d(c.I, c.J), d(c.K, c.L)
		switch {
		case a < b:
			out[n] = Right
		case a == b:
			out[n] = Tie
		default:
			out[n] = Wrong
		}
	}
	return out
}

// Tally counts outcomes. Its file form, results.Tally, also gives the
// accuracy with ties as one half and the tie rate.
type Tally struct {
	Right int `json:"right"`
	Ties  int `json:"ties"`
	Wrong int `json:"wrong"`
}

// Count tallies os; any byte other than Right and Tie counts as Wrong.
func Count(os []Outcome) Tally {
	var t Tally
	for _, o := range os {
		switch o {
		case Right:
			t.Right++
		case Tie:
			t.Ties++
		default:
			t.Wrong++
		}
	}
	return t
}

func (t Tally) n() float64 { return float64(t.Right + t.Ties + t.Wrong) }

// Accuracy is the paper's accuracy (ties are errors), NaN for no outcome.
func (t Tally) Accuracy() float64 { return nanIfEmpty(t, float64(t.Right)/t.n()) }

func nanIfEmpty(t Tally, v float64) float64 {
	if t.n() == 0 {
		return math.NaN()
	}
	return v
}

// EmbeddingDistance returns the squared Euclidean distance between rows of
// the embedding x (one row per item).
func EmbeddingDistance(x mat.Matrix) Distance {
	return func(i, j int) float64 {
		_, c := x.Dims()
		s := 0.0
		for t := 0; t < c; t++ {
			v := x.At(i, t) - x.At(j, t)
			s += v * v
		}
		return s
	}
}

// NativeDistance returns the squared distance of a kernel's native feature
// space, d(i,j) = K_ii + K_jj − 2K_ij (the "Native" columns of McFee &
// Lanckriet 2011, Tables 1–3).
func NativeDistance(k mat.Symmetric) Distance {
	return func(i, j int) float64 { return k.At(i, i) + k.At(j, j) - 2*k.At(i, j) }
}

// NativeAccuracy is Accuracy in the native space of kernel k. It returns an
// error if a comparison names an item outside k.
func NativeAccuracy(k mat.Symmetric, cs []data.Comparison) (float64, error) {
	if err := data.ValidateComparisons(cs, k.SymmetricDim()); err != nil {
		return 0, fmt.Errorf("eval: %w", err)
	}
	return Accuracy(cs, NativeDistance(k)), nil
}

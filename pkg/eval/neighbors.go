package eval

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// Neighbor is one item of a nearest-neighbour list: its index and its
// squared distance to the query item.
type Neighbor struct {
	Item    int
	Squared float64
}

// Distance returns the (unsquared) distance √Squared. A squared distance
// below zero, which only round-off can give (a native distance
// K_ii + K_jj − 2K_ij of nearly identical items), counts as 0.
func (nb Neighbor) Distance() float64 { return math.Sqrt(math.Max(nb.Squared, 0)) }

// Nearest returns the k items among 0 … n−1, other than q itself, nearest
// to item q under the squared distance d, nearest first. Equal distances
// are ordered by increasing index, so the list is deterministic; tied
// counts the further items, left out of the list, whose distance equals
// the k-th's (a cut inside a tie: the paper's accuracy counts ties as
// errors, Appendix C, so a researcher should see them). q may lie outside
// 0 … n−1: a new item ranked against the n items of a space (d must then
// accept q). With k ≤ 0 or k ≥ the number of candidates, every candidate
// is returned. A NaN distance ranks after every number.
//
// d is a distance of this package: [EmbeddingDistance] on a learned
// embedding g(x) (McFee & Lanckriet 2011, Eq. 13: ‖g(x_i) − g(x_j)‖²,
// with new items embedded out of sample by g(x) = (N⁽ᵖ⁾K⁽ᵖ⁾_x)_p, Sec. 3.2
// and 4.3), or [NativeDistance] / [NativeDistanceNew] in a kernel's own
// feature space. Ranking by squared distance is ranking by distance.
func Nearest(d Distance, n, q, k int) (nn []Neighbor, tied int) {
	all := make([]Neighbor, 0, n)
	for i := 0; i < n; i++ {
		if i != q {
			all = append(all, Neighbor{Item: i, Squared: d(q, i)})
		}
	}
	sort.SliceStable(all, func(a, b int) bool { return before(all[a], all[b]) })
	if k <= 0 || k >= len(all) {
		return all, 0
	}
	last := all[k-1].Squared
	for _, nb := range all[k:] {
		if nb.Squared != last {
			break
		}
		tied++
	}
	return all[:k:k], tied
}

// before orders neighbours by squared distance (NaN last), then by index.
func before(a, b Neighbor) bool {
	an, bn := math.IsNaN(a.Squared), math.IsNaN(b.Squared)
	switch {
	case an != bn:
		return bn
	case !an && a.Squared != b.Squared:
		return a.Squared < b.Squared
	}
	return a.Item < b.Item
}

// NativeDistanceNew is [NativeDistance] over kernel k's n items followed by
// t new items: item n+q is new item q, described by its kernel values
// against the n items, rows.At(q, j) = k(x_q, x_j) (a t×n matrix, the
// kernel rows of mkpoe kernel --test-out), and its self-similarity
// self[q] = k(x_q, x_q). Then
//
//	d(n+q, j) = k(x_q, x_q) + K_jj − 2 k(x_q, x_j) = ‖φ(x_q) − φ(x_j)‖²,
//
// the squared distance in the kernel's feature space (for a sum of kernels,
// Eq. 9, the space of the concatenated feature maps, Sec. 4.1). The rows do
// not give the kernel between two new items, so d(n+q, n+r) is NaN for
// q ≠ r: rank new items against the n items only ([Nearest] with n).
func NativeDistanceNew(k mat.Symmetric, rows mat.Matrix, self []float64) Distance {
	n := k.SymmetricDim()
	return func(i, j int) float64 {
		if i > j {
			i, j = j, i
		}
		switch {
		case j < n:
			return k.At(i, i) + k.At(j, j) - 2*k.At(i, j)
		case i < n: // j is new item j−n
			return self[j-n] + k.At(i, i) - 2*rows.At(j-n, i)
		case i == j:
			return 0
		}
		return math.NaN()
	}
}

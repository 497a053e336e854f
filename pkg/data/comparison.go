package data

import (
	"errors"
	"fmt"
)

// Comparison is a relative comparison (i,j,k,l): "i and j are more similar
// than k and l", that is d(i,j) < d(k,l) in the learned space (McFee &
// Lanckriet 2011, Sec. 2, Eq. 1). In the constraint graph of Sec. 2.1 it is
// the edge from the pair {i,j} to the pair {k,l}. Indices are 0-based.
type Comparison struct {
	I, J, K, L int
}

// Triplet returns the comparison (i,j,i,k): "i is more similar to j than to k".
func Triplet(i, j, k int) Comparison { return Comparison{I: i, J: j, K: i, L: k} }

// IsTriplet reports whether the comparison shares its first item between
// both pairs, (i,j,i,k).
func (c Comparison) IsTriplet() bool { return c.I == c.K }

// Pair is an unordered pair of items, stored with A ≤ B.
type Pair struct{ A, B int }

// NewPair returns the pair {a,b} in canonical order.
func NewPair(a, b int) Pair {
	if a > b {
		a, b = b, a
	}
	return Pair{A: a, B: b}
}

// Left returns the pair {i,j} that the comparison says is closer.
func (c Comparison) Left() Pair { return NewPair(c.I, c.J) }

// Right returns the pair {k,l} that the comparison says is farther apart.
func (c Comparison) Right() Pair { return NewPair(c.K, c.L) }

// Reverse returns the contradicting comparison (k,l,i,j).
func (c Comparison) Reverse() Comparison { return Comparison{I: c.K, J: c.L, K: c.I, L: c.J} }

func (c Comparison) String() string {
	if c.IsTriplet() {
		return fmt.Sprintf("(%d,%d,%d)", c.I, c.J, c.L)
	}
	return fmt.Sprintf("(%d,%d,%d,%d)", c.I, c.J, c.K, c.L)
}

// ErrNoComparisons is returned where at least one comparison is needed.
var ErrNoComparisons = errors.New("data: no comparisons")

// ValidateComparisons checks that every index lies in [0,n) and that no
// comparison compares a pair with itself ({i,j} = {k,l}), which no embedding
// can satisfy. It returns an error naming the first offending comparison by
// its position (0-based) in cs. An empty cs is valid.
func ValidateComparisons(cs []Comparison, n int) error {
	for idx, c := range cs {
		for _, v := range [4]int{c.I, c.J, c.K, c.L} {
			if v < 0 || v >= n {
				return fmt.Errorf("data: comparison %d %v: item index must be in [0,%d), got %d", idx, c, n, v)
			}
		}
		if c.Left() == c.Right() {
			return fmt.Errorf("data: comparison %d %v: its two pairs must differ, got the pair {%d,%d} twice", idx, c, c.I, c.J)
		}
	}
	return nil
}

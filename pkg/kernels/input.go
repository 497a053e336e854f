package kernels

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// Input is the data of one modality for a set of items, training or new.
// Set the field the kernel type reads (see each kernel's doc); the others
// stay nil. All set fields must describe the same number of items.
type Input struct {
	// Features is an n×D matrix, row i is item i (linear, rbf, chi2;
	// tfidf and cf read it as a count matrix when Counts and Sets are nil).
	Features *mat.Dense

	// Counts holds sparse counts: Counts[i][t] is the count of term t
	// (a tag or word id ≥ 0) for item i; absent terms count 0 (tfidf; cf
	// binarises it: count > 0 means "in the set"). A nil or empty map is
	// an item with no terms.
	Counts []map[int]float64

	// Sets holds sparse binary data: Sets[i] lists the ids (≥ 0) of the
	// users associated with item i, in any order; duplicates are ignored
	// (cf).
	Sets [][]int

	// Frames holds one matrix per item, frames×D, one frame (e.g. a
	// delta-MFCC vector) per row (ppk). A missing item may have nil frames.
	Frames []*mat.Dense

	// N is the number of items for kernels that read no data (identity,
	// noise) when no other field is set. If another field is set, N must
	// be 0 or agree with it.
	N int

	// Missing, if not nil, has one entry per item; Missing[i] marks item i
	// as absent from this modality (Sec. 5.2.1 of the paper): its data are
	// ignored and it gets identity rows and columns (training) or a zero
	// row (new items). See the package documentation.
	Missing []bool
}

// Len returns the number of items in the input, or an error if the set
// fields disagree or no field is set.
func (in Input) Len() (int, error) {
	n, from := -1, ""
	check := func(m int, name string) error {
		if n >= 0 && m != n {
			return fmt.Errorf("kernels: Input.%s has %d items but Input.%s has %d; all set fields must describe the same items", name, m, from, n)
		}
		n, from = m, name
		return nil
	}
	if in.Features != nil {
		r, _ := in.Features.Dims()
		if err := check(r, "Features"); err != nil {
			return 0, err
		}
	}
	for _, f := range []struct {
		set  bool
		m    int
		name string
	}{
		{in.Counts != nil, len(in.Counts), "Counts"},
		{in.Sets != nil, len(in.Sets), "Sets"},
		{in.Frames != nil, len(in.Frames), "Frames"},
		{in.N != 0, in.N, "N"},
	} {
		if f.set {
			if err := check(f.m, f.name); err != nil {
				return 0, err
			}
		}
	}
	if n < 0 {
		return 0, fmt.Errorf("kernels: Input is empty: set Features, Counts, Sets, Frames or N")
	}
	if in.N < 0 {
		return 0, fmt.Errorf("kernels: Input.N must be ≥ 0, got %d", in.N)
	}
	if in.Missing != nil && len(in.Missing) != n {
		return 0, fmt.Errorf("kernels: Input.Missing must have one entry per item (%d), got %d", n, len(in.Missing))
	}
	return n, nil
}

// missing reports whether item i is marked missing.
func (in Input) missing(i int) bool { return in.Missing != nil && in.Missing[i] }

// features returns the dense features or an error naming the kernel.
func (in Input) features(kind string) (*mat.Dense, error) {
	if in.Features == nil {
		return nil, fmt.Errorf("kernels: %s kernel needs Input.Features (an n×D matrix)", kind)
	}
	return in.Features, nil
}

// sparse is a sparse vector with strictly increasing indices.
type sparse struct {
	idx []int
	val []float64
}

func (s sparse) dot(t sparse) float64 {
	var sum float64
	for a, b := 0, 0; a < len(s.idx) && b < len(t.idx); {
		switch {
		case s.idx[a] < t.idx[b]:
			a++
		case s.idx[a] > t.idx[b]:
			b++
		default:
			sum += s.val[a] * t.val[b]
			a++
			b++
		}
	}
	return sum
}

func (s sparse) norm() float64 {
	var sum float64
	for _, v := range s.val {
		sum += v * v
	}
	return math.Sqrt(sum)
}

// counts returns the per-item sparse counts (zeros dropped), from Counts or,
// if Counts is nil, from the rows of Features. Negative or non-finite counts
// and negative term ids are errors naming the item and term.
func (in Input) counts(kind string) ([]sparse, error) {
	switch {
	case in.Counts != nil:
		out := make([]sparse, len(in.Counts))
		for i, m := range in.Counts {
			if in.missing(i) {
				continue
			}
			s := sparse{idx: make([]int, 0, len(m))}
			for t, c := range m {
				if t < 0 {
					return nil, fmt.Errorf("kernels: %s: Input.Counts[%d] has term id %d; term ids must be ≥ 0", kind, i, t)
				}
				if c < 0 || math.IsNaN(c) || math.IsInf(c, 0) {
					return nil, fmt.Errorf("kernels: %s: counts must be finite and ≥ 0, got %v for item %d, term %d", kind, c, i, t)
				}
				if c > 0 {
					s.idx = append(s.idx, t)
				}
			}
			sort.Ints(s.idx)
			s.val = make([]float64, len(s.idx))
			for a, t := range s.idx {
				s.val[a] = m[t]
			}
			out[i] = s
		}
		return out, nil
	case in.Features != nil:
		r, c := in.Features.Dims()
		out := make([]sparse, r)
		for i := 0; i < r; i++ {
			if in.missing(i) {
				continue
			}
			var s sparse
			for t := 0; t < c; t++ {
				v := in.Features.At(i, t)
				if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("kernels: %s: counts must be finite and ≥ 0, got %v at row %d, column %d (0-based)", kind, v, i, t)
				}
				if v > 0 {
					s.idx = append(s.idx, t)
					s.val = append(s.val, v)
				}
			}
			out[i] = s
		}
		return out, nil
	}
	return nil, fmt.Errorf("kernels: %s kernel needs Input.Counts or Input.Features (a count matrix)", kind)
}

// sets returns the per-item sorted, deduplicated id sets, from Sets or, if
// Sets is nil, from Counts or Features binarised (count > 0 is membership).
func (in Input) sets(kind string) ([][]int, error) {
	if in.Sets == nil {
		cs, err := in.counts(kind)
		if err != nil {
			return nil, fmt.Errorf("%w (or Input.Sets)", err)
		}
		out := make([][]int, len(cs))
		for i, s := range cs {
			out[i] = s.idx
		}
		return out, nil
	}
	out := make([][]int, len(in.Sets))
	for i, s := range in.Sets {
		if in.missing(i) {
			continue
		}
		u := append([]int(nil), s...)
		sort.Ints(u)
		k := 0
		for a, id := range u {
			if id < 0 {
				return nil, fmt.Errorf("kernels: %s: Input.Sets[%d] has id %d; ids must be ≥ 0", kind, i, id)
			}
			if a == 0 || id != u[a-1] {
				u[k] = id
				k++
			}
		}
		out[i] = u[:k]
	}
	return out, nil
}

// Subset returns the items idx of the input, in that order (e.g. the
// training items of a fold, Sec. 5: kernels are fitted on training items
// only). Rows and maps are shared with in, not copied, except Features.
func (in Input) Subset(idx []int) Input {
	var out Input
	if in.Features != nil {
		_, d := in.Features.Dims()
		out.Features = mat.NewDense(len(idx), d, nil)
		for r, i := range idx {
			out.Features.SetRow(r, in.Features.RawRowView(i))
		}
	}
	if in.Counts != nil {
		out.Counts = make([]map[int]float64, len(idx))
		for r, i := range idx {
			out.Counts[r] = in.Counts[i]
		}
	}
	if in.Sets != nil {
		out.Sets = make([][]int, len(idx))
		for r, i := range idx {
			out.Sets[r] = in.Sets[i]
		}
	}
	if in.Frames != nil {
		out.Frames = make([]*mat.Dense, len(idx))
		for r, i := range idx {
			out.Frames[r] = in.Frames[i]
		}
	}
	if in.Missing != nil {
		out.Missing = make([]bool, len(idx))
		for r, i := range idx {
			out.Missing[r] = in.Missing[i]
		}
	}
	if in.Features == nil && in.Counts == nil && in.Sets == nil && in.Frames == nil {
		out.N = len(idx)
	}
	return out
}

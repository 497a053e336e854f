package kernels

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// cosineFit is a raw cosine kernel between sparse vectors. By definition the
// training diagonal and the self-similarities of new items are 1, and the
// cosine with a zero vector is 0 (so a zero vector behaves like a missing
// item: an identity row and column).
type cosineFit struct {
	vecs  []sparse // training vectors (empty for missing items)
	norms []float64
	// embed maps new-item input to vectors in the training space.
	embed func(test Input) ([]sparse, error)
}

func newCosineFit(vecs []sparse, embed func(Input) ([]sparse, error)) *cosineFit {
	c := &cosineFit{vecs: vecs, norms: make([]float64, len(vecs)), embed: embed}
	for i, v := range vecs {
		c.norms[i] = v.norm()
	}
	return c
}

func cosine(a, b sparse, na, nb float64) float64 {
	if na == 0 || nb == 0 {
		return 0
	}
	return a.dot(b) / (na * nb)
}

func (c *cosineFit) Gram() *mat.SymDense {
	n := len(c.vecs)
	g := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		g.SetSym(i, i, 1)
		for j := i + 1; j < n; j++ {
			g.SetSym(i, j, cosine(c.vecs[i], c.vecs[j], c.norms[i], c.norms[j]))
		}
	}
	return g
}

func (c *cosineFit) Cross(test Input) (*mat.Dense, []float64, error) {
	vs, err := c.embed(test)
	if err != nil {
		return nil, nil, err
	}
	rows := mat.NewDense(len(vs), len(c.vecs), nil)
	self := make([]float64, len(vs))
	for r, v := range vs {
		self[r] = 1
		nv := v.norm()
		for j, u := range c.vecs {
			rows.Set(r, j, cosine(v, u, nv, c.norms[j]))
		}
	}
	return rows, self, nil
}

// TFIDF is the cosine similarity between TF-IDF weighted bag-of-words vectors
// (Sec. 5.2.1, social tags and biography kernels: "the cosine similarity
// (linear kernel) between TF-IDF vectors"). The paper does not give the TF-IDF
// variant; we use raw counts for TF and the unsmoothed logarithmic IDF:
//
//	w_i(t)   = c_i(t) · idf(t),   idf(t) = log(N / df(t))
//	k(i, j)  = w_iᵀw_j / (‖w_i‖ ‖w_j‖)
//
// where c_i(t) is the count of term t for item i, N the number of present
// training items and df(t) the number of present training items with
// c(t) > 0. IDF comes from the training items only: for new items, terms
// never seen in training have weight 0, and terms in every training item also
// have weight 0. The cosine with a zero weight vector is 0, and K_ii = 1 for
// every training item (so an item with no informative terms gets an identity
// row and column, as a missing item does).
//
// It reads [Input.Counts] or, if that is nil, [Input.Features] as an n×V
// count matrix. Counts must be finite and ≥ 0. There are no parameters.
type TFIDF struct{}

// Fit implements [Kernel].
func (TFIDF) Fit(train Input) (Fitted, error) {
	cs, err := train.counts("tfidf")
	if err != nil {
		return nil, err
	}
	df := make(map[int]int)
	present := 0
	for i, s := range cs {
		if train.missing(i) {
			continue
		}
		present++
		for _, t := range s.idx {
			df[t]++
		}
	}
	f := &TFIDFFit{IDF: make(map[int]float64, len(df))}
	for t, d := range df {
		f.IDF[t] = math.Log(float64(present) / float64(d))
	}
	f.cosineFit = newCosineFit(f.weigh(cs), func(test Input) ([]sparse, error) {
		cs, err := test.counts("tfidf")
		if err != nil {
			return nil, err
		}
		return f.weigh(cs), nil
	})
	return f, nil
}

// TFIDFFit is a fitted [TFIDF] kernel. IDF maps each term seen in the present
// training items to log(N / df(t)); it must not be modified.
type TFIDFFit struct {
	*cosineFit
	IDF map[int]float64
}

// weigh returns the TF-IDF vectors of counts, dropping zero weights.
func (f *TFIDFFit) weigh(cs []sparse) []sparse {
	out := make([]sparse, len(cs))
	for i, s := range cs {
		var w sparse
		for a, t := range s.idx {
			if v := s.val[a] * f.IDF[t]; v != 0 {
				w.idx = append(w.idx, t)
				w.val = append(w.val, v)
			}
		}
		out[i] = w
	}
	return out
}

// Cosine is the cosine between binary membership vectors, used for
// collaborative filtering (Sec. 5.2.1: "the cosine of the angle between
// corresponding rows" of the binary artist×user matrix):
//
//	k(i, j) = |U_i ∩ U_j| / sqrt(|U_i| |U_j|)
//
// where U_i is the set of users associated with item i. The cosine with an
// empty set is 0, and K_ii = 1 for every training item, so an item with no
// users gets an identity row and column, the paper's rule for the 5 artists
// missing from the CF graph. Users of new items that no training item has
// count in |U_x| but never in an intersection; no training statistic is used.
//
// It reads [Input.Sets] or, if that is nil, [Input.Counts] or
// [Input.Features] binarised (a count > 0 is membership; e.g. Last.fm play
// counts). There are no parameters.
type Cosine struct{}

// Fit implements [Kernel].
func (Cosine) Fit(train Input) (Fitted, error) {
	ss, err := train.sets("cf")
	if err != nil {
		return nil, err
	}
	embed := func(test Input) ([]sparse, error) {
		ss, err := test.sets("cf")
		if err != nil {
			return nil, err
		}
		return binary(ss), nil
	}
	return newCosineFit(binary(ss), embed), nil
}

func binary(ss [][]int) []sparse {
	out := make([]sparse, len(ss))
	for i, s := range ss {
		out[i] = sparse{idx: s, val: make([]float64, len(s))}
		for a := range out[i].val {
			out[i].val[a] = 1
		}
	}
	return out
}

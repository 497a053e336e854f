package data

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/mat"
)

// ALOI is the ALOI-10 multi-view feature set: 1079 images of 10 objects of
// the Amsterdam Library of Object Images (Geusebroek et al. 2005), four
// precomputed feature views. McFee & Lanckriet (2011, Sec. 5.1) built their
// taxonomy experiment on 10 ALOI classes × 20 images, but from the raw
// images (grayscale linear kernel and red/green/blue/intensity histograms),
// which we do not have; these views are our substitute (docs/datasets.md).
// Row i of every view is image i.
type ALOI struct {
	Views     []*mat.Dense // 1079×64, 1079×64, 1079×77, 1079×13
	ViewNames []string     // file names of the views, without ".tsv"
	Labels    []int        // class label of each image, 1..10
}

// ALOIViewFiles are the view files of ../shared/data/aloi10, in view order:
// RGB colour histogram (rows sum to 1), HSV colour histogram (rows sum to 1),
// colour similarity, and Haralick-like texture, which is unnormalised (range
// about −1.8e4..3.4e13): standardise it with [ColumnMeanStd] on the training
// rows and [Standardise] before building a kernel.
var ALOIViewFiles = []string{"view1_64d_hist_sum1.tsv", "view2_64d_hist_sum1.tsv", "view3_77d.tsv", "view4_13d_haralick_like.tsv"}

// ALOI label and subset file names.
const (
	ALOILabelsFile = "labels.tsv"
	ALOISubsetFile = "subset_10x20_row_indices.tsv"
)

// LoadALOI reads labels.tsv and the view files [ALOIViewFiles] from dir and
// checks that every view has one row per label. Ragged rows and
// non-numbers are [*FileError]s naming file, line and value.
func LoadALOI(dir string) (*ALOI, error) {
	path := filepath.Join(dir, ALOILabelsFile)
	lm, lines, err := readMatrixFileLines(path)
	if err != nil {
		return nil, err
	}
	n, c := lm.Dims()
	if c != 1 {
		return nil, &FileError{File: path, Line: 1, Rule: "labels file must hold one label per line", Value: fmt.Sprintf("%d values", c)}
	}
	d := &ALOI{Labels: make([]int, n)}
	for i := range n {
		x := lm.At(i, 0)
		if x != math.Trunc(x) || x < 1 || x > math.MaxInt32 {
			e := &FileError{File: path, Rule: "labels must be positive integers", Value: fmt.Sprintf("%g in data row %d", x, i+1)}
			if lines != nil {
				e.Line, e.Col, e.Value = lines[i], 1, strconv.FormatFloat(x, 'g', -1, 64)
			}
			return nil, e
		}
		d.Labels[i] = int(x)
	}
	for _, f := range ALOIViewFiles {
		path := filepath.Join(dir, f)
		x, err := ReadMatrixFile(path)
		if err != nil {
			return nil, err
		}
		if r, _ := x.Dims(); r != n {
			return nil, &FileError{File: path, Rule: fmt.Sprintf("view must have one row per label in %s (%d)", ALOILabelsFile, n), Value: fmt.Sprintf("%d rows", r)}
		}
		d.Views = append(d.Views, x)
		d.ViewNames = append(d.ViewNames, f[:len(f)-len(filepath.Ext(f))])
	}
	return d, nil
}

// SamplePerClass draws perClass items of every class without replacement
// and returns their indices in increasing order: the "10 object classes, 20
// examples each" selection of McFee & Lanckriet (2011, Sec. 5.1). Classes
// are visited in increasing label order and each draws from rng in turn, so
// the result depends only on labels, perClass and the state of rng; use
// rand.New(rand.NewPCG(seed, seed)) for a seeded choice. A class with fewer
// than perClass items, perClass < 1, or a nil rng is an error.
func SamplePerClass(labels []int, perClass int, rng *rand.Rand) ([]int, error) {
	if perClass < 1 {
		return nil, fmt.Errorf("data: SamplePerClass: perClass must be ≥ 1, got %d", perClass)
	}
	if rng == nil {
		return nil, fmt.Errorf("data: SamplePerClass: rng must not be nil (use rand.New(rand.NewPCG(seed, seed)))")
	}
	byClass := map[int][]int{}
	for i, l := range labels {
		byClass[l] = append(byClass[l], i)
	}
	classes := make([]int, 0, len(byClass))
	for l := range byClass {
		classes = append(classes, l)
	}
	slices.Sort(classes)
	var out []int
	for _, l := range classes {
		members := byClass[l]
		if len(members) < perClass {
			return nil, fmt.Errorf("data: SamplePerClass: class %d must have at least perClass=%d items, got %d", l, perClass, len(members))
		}
		// Partial Fisher–Yates shuffle: the first perClass are a uniform sample.
		for k := 0; k < perClass; k++ {
			r := k + rng.IntN(len(members)-k)
			members[k], members[r] = members[r], members[k]
		}
		out = append(out, members[:perClass]...)
	}
	slices.Sort(out)
	return out, nil
}

// ColumnMeanStd returns the mean and the population standard deviation of
// every column of x over the given rows (all rows if rows is nil), for
// [Standardise]. Pass the training rows only, so that nothing is learned
// from test items. x is not modified. It panics if a row index is out of
// range or rows is empty but not nil.
func ColumnMeanStd(x mat.Matrix, rows []int) (means, stds []float64) {
	r, c := x.Dims()
	if rows == nil {
		rows = make([]int, r)
		for i := range rows {
			rows[i] = i
		}
	}
	if len(rows) == 0 {
		panic("data: ColumnMeanStd: rows must not be empty")
	}
	means = make([]float64, c)
	stds = make([]float64, c)
	for j := 0; j < c; j++ {
		var s float64
		for _, i := range rows {
			s += x.At(i, j)
		}
		m := s / float64(len(rows))
		var v float64
		for _, i := range rows {
			d := x.At(i, j) - m
			v += d * d
		}
		means[j], stds[j] = m, math.Sqrt(v/float64(len(rows)))
	}
	return means, stds
}

// Standardise returns a new matrix with entries (x_ij − means[j]) / stds[j],
// the z-score with given (training) statistics. A column whose std is 0 (or
// not finite) is only centred, so constant training columns map to 0
// instead of NaN. x is not modified. Lengths of means and stds that differ
// from the number of columns are an error.
func Standardise(x mat.Matrix, means, stds []float64) (*mat.Dense, error) {
	r, c := x.Dims()
	if len(means) != c || len(stds) != c {
		return nil, fmt.Errorf("data: Standardise: means and stds must have one value per column (%d), got %d and %d", c, len(means), len(stds))
	}
	out := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			v := x.At(i, j) - means[j]
			if s := stds[j]; s > 0 && !math.IsInf(s, 0) {
				v /= s
			}
			out.Set(i, j, v)
		}
	}
	return out, nil
}

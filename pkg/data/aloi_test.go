package data

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

func TestLoadALOICounts(t *testing.T) {
	d, err := LoadALOI(fetchedData(t, "aloi10"))
	if err != nil {
		t.Fatal(err)
	}
	// Dimensions and class counts from ../shared/data/aloi10/SOURCE.txt.
	for v, want := range []int{64, 64, 77, 13} {
		r, c := d.Views[v].Dims()
		if r != 1079 || c != want {
			t.Errorf("view %d: got %d×%d, want 1079×%d", v+1, r, c, want)
		}
	}
	counts := make([]int, 10)
	for _, l := range d.Labels {
		if l < 1 || l > 10 {
			t.Fatalf("label %d outside 1..10", l)
		}
		counts[l-1]++
	}
	if want := []int{107, 108, 108, 108, 108, 108, 108, 108, 108, 108}; !slices.Equal(counts, want) {
		t.Errorf("class counts: got %v, want %v", counts, want)
	}
	// Views 1 and 2 are histograms: rows sum to 1.
	for v := 0; v < 2; v++ {
		for i := 0; i < 1079; i++ {
			if s := floats.Sum(d.Views[v].RawRowView(i)); math.Abs(s-1) > 1e-6 {
				t.Fatalf("view %d row %d sums to %g, want 1", v+1, i+1, s)
			}
		}
	}
}

func TestReadIndicesFileALOISubset(t *testing.T) {
	dir := fetchedData(t, "aloi10")
	idx, err := ReadIndicesFile(filepath.Join(dir, ALOISubsetFile), 1079)
	if err != nil {
		t.Fatal(err)
	}
	d, err := LoadALOI(dir)
	if err != nil {
		t.Fatal(err)
	}
	per := map[int]int{}
	for _, i := range idx {
		per[d.Labels[i]]++
	}
	if len(idx) != 200 || len(per) != 10 {
		t.Fatalf("got %d indices over %d classes, want 200 over 10", len(idx), len(per))
	}
	for l, n := range per {
		if n != 20 {
			t.Errorf("class %d: %d images, want 20", l, n)
		}
	}
}

func TestSamplePerClassDeterministic(t *testing.T) {
	// 10 classes of sizes 107 and 108 as in ALOI-10, in-code.
	var labels []int
	for c := 1; c <= 10; c++ {
		n := 108
		if c == 1 {
			n = 107
		}
		for range n {
			labels = append(labels, c)
		}
	}
	orig := slices.Clone(labels)
	for _, seed := range []uint64{1, 2, 42} {
		a, err := SamplePerClass(labels, 20, rand.New(rand.NewPCG(seed, seed)))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := SamplePerClass(labels, 20, rand.New(rand.NewPCG(seed, seed)))
		if !slices.Equal(a, b) {
			t.Errorf("seed %d: two draws differ", seed)
		}
		if len(a) != 200 || !slices.IsSorted(a) || len(slices.Compact(slices.Clone(a))) != 200 {
			t.Errorf("seed %d: want 200 distinct sorted indices, got %d", seed, len(a))
		}
		per := map[int]int{}
		for _, i := range a {
			per[labels[i]]++
		}
		for c := 1; c <= 10; c++ {
			if per[c] != 20 {
				t.Errorf("seed %d: class %d has %d, want 20", seed, c, per[c])
			}
		}
		other, _ := SamplePerClass(labels, 20, rand.New(rand.NewPCG(seed+100, seed+100)))
		if slices.Equal(a, other) {
			t.Errorf("seeds %d and %d gave the same subset", seed, seed+100)
		}
	}
	if !slices.Equal(labels, orig) {
		t.Error("SamplePerClass modified labels")
	}
	if _, err := SamplePerClass([]int{1, 1, 2}, 2, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("class 2 has 1 item < 2: want an error")
	}
}

func TestStandardise(t *testing.T) {
	x := mat.NewDense(4, 3, []float64{
		1, 10, 5,
		2, 20, 5,
		3, 30, 5,
		100, 1e13, 7, // a test row, excluded from the statistics
	})
	xc := mat.DenseCopyOf(x)
	means, stds := ColumnMeanStd(x, []int{0, 1, 2})
	// Population statistics of {1,2,3}: mean 2, std sqrt(2/3).
	if !floats.EqualApprox(means, []float64{2, 20, 5}, 1e-12) || !floats.EqualApprox(stds, []float64{math.Sqrt(2.0 / 3), 10 * math.Sqrt(2.0/3), 0}, 1e-12) {
		t.Fatalf("got means %v stds %v", means, stds)
	}
	z, err := Standardise(x, means, stds)
	if err != nil {
		t.Fatal(err)
	}
	s := math.Sqrt(1.5)
	want := mat.NewDense(4, 3, []float64{-s, -s, 0, 0, 0, 0, s, s, 0, 98 * s, (1e13 - 20) / 10 * s, 2})
	if !mat.EqualApprox(z, want, 1e-9) {
		t.Errorf("got\n%v\nwant\n%v", mat.Formatted(z), mat.Formatted(want))
	}
	if !mat.Equal(x, xc) {
		t.Error("Standardise modified its input")
	}
	if _, err := Standardise(x, means[:2], stds); err == nil {
		t.Error("short means: want an error")
	}
}

func TestLoadALOIRaggedRows(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(ALOILabelsFile, "1\n1\n2\n")
	write(ALOIViewFiles[0], "0.5\t0.5\n0.25\t0.75\n1\t0\n")
	write(ALOIViewFiles[1], "0.5\t0.5\n0.25\n1\t0\n") // line 2 is ragged
	write(ALOIViewFiles[2], "1\n2\n3\n")
	write(ALOIViewFiles[3], "1\n2\n3\n")
	_, err := LoadALOI(dir)
	var fe *FileError
	if !errors.As(err, &fe) || fe.File != filepath.Join(dir, ALOIViewFiles[1]) || fe.Line != 2 || fe.Value != "1 values" {
		t.Errorf("got %v, want a FileError for %s line 2 with 1 value", err, ALOIViewFiles[1])
	}
	write(ALOIViewFiles[1], "0.5\t0.5\n0.25\t0.75\n")
	if _, err := LoadALOI(dir); !errors.As(err, &fe) || fe.Value != "2 rows" {
		t.Errorf("got %v, want a FileError about 2 rows", err)
	}
	write(ALOILabelsFile, "# label\n1\n0.5\n2\n") // line 3 is not a label
	if _, err := LoadALOI(dir); !errors.As(err, &fe) || fe.Line != 3 || fe.Col != 1 || fe.Value != "0.5" {
		t.Errorf("got %v, want a FileError for %s:3:1 with value 0.5", err, ALOILabelsFile)
	}
}

package data

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func gd(name string) string { return filepath.Join("testdata", "generic", name) }

func TestLoadDataset(t *testing.T) {
	// A kernel written as .npy, to check both matrix formats.
	npy := filepath.Join(t.TempDir(), "k.npy")
	if err := WriteMatrixFile(npy, mat.NewDiagDense(4, []float64{1, 2, 3, 4})); err != nil {
		t.Fatal(err)
	}
	ds, err := LoadDataset(Spec{
		Items:       gd("items.tsv"),
		Comparisons: gd("comparisons.tsv"),
		Kernels:     []string{gd("kernel.tsv"), npy},
		Features:    []string{gd("features.tsv")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ds.IDs, []string{"lemon1", "lemon2", "pear1", "sneaker1"}) || ds.Names[0] != "Lemon #1" {
		t.Errorf("items: got %v %v", ds.IDs, ds.Names)
	}
	if want := []Comparison{Triplet(0, 1, 2), Triplet(0, 2, 3), Triplet(1, 0, 2)}; !slices.Equal(ds.Comparisons, want) {
		t.Errorf("comparisons: got %v, want %v", ds.Comparisons, want)
	}
	if !slices.Equal(ds.ComparisonLines, []int{2, 3, 4}) {
		t.Errorf("lines: got %v", ds.ComparisonLines)
	}
	if len(ds.Kernels) != 2 || ds.Kernels[1].At(3, 3) != 4 || len(ds.Features) != 1 {
		t.Errorf("got %d kernels, %d features", len(ds.Kernels), len(ds.Features))
	}

	byID, err := LoadDataset(Spec{Items: gd("items.tsv"), Comparisons: gd("comparisons_ids.tsv"), ByID: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := []Comparison{Triplet(0, 1, 2), Triplet(0, 2, 3)}; !slices.Equal(byID.Comparisons, want) {
		t.Errorf("by id: got %v, want %v", byID.Comparisons, want)
	}
}

func TestLoadDatasetErrors(t *testing.T) {
	for _, test := range []struct {
		name string
		spec Spec
		// wantFile, wantLine, wantValue describe the expected *FileError;
		// msg is a substring of the message.
		wantFile  string
		wantLine  int
		wantValue string
		msg       string
	}{
		{"unknown id", Spec{Items: gd("items.tsv"), Comparisons: gd("comparisons_unknown_id.tsv"), ByID: true},
			gd("comparisons_unknown_id.tsv"), 2, `"apple1"`, "id listed in the items file " + gd("items.tsv")},
		{"index beyond items", Spec{Items: gd("items.tsv"), Comparisons: gd("comparisons_out_of_range.tsv")},
			gd("comparisons_out_of_range.tsv"), 2, `"4"`, "lists 4 items"},
		{"duplicate id", Spec{Items: gd("items_dup.tsv"), Comparisons: gd("comparisons.tsv")},
			gd("items_dup.tsv"), 3, `"a"`, "first seen on line 1"},
		{"ragged features", Spec{Items: gd("items.tsv"), Comparisons: gd("comparisons.tsv"), Features: []string{gd("features_ragged.tsv")}},
			gd("features_ragged.tsv"), 3, "1 values", "ragged"},
		{"feature rows", Spec{Items: gd("items.tsv"), Comparisons: gd("comparisons.tsv"), Features: []string{gd("features_3rows.tsv")}},
			gd("features_3rows.tsv"), 0, "3 rows", "must have 4 rows"},
		{"kernel not square", Spec{Items: gd("items.tsv"), Comparisons: gd("comparisons.tsv"), Kernels: []string{gd("features.tsv")}},
			gd("features.tsv"), 0, "4 rows × 2 columns", "square"},
		{"kernel size", Spec{Items: gd("items.tsv"), Comparisons: gd("comparisons.tsv"), Kernels: []string{gd("kernel_3x3.tsv")}},
			gd("kernel_3x3.tsv"), 0, "3×3", "kernel must be 4×4"},
	} {
		t.Run(test.name, func(t *testing.T) {
			_, err := LoadDataset(test.spec)
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v, want a *FileError", err)
			}
			if fe.File != test.wantFile || fe.Line != test.wantLine || fe.Value != test.wantValue || !strings.Contains(err.Error(), test.msg) {
				t.Errorf("got %q (file %s, line %d, value %s), want file %s, line %d, value %s, containing %q",
					err, fe.File, fe.Line, fe.Value, test.wantFile, test.wantLine, test.wantValue, test.msg)
			}
		})
	}
	_, err := LoadDataset(Spec{Items: gd("no_such_items.tsv"), Comparisons: gd("comparisons.tsv")})
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "no_such_items.tsv") {
		t.Errorf("missing items file: got %v", err)
	}
}

func TestReadIndicesFileErrors(t *testing.T) {
	_, err := ReadIndicesFile(gd("comparisons.tsv"), 0)
	var fe *FileError
	if !errors.As(err, &fe) || fe.Line != 2 || fe.Value != "3 fields" {
		t.Errorf("got %v, want a FileError at line 2 about 3 fields", err)
	}
}

package data

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestReadComparisonsFormats(t *testing.T) {
	for _, test := range []struct {
		name, text string
		opt        ComparisonOptions
		want       []Comparison
		format     ComparisonFormat
	}{
		{"tabs, triplets, comment", "# header comment\n0\t1\t2\n\n3\t2\t1 # trailing\n", ComparisonOptions{},
			[]Comparison{{0, 1, 0, 2}, {3, 2, 3, 1}}, ComparisonFormat{Arity: 3, Separator: "\t"}},
		{"commas, quadruples, header", "i,j,k,l\n0,1,2,3\n1,2,0,3\n", ComparisonOptions{},
			[]Comparison{{0, 1, 2, 3}, {1, 2, 0, 3}}, ComparisonFormat{Arity: 4, Separator: ",", Header: []string{"i", "j", "k", "l"}}},
		{"one-based, spaces, mixed arity", "1 2 3\n4 3 2 1\n", ComparisonOptions{OneBased: true},
			[]Comparison{{0, 1, 0, 2}, {3, 2, 1, 0}}, ComparisonFormat{Arity: 4, OneBased: true, Separator: " "}},
	} {
		t.Run(test.name, func(t *testing.T) {
			cf, err := ReadComparisons(strings.NewReader(test.text), "x.tsv", test.opt)
			if err != nil {
				t.Fatal(err)
			}
			if len(cf.Comparisons) != len(test.want) {
				t.Fatalf("got %v, want %v", cf.Comparisons, test.want)
			}
			for i := range test.want {
				if cf.Comparisons[i] != test.want[i] {
					t.Errorf("comparison %d: got %v, want %v", i, cf.Comparisons[i], test.want[i])
				}
			}
			f := cf.Format
			if f.Arity != test.format.Arity || f.OneBased != test.format.OneBased || f.Separator != test.format.Separator || strings.Join(f.Header, ",") != strings.Join(test.format.Header, ",") {
				t.Errorf("format %+v, want %+v", f, test.format)
			}
			// Round trip through WriteComparisons.
			var buf bytes.Buffer
			if err := WriteComparisons(&buf, cf.Comparisons, cf.Format); err != nil {
				t.Fatal(err)
			}
			back, err := ReadComparisons(&buf, "back", test.opt)
			if err != nil {
				t.Fatal(err)
			}
			for i := range test.want {
				if back.Comparisons[i] != test.want[i] {
					t.Errorf("round trip %d: got %v", i, back.Comparisons[i])
				}
			}
		})
	}
}

func TestReadComparisonsErrors(t *testing.T) {
	for _, test := range []struct {
		name, text string
		opt        ComparisonOptions
		line, col  int
		rule       string
	}{
		{"two fields", "0 1 2\n0 1\n", ComparisonOptions{}, 2, 0, "3 or 4 fields"},
		{"not an integer", "0 1 2\n0 x 2\n", ComparisonOptions{}, 2, 2, "integer"},
		{"out of range", "0 1 5\n", ComparisonOptions{N: 5}, 1, 3, "must be < 5"},
		{"zero in a one-based file", "0 1 2\n", ComparisonOptions{OneBased: true}, 1, 1, "must be >= 1"},
		{"same pair", "0 1 1 0\n", ComparisonOptions{}, 1, 0, "two pairs must differ"},
	} {
		t.Run(test.name, func(t *testing.T) {
			_, err := ReadComparisons(strings.NewReader(test.text), "c.tsv", test.opt)
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a *FileError", err)
			}
			if fe.File != "c.tsv" || fe.Line != test.line || fe.Col != test.col || !strings.Contains(fe.Rule, test.rule) {
				t.Errorf("got %+v, want line %d col %d rule containing %q", fe, test.line, test.col, test.rule)
			}
		})
	}
}

// writeNPY writes a 2-d array by hand: dtype "<f4" or "<f8", C or Fortran order.
func writeNPY(t *testing.T, path, dtype string, fortran bool, rows, cols int, vals []float64) {
	t.Helper()
	order := "False"
	if fortran {
		order = "True"
	}
	header := "{'descr': '" + dtype + "', 'fortran_order': " + order + ", 'shape': (" + itoa(rows) + ", " + itoa(cols) + "), }"
	for (10+len(header)+1)%64 != 0 {
		header += " "
	}
	header += "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(header)))
	b.WriteString(header)
	for _, v := range vals {
		if dtype == "<f4" {
			binary.Write(&b, binary.LittleEndian, math.Float32bits(float32(v)))
		} else {
			binary.Write(&b, binary.LittleEndian, math.Float64bits(v))
		}
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestReadMatrixNPY(t *testing.T) {
	dir := t.TempDir()
	want := mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6})
	// C order stores rows; Fortran order stores columns.
	cases := []struct {
		name, dtype string
		fortran     bool
		vals        []float64
	}{
		{"f8 C", "<f8", false, []float64{1, 2, 3, 4, 5, 6}},
		{"f4 C", "<f4", false, []float64{1, 2, 3, 4, 5, 6}},
		{"f8 Fortran", "<f8", true, []float64{1, 4, 2, 5, 3, 6}},
		{"f4 Fortran", "<f4", true, []float64{1, 4, 2, 5, 3, 6}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, "m"+itoa(i)+".npy")
			writeNPY(t, p, c.dtype, c.fortran, 2, 3, c.vals)
			m, err := ReadMatrixFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if !mat.Equal(m, want) {
				t.Errorf("got %v, want %v", mat.Formatted(m), mat.Formatted(want))
			}
		})
	}
	// Round trip through WriteMatrixFile (.npy and text).
	for _, name := range []string{"w.npy", "w.tsv"} {
		p := filepath.Join(dir, name)
		if err := WriteMatrixFile(p, want); err != nil {
			t.Fatal(err)
		}
		m, err := ReadMatrixFile(p)
		if err != nil || !mat.Equal(m, want) {
			t.Errorf("%s: round trip gave %v, %v", name, m, err)
		}
	}
	// NaN in a .npy file is reported with its position.
	p := filepath.Join(dir, "nan.npy")
	writeNPY(t, p, "<f8", false, 1, 2, []float64{1, math.NaN()})
	if _, err := ReadMatrixFile(p); err == nil || !strings.Contains(err.Error(), "row 1, column 2") {
		t.Errorf("NaN in npy: error %v", err)
	}
	// An int array is refused with its dtype.
	p = filepath.Join(dir, "int.npy")
	writeNPY(t, p, "<i8", false, 1, 1, []float64{0})
	if _, err := ReadMatrixFile(p); err == nil || !strings.Contains(err.Error(), "<i8") {
		t.Errorf("int npy: error %v", err)
	}
}

func TestKernelChecks(t *testing.T) {
	sym, err := KernelFromDense(mat.NewDense(2, 2, []float64{2, 1, 1 + 1e-9, 2}), "k")
	if err != nil || sym.At(0, 1) != 1+0.5e-9 {
		t.Errorf("a kernel symmetric within tolerance is accepted and symmetrised: %v, %v", sym, err)
	}
	if _, err := KernelFromDense(mat.NewDense(2, 2, []float64{2, 1, 1.1, 2}), "k"); err == nil || !strings.Contains(err.Error(), "symmetric") {
		t.Errorf("non-symmetric kernel: %v", err)
	}
	if _, err := ReadKernelRowsFile(writeTemp(t, "1 2 3\n"), 2); err == nil || !strings.Contains(err.Error(), "one value per training item (2)") {
		t.Errorf("kernel rows of the wrong width: %v", err)
	}
}

func writeTemp(t *testing.T, content string) string {
	p := filepath.Join(t.TempDir(), "f.tsv")
	os.WriteFile(p, []byte(content), 0o644)
	return p
}

package data

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// readMatFile reads the MAT-file at path (ReadMat on its bytes).
func readMatFile(path string) (map[string]*MatVar, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ReadMat(b, path)
}

func TestReadMatFileAset400Triplets(t *testing.T) {
	dir := fetchedData(t, "aset400")
	vars, err := readMatFile(filepath.Join(dir, "original", "music_triplets.mat"))
	if err != nil {
		t.Fatal(err)
	}
	v := vars["triplets"]
	if v == nil || v.Class != MatDouble || len(v.Dims) != 2 || v.Dims[0] != 9107 || v.Dims[1] != 3 {
		t.Fatalf("triplets: got %+v, want double 9107×3", v)
	}
	m, err := v.Dense()
	if err != nil {
		t.Fatal(err)
	}
	cf, err := ReadComparisonsFile(filepath.Join(dir, Aset400TripletsFile), ComparisonOptions{OneBased: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(cf.Comparisons) != 9107 {
		t.Fatalf("triplets.tsv: %d comparisons, want 9107", len(cf.Comparisons))
	}
	for r, c := range cf.Comparisons {
		// Exact: both hold small integers.
		if m.At(r, 0) != float64(c.I+1) || m.At(r, 1) != float64(c.J+1) || m.At(r, 2) != float64(c.L+1) {
			t.Fatalf("row %d: .mat has (%g,%g,%g), triplets.tsv has %v (1-based +1)", r+1, m.At(r, 0), m.At(r, 1), m.At(r, 2), c)
		}
	}
}

func TestReadMatFileALOI(t *testing.T) {
	dir := fetchedData(t, "aloi10")
	vars, err := readMatFile(filepath.Join(dir, "original", "ALOI_UIMC.mat"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := LoadALOI(dir)
	if err != nil {
		t.Fatal(err)
	}
	x := vars["X"]
	if x == nil || x.Class != MatCell || len(x.Cells) != 4 {
		t.Fatalf("X: got %+v, want a 1×4 cell", x)
	}
	for v, cell := range x.Cells {
		m, err := cell.Dense() // d×1079, MATLAB orientation
		if err != nil {
			t.Fatal(err)
		}
		// The TSVs were written with %.10g: compare at a relative 1e-9.
		r, c := m.Dims()
		if vr, vc := d.Views[v].Dims(); vr != c || vc != r {
			t.Fatalf("view %d: .mat is %d×%d, tsv is %d×%d (transposed)", v+1, r, c, vr, vc)
		}
		for i := 0; i < c; i++ {
			for j := 0; j < r; j++ {
				a, b := m.At(j, i), d.Views[v].At(i, j)
				if !scalar.EqualWithinAbsOrRel(a, b, 1e-300, 1e-9) {
					t.Fatalf("view %d: row %d col %d: .mat %.17g, tsv %.17g", v+1, i+1, j+1, a, b)
				}
			}
		}
	}
	truth := vars["truth"]
	if truth == nil || len(truth.Data) != 1079 {
		t.Fatalf("truth: got %+v, want 1079 labels", truth)
	}
	for i, l := range d.Labels {
		if truth.Data[i] != float64(l) {
			t.Fatalf("label %d: .mat %g, labels.tsv %d", i+1, truth.Data[i], l)
		}
	}
}

// TestReadMatFileV73 reads music_labels.mat (HDF5) and checks it against
// the curators' genre_labels.tsv and genre_names.txt value for value.
func TestReadMatFileV73(t *testing.T) {
	dir := fetchedData(t, "aset400")
	vars, err := readMatFile(filepath.Join(dir, "original", "music_labels.mat"))
	if err != nil {
		t.Fatal(err)
	}
	lm := vars["label_matrix"]
	if lm == nil || lm.Class != MatUint8 || !lm.Logical || len(lm.Dims) != 2 || lm.Dims[0] != 412 || lm.Dims[1] != 58 {
		t.Fatalf("label_matrix: got %+v, want logical 412×58", lm)
	}
	names := vars["lablist"]
	if names == nil || names.Class != MatCell || len(names.Cells) != 58 || names.Dims[0] != 58 || names.Dims[1] != 1 {
		t.Fatalf("lablist: got %+v, want a 58×1 cell", names)
	}
	a, err := LoadAset400(dir)
	if err != nil {
		t.Fatal(err)
	}
	for g, c := range names.Cells {
		want := a.GenreNames[g]
		if g == 0 {
			want = "r&amp;b" // stored HTML-escaped; prepare decodes it
		}
		if c.Class != MatChar || c.String() != want {
			t.Errorf("lablist{%d}: got %q (class %v), want %q", g+1, c.String(), c.Class, want)
		}
	}
	m, err := lm.Dense()
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(m, a.GenreLabels) {
		t.Error("label_matrix differs from genre_labels.tsv")
	}
	if got := mat.Sum(m); got != mat.Sum(a.GenreLabels) || got == 0 {
		t.Errorf("label_matrix holds %g ones, genre_labels.tsv %g", got, mat.Sum(a.GenreLabels))
	}
}

// matElement encodes one data element with 8-byte padding.
func matElement(bo binary.ByteOrder, typ uint32, data []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, bo, typ)
	binary.Write(&b, bo, uint32(len(data)))
	b.Write(data)
	for b.Len()%8 != 0 {
		b.WriteByte(0)
	}
	return b.Bytes()
}

// TestReadMatSynthetic reads a hand-built big-endian, uncompressed file with
// an int16-stored double matrix and a logical vector, byte layout per the
// MAT-File Format, Ch. 1.
func TestReadMatSynthetic(t *testing.T) {
	bo := binary.BigEndian
	header := make([]byte, 128)
	copy(header, "MATLAB 5.0 MAT-file, synthetic test")
	for i := 36; i < 124; i++ {
		header[i] = ' '
	}
	header[124], header[125] = 0x01, 0x00
	copy(header[126:], "MI")
	array := func(class uint32, flags uint32, name string, dims []int32, typ uint32, values []byte) []byte {
		var body bytes.Buffer
		fl := make([]byte, 8)
		bo.PutUint32(fl, class|flags)
		body.Write(matElement(bo, miUINT32, fl))
		db := make([]byte, 4*len(dims))
		for i, d := range dims {
			bo.PutUint32(db[4*i:], uint32(d))
		}
		body.Write(matElement(bo, miINT32, db))
		body.Write(matElement(bo, miINT8, []byte(name)))
		body.Write(matElement(bo, typ, values))
		return matElement(bo, miMATRIX, body.Bytes())
	}
	// A = [1 -2 3; 4 5 -6] stored column-major as int16.
	var vals []byte
	for _, x := range []int16{1, 4, -2, 5, 3, -6} {
		vals = bo.AppendUint16(vals, uint16(x))
	}
	file := append(header, array(uint32(MatDouble), 0, "A", []int32{2, 3}, miINT16, vals)...)
	file = append(file, array(uint32(MatUint8), 0x0200, "flag", []int32{1, 2}, miUINT8, []byte{1, 0})...)
	vars, err := ReadMat(file, "synthetic.mat")
	if err != nil {
		t.Fatal(err)
	}
	a, err := vars["A"].Dense()
	if err != nil {
		t.Fatal(err)
	}
	if want := mat.NewDense(2, 3, []float64{1, -2, 3, 4, 5, -6}); !mat.Equal(a, want) {
		t.Errorf("A: got %v, want %v", mat.Formatted(a), mat.Formatted(want))
	}
	if f := vars["flag"]; f == nil || !f.Logical || f.Data[0] != 1 || f.Data[1] != 0 {
		t.Errorf("flag: got %+v, want logical [1 0]", f)
	}

	// Truncated: the miMATRIX tag claims more bytes than are left.
	if _, err := ReadMat(file[:len(file)-20], "short.mat"); err == nil || !strings.Contains(err.Error(), "short.mat") {
		t.Errorf("truncated file: got %v, want an error naming short.mat", err)
	}
}

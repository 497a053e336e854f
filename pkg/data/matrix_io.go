package data

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sbinet/npyio"
	"gonum.org/v1/gonum/mat"
)

// SymmetryTolerance is the relative tolerance of the kernel symmetry check:
// |K_ij − K_ji| must not exceed SymmetryTolerance·max_ab |K_ab|.
const SymmetryTolerance = 1e-6

// IsNPY reports whether path names a NumPy .npy file (by extension).
func IsNPY(path string) bool { return strings.EqualFold(filepath.Ext(path), ".npy") }

// ReadMatrixFile reads a dense matrix from a text file (rows of numbers) or a
// NumPy .npy file (float64 or float32, C or Fortran order, 1 or 2 dimensions;
// a 1-d array is a column).
// Ragged rows, non-numbers, NaN and ±Inf are errors naming line and column.
func ReadMatrixFile(path string) (*mat.Dense, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("data: reading matrix: %w", err)
	}
	defer f.Close()
	if IsNPY(path) {
		return readNPY(f, path)
	}
	return ReadMatrix(f, path)
}

// ReadMatrix reads a text matrix: one row per line, numbers separated by
// whitespace, commas or tabs, '#' comments. name is used in messages.
func ReadMatrix(r io.Reader, name string) (*mat.Dense, error) {
	m, _, err := readMatrixLines(r, name)
	return m, err
}

// readMatrixLines is [ReadMatrix] that also returns the 1-based file line
// of every row, for messages about a row's meaning (e.g. a frames file's
// item index).
func readMatrixLines(r io.Reader, name string) (*mat.Dense, []int, error) {
	var data []float64
	var lines []int
	cols, rows := -1, 0
	err := scanLines(bufio.NewReader(r), func(tl textLine) error {
		if cols < 0 {
			cols = len(tl.fields)
		} else if len(tl.fields) != cols {
			return fileErr(name, tl.num, 0, fmt.Sprintf("every row must have the same number of values as the first row (%d); ragged rows", cols), "%d values", len(tl.fields))
		}
		for _, f := range tl.fields {
			x, err := strconv.ParseFloat(f.text, 64)
			if err != nil {
				return fileErr(name, tl.num, f.col, "value must be a number", "%q", f.text)
			}
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fileErr(name, tl.num, f.col, "value must be finite", "%q", f.text)
			}
			data = append(data, x)
		}
		rows++
		lines = append(lines, tl.num)
		return nil
	})
	if err != nil {
		if _, ok := err.(*FileError); ok {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("data: reading %s: %w", name, err)
	}
	if rows == 0 {
		return nil, nil, &FileError{File: name, Rule: "matrix file must hold at least one row of numbers", Value: "an empty file"}
	}
	return mat.NewDense(rows, cols, data), lines, nil
}

// readNPY reads a .npy matrix. The whole file is read first, so that the
// data's length can be checked against the header's shape before anything
// is allocated; a malformed header that makes the npyio library panic is
// reported as an invalid file.
func readNPY(r io.Reader, name string) (m *mat.Dense, err error) {
	invalid := func(v any) error {
		return &FileError{File: name, Rule: "must be a valid NumPy .npy file", Value: fmt.Sprint(v)}
	}
	defer func() {
		if p := recover(); p != nil {
			m, err = nil, invalid(p)
		}
	}()
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("data: reading %s: %w", name, err)
	}
	// The header's length is checked against the file before npyio reads
	// it (it would allocate whatever the length field says: 2 GB for a
	// damaged one).
	if len(b) < 10 || string(b[:6]) != "\x93NUMPY" {
		return nil, invalid("no .npy magic (\\x93NUMPY) and version at the start")
	}
	hlen, start := int(binary.LittleEndian.Uint16(b[8:10])), 10
	switch b[6] {
	case 1:
	case 2, 3:
		if len(b) < 12 {
			return nil, invalid("file ends inside the header length")
		}
		hlen, start = int(binary.LittleEndian.Uint32(b[8:12])), 12
	default:
		return nil, invalid(fmt.Sprintf("format version %d.%d", b[6], b[7]))
	}
	if hlen > len(b)-start {
		return nil, invalid(fmt.Sprintf("a header of %d bytes in a file of %d bytes", hlen, len(b)))
	}
	br := bytes.NewReader(b)
	nr, err := npyio.NewReader(br)
	if err != nil {
		return nil, invalid(err)
	}
	switch nr.Header.Descr.Type {
	case "<f8", "<f4", "f8", "f4", "=f8", "=f4":
	default:
		return nil, &FileError{File: name, Rule: "NumPy array must have dtype float64 or float32 (little-endian)", Value: fmt.Sprintf("%q", nr.Header.Descr.Type)}
	}
	shape := nr.Header.Descr.Shape
	if len(shape) == 1 {
		shape = []int{shape[0], 1}
	}
	if len(shape) != 2 || shape[0] <= 0 || shape[1] <= 0 {
		return nil, &FileError{File: name, Rule: "NumPy array must be a non-empty matrix (1 or 2 dimensions)", Value: fmt.Sprintf("shape %v", nr.Header.Descr.Shape)}
	}
	size := 8
	if strings.HasSuffix(nr.Header.Descr.Type, "f4") {
		size = 4
	}
	// The data must be exactly rows×cols values (checked by division, so
	// that a huge shape cannot overflow).
	if data := br.Len(); data%size != 0 || data/size/shape[1] != shape[0] || (data/size)%shape[1] != 0 {
		return nil, &FileError{File: name, Rule: fmt.Sprintf("NumPy array data must hold shape %v of %d-byte values", nr.Header.Descr.Shape, size),
			Value: fmt.Sprintf("%d bytes of data", data)}
	}
	rows, cols := shape[0], shape[1]
	vals := make([]float64, rows*cols)
	var err2 error
	if strings.HasSuffix(nr.Header.Descr.Type, "f4") {
		var v []float32
		if err2 = nr.Read(&v); err2 == nil {
			for i, x := range v {
				vals[i] = float64(x)
			}
		}
	} else {
		err2 = nr.Read(&vals)
	}
	if err2 != nil || len(vals) != rows*cols {
		return nil, &FileError{File: name, Rule: "NumPy array data must be readable", Value: fmt.Sprint(err2)}
	}
	m = mat.NewDense(rows, cols, nil)
	for k, x := range vals {
		if nr.Header.Descr.Fortran {
			m.Set(k%rows, k/rows, x)
		} else {
			m.Set(k/cols, k%cols, x)
		}
	}
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			if x := m.At(i, j); math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, &FileError{File: name, Rule: "value must be finite", Value: fmt.Sprintf("%v at row %d, column %d", x, i+1, j+1)}
			}
		}
	}
	return m, nil
}

// ReadKernelFile reads an n×n kernel matrix (text or .npy) and checks that it
// is square and symmetric within [SymmetryTolerance] relative to its largest
// entry; the returned matrix is the exact symmetric part (K+Kᵀ)/2.
// Positive semi-definiteness is not required here (the solver works on the
// kernel's positive spectrum; see mkpoe.Fit).
func ReadKernelFile(path string) (*mat.SymDense, error) {
	m, err := ReadMatrixFile(path)
	if err != nil {
		return nil, err
	}
	return KernelFromDense(m, path)
}

// KernelFromDense checks that m is square and symmetric (see
// [ReadKernelFile]) and returns its symmetric part. name is used in messages.
func KernelFromDense(m mat.Matrix, name string) (*mat.SymDense, error) {
	r, c := m.Dims()
	if r != c {
		return nil, &FileError{File: name, Rule: "kernel matrix must be square", Value: fmt.Sprintf("%d rows × %d columns", r, c)}
	}
	scale := 0.0
	for i := 0; i < r; i++ {
		for j := 0; j < r; j++ {
			scale = math.Max(scale, math.Abs(m.At(i, j)))
		}
	}
	k := mat.NewSymDense(r, nil)
	for i := 0; i < r; i++ {
		for j := i; j < r; j++ {
			a, b := m.At(i, j), m.At(j, i)
			if math.Abs(a-b) > SymmetryTolerance*scale {
				return nil, &FileError{File: name, Line: i + 1, Col: j + 1,
					Rule:  fmt.Sprintf("kernel matrix must be symmetric (|K_ij − K_ji| ≤ %g·max|K| = %.3g)", SymmetryTolerance, SymmetryTolerance*scale),
					Value: fmt.Sprintf("K[%d][%d] = %g but K[%d][%d] = %g", i+1, j+1, a, j+1, i+1, b)}
			}
			k.SetSym(i, j, (a+b)/2)
		}
	}
	return k, nil
}

// ReadKernelRowsFile reads the out-of-sample kernel rows of t new items
// against n training items: a t×n matrix (text or .npy).
func ReadKernelRowsFile(path string, n int) (*mat.Dense, error) {
	m, err := ReadMatrixFile(path)
	if err != nil {
		return nil, err
	}
	if _, c := m.Dims(); c != n {
		return nil, &FileError{File: path, Line: 1, Rule: fmt.Sprintf("kernel rows must have one value per training item (%d)", n), Value: fmt.Sprintf("%d values", c)}
	}
	return m, nil
}

// CheckSameSize checks that kernels all have the same size; names label them
// in the message (names[i] belongs to ks[i]).
func CheckSameSize(ks []mat.Symmetric, names []string) error {
	for i := 1; i < len(ks); i++ {
		if ks[i].SymmetricDim() != ks[0].SymmetricDim() {
			return &FileError{File: names[i], Rule: fmt.Sprintf("all kernels must have the same size as %s (%d×%d)", names[0], ks[0].SymmetricDim(), ks[0].SymmetricDim()),
				Value: fmt.Sprintf("%d×%d", ks[i].SymmetricDim(), ks[i].SymmetricDim())}
		}
	}
	return nil
}

// WriteMatrixFile writes m to path: as NumPy .npy (float64, C order) when
// the path ends in .npy, else as tab-separated text with full precision.
func WriteMatrixFile(path string, m mat.Matrix) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("data: writing matrix: %w", err)
	}
	if IsNPY(path) {
		err = npyio.Write(f, mat.DenseCopyOf(m))
	} else {
		err = WriteMatrix(f, m)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("data: writing %s: %w", path, err)
	}
	return nil
}

// WriteMatrix writes m as tab-separated text, one row per line, with the
// shortest decimal form that reads back exactly.
func WriteMatrix(w io.Writer, m mat.Matrix) error {
	bw := bufio.NewWriter(w)
	r, c := m.Dims()
	buf := make([]byte, 0, 32)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if j > 0 {
				bw.WriteByte('\t')
			}
			buf = strconv.AppendFloat(buf[:0], m.At(i, j), 'g', -1, 64)
			bw.Write(buf)
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

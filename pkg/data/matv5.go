package data

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/mat"
)

// This file is a minimal reader of MATLAB Level 5 MAT-files (the format
// MATLAB writes with save -v6 and -v7), enough to read the original
// distribution files of the data sets (aset400 music_triplets.mat and
// ALOI_UIMC.mat), from which `mkpoe data prepare` derives the text files
// the loaders read. v7.3 files (HDF5) are read by matv73.go.
//
// We write our own rather than depend on a module: the pure-Go readers found
// (florianl/matf, sbinet/matfio, scigolib/matlab) are either unmaintained or
// young and pre-1.0, and the subset we need is about 300 lines.
//
// References:
//
//	MathWorks, "MAT-File Format", version 7 (2022), Ch. 1 "Level 5 MAT-File
//	Format": 128-byte header; data elements with an 8-byte tag (or a 4-byte
//	"small data element" tag); miMATRIX = 14, miCOMPRESSED = 15 (a zlib
//	stream holding one data element); array flags, dimensions, name, then
//	the real part (stored in any numeric type) or, for cells, one miMATRIX
//	per element in column-major order.

// MatClass is the MATLAB array class of a [MatVar] (mxDOUBLE_CLASS, ...).
type MatClass int

// MATLAB array classes (MAT-File Format, Table 1-3).
const (
	MatCell   MatClass = 1
	MatStruct MatClass = 2
	MatObject MatClass = 3
	MatChar   MatClass = 4
	MatSparse MatClass = 5
	MatDouble MatClass = 6
	MatSingle MatClass = 7
	MatInt8   MatClass = 8
	MatUint8  MatClass = 9
	MatInt16  MatClass = 10
	MatUint16 MatClass = 11
	MatInt32  MatClass = 12
	MatUint32 MatClass = 13
	MatInt64  MatClass = 14
	MatUint64 MatClass = 15
)

var matClassNames = map[MatClass]string{
	MatCell: "cell", MatStruct: "struct", MatObject: "object", MatChar: "char", MatSparse: "sparse",
	MatDouble: "double", MatSingle: "single", MatInt8: "int8", MatUint8: "uint8", MatInt16: "int16",
	MatUint16: "uint16", MatInt32: "int32", MatUint32: "uint32", MatInt64: "int64", MatUint64: "uint64",
}

func (c MatClass) String() string {
	if s, ok := matClassNames[c]; ok {
		return s
	}
	return fmt.Sprintf("class(%d)", int(c))
}

// MatVar is a variable of a MAT-file, or an element of a cell array.
type MatVar struct {
	Name    string   // variable name; "" for cell elements
	Class   MatClass // numeric class, MatChar or MatCell
	Logical bool     // the array is a MATLAB logical (stored as uint8)
	Dims    []int    // MATLAB dimensions, at least 2
	// Data holds the values of a numeric, logical or char array converted to
	// float64, in MATLAB's column-major order: element (r,c) of an m×n array
	// is Data[c*m+r]. Every integer class fits float64 exactly except
	// (u)int64 values beyond 2^53.
	Data []float64
	// Cells holds the elements of a cell array, column-major; nil otherwise.
	Cells []*MatVar
}

// Dense returns a 2-D numeric or logical variable as an r×c matrix (MATLAB
// orientation, converted to row-major). It returns an error for cells, chars,
// arrays with more than 2 dimensions and empty arrays.
func (v *MatVar) Dense() (*mat.Dense, error) {
	if v.Class == MatCell || v.Class == MatChar {
		return nil, fmt.Errorf("data: MAT variable %q: a matrix must be numeric or logical, got class %v", v.Name, v.Class)
	}
	if len(v.Dims) != 2 || v.Dims[0] == 0 || v.Dims[1] == 0 {
		return nil, fmt.Errorf("data: MAT variable %q: a matrix must be non-empty and 2-D, got dimensions %v", v.Name, v.Dims)
	}
	r, c := v.Dims[0], v.Dims[1]
	m := mat.NewDense(r, c, nil)
	for j := 0; j < c; j++ {
		for i := 0; i < r; i++ {
			m.Set(i, j, v.Data[j*r+i])
		}
	}
	return m, nil
}

// String returns the value of a char array (UTF-16 code units or bytes
// read as runes); "" for other classes.
func (v *MatVar) String() string {
	if v.Class != MatChar {
		return ""
	}
	rs := make([]rune, len(v.Data))
	for i, x := range v.Data {
		rs[i] = rune(x)
	}
	return string(rs)
}

// ReadMat reads the variables of a MAT-file from its bytes b, keyed by
// name: a MATLAB Level 5 file (v6 or v7, compressed or not) or a v7.3 file
// (HDF5, within the subset described in matv73.go). It supports numeric,
// logical and char arrays and cell arrays of them; structs, objects, sparse
// and complex arrays are errors naming the variable, and so is any HDF5
// structure outside the subset. name (the file's, say) is used in messages.
func ReadMat(b []byte, name string) (map[string]*MatVar, error) {
	if bytes.HasPrefix(b, []byte("MATLAB 7.3 MAT-file")) || !bytes.HasPrefix(b, []byte("MATLAB 5.0")) && isHDF5(b) {
		return readMatV73(b, name)
	}
	if len(b) < 128 {
		return nil, &FileError{File: name, Rule: "a Level 5 MAT-file must start with a 128-byte header", Value: fmt.Sprintf("%d bytes", len(b))}
	}
	var bo binary.ByteOrder
	switch string(b[126:128]) {
	case "IM":
		bo = binary.LittleEndian
	case "MI":
		bo = binary.BigEndian
	default:
		return nil, &FileError{File: name, Rule: "MAT-file endian indicator must be \"IM\" or \"MI\"", Value: fmt.Sprintf("%q", b[126:128])}
	}
	p := &matParser{bo: bo, name: name}
	vars := map[string]*MatVar{}
	rest := b[128:]
	for len(rest) > 0 {
		if len(rest) < 8 {
			// Trailing padding shorter than a tag.
			break
		}
		typ, data, next, err := p.element(rest)
		if err != nil {
			return nil, err
		}
		rest = next
		if typ == miCOMPRESSED {
			zr, err := zlib.NewReader(bytes.NewReader(data))
			if err != nil {
				return nil, p.errf("compressed element must be a zlib stream: %v", err)
			}
			raw, err := io.ReadAll(zr)
			if err != nil {
				return nil, p.errf("compressed element must inflate: %v", err)
			}
			typ, data, _, err = p.element(raw)
			if err != nil {
				return nil, err
			}
		}
		if typ != miMATRIX {
			continue // MAT-files may hold other top-level elements; skip them
		}
		v, err := p.matrix(data)
		if err != nil {
			return nil, err
		}
		vars[v.Name] = v
	}
	return vars, nil
}

// MAT-file data types (MAT-File Format, Table 1-1).
const (
	miINT8       = 1
	miUINT8      = 2
	miINT16      = 3
	miUINT16     = 4
	miINT32      = 5
	miUINT32     = 6
	miSINGLE     = 7
	miDOUBLE     = 9
	miINT64      = 12
	miUINT64     = 13
	miMATRIX     = 14
	miCOMPRESSED = 15
	miUTF8       = 16
	miUTF16      = 17
	miUTF32      = 18
)

type matParser struct {
	bo   binary.ByteOrder
	name string
}

func (p *matParser) errf(format string, args ...any) error {
	return &FileError{File: p.name, Rule: "MAT-file must be well formed", Value: fmt.Sprintf(format, args...)}
}

// element splits the data element at the start of b into its type and data
// and returns the bytes after it (after 8-byte padding, except after an
// miCOMPRESSED element, which is not padded).
func (p *matParser) element(b []byte) (typ uint32, data, rest []byte, err error) {
	if len(b) < 8 {
		return 0, nil, nil, p.errf("data element tag truncated (%d bytes left)", len(b))
	}
	w := p.bo.Uint32(b[:4])
	if w>>16 != 0 {
		// Small data element: 2-byte size, 2-byte type, 4 bytes of data.
		typ, n := w&0xffff, int(w>>16)
		if n > 4 {
			return 0, nil, nil, p.errf("small data element of %d bytes (at most 4)", n)
		}
		return typ, b[4 : 4+n], b[8:], nil
	}
	typ = w
	n := int(p.bo.Uint32(b[4:8]))
	if n < 0 || 8+n > len(b) {
		return 0, nil, nil, p.errf("data element of type %d claims %d bytes, %d left", typ, n, len(b)-8)
	}
	end := 8 + n
	if typ != miCOMPRESSED {
		end = min(len(b), (end+7)&^7)
	}
	return typ, b[8 : 8+n], b[end:], nil
}

// matrix parses the body of an miMATRIX element.
func (p *matParser) matrix(b []byte) (*MatVar, error) {
	if len(b) == 0 {
		// An empty miMATRIX element stands for an empty array (e.g. {} cells).
		return &MatVar{Class: MatDouble, Dims: []int{0, 0}}, nil
	}
	typ, flags, rest, err := p.element(b)
	if err != nil {
		return nil, err
	}
	if typ != miUINT32 || len(flags) != 8 {
		return nil, p.errf("array flags must be 8 bytes of uint32, got type %d, %d bytes", typ, len(flags))
	}
	f0 := p.bo.Uint32(flags[:4])
	v := &MatVar{Class: MatClass(f0 & 0xff), Logical: f0&0x0200 != 0}
	complexFlag := f0&0x0800 != 0
	typ, dims, rest, err := p.element(rest)
	if err != nil {
		return nil, err
	}
	if typ != miINT32 || len(dims)%4 != 0 || len(dims) < 8 {
		return nil, p.errf("dimensions must be at least 2 int32 values, got type %d, %d bytes", typ, len(dims))
	}
	total := 1
	for i := 0; i < len(dims); i += 4 {
		d := int(int32(p.bo.Uint32(dims[i:])))
		if d < 0 {
			return nil, p.errf("negative dimension %d", d)
		}
		v.Dims = append(v.Dims, d)
		total *= d
	}
	typ, nm, rest, err := p.element(rest)
	if err != nil {
		return nil, err
	}
	if typ != miINT8 {
		return nil, p.errf("array name must be int8, got type %d", typ)
	}
	v.Name = string(nm)
	label := v.Name
	if label == "" {
		label = "(cell element)"
	}
	switch v.Class {
	case MatCell:
		for i := 0; i < total; i++ {
			var cell []byte
			typ, cell, rest, err = p.element(rest)
			if err != nil {
				return nil, err
			}
			if typ != miMATRIX {
				return nil, p.errf("cell %q element %d must be miMATRIX, got type %d", label, i, typ)
			}
			c, err := p.matrix(cell)
			if err != nil {
				return nil, err
			}
			v.Cells = append(v.Cells, c)
		}
		return v, nil
	case MatStruct, MatObject, MatSparse:
		return nil, &FileError{File: p.name, Rule: "MAT variable class must be numeric, logical, char or cell (this reader is minimal)", Value: fmt.Sprintf("%s of class %v", label, v.Class)}
	}
	if _, ok := matClassNames[v.Class]; !ok {
		return nil, p.errf("variable %s has unknown class %d", label, int(v.Class))
	}
	if complexFlag {
		return nil, &FileError{File: p.name, Rule: "MAT variable must be real (complex arrays are not supported)", Value: label}
	}
	typ, re, _, err := p.element(rest)
	if err != nil {
		return nil, err
	}
	v.Data, err = p.numbers(typ, re)
	if err != nil {
		return nil, err
	}
	if v.Class == MatChar && (typ == miUTF8) {
		// UTF-8 char data: one element per rune, not per byte.
		v.Data = v.Data[:0]
		for _, r := range string(re) {
			v.Data = append(v.Data, float64(r))
		}
	}
	if len(v.Data) != total {
		return nil, p.errf("variable %s has dimensions %v (%d values) but holds %d values", label, v.Dims, total, len(v.Data))
	}
	return v, nil
}

// numbers converts the data of a numeric element to float64.
func (p *matParser) numbers(typ uint32, b []byte) ([]float64, error) {
	size := map[uint32]int{miINT8: 1, miUINT8: 1, miUTF8: 1, miINT16: 2, miUINT16: 2, miUTF16: 2,
		miINT32: 4, miUINT32: 4, miSINGLE: 4, miUTF32: 4, miDOUBLE: 8, miINT64: 8, miUINT64: 8}[typ]
	if size == 0 {
		return nil, p.errf("array data has unsupported type %d", typ)
	}
	if len(b)%size != 0 {
		return nil, p.errf("array data of type %d has %d bytes, not a multiple of %d", typ, len(b), size)
	}
	out := make([]float64, len(b)/size)
	bo := p.bo
	for i := range out {
		s := b[i*size:]
		switch typ {
		case miINT8:
			out[i] = float64(int8(s[0]))
		case miUINT8, miUTF8:
			out[i] = float64(s[0])
		case miINT16:
			out[i] = float64(int16(bo.Uint16(s)))
		case miUINT16, miUTF16:
			out[i] = float64(bo.Uint16(s))
		case miINT32:
			out[i] = float64(int32(bo.Uint32(s)))
		case miUINT32, miUTF32:
			out[i] = float64(bo.Uint32(s))
		case miSINGLE:
			out[i] = float64(math.Float32frombits(bo.Uint32(s)))
		case miDOUBLE:
			out[i] = math.Float64frombits(bo.Uint64(s))
		case miINT64:
			out[i] = float64(int64(bo.Uint64(s)))
		case miUINT64:
			out[i] = float64(bo.Uint64(s))
		}
	}
	return out, nil
}

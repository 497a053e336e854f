package data

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

// h5builder writes a small HDF5 file the way MATLAB v7.3 lays one out
// (File Format Specification 3.0: superblock v0 behind a 512-byte user
// block, v1 object headers, an old-style root group), so that the reader
// can be tested on structures the real music_labels.mat does not hold:
// contiguous data, several chunks with partial edge chunks, big-endian and
// signed integers, nested cells.
type h5builder struct {
	buf  []byte // addresses are offsets into buf; the file is 512 bytes of user block + buf
	vars []h5entry
}

var le = binary.LittleEndian

func newH5builder() *h5builder { return &h5builder{buf: make([]byte, 96)} } // room for the superblock

// alloc appends data at an 8-byte aligned address and returns the address.
func (b *h5builder) alloc(data []byte) uint64 {
	for len(b.buf)%8 != 0 {
		b.buf = append(b.buf, 0)
	}
	addr := uint64(len(b.buf))
	b.buf = append(b.buf, data...)
	return addr
}

func pad8(b []byte) []byte {
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	return b
}

type h5msg struct {
	typ  uint16
	data []byte
}

// object writes a v1 object header with the messages.
func (b *h5builder) object(msgs ...h5msg) uint64 {
	var body []byte
	for _, m := range msgs {
		d := pad8(append([]byte(nil), m.data...))
		body = le.AppendUint16(body, m.typ)
		body = le.AppendUint16(body, uint16(len(d)))
		body = append(body, 0, 0, 0, 0)
		body = append(body, d...)
	}
	h := []byte{1, 0}
	h = le.AppendUint16(h, uint16(len(msgs)))
	h = le.AppendUint32(h, 1)
	h = le.AppendUint32(h, uint32(len(body)))
	h = append(h, 0, 0, 0, 0)
	return b.alloc(append(h, body...))
}

func dataspaceMsg(dims ...uint64) h5msg {
	d := []byte{1, byte(len(dims)), 0, 0, 0, 0, 0, 0}
	for _, x := range dims {
		d = le.AppendUint64(d, x)
	}
	return h5msg{h5msgDataspace, d}
}

// datatypeMsg: class 0 (integer; bits 0x08 signed, 0x01 big-endian),
// 1 (float), 3 (string) or 7 (reference).
func datatypeMsg(class, bits byte, size uint32) h5msg {
	d := []byte{0x10 | class, bits, 0, 0}
	d = le.AppendUint32(d, size)
	switch class {
	case 0:
		d = append(d, 0, 0, byte(size*8), 0)
	case 1:
		d = append(d, make([]byte, 12)...)
	}
	return h5msg{h5msgDatatype, d}
}

func stringAttrMsg(name, value string) h5msg {
	dt := datatypeMsg(3, 0, uint32(len(value))).data
	ds := []byte{1, 0, 0, 0, 0, 0, 0, 0} // scalar
	d := []byte{1, 0}
	d = le.AppendUint16(d, uint16(len(name)+1))
	d = le.AppendUint16(d, uint16(len(dt)))
	d = le.AppendUint16(d, uint16(len(ds)))
	d = append(d, pad8(append([]byte(name), 0))...)
	d = append(d, pad8(dt)...)
	d = append(d, pad8(ds)...)
	return h5msg{h5msgAttribute, append(d, value...)}
}

func contiguousMsg(addr, size uint64) h5msg {
	d := []byte{3, 1}
	d = le.AppendUint64(d, addr)
	return h5msg{h5msgLayout, le.AppendUint64(d, size)}
}

// dataset writes a contiguous dataset of MATLAB class class.
func (b *h5builder) dataset(name, class string, dt h5msg, raw []byte, dims ...uint64) uint64 {
	addr := b.alloc(raw)
	o := b.object(dataspaceMsg(dims...), dt, contiguousMsg(addr, uint64(len(raw))), stringAttrMsg("MATLAB_class", class))
	if name != "" {
		b.vars = append(b.vars, h5entry{name: name, header: o})
	}
	return o
}

// chunked writes a uint8 dataset of HDF5 dims (rows, cols) in chunks of
// (cr, cc), each deflated.
func (b *h5builder) chunked(name, class string, values []byte, rows, cols, cr, cc uint64) {
	var entries []byte
	n := 0
	for r0 := uint64(0); r0 < rows; r0 += cr {
		for c0 := uint64(0); c0 < cols; c0 += cc {
			chunk := make([]byte, cr*cc) // edge chunks are padded to full size
			for i := uint64(0); i < cr; i++ {
				for j := uint64(0); j < cc; j++ {
					if r0+i < rows && c0+j < cols {
						chunk[i*cc+j] = values[(r0+i)*cols+c0+j]
					}
				}
			}
			var z bytes.Buffer
			zw := zlib.NewWriter(&z)
			zw.Write(chunk)
			zw.Close()
			addr := b.alloc(z.Bytes())
			entries = le.AppendUint32(entries, uint32(z.Len()))
			entries = le.AppendUint32(entries, 0)
			entries = le.AppendUint64(le.AppendUint64(le.AppendUint64(entries, r0), c0), 0)
			entries = le.AppendUint64(entries, addr)
			n++
		}
	}
	entries = append(entries, make([]byte, 8+8*3)...) // the final key
	node := []byte("TREE")
	node = append(node, 1, 0)
	node = le.AppendUint16(node, uint16(n))
	node = le.AppendUint64(le.AppendUint64(node, h5undefined), h5undefined)
	tree := b.alloc(append(node, entries...))
	layout := []byte{3, 2, 3}
	layout = le.AppendUint64(layout, tree)
	layout = le.AppendUint32(le.AppendUint32(le.AppendUint32(layout, uint32(cr)), uint32(cc)), 1)
	filters := []byte{1, 1, 0, 0, 0, 0, 0, 0}
	filters = le.AppendUint16(filters, 1) // deflate
	filters = le.AppendUint16(filters, 0)
	filters = le.AppendUint16(filters, 0)
	filters = le.AppendUint16(filters, 1)
	filters = le.AppendUint32(filters, 6)
	filters = append(filters, 0, 0, 0, 0)
	o := b.object(dataspaceMsg(rows, cols), datatypeMsg(0, 0, 1), h5msg{h5msgLayout, layout}, h5msg{h5msgFilters, filters}, stringAttrMsg("MATLAB_class", class))
	b.vars = append(b.vars, h5entry{name: name, header: o})
}

// file writes the root group (symbol table node, B-tree, local heap) and
// the superblock, and returns the file's bytes.
func (b *h5builder) file() []byte {
	heap := []byte{0}
	for i := range b.vars {
		b.vars[i].nameAt = uint64(len(heap))
		heap = append(heap, b.vars[i].name...)
		heap = append(heap, 0)
	}
	heap = pad8(heap)
	heapData := b.alloc(heap)
	h := []byte("HEAP")
	h = append(h, 0, 0, 0, 0)
	h = le.AppendUint64(h, uint64(len(heap)))
	h = le.AppendUint64(h, h5undefined)
	heapAddr := b.alloc(le.AppendUint64(h, heapData))
	snod := []byte("SNOD")
	snod = append(snod, 1, 0)
	snod = le.AppendUint16(snod, uint16(len(b.vars)))
	for _, e := range b.vars {
		snod = le.AppendUint64(le.AppendUint64(snod, e.nameAt), e.header)
		snod = append(snod, make([]byte, 24)...)
	}
	snodAddr := b.alloc(snod)
	tree := []byte("TREE")
	tree = append(tree, 0, 0)
	tree = le.AppendUint16(tree, 1)
	tree = le.AppendUint64(le.AppendUint64(tree, h5undefined), h5undefined)
	tree = le.AppendUint64(le.AppendUint64(le.AppendUint64(tree, 0), snodAddr), b.vars[len(b.vars)-1].nameAt)
	treeAddr := b.alloc(tree)
	symtab := le.AppendUint64(le.AppendUint64(nil, treeAddr), heapAddr)
	root := b.object(h5msg{h5msgSymbolTable, symtab})

	sb := append([]byte(nil), hdf5Signature...)
	sb = append(sb, 0, 0, 0, 0, 0, 8, 8, 0)
	sb = le.AppendUint16(le.AppendUint16(sb, 4), 16)
	sb = le.AppendUint32(sb, 0)
	sb = le.AppendUint64(sb, 512)
	sb = le.AppendUint64(sb, h5undefined)
	sb = le.AppendUint64(sb, uint64(len(b.buf)))
	sb = le.AppendUint64(sb, h5undefined)
	sb = le.AppendUint64(le.AppendUint64(sb, 0), root)
	sb = le.AppendUint32(le.AppendUint32(sb, 1), 0)
	sb = le.AppendUint64(le.AppendUint64(sb, treeAddr), heapAddr)
	copy(b.buf, sb)
	header := make([]byte, 512)
	copy(header, "MATLAB 7.3 MAT-file, Platform: test, HDF5 schema 1.00 .")
	return append(header, b.buf...)
}

func utf16Bytes(s string) []byte {
	var b []byte
	for _, r := range s {
		b = le.AppendUint16(b, uint16(r))
	}
	return b
}

// synthV73 is a v7.3 file with a 2×3 double (contiguous), a 5×3 logical
// in 2×2 deflated chunks with partial edge chunks, a 1×2 cell of a char
// array and an int16 (big-endian) array, and an empty array.
func synthV73() []byte {
	b := newH5builder()
	var a []byte
	for _, x := range []float64{1, 4, -2.5, 5, 3, -6} { // column-major 2×3
		a = le.AppendUint64(a, math.Float64bits(x))
	}
	b.dataset("A", "double", datatypeMsg(1, 0x20, 8), a, 3, 2)
	// MATLAB 5×3 logical L(i,j) = (i+j)%2, stored as HDF5 (3, 5).
	vals := make([]byte, 15)
	for j := 0; j < 3; j++ {
		for i := 0; i < 5; i++ {
			vals[j*5+i] = byte((i + j) % 2)
		}
	}
	b.chunked("L", "logical", vals, 3, 5, 2, 2)
	name := b.dataset("", "char", datatypeMsg(0, 0, 2), utf16Bytes("Céline"), 6, 1)
	var ints []byte
	for _, x := range []int16{-3, 300} {
		ints = binary.BigEndian.AppendUint16(ints, uint16(x))
	}
	nums := b.dataset("", "int16", datatypeMsg(0, 0x09, 2), ints, 2, 1)
	refs := le.AppendUint64(le.AppendUint64(nil, name), nums)
	b.dataset("C", "cell", datatypeMsg(7, 0, 8), refs, 2, 1)
	empty := b.alloc(le.AppendUint64(le.AppendUint64(nil, 0), 3))
	o := b.object(dataspaceMsg(2), datatypeMsg(0, 0, 8), contiguousMsg(empty, 16), stringAttrMsg("MATLAB_class", "double"),
		h5msg{h5msgAttribute, func() []byte {
			d := []byte{1, 0}
			d = le.AppendUint16(d, uint16(len("MATLAB_empty")+1))
			dt := datatypeMsg(0, 0, 1).data
			d = le.AppendUint16(d, uint16(len(dt)))
			d = le.AppendUint16(d, 8)
			d = append(d, pad8(append([]byte("MATLAB_empty"), 0))...)
			d = append(d, pad8(dt)...)
			d = append(d, 1, 0, 0, 0, 0, 0, 0, 0)
			return append(d, 1)
		}()})
	b.vars = append(b.vars, h5entry{name: "E", header: o})
	return b.file()
}

func TestReadMatV73Synthetic(t *testing.T) {
	vars, err := ReadMat(synthV73(), "synth.mat")
	if err != nil {
		t.Fatal(err)
	}
	if len(vars) != 4 {
		t.Errorf("got %d variables, want A, L, C, E", len(vars))
	}
	a := vars["A"]
	if a == nil || a.Class != MatDouble || a.Dims[0] != 2 || a.Dims[1] != 3 {
		t.Fatalf("A: got %+v, want double 2×3", a)
	}
	m, _ := a.Dense()
	for i, want := range []float64{1, -2.5, 3, 4, 5, -6} { // row-major
		if got := m.At(i/3, i%3); got != want {
			t.Errorf("A(%d,%d) = %g, want %g", i/3+1, i%3+1, got, want)
		}
	}
	l := vars["L"]
	if l == nil || !l.Logical || l.Class != MatUint8 || l.Dims[0] != 5 || l.Dims[1] != 3 {
		t.Fatalf("L: got %+v, want logical 5×3", l)
	}
	lm, _ := l.Dense()
	for i := 0; i < 5; i++ {
		for j := 0; j < 3; j++ {
			if got, want := lm.At(i, j), float64((i+j)%2); got != want {
				t.Errorf("L(%d,%d) = %g, want %g (chunk edges)", i+1, j+1, got, want)
			}
		}
	}
	c := vars["C"]
	if c == nil || c.Class != MatCell || len(c.Cells) != 2 || c.Dims[0] != 1 || c.Dims[1] != 2 {
		t.Fatalf("C: got %+v, want a 1×2 cell", c)
	}
	if s := c.Cells[0]; s.Class != MatChar || s.String() != "Céline" || s.Dims[0] != 1 || s.Dims[1] != 6 {
		t.Errorf("C{1}: got %q %v %v, want char 1×6 \"Céline\"", s.String(), s.Class, s.Dims)
	}
	if n := c.Cells[1]; n.Class != MatInt16 || len(n.Data) != 2 || n.Data[0] != -3 || n.Data[1] != 300 {
		t.Errorf("C{2}: got %v %v, want int16 [-3 300] (big-endian, signed)", n.Class, n.Data)
	}
	if e := vars["E"]; e == nil || len(e.Data) != 0 || len(e.Dims) != 2 || e.Dims[0] != 0 || e.Dims[1] != 3 {
		t.Errorf("E: got %+v, want an empty 0×3 double", e)
	}
}

// TestReadMatV73Errors: damaged files and HDF5 structures outside the
// reader's subset give errors naming the file and what was found.
func TestReadMatV73Errors(t *testing.T) {
	good := synthV73()
	sb := 512 // the superblock
	edit := func(f func(b []byte)) []byte {
		b := append([]byte(nil), good...)
		f(b)
		return b
	}
	for _, tc := range []struct {
		name string
		file []byte
		want string
	}{
		{"superblock v2", edit(func(b []byte) { b[sb+8] = 2 }), "superblock version 2 (reads 0 and 1)"},
		{"4-byte offsets", edit(func(b []byte) { b[sb+13] = 4 }), "4-byte addresses"},
		{"truncated", good[:len(good)-200], "lies outside the file"},
		{"deflate replaced by shuffle", bytes.Replace(good, []byte{1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 6, 0}, []byte{1, 1, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0, 6, 0}, 1), "filter 2 (reads only deflate, 1)"},
		{"struct", bytes.Replace(good, []byte("double"), []byte("struct"), 1), `A of class "struct"`},
		{"cell referencing past the end", func() []byte {
			b := newH5builder()
			b.dataset("C", "cell", datatypeMsg(7, 0, 8), le.AppendUint64(nil, 1<<40), 1, 1)
			return b.file()
		}(), "object header of 16 bytes at address 0x10000000000 lies outside the file"},
		{"no signature", append([]byte("MATLAB 7.3 MAT-file"), make([]byte, 2048)...), "HDF5 signature"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadMat(tc.file, "bad.mat")
			if err == nil || !strings.Contains(err.Error(), "bad.mat") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error naming bad.mat with %q", err, tc.want)
			}
		})
	}
}

// FuzzReadMat: any bytes are read as a MAT-file (v5 or v7.3/HDF5) or
// rejected with an error naming the file, never a panic or a hang; what
// is read is consistent: an array holds as many values (or cells) as its
// dimensions say.
func FuzzReadMat(f *testing.F) {
	f.Add(synthV73())
	b := newH5builder()
	b.chunked("L", "logical", []byte{1, 0, 1, 1, 0, 0}, 2, 3, 2, 2)
	f.Add(b.file())
	v5 := make([]byte, 128)
	copy(v5, "MATLAB 5.0 MAT-file")
	copy(v5[126:], "IM")
	f.Add(append(v5, 14, 0, 0, 0, 8, 0, 0, 0, 6, 0, 0, 0, 8, 0, 0, 0))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 4096 {
			return // keeps the allocations the size limits allow small
		}
		vars, err := ReadMat(b, "f.mat")
		if err != nil {
			if !strings.Contains(err.Error(), "f.mat") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		var check func(v *MatVar)
		check = func(v *MatVar) {
			n := 1
			for _, d := range v.Dims {
				n *= d
			}
			if v.Class == MatCell {
				if len(v.Cells) != n && !(n == 0 && len(v.Cells) == 0) {
					t.Fatalf("%s: cell of dimensions %v holds %d cells", v.Name, v.Dims, len(v.Cells))
				}
				for _, c := range v.Cells {
					if c != v {
						check(c)
					}
				}
				return
			}
			if len(v.Data) != n {
				t.Fatalf("%s: dimensions %v but %d values", v.Name, v.Dims, len(v.Data))
			}
		}
		for _, v := range vars {
			check(v)
		}
	})
}

package data

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// This file is a minimal reader of MATLAB v7.3 MAT-files, which are HDF5
// files behind a 512-byte MATLAB header (the HDF5 "user block"). It reads
// exactly the HDF5 structures that MATLAB writes for numeric, logical and
// char arrays and cell arrays of them, enough for aset400's
// music_labels.mat, and rejects anything else with an error naming the
// file and the structure:
//
//   - superblock version 0 or 1 (HDF5 1.8's default, which MATLAB uses),
//     8-byte addresses and lengths;
//   - version 1 object headers, with continuation blocks;
//   - "old-style" groups: a symbol table message, a version 1 B-tree of
//     symbol table nodes and a local heap of names (the root group only;
//     MATLAB keeps the elements of cell arrays in the group "#refs#", which
//     is reached through object references, not by name);
//   - datasets with a version 1 or 2 dataspace, a fixed-point,
//     floating-point or object-reference datatype, and a version 3 layout
//     that is compact, contiguous, or chunked with a version 1 B-tree whose
//     chunks are stored raw or deflated (filter 1, zlib);
//   - attributes (version 1 to 3) of fixed-point or string type, for
//     MATLAB_class and MATLAB_empty.
//
// We write our own because the module proxy serves no pure-Go HDF5 reader
// (github.com/scigolib/hdf5 is refused) and gonum.org/v1/hdf5 is a cgo
// binding to libhdf5, which would make `go run` need a C toolchain and the
// library; see docs/datasets.md.
//
// Reference: The HDF Group, "HDF5 File Format Specification Version 3.0"
// (superblock, Sec. II.A; v1 B-trees, III.A.1; symbol table nodes, III.B;
// local heaps, III.D; object headers, IV.A; messages 0x0001 dataspace,
// 0x0003 datatype, 0x0008 data layout, 0x000B filter pipeline, 0x000C
// attribute, 0x0010 continuation, 0x0011 symbol table), and MathWorks'
// description of v7.3 files: a MATLAB array is a dataset whose HDF5
// dimensions are the MATLAB dimensions reversed (so its C-order values are
// MATLAB's column-major order), with a string attribute MATLAB_class; a
// cell is a dataset of object references; an empty array has MATLAB_empty
// = 1 and stores its dimensions as its values.

// hdf5Signature starts an HDF5 superblock.
var hdf5Signature = []byte("\x89HDF\r\n\x1a\n")

// isHDF5 reports whether b looks like an HDF5 file with a superblock at one
// of the offsets a reader must search (0, 512, 1024, ...).
func isHDF5(b []byte) bool {
	return hdf5SuperblockOffset(b) >= 0
}

func hdf5SuperblockOffset(b []byte) int {
	for off := 0; off+len(hdf5Signature) <= len(b); off = max(512, 2*off) {
		if bytes.Equal(b[off:off+len(hdf5Signature)], hdf5Signature) {
			return off
		}
	}
	return -1
}

// h5undefined is HDF5's "undefined address".
const h5undefined = math.MaxUint64

// Limits that keep a damaged or hostile file from making the reader loop or
// allocate without bound.
const (
	h5MaxBTreeLevel   = 32  // levels of a v1 B-tree
	h5MaxHeaderBlocks = 256 // object header continuation blocks
	h5MaxCellDepth    = 16  // cells within cells
	h5MaxObjects      = 1 << 16
	h5MaxRank         = 32
	// h5MaxWork bounds the bytes of B-tree nodes, object headers and
	// chunks a file may make the reader go through (a damaged B-tree can
	// point many entries at the same subtree): 64 MiB, about 2000 times
	// what music_labels.mat needs.
	h5MaxWork = 1 << 26
)

// h5file is an HDF5 file being read; addresses are relative to base.
type h5file struct {
	b       []byte
	name    string
	base    uint64
	objects int                // object headers read, against h5MaxObjects
	work    int                // bytes gone through, against h5MaxWork
	vars    map[uint64]*MatVar // arrays read, by object header address
	reading map[uint64]bool    // arrays being read (a reference cycle)
}

// spend counts n bytes of work and fails once the file has made the reader
// go through more than h5MaxWork.
func (h *h5file) spend(n int) error {
	h.work += max(n, 1)
	if h.work > h5MaxWork {
		return h.errf("reading it takes more than %d MiB of B-tree nodes, headers and chunks (a damaged B-tree?)", h5MaxWork>>20)
	}
	return nil
}

// unsupported reports an HDF5 feature outside this reader's subset.
func (h *h5file) unsupported(format string, args ...any) error {
	return &FileError{File: h.name, Rule: "MATLAB v7.3 (HDF5) file must use only what this minimal reader supports (docs/datasets.md)", Value: fmt.Sprintf(format, args...)}
}

// errf reports a damaged file.
func (h *h5file) errf(format string, args ...any) error {
	return &FileError{File: h.name, Rule: "MATLAB v7.3 (HDF5) file must be well formed", Value: fmt.Sprintf(format, args...)}
}

// at returns the n bytes at relative address addr.
func (h *h5file) at(addr, n uint64, what string) ([]byte, error) {
	if addr == h5undefined {
		return nil, h.errf("%s at an undefined address", what)
	}
	start := h.base + addr
	if start < h.base || start > uint64(len(h.b)) || n > uint64(len(h.b))-start {
		return nil, h.errf("%s of %d bytes at address %#x lies outside the file (%d bytes)", what, n, addr, len(h.b))
	}
	return h.b[start : start+n], nil
}

// rest returns the bytes from relative address addr to the end of the file.
func (h *h5file) rest(addr uint64, what string) ([]byte, error) {
	start := h.base + addr
	if addr == h5undefined || start < h.base || start > uint64(len(h.b)) {
		return nil, h.errf("%s at address %#x lies outside the file (%d bytes)", what, addr, len(h.b))
	}
	return h.b[start:], nil
}

// reader decodes little-endian fields from a byte slice and remembers the
// first overrun, so that callers check once.
type h5reader struct {
	b   []byte
	off int
	bad bool
}

func (r *h5reader) take(n int) []byte {
	if r.bad || n < 0 || n > len(r.b)-r.off {
		r.bad = true
		return make([]byte, min(max(n, 0), 8)) // callers check bad before using more
	}
	s := r.b[r.off : r.off+n]
	r.off += n
	return s
}

func (r *h5reader) u8() uint8   { return r.take(1)[0] }
func (r *h5reader) u16() uint16 { return binary.LittleEndian.Uint16(r.take(2)) }
func (r *h5reader) u32() uint32 { return binary.LittleEndian.Uint32(r.take(4)) }
func (r *h5reader) u64() uint64 { return binary.LittleEndian.Uint64(r.take(8)) }
func (r *h5reader) skip(n int)  { r.take(n) }

// readMatV73 reads the variables of a v7.3 MAT-file: the arrays at the
// root of the HDF5 file, keyed by name.
func readMatV73(b []byte, name string) (map[string]*MatVar, error) {
	off := hdf5SuperblockOffset(b)
	if off < 0 {
		return nil, &FileError{File: name, Rule: "an HDF5 file must hold the HDF5 signature at offset 0, 512, 1024, ...", Value: "no signature"}
	}
	h := &h5file{b: b, name: name, vars: map[uint64]*MatVar{}, reading: map[uint64]bool{}}
	r := &h5reader{b: b[off:]}
	r.skip(8)
	version := r.u8()
	if r.bad {
		return nil, h.errf("superblock truncated")
	}
	if version > 1 {
		return nil, h.unsupported("superblock version %d (reads 0 and 1)", version)
	}
	r.skip(3) // free-space, root group entry and reserved versions
	r.skip(1) // shared header message format version
	offsets, lengths := r.u8(), r.u8()
	r.skip(1)
	if offsets != 8 || lengths != 8 {
		return nil, h.unsupported("%d-byte addresses and %d-byte lengths (reads 8 and 8)", offsets, lengths)
	}
	r.skip(4) // group leaf and internal node K
	r.skip(4) // file consistency flags
	if version == 1 {
		r.skip(4) // indexed storage internal node K, reserved
	}
	h.base = r.u64()
	r.skip(8 * 3) // free-space info, end of file, driver information block
	root := h.symbolTableEntry(r)
	if r.bad {
		return nil, h.errf("superblock truncated")
	}
	if h.base != uint64(off) && h.base != 0 {
		return nil, h.errf("base address %#x, superblock at %#x", h.base, off)
	}
	entries, err := h.group(root.header)
	if err != nil {
		return nil, err
	}
	vars := map[string]*MatVar{}
	for _, e := range entries {
		if e.name == "#refs#" || e.name == "#subsystem#" {
			continue // cell elements and MATLAB objects' data, reached by reference
		}
		v, err := h.array(e.header, e.name, 0)
		if err != nil {
			return nil, err
		}
		v.Name = e.name
		vars[e.name] = v
	}
	return vars, nil
}

// h5entry is a symbol table entry: a link name and an object header.
type h5entry struct {
	name   string
	nameAt uint64 // offset of the name in the group's local heap
	header uint64
}

func (h *h5file) symbolTableEntry(r *h5reader) h5entry {
	e := h5entry{nameAt: r.u64(), header: r.u64()}
	r.skip(4 + 4 + 16) // cache type, reserved, scratch pad
	return e
}

// h5object is what this reader keeps of an object header.
type h5object struct {
	addr      uint64
	symtab    []byte // symbol table message (a group)
	dataspace []byte
	datatype  []byte
	layout    []byte
	filters   []byte
	attrs     map[string]h5attr
}

type h5attr struct {
	dtype h5type
	data  []byte
}

// Header message types (File Format Specification, Sec. IV.A.2).
const (
	h5msgNil          = 0x0000
	h5msgDataspace    = 0x0001
	h5msgLinkInfo     = 0x0002
	h5msgDatatype     = 0x0003
	h5msgFillOld      = 0x0004
	h5msgFill         = 0x0005
	h5msgLink         = 0x0006
	h5msgExternal     = 0x0007
	h5msgLayout       = 0x0008
	h5msgGroupInfo    = 0x000A
	h5msgFilters      = 0x000B
	h5msgAttribute    = 0x000C
	h5msgComment      = 0x000D
	h5msgModTimeOld   = 0x000E
	h5msgContinuation = 0x0010
	h5msgSymbolTable  = 0x0011
	h5msgModTime      = 0x0012
	h5msgAttrInfo     = 0x0015
)

// object reads the version 1 object header at addr.
func (h *h5file) object(addr uint64) (*h5object, error) {
	h.objects++
	if h.objects > h5MaxObjects {
		return nil, h.errf("more than %d object headers read", h5MaxObjects)
	}
	prefix, err := h.at(addr, 16, "object header")
	if err != nil {
		return nil, err
	}
	if bytes.HasPrefix(prefix, []byte("OHDR")) {
		return nil, h.unsupported("version 2 object header at %#x (reads version 1)", addr)
	}
	if prefix[0] != 1 {
		return nil, h.errf("object header at %#x has version %d (want 1)", addr, prefix[0])
	}
	nmsgs := int(binary.LittleEndian.Uint16(prefix[2:]))
	size := uint64(binary.LittleEndian.Uint32(prefix[8:]))
	o := &h5object{addr: addr, attrs: map[string]h5attr{}}
	type block struct{ addr, size uint64 }
	blocks := []block{{addr + 16, size}}
	seen := 0
	for len(blocks) > 0 && seen < nmsgs {
		if len(blocks) > h5MaxHeaderBlocks {
			return nil, h.errf("object header at %#x has more than %d continuation blocks", addr, h5MaxHeaderBlocks)
		}
		blk := blocks[0]
		blocks = blocks[1:]
		b, err := h.at(blk.addr, blk.size, "object header block")
		if err != nil {
			return nil, err
		}
		if err := h.spend(len(b)); err != nil {
			return nil, err
		}
		r := &h5reader{b: b}
		for seen < nmsgs && len(b)-r.off >= 8 {
			typ, n, flags := r.u16(), int(r.u16()), r.u8()
			r.skip(3)
			data := r.take(n)
			if r.bad {
				return nil, h.errf("object header at %#x: message of type %#x claims %d bytes, %d left", addr, typ, n, len(b)-r.off)
			}
			seen++
			if flags&0x02 != 0 && typ != h5msgNil {
				return nil, h.unsupported("shared header message of type %#x in the object header at %#x", typ, addr)
			}
			switch typ {
			case h5msgDataspace:
				o.dataspace = data
			case h5msgDatatype:
				o.datatype = data
			case h5msgLayout:
				o.layout = data
			case h5msgFilters:
				o.filters = data
			case h5msgSymbolTable:
				o.symtab = data
			case h5msgContinuation:
				cr := &h5reader{b: data}
				next := block{cr.u64(), cr.u64()}
				if cr.bad {
					return nil, h.errf("object header at %#x: continuation message truncated", addr)
				}
				blocks = append(blocks, next)
			case h5msgAttribute:
				name, a, err := h.attribute(data)
				if err != nil {
					return nil, err
				}
				o.attrs[name] = a
			case h5msgLinkInfo, h5msgLink, h5msgAttrInfo:
				return nil, h.unsupported("new-style group or attribute storage (message type %#x) in the object header at %#x", typ, addr)
			case h5msgExternal:
				return nil, h.unsupported("external data storage in the object header at %#x", addr)
			case h5msgNil, h5msgFillOld, h5msgFill, h5msgGroupInfo, h5msgComment, h5msgModTimeOld, h5msgModTime:
				// Nothing this reader needs.
			default:
				if flags&0x08 != 0 { // "fail if unknown"
					return nil, h.unsupported("message type %#x marked as required in the object header at %#x", typ, addr)
				}
			}
		}
	}
	return o, nil
}

// group lists the entries of the old-style group whose object header is at
// addr, in the order of its B-tree (sorted by name).
func (h *h5file) group(addr uint64) ([]h5entry, error) {
	o, err := h.object(addr)
	if err != nil {
		return nil, err
	}
	if o.symtab == nil {
		return nil, h.unsupported("root group at %#x without a symbol table message (a new-style group)", addr)
	}
	r := &h5reader{b: o.symtab}
	btree, heap := r.u64(), r.u64()
	if r.bad {
		return nil, h.errf("symbol table message truncated at %#x", addr)
	}
	names, err := h.localHeap(heap)
	if err != nil {
		return nil, err
	}
	var entries []h5entry
	err = h.btreeNode(btree, 0, -1, 0, func(child uint64, _ []byte) error {
		es, err := h.symbolTableNode(child)
		if err != nil {
			return err
		}
		entries = append(entries, es...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i := range entries {
		off := entries[i].nameAt
		if off >= uint64(len(names)) {
			return nil, h.errf("link name offset %d outside the local heap (%d bytes)", off, len(names))
		}
		end := bytes.IndexByte(names[off:], 0)
		if end < 0 {
			return nil, h.errf("link name at heap offset %d is not NUL-terminated", off)
		}
		entries[i].name = string(names[off : off+uint64(end)])
	}
	return entries, nil
}

// localHeap returns the data segment of the local heap at addr.
func (h *h5file) localHeap(addr uint64) ([]byte, error) {
	b, err := h.at(addr, 32, "local heap")
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(b, []byte("HEAP")) || b[4] != 0 {
		return nil, h.errf("local heap at %#x must start with \"HEAP\" version 0, got %q version %d", addr, b[:4], b[4])
	}
	size := binary.LittleEndian.Uint64(b[8:])
	data := binary.LittleEndian.Uint64(b[24:])
	return h.at(data, size, "local heap data segment")
}

// btreeNode walks the version 1 B-tree node at addr of the given type (0:
// group nodes, 1: raw data chunks) and calls leaf for each child of its
// leaves with the key before it. want is the level the parent expects (-1
// at the root); dims is the number of offsets in a chunk key (type 1).
// Levels must decrease by one per step, so a damaged tree cannot loop.
func (h *h5file) btreeNode(addr uint64, typ, want, dims int, leaf func(child uint64, key []byte) error) error {
	head, err := h.at(addr, 24, "B-tree node")
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(head, []byte("TREE")) {
		return h.errf("B-tree node at %#x must start with \"TREE\", got %q", addr, head[:4])
	}
	if int(head[4]) != typ {
		return h.errf("B-tree node at %#x has type %d, want %d", addr, head[4], typ)
	}
	level := int(head[5])
	if level > h5MaxBTreeLevel || (want >= 0 && level != want) {
		return h.errf("B-tree node at %#x has level %d, want %d", addr, level, want)
	}
	n := int(binary.LittleEndian.Uint16(head[6:]))
	keySize := 8 // group nodes: an offset into the local heap
	if typ == 1 {
		keySize = 4 + 4 + 8*dims
	}
	if err := h.spend(24 + n*(keySize+8)); err != nil {
		return err
	}
	body, err := h.rest(addr+24, "B-tree node")
	if err != nil {
		return err
	}
	r := &h5reader{b: body}
	for i := 0; i < n; i++ {
		key := r.take(keySize)
		child := r.u64()
		if r.bad {
			return h.errf("B-tree node at %#x with %d entries is truncated", addr, n)
		}
		if level > 0 {
			err = h.btreeNode(child, typ, level-1, dims, leaf)
		} else {
			err = leaf(child, key)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// symbolTableNode returns the entries of the symbol table node at addr.
func (h *h5file) symbolTableNode(addr uint64) ([]h5entry, error) {
	head, err := h.at(addr, 8, "symbol table node")
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(head, []byte("SNOD")) || head[4] != 1 {
		return nil, h.errf("symbol table node at %#x must start with \"SNOD\" version 1, got %q version %d", addr, head[:4], head[4])
	}
	n := int(binary.LittleEndian.Uint16(head[6:]))
	body, err := h.at(addr+8, uint64(n)*40, "symbol table node entries")
	if err != nil {
		return nil, err
	}
	r := &h5reader{b: body}
	entries := make([]h5entry, n)
	for i := range entries {
		entries[i] = h.symbolTableEntry(r)
	}
	return entries, nil
}

// h5type is a decoded datatype message.
type h5type struct {
	class  int // 0 fixed-point, 1 floating-point, 3 string, 7 reference
	size   int // bytes per element
	signed bool
	big    bool // big-endian
}

func (h *h5file) datatype(b []byte) (h5type, error) {
	if len(b) < 8 {
		return h5type{}, h.errf("datatype message of %d bytes (at least 8)", len(b))
	}
	t := h5type{class: int(b[0] & 0x0f), size: int(binary.LittleEndian.Uint32(b[4:]))}
	bits := b[1]
	switch t.class {
	case 0: // fixed-point
		t.big = bits&0x01 != 0
		t.signed = bits&0x08 != 0
		if t.size != 1 && t.size != 2 && t.size != 4 && t.size != 8 {
			return t, h.unsupported("integer datatype of %d bytes", t.size)
		}
	case 1: // floating-point
		if bits&0x40 != 0 {
			return t, h.unsupported("VAX floating-point datatype")
		}
		t.big = bits&0x01 != 0
		if t.size != 4 && t.size != 8 {
			return t, h.unsupported("floating-point datatype of %d bytes", t.size)
		}
	case 3: // string (attributes only)
		if t.size < 0 || t.size > 1<<16 {
			return t, h.errf("string datatype of %d bytes", t.size)
		}
	case 7: // reference
		if bits&0x0f != 0 || t.size != 8 {
			return t, h.unsupported("reference datatype other than an 8-byte object reference (type %d, %d bytes)", bits&0x0f, t.size)
		}
	default:
		return t, h.unsupported("datatype class %d (reads fixed-point, floating-point, string and reference)", t.class)
	}
	return t, nil
}

// dataspace returns the dimensions of a dataspace message (nil for a
// scalar; an empty non-nil slice for a null dataspace).
func (h *h5file) dataspace(b []byte) ([]uint64, error) {
	r := &h5reader{b: b}
	version, rank, flags := r.u8(), int(r.u8()), r.u8()
	switch version {
	case 1:
		r.skip(5)
	case 2:
		if typ := r.u8(); typ == 2 {
			return []uint64{}, nil // null dataspace: no elements
		}
	default:
		return nil, h.unsupported("dataspace message version %d (reads 1 and 2)", version)
	}
	if rank > h5MaxRank {
		return nil, h.errf("dataspace of rank %d (at most %d)", rank, h5MaxRank)
	}
	_ = flags
	var dims []uint64
	for range rank {
		dims = append(dims, r.u64())
	}
	if r.bad {
		return nil, h.errf("dataspace message truncated")
	}
	return dims, nil
}

// attribute decodes an attribute message into its name and value.
func (h *h5file) attribute(b []byte) (string, h5attr, error) {
	r := &h5reader{b: b}
	version := r.u8()
	if version < 1 || version > 3 {
		return "", h5attr{}, h.unsupported("attribute message version %d (reads 1 to 3)", version)
	}
	flags := r.u8()
	nameSize, typeSize, spaceSize := int(r.u16()), int(r.u16()), int(r.u16())
	if version == 3 {
		r.skip(1) // name character set
	}
	if version == 1 {
		flags = 0
	}
	if flags != 0 {
		return "", h5attr{}, h.unsupported("shared attribute datatype or dataspace")
	}
	padded := func(n int) int {
		if version == 1 {
			return (n + 7) &^ 7
		}
		return n
	}
	name := r.take(padded(nameSize))
	dt := r.take(padded(typeSize))
	ds := r.take(padded(spaceSize))
	if r.bad || nameSize < 1 {
		return "", h5attr{}, h.errf("attribute message truncated")
	}
	nm := string(name[:nameSize])
	nm = strings.TrimRight(nm, "\x00")
	t, err := h.datatype(dt[:typeSize])
	if err != nil {
		return "", h5attr{}, fmt.Errorf("%w (attribute %s)", err, nm)
	}
	dims, err := h.dataspace(ds[:spaceSize])
	if err != nil {
		return "", h5attr{}, err
	}
	n, err := h.count(dims, t.size)
	if err != nil {
		return "", h5attr{}, err
	}
	data := r.take(n * t.size)
	if r.bad {
		return "", h5attr{}, h.errf("attribute %s: value truncated", nm)
	}
	return nm, h5attr{dtype: t, data: data}, nil
}

// count returns the number of elements of dims and checks that they fit in
// memory at size bytes each: at most what deflate could inflate the file
// to (1032:1) plus a margin.
func (h *h5file) count(dims []uint64, size int) (int, error) {
	limit := uint64(1032*len(h.b) + 1<<20)
	n := uint64(1)
	for _, d := range dims {
		if d != 0 && n > limit/d {
			return 0, h.errf("dataset dimensions %v too large for a %d-byte file", dims, len(h.b))
		}
		n *= d
	}
	if n*uint64(max(size, 1)) > limit {
		return 0, h.errf("dataset dimensions %v too large for a %d-byte file", dims, len(h.b))
	}
	return int(n), nil
}

// stringAttr returns the value of a string attribute, or "".
func (o *h5object) stringAttr(name string) string {
	a, ok := o.attrs[name]
	if !ok || a.dtype.class != 3 {
		return ""
	}
	return strings.TrimRight(string(a.data), "\x00 ")
}

// intAttr returns the value of a scalar integer attribute, or 0.
func (o *h5object) intAttr(name string) uint64 {
	a, ok := o.attrs[name]
	if !ok || a.dtype.class != 0 || len(a.data) < a.dtype.size {
		return 0
	}
	return h5uint(a.data, a.dtype)
}

func h5uint(b []byte, t h5type) uint64 {
	var bo binary.ByteOrder = binary.LittleEndian
	if t.big {
		bo = binary.BigEndian
	}
	switch t.size {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(bo.Uint16(b))
	case 4:
		return uint64(bo.Uint32(b))
	default:
		return bo.Uint64(b)
	}
}

// matClassByName maps a MATLAB_class attribute to the array class.
var matClassByName = map[string]MatClass{
	"cell": MatCell, "char": MatChar, "double": MatDouble, "single": MatSingle, "logical": MatUint8,
	"int8": MatInt8, "uint8": MatUint8, "int16": MatInt16, "uint16": MatUint16,
	"int32": MatInt32, "uint32": MatUint32, "int64": MatInt64, "uint64": MatUint64,
}

// array reads the MATLAB array stored as the dataset at addr; label names
// it in messages (a variable name or the cell it belongs to).
func (h *h5file) array(addr uint64, label string, depth int) (*MatVar, error) {
	if v, ok := h.vars[addr]; ok {
		return v, nil
	}
	if h.reading[addr] {
		return nil, h.errf("%s: cell references itself (object %#x)", label, addr)
	}
	if depth > h5MaxCellDepth {
		return nil, h.errf("%s: cells nested more than %d deep", label, h5MaxCellDepth)
	}
	h.reading[addr] = true
	defer delete(h.reading, addr)
	o, err := h.object(addr)
	if err != nil {
		return nil, err
	}
	class := o.stringAttr("MATLAB_class")
	if o.symtab != nil {
		return nil, &FileError{File: h.name, Rule: "MAT variable class must be numeric, logical, char or cell (this reader is minimal)", Value: fmt.Sprintf("%s of class %q (an HDF5 group)", label, class)}
	}
	if o.dataspace == nil || o.datatype == nil || o.layout == nil {
		return nil, h.errf("%s: dataset at %#x lacks a dataspace, datatype or layout message", label, addr)
	}
	t, err := h.datatype(o.datatype)
	if err != nil {
		return nil, fmt.Errorf("%w (variable %s)", err, label)
	}
	if t.class == 3 {
		return nil, h.unsupported("%s: a dataset of strings", label)
	}
	dims, err := h.dataspace(o.dataspace)
	if err != nil {
		return nil, err
	}
	raw, err := h.datasetBytes(o, dims, t.size, label)
	if err != nil {
		return nil, err
	}
	v := &MatVar{}
	mc, known := matClassByName[class]
	switch {
	case class == "canonical empty" || o.intAttr("MATLAB_empty") != 0:
		// An empty array stores its MATLAB dimensions as its values.
		v.Class = MatDouble
		if known {
			v.Class = mc
		}
		v.Logical = class == "logical"
		v.Dims = []int{0, 0}
		if t.class == 0 && len(raw) >= 2*t.size && len(raw)%t.size == 0 {
			v.Dims = v.Dims[:0]
			for i := 0; i < len(raw); i += t.size {
				d := h5uint(raw[i:], t)
				if d > math.MaxInt32 {
					return nil, h.errf("%s: empty array dimension %d", label, d)
				}
				v.Dims = append(v.Dims, int(d))
			}
		}
		if !slices.Contains(v.Dims, 0) {
			return nil, h.errf("%s: an empty array (MATLAB_empty) must have a zero dimension, got %v", label, v.Dims)
		}
		h.vars[addr] = v
		return v, nil
	case !known:
		return nil, &FileError{File: h.name, Rule: "MAT variable class must be numeric, logical, char or cell (this reader is minimal)", Value: fmt.Sprintf("%s of class %q", label, class)}
	}
	v.Class, v.Logical = mc, class == "logical"
	// MATLAB dimensions are the HDF5 dimensions reversed, at least two.
	for i := len(dims) - 1; i >= 0; i-- {
		v.Dims = append(v.Dims, int(dims[i]))
	}
	for len(v.Dims) < 2 {
		v.Dims = append(v.Dims, 1)
	}
	if v.Class == MatCell {
		if t.class != 7 {
			return nil, h.errf("%s: a cell must be a dataset of object references, got datatype class %d", label, t.class)
		}
		for i := 0; i+8 <= len(raw); i += 8 {
			ref := binary.LittleEndian.Uint64(raw[i:])
			c, err := h.array(ref, fmt.Sprintf("%s{%d}", label, i/8+1), depth+1)
			if err != nil {
				return nil, err
			}
			v.Cells = append(v.Cells, c)
		}
		h.vars[addr] = v
		return v, nil
	}
	if t.class != 0 && t.class != 1 {
		return nil, h.errf("%s: class %s stored with datatype class %d", label, class, t.class)
	}
	v.Data = h5numbers(raw, t)
	h.vars[addr] = v
	return v, nil
}

// h5numbers converts fixed- or floating-point elements to float64.
func h5numbers(raw []byte, t h5type) []float64 {
	var bo binary.ByteOrder = binary.LittleEndian
	if t.big {
		bo = binary.BigEndian
	}
	out := make([]float64, len(raw)/t.size)
	for i := range out {
		s := raw[i*t.size:]
		switch {
		case t.class == 1 && t.size == 4:
			out[i] = float64(math.Float32frombits(bo.Uint32(s)))
		case t.class == 1:
			out[i] = math.Float64frombits(bo.Uint64(s))
		case !t.signed:
			out[i] = float64(h5uint(s, t))
		case t.size == 1:
			out[i] = float64(int8(s[0]))
		case t.size == 2:
			out[i] = float64(int16(bo.Uint16(s)))
		case t.size == 4:
			out[i] = float64(int32(bo.Uint32(s)))
		default:
			out[i] = float64(int64(bo.Uint64(s)))
		}
	}
	return out
}

// datasetBytes returns the elements of a dataset in C order.
func (h *h5file) datasetBytes(o *h5object, dims []uint64, size int, label string) ([]byte, error) {
	n, err := h.count(dims, size)
	if err != nil {
		return nil, err
	}
	total := n * size
	r := &h5reader{b: o.layout}
	version, class := r.u8(), r.u8()
	if version != 3 {
		return nil, h.unsupported("%s: data layout message version %d (reads 3)", label, version)
	}
	if o.filters != nil && class != 2 {
		return nil, h.errf("%s: filters on a dataset that is not chunked", label)
	}
	switch class {
	case 0: // compact: the data is in the message
		m := int(r.u16())
		data := r.take(m)
		if r.bad || m < total {
			return nil, h.errf("%s: compact data of %d bytes, want %d", label, m, total)
		}
		return data[:total], nil
	case 1: // contiguous
		addr, m := r.u64(), r.u64()
		if r.bad {
			return nil, h.errf("%s: data layout message truncated", label)
		}
		if addr == h5undefined {
			return make([]byte, total), nil // never written: the fill value, 0
		}
		if m < uint64(total) {
			return nil, h.errf("%s: contiguous data of %d bytes, want %d", label, m, total)
		}
		return h.at(addr, uint64(total), label+" data")
	case 2:
		return h.chunked(o, r, dims, size, total, label)
	}
	return nil, h.unsupported("%s: data layout class %d", label, class)
}

// chunked assembles a chunked dataset from its B-tree of chunks.
func (h *h5file) chunked(o *h5object, r *h5reader, dims []uint64, size, total int, label string) ([]byte, error) {
	nd := int(r.u8())
	btree := r.u64()
	if r.bad || nd != len(dims)+1 {
		return nil, h.errf("%s: chunked layout of dimensionality %d for a dataset of rank %d", label, nd, len(dims))
	}
	chunk := make([]uint64, nd)
	for i := range chunk {
		chunk[i] = uint64(r.u32())
	}
	if r.bad || chunk[nd-1] != uint64(size) {
		return nil, h.errf("%s: chunk element size %d, datatype size %d", label, chunk[nd-1], size)
	}
	chunk = chunk[:nd-1]
	chunkBytes, err := h.count(chunk, size)
	if err != nil {
		return nil, err
	}
	chunkBytes *= size
	for _, c := range chunk {
		if c == 0 {
			return nil, h.errf("%s: chunk dimension 0", label)
		}
	}
	deflate, err := h.pipeline(o.filters, label)
	if err != nil {
		return nil, err
	}
	out := make([]byte, total)
	if btree == h5undefined {
		return out, nil // no chunk written: the fill value, 0
	}
	err = h.btreeNode(btree, 1, -1, nd, func(child uint64, key []byte) error {
		kr := &h5reader{b: key}
		stored, mask := kr.u32(), kr.u32()
		offs := make([]uint64, nd-1)
		for i := range offs {
			offs[i] = kr.u64()
			if offs[i] >= dims[i] || offs[i]%chunk[i] != 0 {
				return h.errf("%s: chunk at offset %v outside the dataset %v or off the chunk grid %v", label, offs, dims, chunk)
			}
		}
		b, err := h.at(child, uint64(stored), label+" chunk")
		if err != nil {
			return err
		}
		if deflate && mask&1 == 0 {
			zr, err := zlib.NewReader(bytes.NewReader(b))
			if err != nil {
				return h.errf("%s: chunk at %#x must be a zlib stream: %v", label, child, err)
			}
			b, err = io.ReadAll(io.LimitReader(zr, int64(chunkBytes)+1))
			if err != nil {
				return h.errf("%s: chunk at %#x must inflate: %v", label, child, err)
			}
		}
		if err := h.spend(len(b)); err != nil {
			return err
		}
		if len(b) != chunkBytes {
			return h.errf("%s: chunk at %#x holds %d bytes, want %d", label, child, len(b), chunkBytes)
		}
		copyChunk(out, b, dims, chunk, offs, size)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// copyChunk copies the elements of a chunk (C order, chunk dims) at offsets
// offs into out (C order, dims), leaving out what falls beyond the edges.
func copyChunk(out, chunk []byte, dims, cdims, offs []uint64, size int) {
	nd := len(dims)
	if nd == 0 {
		copy(out, chunk[:size])
		return
	}
	idx := make([]uint64, nd) // position within the chunk
	for {
		inside := true
		var dst uint64
		for i := range nd {
			p := offs[i] + idx[i]
			if p >= dims[i] {
				inside = false
				break
			}
			dst = dst*dims[i] + p
		}
		// The last dimension is contiguous in both: copy the row at once.
		if inside {
			var src uint64
			for i := range nd {
				src = src*cdims[i] + idx[i]
			}
			row := min(cdims[nd-1], dims[nd-1]-offs[nd-1])
			copy(out[dst*uint64(size):], chunk[src*uint64(size):(src+row)*uint64(size)])
		}
		// Next row: advance every dimension but the last.
		i := nd - 2
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < cdims[i] {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return
		}
	}
}

// pipeline checks a filter pipeline message and reports whether it
// deflates; any filter but deflate (1) is unsupported.
func (h *h5file) pipeline(b []byte, label string) (deflate bool, err error) {
	if b == nil {
		return false, nil
	}
	r := &h5reader{b: b}
	version, n := r.u8(), int(r.u8())
	switch version {
	case 1:
		r.skip(6)
	case 2:
	default:
		return false, h.unsupported("%s: filter pipeline version %d", label, version)
	}
	for range n {
		id := r.u16()
		nameLen := 0
		if version == 1 || id >= 256 {
			nameLen = int(r.u16())
		}
		r.skip(2) // flags
		values := int(r.u16())
		if version == 1 {
			nameLen = (nameLen + 7) &^ 7
		}
		r.skip(nameLen)
		r.skip(4 * values)
		if version == 1 && values%2 == 1 {
			r.skip(4)
		}
		if r.bad {
			return false, h.errf("%s: filter pipeline message truncated", label)
		}
		if id != 1 {
			return false, h.unsupported("%s: filter %d (reads only deflate, 1)", label, id)
		}
		deflate = true
	}
	return deflate, nil
}

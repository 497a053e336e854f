package data

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Spec names the files of a data set in the generic layout, so that users can
// bring their own data without writing code. Paths are used as given (resolve
// them relative to a config file before calling [LoadDataset]).
type Spec struct {
	// Items is the items file: one item per line, "id<TAB>name" (the name is
	// optional and may contain spaces). A first line whose first field is
	// "id" (any case) is a header; lines starting with '#' are comments.
	// The item's 0-based position among the data lines is its index.
	Items string
	// Comparisons is a comparisons file (see [ReadComparisons]).
	Comparisons string
	// ByID says the comparisons file names items by their id in Items;
	// otherwise it holds item indices, 0-based unless OneBased is set.
	ByID     bool
	OneBased bool
	// Kernels are n×n kernel files and Features n×D feature files (text or
	// .npy, see [ReadMatrixFile]); either may be empty.
	Kernels  []string
	Features []string
}

// Dataset is a data set loaded by [LoadDataset]: items, comparisons and
// any number of kernels and feature matrices whose row i is item i.
type Dataset struct {
	IDs, Names      []string
	Comparisons     []Comparison
	ComparisonLines []int // 1-based line in the comparisons file of each comparison
	Kernels         []*mat.SymDense
	Features        []*mat.Dense
}

// LoadDataset reads the files of spec and checks them against each other:
// every comparison must name an item of the items file, and every kernel must
// be n×n and every feature matrix have n rows, where n is the number of
// items. Errors are [*FileError]s naming the file, line and offending value,
// or wrap the underlying I/O error (for a missing file) with its path.
func LoadDataset(spec Spec) (*Dataset, error) {
	if spec.Items == "" {
		return nil, fmt.Errorf("data: Spec.Items must name the items file, got \"\"")
	}
	if spec.Comparisons == "" {
		return nil, fmt.Errorf("data: Spec.Comparisons must name the comparisons file, got \"\"")
	}
	ds := &Dataset{}
	var err error
	ds.IDs, ds.Names, err = ReadItemsFile(spec.Items)
	if err != nil {
		return nil, err
	}
	n := len(ds.IDs)
	if spec.ByID {
		ds.Comparisons, ds.ComparisonLines, err = readComparisonsByID(spec.Comparisons, spec.Items, ds.IDs)
	} else {
		var cf *ComparisonFile
		cf, err = ReadComparisonsFile(spec.Comparisons, ComparisonOptions{OneBased: spec.OneBased, N: n})
		if fe, ok := err.(*FileError); ok {
			fe.Rule += fmt.Sprintf(" (the items file %s lists %d items)", spec.Items, n)
		}
		if cf != nil {
			ds.Comparisons, ds.ComparisonLines = cf.Comparisons, cf.Lines
		}
	}
	if err != nil {
		return nil, err
	}
	for _, path := range spec.Kernels {
		k, err := ReadKernelFile(path)
		if err != nil {
			return nil, err
		}
		if k.SymmetricDim() != n {
			return nil, &FileError{File: path, Rule: fmt.Sprintf("kernel must be %d×%d, one row per item of %s", n, n, spec.Items), Value: fmt.Sprintf("%d×%d", k.SymmetricDim(), k.SymmetricDim())}
		}
		ds.Kernels = append(ds.Kernels, k)
	}
	for _, path := range spec.Features {
		x, err := ReadMatrixFile(path)
		if err != nil {
			return nil, err
		}
		if r, _ := x.Dims(); r != n {
			return nil, &FileError{File: path, Rule: fmt.Sprintf("feature matrix must have %d rows, one per item of %s", n, spec.Items), Value: fmt.Sprintf("%d rows", r)}
		}
		ds.Features = append(ds.Features, x)
	}
	return ds, nil
}

// ReadItemsFile reads an items file (see [Spec].Items) and returns the ids
// and names in file order; an item without a name gets its id as name.
// Empty or duplicate ids are errors naming the line.
func ReadItemsFile(path string) (ids, names []string, err error) {
	seen := map[string]int{}
	first := true
	err = readTabFile(path, true, func(line int, fs []string) error {
		if first {
			first = false
			if strings.EqualFold(strings.TrimSpace(fs[0]), "id") {
				return nil
			}
		}
		id := strings.TrimSpace(fs[0])
		if id == "" {
			return fileErr(path, line, 1, "item id must not be empty", "%q", fs[0])
		}
		if prev, dup := seen[id]; dup {
			return fileErr(path, line, 1, fmt.Sprintf("item ids must be unique (first seen on line %d)", prev), "%q", id)
		}
		seen[id] = line
		name := id
		if len(fs) > 1 && strings.TrimSpace(fs[1]) != "" {
			name = strings.TrimSpace(fs[1])
		}
		ids = append(ids, id)
		names = append(names, name)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if len(ids) == 0 {
		return nil, nil, &FileError{File: path, Rule: "items file must list at least one item", Value: "no items"}
	}
	return ids, names, nil
}

// readComparisonsByID reads a comparisons file whose fields are item ids.
func readComparisonsByID(path, itemsPath string, ids []string) ([]Comparison, []int, error) {
	index := make(map[string]int, len(ids))
	for i, id := range ids {
		index[id] = i
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("data: reading comparisons: %w", err)
	}
	defer f.Close()
	var cs []Comparison
	var lines []int
	first := true
	err = scanLines(f, func(tl textLine) error {
		v := make([]int, len(tl.fields))
		unknown := -1
		for c, fd := range tl.fields {
			x, ok := index[fd.text]
			if !ok && unknown < 0 {
				unknown = c
			}
			v[c] = x
		}
		if first {
			first = false
			if unknown >= 0 && isHeader(tl.fields) && !anyKnown(tl.fields, index) {
				return nil // a header line of column names
			}
		}
		if len(v) != 3 && len(v) != 4 {
			return fileErr(path, tl.num, 0, "a comparison must have 3 or 4 fields", "%d fields", len(v))
		}
		if unknown >= 0 {
			return fileErr(path, tl.num, tl.fields[unknown].col, fmt.Sprintf("comparison item must be an id listed in the items file %s", itemsPath), "%q", tl.fields[unknown].text)
		}
		c := Triplet(v[0], v[1], v[2])
		if len(v) == 4 {
			c = Comparison{I: v[0], J: v[1], K: v[2], L: v[3]}
		}
		if c.Left() == c.Right() {
			return fileErr(path, tl.num, 0, "a comparison's two pairs must differ", "the pair {%s,%s} on both sides", tl.fields[0].text, tl.fields[1].text)
		}
		cs = append(cs, c)
		lines = append(lines, tl.num)
		return nil
	})
	if err != nil {
		if _, ok := err.(*FileError); ok {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("data: reading %s: %w", path, err)
	}
	return cs, lines, nil
}

func anyKnown(fs []field, index map[string]int) bool {
	for _, f := range fs {
		if _, ok := index[f.text]; ok {
			return true
		}
	}
	return false
}

// readTabFile calls fn with the tab-separated fields of every non-blank line
// of path (line endings "\r\n" tolerated). If comments is set, lines whose
// first character is '#' are skipped; '#' elsewhere is data (Last.fm has a
// tag named "#1").
func readTabFile(path string, comments bool, fn func(line int, fields []string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("data: reading %w", err)
	}
	defer f.Close()
	if err := readTab(f, comments, fn); err != nil {
		if _, ok := err.(*FileError); ok {
			return err
		}
		return fmt.Errorf("data: reading %s: %w", path, err)
	}
	return nil
}

func readTab(r io.Reader, comments bool, fn func(line int, fields []string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	num := 0
	for sc.Scan() {
		num++
		s := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(s) == "" || comments && strings.HasPrefix(s, "#") {
			continue
		}
		if err := fn(num, strings.Split(s, "\t")); err != nil {
			return err
		}
	}
	return sc.Err()
}

// atoiField parses field col (1-based) of a tab-separated line as an int.
func atoiField(path string, line int, fs []string, col int, what string) (int, error) {
	if col > len(fs) {
		return 0, fileErr(path, line, 0, fmt.Sprintf("line must have at least %d tab-separated fields (%s is field %d)", col, what, col), "%d fields", len(fs))
	}
	x, err := strconv.Atoi(strings.TrimSpace(fs[col-1]))
	if err != nil {
		return 0, fileErr(path, line, col, what+" must be an integer", "%q", fs[col-1])
	}
	return x, nil
}

// ReadIndicesFile reads a list of 0-based item indices, one per line ('#'
// comments allowed), and checks each lies in [0,n) (n ≤ 0 disables the
// check) and appears once.
func ReadIndicesFile(path string, n int) ([]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("data: reading indices: %w", err)
	}
	defer f.Close()
	var out []int
	seen := map[int]int{}
	err = scanLines(f, func(tl textLine) error {
		if len(tl.fields) != 1 {
			return fileErr(path, tl.num, 0, "an indices file must hold one index per line", "%d fields", len(tl.fields))
		}
		x, err := strconv.Atoi(tl.fields[0].text)
		if err != nil {
			return fileErr(path, tl.num, 1, "index must be an integer", "%q", tl.fields[0].text)
		}
		if x < 0 || n > 0 && x >= n {
			return fileErr(path, tl.num, 1, fmt.Sprintf("index must be in [0,%d) (0-based)", n), "%d", x)
		}
		if prev, dup := seen[x]; dup {
			return fileErr(path, tl.num, 1, fmt.Sprintf("indices must be unique (first seen on line %d)", prev), "%d", x)
		}
		seen[x] = tl.num
		out = append(out, x)
		return nil
	})
	if err != nil {
		if _, ok := err.(*FileError); ok {
			return nil, err
		}
		return nil, fmt.Errorf("data: reading %s: %w", path, err)
	}
	return out, nil
}

package data

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ComparisonOptions control how a comparisons file is read.
type ComparisonOptions struct {
	// OneBased says the file numbers items from 1 (the aset400 files do).
	// The default, false, means 0-based.
	OneBased bool
	// N, if positive, is the number of items: every index must be < N.
	// Zero disables the upper bound check.
	N int
}

// ComparisonFormat records how a comparisons file was written, so that a
// processed set can be written back in the same format.
type ComparisonFormat struct {
	Arity     int      // 3 if every line was a triplet "i j k", else 4
	OneBased  bool     // indices in the file start at 1
	Separator string   // "\t", "," or " "
	Header    []string // names from the optional header line, nil if none
}

// ComparisonFile is the content of a comparisons file.
type ComparisonFile struct {
	Comparisons []Comparison
	Format      ComparisonFormat
	// Lines holds the 1-based file line of each comparison, for messages.
	Lines []int
}

// ReadComparisonsFile reads a comparisons file from path; see
// [ReadComparisons] for the format.
func ReadComparisonsFile(path string, opt ComparisonOptions) (*ComparisonFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("data: reading comparisons: %w", err)
	}
	defer f.Close()
	return ReadComparisons(f, path, opt)
}

// ReadComparisons reads comparisons, one per line: 3 integers "i j k" for the
// triplet (i,j,i,k) or 4 integers "i j k l" for (i,j,k,l), separated by
// whitespace, commas or tabs. '#' starts a comment. The first line may be a
// header of names (a line none of whose fields is a number). name is used in
// error messages. Errors are [*FileError]s naming line, column, rule and value.
func ReadComparisons(r io.Reader, name string, opt ComparisonOptions) (*ComparisonFile, error) {
	br := bufio.NewReader(r)
	out := &ComparisonFile{Format: ComparisonFormat{Arity: 3, OneBased: opt.OneBased, Separator: "\t"}}
	base := 0
	if opt.OneBased {
		base = 1
	}
	first := true
	sawFour := false
	err := scanLinesRaw(br, func(raw string, tl textLine) error {
		if !isText(raw) {
			// Binary data would otherwise pass as a header line.
			return fileErr(name, tl.num, 0, "a comparisons file must be text (UTF-8, no control characters)", "%q", clip(raw, 40))
		}
		if first {
			first = false
			out.Format.Separator = detectSeparator(strings.TrimSpace(strings.SplitN(raw, "#", 2)[0]))
			if isHeader(tl.fields) {
				for _, f := range tl.fields {
					out.Format.Header = append(out.Format.Header, f.text)
				}
				return nil
			}
		}
		if len(tl.fields) != 3 && len(tl.fields) != 4 {
			return fileErr(name, tl.num, 0, "a comparison must have 3 or 4 fields", "%d fields", len(tl.fields))
		}
		var v [4]int
		for c, f := range tl.fields {
			x, err := strconv.Atoi(f.text)
			if err != nil {
				return fileErr(name, tl.num, f.col, "item index must be an integer", "%q", f.text)
			}
			x -= base
			if x < 0 {
				return fileErr(name, tl.num, f.col, fmt.Sprintf("item index must be >= %d (indices are %d-based%s)", base, base, oneBasedHint(opt.OneBased)), "%q", f.text)
			}
			if opt.N > 0 && x >= opt.N {
				return fileErr(name, tl.num, f.col, fmt.Sprintf("item index must be < %d (there are %d items, %d-based)", opt.N+base, opt.N, base), "%q", f.text)
			}
			v[c] = x
		}
		var c Comparison
		if len(tl.fields) == 3 {
			c = Triplet(v[0], v[1], v[2])
		} else {
			sawFour = true
			c = Comparison{I: v[0], J: v[1], K: v[2], L: v[3]}
		}
		if c.Left() == c.Right() {
			return fileErr(name, tl.num, 0, "a comparison's two pairs must differ", "the pair {%s,%s} on both sides", tl.fields[0].text, tl.fields[1].text)
		}
		out.Comparisons = append(out.Comparisons, c)
		out.Lines = append(out.Lines, tl.num)
		return nil
	})
	if err != nil {
		if _, ok := err.(*FileError); ok {
			return nil, err
		}
		return nil, fmt.Errorf("data: reading %s: %w", name, err)
	}
	if sawFour {
		out.Format.Arity = 4
	}
	return out, nil
}

func oneBasedHint(oneBased bool) string {
	if oneBased {
		return ""
	}
	return "; pass --one-based for 1-based files"
}

// isHeader reports whether a first line is a header: none of its fields is a number.
func isHeader(fs []field) bool {
	for _, f := range fs {
		if _, err := strconv.ParseFloat(f.text, 64); err == nil {
			return false
		}
	}
	return true
}

// scanLinesRaw is scanLines that also passes the raw line text.
func scanLinesRaw(br *bufio.Reader, fn func(raw string, tl textLine) error) error {
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	num := 0
	for sc.Scan() {
		num++
		raw := sc.Text()
		fs := splitFields(raw)
		if len(fs) == 0 {
			continue
		}
		if err := fn(raw, textLine{num: num, fields: fs}); err != nil {
			return err
		}
	}
	return sc.Err()
}

// WriteComparisons writes cs in format f: the header line if any, then one
// comparison per line. A triplet is written with 3 fields when f.Arity is 3;
// with Arity 3 a comparison that is not a triplet is an error.
func WriteComparisons(w io.Writer, cs []Comparison, f ComparisonFormat) error {
	bw := bufio.NewWriter(w)
	sep := f.Separator
	if sep == "" {
		sep = "\t"
	}
	base := 0
	if f.OneBased {
		base = 1
	}
	if len(f.Header) > 0 {
		fmt.Fprintln(bw, strings.Join(f.Header, sep))
	}
	for idx, c := range cs {
		if f.Arity == 3 {
			if !c.IsTriplet() {
				return fmt.Errorf("data: writing comparison %d %v: a 3-column file holds only triplets (i,j,i,k)", idx, c)
			}
			fmt.Fprintf(bw, "%d%s%d%s%d\n", c.I+base, sep, c.J+base, sep, c.L+base)
			continue
		}
		fmt.Fprintf(bw, "%d%s%d%s%d%s%d\n", c.I+base, sep, c.J+base, sep, c.K+base, sep, c.L+base)
	}
	return bw.Flush()
}

// isText reports whether s is valid UTF-8 without control characters other
// than tab and carriage return.
func isText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) && r != '\t' && r != '\r' {
			return false
		}
	}
	return true
}

// clip shortens s to at most n bytes for a message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

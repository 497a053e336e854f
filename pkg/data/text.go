package data

import (
	"bufio"
	"io"
	"strings"
)

// field is one token of a text line with its 1-based column number.
type field struct {
	text string
	col  int
}

// textLine is a non-empty line of a text data file after comment removal.
type textLine struct {
	num    int // 1-based line number in the file
	fields []field
}

// isSeparator reports whether r separates fields: whitespace, comma or tab.
func isSeparator(r rune) bool {
	return r == ',' || r == ' ' || r == '\t' || r == '\r' || r == '\v' || r == '\f'
}

// splitFields splits a line into fields separated by runs of whitespace and
// commas, dropping everything after '#'. Columns count fields, not bytes.
func splitFields(line string) []field {
	if i := strings.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	var out []field
	start := -1
	for i, r := range line {
		if isSeparator(r) {
			if start >= 0 {
				out = append(out, field{text: line[start:i], col: len(out) + 1})
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, field{text: line[start:], col: len(out) + 1})
	}
	return out
}

// scanLines calls fn for every non-blank, non-comment line of r. It stops at
// the first error fn returns. Lines may be up to 64 MiB long (wide kernel rows).
func scanLines(r io.Reader, fn func(textLine) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	num := 0
	for sc.Scan() {
		num++
		fs := splitFields(sc.Text())
		if len(fs) == 0 {
			continue
		}
		if err := fn(textLine{num: num, fields: fs}); err != nil {
			return err
		}
	}
	return sc.Err()
}

// detectSeparator returns the separator a file uses between fields, judged
// from one raw line: tab, comma, or a single space.
func detectSeparator(line string) string {
	switch {
	case strings.Contains(line, "\t"):
		return "\t"
	case strings.Contains(line, ","):
		return ","
	default:
		return " "
	}
}

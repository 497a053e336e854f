package data

import (
	"fmt"
	"strconv"
)

// FileError reports bad input in a data file: where it is, which rule it
// breaks and the value found there. Line and Col are 1-based; 0 means
// "not applicable" (for example a rule about the whole file).
type FileError struct {
	File  string // path as given by the caller
	Line  int    // 1-based line number, 0 if the error concerns the whole file
	Col   int    // 1-based field (column) number, 0 if the error concerns a whole line
	Path  string // a JSON path such as "answers[12][1]" in a JSON file, or ""
	Rule  string // the rule that was broken, e.g. "kernel must be symmetric"
	Value string // the offending value, quoted as found
}

func (e *FileError) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc += ":" + strconv.Itoa(e.Line)
		if e.Col > 0 {
			loc += ":" + strconv.Itoa(e.Col)
		}
	}
	if e.Path != "" {
		loc += ": " + e.Path
	}
	if e.Value == "" {
		return fmt.Sprintf("data: %s: %s", loc, e.Rule)
	}
	return fmt.Sprintf("data: %s: %s, got %s", loc, e.Rule, e.Value)
}

func fileErr(file string, line, col int, rule, format string, args ...any) *FileError {
	return &FileError{File: file, Line: line, Col: col, Rule: rule, Value: fmt.Sprintf(format, args...)}
}

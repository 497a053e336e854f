package mkpoe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// solverDoc returns docs/solver.md.
func solverDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "solver.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSolverDocTable: docs/solver.md's table of solvers is the route
// table's, row for row and in order.
func TestSolverDocTable(t *testing.T) {
	doc := solverDoc(t)
	at := 0
	for _, r := range methods {
		row := "| `" + string(r.name) + "` | " + r.summary + " |"
		i := strings.Index(doc[at:], row)
		if i < 0 {
			t.Errorf("docs/solver.md lacks the route table's row %q after the previous row", row)
			continue
		}
		at += i + len(row)
	}
}

// TestSolverDocLength: docs/solver.md is a design document of at most
// 400 lines; measurements belong in docs/notes/solver-log.md.
func TestSolverDocLength(t *testing.T) {
	const maxLines = 400
	if n := strings.Count(strings.TrimSuffix(solverDoc(t), "\n"), "\n") + 1; n > maxLines {
		t.Errorf("docs/solver.md has %d lines, more than %d: move measurements to docs/notes/solver-log.md", n, maxLines)
	}
}

// TestSolverDocFileMap: docs/solver.md's file map names every non-test
// Go file of pkg/mkpoe and its internal packages.
func TestSolverDocFileMap(t *testing.T) {
	doc := solverDoc(t)
	i := strings.Index(doc, "## File map")
	if i < 0 {
		t.Fatal("docs/solver.md has no section \"File map\"")
	}
	fileMap := doc[i:]
	if j := strings.Index(fileMap[3:], "\n## "); j >= 0 {
		fileMap = fileMap[:j+3]
	}
	var files []string
	for _, pattern := range []string{"*.go", "internal/*/*.go"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		if !strings.Contains(fileMap, filepath.Base(f)) {
			t.Errorf("docs/solver.md's file map does not name %s", f)
		}
	}
}

package mkpoe

import (
	"go/ast"
	"go/parser"
	"go/token"
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

// TestPackageDocSolvers: the package documentation's "Solvers" section
// links every Solver constant the package declares, so a new method
// cannot land unlisted.
func TestPackageDocSolvers(t *testing.T) {
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var doc string
	var solvers []string
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if f.Doc != nil {
			doc += f.Doc.Text()
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "Solver" {
					for _, n := range vs.Names {
						solvers = append(solvers, n.Name)
					}
				}
			}
		}
	}
	i := strings.Index(doc, "Solvers\n")
	if i < 0 {
		t.Fatal("the package documentation has no section \"Solvers\"")
	}
	section := doc[i:]
	if j := strings.Index(section, "\nReferences\n"); j >= 0 {
		section = section[:j]
	}
	if len(solvers) != len(methods) {
		t.Errorf("found %d Solver constants %v, the route table has %d rows", len(solvers), solvers, len(methods))
	}
	for _, name := range solvers {
		if !strings.Contains(section, "["+name+"]") {
			t.Errorf("the package documentation's Solvers section does not list [%s]", name)
		}
	}
}

// TestSolverDocTuning: docs/solver.md's Tuning table names every field of
// the solver's tuning (each struct of tuning.go) and of conic.Settings, so
// no constant that steers the solver is left out of it.
func TestSolverDocTuning(t *testing.T) {
	doc := solverDoc(t)
	i, j := strings.Index(doc, "## Tuning"), strings.Index(doc, "## File map")
	if i < 0 || j < i {
		t.Fatal("docs/solver.md has no section \"Tuning\" before \"File map\"")
	}
	section := doc[i:j]
	fset := token.NewFileSet()
	fields := 0
	for _, name := range []string{"tuning.go", filepath.Join("internal", "conic", "settings.go")} {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return false
			}
			for _, fl := range st.Fields.List {
				for _, id := range fl.Names {
					fields++
					if !strings.Contains(section, "`"+id.Name+"`") {
						t.Errorf("docs/solver.md's Tuning table does not name %s.%s (%s)", ts.Name.Name, id.Name, name)
					}
				}
			}
			return false
		})
	}
	if fields < 50 {
		t.Errorf("found only %d tuning fields: the parse missed the structs", fields)
	}
}

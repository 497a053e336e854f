package results

import (
	"bytes"
	"go/build"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// TestStoredFilesRoundTrip decodes result files written by a run of the
// harness (experiments' tiny config with constraints.train = dedup,
// acyclic, reduce and constraints.test = dedup, made before this package
// had its own StepReport and Tally) and encodes them again: the bytes must
// not change, so the file format does not depend on pkg/constraint or
// pkg/eval.
func TestStoredFilesRoundTrip(t *testing.T) {
	for _, test := range []struct {
		file, field string // field: a part of the file the test must cover
		decode      func(b []byte, name string) (any, error)
	}{
		{"tiny-summary.json", `"test_tallies"`, func(b []byte, name string) (any, error) { return DecodeSummary(b, name) }},
		{"tiny-refit-task.json", `"train_steps"`, func(b []byte, name string) (any, error) { return DecodeTaskResult(b, name) }},
	} {
		t.Run(test.file, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", test.file))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(want, []byte(test.field)) {
				t.Fatalf("%s lacks %s: the test no longer covers it", test.file, test.field)
			}
			v, err := test.decode(want, test.file)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := Encode(&got, v); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("%s re-encoded differs:\n%s", test.file, got.String())
			}
		})
	}
}

// TestImportsNoSolverOrMetrics checks that the schema depends on no
// package whose types could change the file format: pkg/results imports
// neither pkg/constraint nor pkg/eval, directly or through another
// package of this module.
func TestImportsNoSolverOrMetrics(t *testing.T) {
	const module = "github.com/mkpoe/mkpoe/"
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var walk func(path string)
	walk = func(path string) {
		if seen[path] {
			return
		}
		seen[path] = true
		p, err := build.ImportDir(filepath.Join(root, strings.TrimPrefix(path, module)), 0)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, module) {
				walk(imp)
			}
		}
	}
	walk(module + "pkg/results")
	for _, banned := range []string{"pkg/constraint", "pkg/eval", "pkg/mkpoe"} {
		if seen[module+banned] {
			t.Errorf("pkg/results depends on %s", banned)
		}
	}
	if len(seen) < 2 {
		t.Errorf("walked only %v: the import walk is broken", seen)
	}
}

// TestTally: 2 right, 2 ties, 1 wrong (eval's TestOutcomesAndTally counts
// these by hand): ties as ½ give (2 + 1)/5, ties are 2/5; no comparison
// gives NaN.
func TestTally(t *testing.T) {
	for _, test := range []struct {
		name              string
		tally             Tally
		halfTies, tieRate float64
	}{
		{"2 right, 2 ties, 1 wrong", Tally{Right: 2, Ties: 2, Wrong: 1}, 3.0 / 5, 2.0 / 5},
		{"no ties", Tally{Right: 3, Wrong: 1}, 3.0 / 4, 0},
		{"empty", Tally{}, math.NaN(), math.NaN()},
	} {
		t.Run(test.name, func(t *testing.T) {
			for _, c := range []struct {
				what      string
				got, want float64
			}{
				{"HalfTies", test.tally.HalfTies(), test.halfTies},
				{"TieRate", test.tally.TieRate(), test.tieRate},
			} {
				if !scalar.EqualWithinAbs(c.got, c.want, 1e-15) && !(math.IsNaN(c.got) && math.IsNaN(c.want)) {
					t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
				}
			}
		})
	}
}

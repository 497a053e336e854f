package cli

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/results"
)

// TestCostCommand runs mkpoe cost on the tiny config: a pair of rows
// measured, compared on stdout and written to --out; and its command-line
// mistakes exit 2 with a message naming them.
func TestCostCommand(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "tiny.yaml", tinyConfig)
	c := loadTiny(t, dir)
	a, b := c.Rows[2].Label, c.Rows[4].Label
	for _, test := range []struct {
		name string
		args []string
		want string
	}{
		{"odd rows", []string{"cost", cfg, "--rows", a}, "--rows must name rows in pairs"},
		{"no rows", []string{"cost", cfg}, "--rows must name rows in pairs"},
		{"no config", []string{"cost", "--rows", a + "," + b}, "usage: mkpoe cost CONFIG"},
		{"unknown row", []string{"cost", cfg, "--rows", a + ",nope"}, `"nope" is not a row of`},
		{"repeats", []string{"cost", cfg, "--rows", a + "," + b, "--repeats", "0"}, "--repeats must be ≥ 1, got 0"},
	} {
		t.Run(test.name, func(t *testing.T) {
			code, _, errs := run(test.args...)
			if code != ExitUsage || !strings.Contains(errs, test.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, errs, ExitUsage, test.want)
			}
		})
	}
	if runtime.GOOS != "linux" {
		t.Skip("CPU time is read on Linux only")
	}
	out := filepath.Join(dir, "cost.json")
	code, stdout, errs := run("cost", cfg, "--rows", a+","+b, "--repeats", "2", "--out", out)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(stdout, a+" against "+b+": CPU s per repeat ") || !strings.Contains(stdout, "wrote "+out) {
		t.Errorf("stdout lacks the comparison or the file:\n%s", stdout)
	}
	if strings.Count(errs, "repeat ") != 4 {
		t.Errorf("stderr has %d task lines, want 4 (2 rows × 2 repeats):\n%s", strings.Count(errs, "repeat "), errs)
	}
	r, err := results.DecodeCost(readFile(t, out), out)
	if err != nil {
		t.Fatal(err)
	}
	if r.Repeats != 2 || r.Folds != 1 || len(r.Runs) != 4 || r.ConfigHash != c.Hash() {
		t.Errorf("cost.json: %d repeats, %d folds, %d runs, hash %s; want 2, 1, 4, %s", r.Repeats, r.Folds, len(r.Runs), r.ConfigHash, c.Hash())
	}
}

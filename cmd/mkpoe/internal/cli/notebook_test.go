package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mkpoe/mkpoe/internal/nbtest"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// TestQuickstartNotebook runs the README's main job (configs/quickstart.yaml),
// whose `mkpoe run` writes RUN_DIR/report/report.ipynb, writes the report a
// second time elsewhere (`mkpoe report RUN_DIR --out DIR`: the notebook then
// finds the run by a relative RUN_DIR), executes both notebooks with jupyter
// nbconvert, and checks that no cell fails, that the Python tables equal the
// stored Go ones, that every figure cell draws a PNG, that the printed
// numbers are summary.json's (table, per-split accuracy, kernel shares), and
// that the task files agree with the summary. It skips without
// jupyter-nbconvert, pandas or matplotlib, and under -short.
func TestQuickstartNotebook(t *testing.T) {
	if ok, why := nbtest.Available(); !ok {
		t.Skip(why)
	}
	if testing.Short() {
		t.Skip("short")
	}
	dir := filepath.Join(t.TempDir(), "quickstart")
	if code, _, stderr := run("run", filepath.Join(repoRoot, "configs", "quickstart.yaml"), "--out", dir, "--workers", "2"); code != ExitOK {
		t.Fatalf("mkpoe run: exit %d: %s", code, stderr)
	}
	elsewhere := filepath.Join(t.TempDir(), "elsewhere")
	if code, _, stderr := run("report", dir, "--out", elsewhere); code != ExitOK {
		t.Fatalf("mkpoe report: exit %d: %s", code, stderr)
	}
	nbs := []string{filepath.Join(dir, "report", "report.ipynb"), filepath.Join(elsewhere, "report.ipynb")}
	for _, want := range []string{`RUN_DIR = \"..\"`, `RUN_DIR = \"` + filepath.ToSlash(mustRel(t, elsewhere, dir)) + `\"`} {
		if nb := string(readFile(t, nbs[0])) + string(readFile(t, nbs[1])); !strings.Contains(nb, want) {
			t.Errorf("no notebook sets %s", want)
		}
	}
	s, err := results.DecodeSummary(readFile(t, filepath.Join(dir, "summary.json")), "summary.json")
	if err != nil {
		t.Fatal(err)
	}
	refits := 0
	for _, r := range s.Rows {
		refits += len(r.Models)
	}
	start := time.Now()
	executed, err := nbtest.Execute(context.Background(), 5*time.Minute, nbs...)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("executed %d notebooks in %.1f s", len(nbs), time.Since(start).Seconds())
	for i, p := range executed {
		t.Run(filepath.Base(filepath.Dir(nbs[i])), func(t *testing.T) {
			stored, err := nbtest.Read(nbs[i])
			if err != nil {
				t.Fatal(err)
			}
			got, err := nbtest.Read(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range nbtest.Compare(stored, got) {
				t.Error(p)
			}
			for _, p := range nbtest.CheckNumbers(got, s) {
				t.Error(p)
			}
			tasks := got.Cell("tasks")
			want := fmt.Sprintf("summary.json's accuracy agrees with %d of %d refit tasks", refits, refits)
			if tasks == nil || len(tasks.Outputs) == 0 || !strings.Contains(tasks.Outputs[0].Text, want) {
				t.Errorf("tasks cell does not say %q: %+v", want, tasks)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "report", "fig-map.tsv")); err != nil {
		t.Error(err)
	}
}

func mustRel(t *testing.T, base, target string) string {
	t.Helper()
	rel, err := filepath.Rel(base, target)
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

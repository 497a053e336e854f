package experiments

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/results"
)

// readCSV reads a CSV file whole: its header and its records.
func readCSV(t *testing.T, p string) (header []string, recs [][]string) {
	t.Helper()
	all, err := csv.NewReader(bytes.NewReader(readFile(t, p))).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	if len(all) == 0 {
		t.Fatalf("%s: empty", p)
	}
	return all[0], all[1:]
}

// cell parses a numeric CSV cell; empty is NaN.
func cell(t *testing.T, s string) float64 {
	t.Helper()
	if s == "" {
		return math.NaN()
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("cell %q: %v", s, err)
	}
	return v
}

func sameFloat(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

// TestRunCSVs runs the tiny config (absolute and relative β grid) and checks
// table.csv and fits.csv in the run directory against summary.json and the
// task files: headers, one table line per config row, one fits line per
// learned row × split × (inner fold × β + refit), every value; that the
// report's csv format writes the same files; and that summary.json's
// val_fold_min/val_fold_max are the min and max of the cv tasks'
// val_accuracy.
func TestRunCSVs(t *testing.T) {
	for _, tc := range []struct {
		name, grid string
		relative   bool
	}{
		{"absolute", "beta_grid: [1, 10]", false},
		{"relative", "beta_grid: {relative_to_min: [2, 20]}", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "tiny.yaml")
			if err := os.WriteFile(p, []byte(strings.Replace(tinyConfig, "beta_grid: [1, 10]", tc.grid, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := LoadConfig(p)
			if err != nil {
				t.Fatal(err)
			}
			c.Output = filepath.Join(dir, "run")
			s, err := Run(context.Background(), c, RunOptions{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			tasks := map[string]results.TaskResult{}
			for _, task := range Plan(c) {
				r, err := results.DecodeTaskResult(readFile(t, filepath.Join(c.Output, "tasks", task.ID+".json")), task.ID)
				if err != nil {
					t.Fatal(err)
				}
				tasks[task.ID] = *r
			}
			nb, nf, ns := len(c.BetaGrid.Values), c.Protocol.InnerFolds, c.Protocol.Splits

			// table.csv
			header, recs := readCSV(t, filepath.Join(c.Output, results.TableCSV))
			if want := results.TableCSVHeader(ns, tc.relative); !slices.Equal(header, want) {
				t.Errorf("table.csv header %v, want %v", header, want)
			}
			if len(recs) != len(c.Rows) {
				t.Fatalf("table.csv: %d lines, want %d (one per config row)", len(recs), len(c.Rows))
			}
			col := func(h []string, name string) int {
				i := slices.Index(h, name)
				if i < 0 {
					t.Fatalf("no column %q", name)
				}
				return i
			}
			for i, row := range c.Rows {
				rec, rs := recs[i], s.Rows[i]
				if rec[col(header, "label")] != row.Label || rec[col(header, "method")] != row.Method || rec[col(header, "mode")] != row.Mode {
					t.Errorf("table.csv line %d: %v, want row %q", i, rec[:4], row.Label)
				}
				if got := cell(t, rec[col(header, "mean_accuracy")]); got != rs.Mean {
					t.Errorf("%s: mean_accuracy %v, want %v", row.Label, got, rs.Mean)
				}
				if got := cell(t, rec[col(header, "std_accuracy")]); got != rs.Std {
					t.Errorf("%s: std_accuracy %v, want %v", row.Label, got, rs.Std)
				}
				for sp := range ns {
					kind := KindRefit
					if row.Method == "native" {
						kind = KindNative
					}
					task := tasks[c.rowTaskID(kind, row, sp, -1)]
					if got := cell(t, rec[col(header, fmt.Sprintf("accuracy_s%d", sp))]); got != task.TestAccuracy {
						t.Errorf("%s split %d: accuracy %v, task file %v", row.Label, sp, got, task.TestAccuracy)
					}
					wantBeta := math.NaN()
					if kind == KindRefit {
						wantBeta = task.Beta
					}
					if got := cell(t, rec[col(header, fmt.Sprintf("beta_s%d", sp))]); !sameFloat(got, wantBeta) {
						t.Errorf("%s split %d: beta %v, task file %v", row.Label, sp, got, wantBeta)
					}
					if tc.relative && kind == KindRefit {
						if got := cell(t, rec[col(header, fmt.Sprintf("beta_multiple_s%d", sp))]); got != task.BetaMultiple {
							t.Errorf("%s split %d: beta_multiple %v, task file %v", row.Label, sp, got, task.BetaMultiple)
						}
						if got := cell(t, rec[col(header, fmt.Sprintf("min_beta_s%d", sp))]); got != task.MinBeta {
							t.Errorf("%s split %d: min_beta %v, task file %v", row.Label, sp, got, task.MinBeta)
						}
					}
				}
			}

			// fits.csv
			header, recs = readCSV(t, filepath.Join(c.Output, results.FitsCSV))
			if !slices.Equal(header, results.FitsCSVHeader) {
				t.Errorf("fits.csv header %v, want %v", header, results.FitsCSVHeader)
			}
			learned := 0
			for _, row := range c.Rows {
				if row.Method != "native" {
					learned++
				}
			}
			if want := learned * ns * (nf*nb + 1); len(recs) != want {
				t.Fatalf("fits.csv: %d lines, want %d = %d learned rows × %d splits × (%d folds × %d β + 1 refit)", len(recs), want, learned, ns, nf, nb)
			}
			seen := map[string]int{}
			for _, rec := range recs {
				get := func(name string) string { return rec[col(header, name)] }
				task, ok := tasks[get("task_id")]
				if !ok {
					t.Fatalf("fits.csv: unknown task %q", get("task_id"))
				}
				seen[task.ID]++
				row := c.Rows[task.Row]
				if get("label") != row.Label || get("kind") != task.Kind || get("split") != strconv.Itoa(task.Split) || get("row") != strconv.Itoa(task.Row) {
					t.Errorf("fits.csv %v: task %s is row %q kind %s split %d", rec, task.ID, row.Label, task.Kind, task.Split)
				}
				b := 0
				if task.Kind == KindCV {
					b, _ = strconv.Atoi(get("beta_index"))
					if get("fold") != strconv.Itoa(task.Fold) {
						t.Errorf("%s: fold %q, want %d", task.ID, get("fold"), task.Fold)
					}
					checks := []struct {
						name string
						want float64
					}{{"beta", task.Betas[b]}, {"val_accuracy", task.ValAccuracy[b]}, {"gap", task.Gaps[b]}, {"objective", task.Objectives[b]}}
					if tc.relative {
						checks = append(checks, struct {
							name string
							want float64
						}{"beta_multiple", c.BetaGrid.Values[b]}, struct {
							name string
							want float64
						}{"min_beta", task.MinBeta})
						if got := task.MinBeta * c.BetaGrid.Values[b]; math.Abs(got-task.Betas[b]) > 1e-9*got {
							t.Errorf("%s: β %v is not min_beta × multiple = %v", task.ID, task.Betas[b], got)
						}
					}
					for _, ch := range checks {
						if got := cell(t, get(ch.name)); !sameFloat(got, ch.want) {
							t.Errorf("%s β %d: %s %v, task file %v", task.ID, b, ch.name, got, ch.want)
						}
					}
					if get("test_accuracy") != "" {
						t.Errorf("%s: cv line has test_accuracy %q", task.ID, get("test_accuracy"))
					}
				} else {
					if get("fold") != "" || get("val_accuracy") != "" || get("chosen") != "true" {
						t.Errorf("%s: refit line %v", task.ID, rec)
					}
					for _, ch := range []struct {
						name string
						want float64
					}{{"beta", task.Beta}, {"test_accuracy", task.TestAccuracy}, {"gap", task.Gaps[0]}, {"objective", task.Objectives[0]}} {
						if got := cell(t, get(ch.name)); !sameFloat(got, ch.want) {
							t.Errorf("%s: %s %v, task file %v", task.ID, ch.name, got, ch.want)
						}
					}
				}
				if get("iterations") != strconv.Itoa(task.Iterations[b]) || get("converged") != strconv.FormatBool(task.Converged[b]) {
					t.Errorf("%s β %d: iterations %s converged %s, task file %d %v", task.ID, b, get("iterations"), get("converged"), task.Iterations[b], task.Converged[b])
				}
				if get("status") != task.FitStatus[b] || get("status") != "certified" {
					t.Errorf("%s β %d: status %q, task file %q; want certified (convex fits within tol)", task.ID, b, get("status"), task.FitStatus[b])
				}
				if cell(t, get("task_seconds")) != task.Seconds {
					t.Errorf("%s: task_seconds %s, task file %v", task.ID, get("task_seconds"), task.Seconds)
				}
				for _, ch := range []struct {
					name string
					want *float64
				}{{"task_cpu_seconds", task.CPUSeconds}, {"task_process_cpu_seconds", task.ProcessCPUSeconds}} {
					if ch.want == nil {
						if get(ch.name) != "" {
							t.Errorf("%s: %s %q for a time not recorded, want empty", task.ID, ch.name, get(ch.name))
						}
					} else if cell(t, get(ch.name)) != *ch.want {
						t.Errorf("%s: %s %s, task file %v", task.ID, ch.name, get(ch.name), *ch.want)
					}
				}
			}
			for id, k := range seen {
				want := nb
				if tasks[id].Kind == KindRefit {
					want = 1
				}
				if k != want {
					t.Errorf("fits.csv: task %s has %d lines, want %d", id, k, want)
				}
			}
			// The chosen β of each cv split: exactly one per cv task.
			chosen := map[string]int{}
			for _, rec := range recs {
				if rec[col(header, "kind")] == KindCV && rec[col(header, "chosen")] == "true" {
					chosen[rec[col(header, "task_id")]]++
				}
			}
			if len(chosen) != learned*ns*nf {
				t.Errorf("fits.csv: %d cv tasks have a chosen β, want %d", len(chosen), learned*ns*nf)
			}

			// The bands of summary.json from the task files.
			for i, row := range c.Rows {
				if row.Method == "native" {
					continue
				}
				rs := s.Rows[i]
				for sp := range ns {
					for b := range nb {
						lo, hi := math.Inf(1), math.Inf(-1)
						for f := range nf {
							v := tasks[c.rowTaskID(KindCV, row, sp, f)].ValAccuracy[b]
							lo, hi = math.Min(lo, v), math.Max(hi, v)
						}
						if rs.ValFoldMin[sp][b] != lo || rs.ValFoldMax[sp][b] != hi {
							t.Errorf("%s split %d β %d: band [%v, %v], task files [%v, %v]", row.Label, sp, b, rs.ValFoldMin[sp][b], rs.ValFoldMax[sp][b], lo, hi)
						}
					}
				}
			}

			// mkpoe report --formats csv writes the same two files.
			out := filepath.Join(dir, "rep")
			paths, _, err := WriteReport(c.Output, out, []string{"csv"})
			if err != nil {
				t.Fatal(err)
			}
			if len(paths) != 2 {
				t.Fatalf("report --formats csv wrote %v", paths)
			}
			for _, name := range []string{results.TableCSV, results.FitsCSV} {
				if !bytes.Equal(readFile(t, filepath.Join(out, name)), readFile(t, filepath.Join(c.Output, name))) {
					t.Errorf("report's %s differs from the run directory's", name)
				}
			}

			checkPandas(t, c.Output, len(c.Rows), learned*ns*(nf*nb+1))
		})
	}
}

// checkPandas reads table.csv and fits.csv of dir with pd.read_csv under
// /usr/bin/python3 and checks their shapes and column types; it skips with
// a message when that Python lacks pandas.
func checkPandas(t *testing.T, dir string, tableRows, fitsRows int) {
	t.Helper()
	const py = "/usr/bin/python3"
	if out, err := exec.Command(py, "-c", "import pandas").CombinedOutput(); err != nil {
		t.Logf("pandas check skipped: %s cannot import pandas: %v %s", py, err, bytes.TrimSpace(out))
		return
	}
	script := `
import sys
import pandas as pd
table = pd.read_csv(sys.argv[1] + "/table.csv")
fits = pd.read_csv(sys.argv[1] + "/fits.csv")
assert table.shape[0] == int(sys.argv[2]), table.shape
assert fits.shape[0] == int(sys.argv[3]), fits.shape
assert list(table.columns[:3]) == ["label", "table_row", "method"], list(table.columns)
for c in ["mean_accuracy", "std_accuracy", "accuracy_s0", "beta_s0"]:
    assert pd.api.types.is_numeric_dtype(table[c]), (c, table[c].dtype)
for c in ["beta", "val_accuracy", "test_accuracy", "gap", "objective", "task_seconds"]:
    assert pd.api.types.is_numeric_dtype(fits[c]), (c, fits[c].dtype)
assert pd.api.types.is_integer_dtype(fits["iterations"]), fits["iterations"].dtype
assert fits["converged"].dtype == bool, fits["converged"].dtype
cv = fits[fits.kind == "cv"]
assert cv["fold"].notna().all() and cv["val_accuracy"].notna().all()
assert fits[fits.kind == "refit"]["fold"].isna().all()
# The mean over folds is summary.json's val_curve: recompute it from fits.csv.
mean = cv.groupby(["row", "split", "beta_index"])["val_accuracy"].mean()
print(len(table), len(fits), len(mean))
`
	out, err := exec.Command(py, "-c", script, dir, strconv.Itoa(tableRows), strconv.Itoa(fitsRows)).CombinedOutput()
	if err != nil {
		t.Fatalf("pandas: %v\n%s", err, out)
	}
	t.Logf("pandas read table.csv and fits.csv: %s", bytes.TrimSpace(out))
}

package cli

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/results"
)

// compareRuns runs two real experiments: the tiny config ("narrow", β grid
// 1, 10) and a copy with a wider grid (0.1 … 100) and without the first
// row (good native), as two β sweeps of one experiment would be. It
// returns their run directories and summaries.
func compareRuns(t *testing.T) (dirs []string, sums []*results.Summary) {
	t.Helper()
	wide := strings.Replace(tinyConfig, "beta_grid: [1, 10]", "beta_grid: [0.1, 1, 10, 100]", 1)
	wide = strings.Replace(wide, "  - {method: native, kernel: good}\n", "", 1)
	if wide == tinyConfig {
		t.Fatal("the wide config is the tiny one")
	}
	root := t.TempDir()
	for _, c := range []struct{ name, text string }{{"narrow", tinyConfig}, {"wide", wide}} {
		cfg := writeFile(t, root, c.name+".yaml", c.text)
		dir := filepath.Join(root, c.name)
		if code, _, stderr := run("run", cfg, "--out", dir, "--no-report", "--workers", "2"); code != ExitOK {
			t.Fatalf("run %s: exit %d: %s", c.name, code, stderr)
		}
		s, err := results.DecodeSummary(readFile(t, filepath.Join(dir, "summary.json")), "summary.json")
		if err != nil {
			t.Fatal(err)
		}
		dirs, sums = append(dirs, dir), append(sums, s)
	}
	return dirs, sums
}

func TestCompareCommand(t *testing.T) {
	dirs, sums := compareRuns(t)
	out := filepath.Join(t.TempDir(), "cmp")
	code, stdout, stderr := run("compare", dirs[0], dirs[1], "--out", out)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// Two configs, one build, one seed (so the same outer splits): one
	// warning on stderr, also in compare.md.
	if !strings.Contains(stderr, "warning: the runs are of different configs (narrow: config \"tiny\", hash "+sums[0].ConfigHash+"; wide: config \"tiny\", hash "+sums[1].ConfigHash+")") ||
		strings.Contains(stderr, "different builds") || strings.Contains(stderr, "outer splits") {
		t.Errorf("stderr:\n%s", stderr)
	}
	for _, name := range []string{"compare.md", "compare.html", "compare-validation.png", "compare-validation.svg", "compare.csv"} {
		if !strings.Contains(stdout, filepath.Join(out, name)+"\n") {
			t.Errorf("stdout does not list %s:\n%s", name, stdout)
		}
	}
	md := string(readFile(t, filepath.Join(out, "compare.md")))
	if !strings.Contains(md, "- the runs are of different configs") || !strings.Contains(md, `- row "good native" is absent from wide (shown as —)`) {
		t.Errorf("compare.md lacks the warning or the missing row's note:\n%s", md)
	}
	// Every shared row: the difference of the two summaries' means, in
	// the table, the printed table and compare.csv.
	recs, err := csv.NewReader(strings.NewReader(string(readFile(t, filepath.Join(out, "compare.csv"))))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(recs[0], ","); got != "run,run_dir,row,present,method,mode,splits,mean_accuracy,std_accuracy,accuracy_per_split,beta_per_split,beta_multiple_per_split,diff_vs_first" {
		t.Fatalf("compare.csv header %s", got)
	}
	if len(recs) != 1+2*len(sums[0].Rows) {
		t.Fatalf("compare.csv: %d lines, want 1 + 2×%d", len(recs), len(sums[0].Rows))
	}
	csvLine := func(run, row string) []string {
		for _, r := range recs[1:] {
			if r[0] == run && r[2] == row {
				return r
			}
		}
		t.Fatalf("compare.csv has no line for %s, %s", run, row)
		return nil
	}
	byLabel := map[string]results.Row{}
	for _, r := range sums[1].Rows {
		byLabel[r.Label] = r
	}
	shared := 0
	for _, a := range sums[0].Rows {
		b, ok := byLabel[a.Label]
		if !ok {
			want := fmt.Sprintf("| %s | %.3f ± %.3f | — | — | — | — |", a.Label, a.Mean, a.Std)
			if !strings.Contains(md, want) {
				t.Errorf("compare.md lacks %q", want)
			}
			if l := csvLine("wide", a.Label); l[3] != "false" || l[7] != "" || l[12] != "" {
				t.Errorf("missing row in compare.csv: %q", l)
			}
			continue
		}
		shared++
		diff := b.Mean - a.Mean
		beta := func(r results.Row) string {
			if len(r.Beta) == 0 {
				return "—"
			}
			var p []string
			for _, v := range r.Beta {
				p = append(p, strconv.FormatFloat(v, 'g', -1, 64))
			}
			return strings.Join(p, ", ")
		}
		want := fmt.Sprintf("| %s | %.3f ± %.3f | %s | %.3f ± %.3f | %s | %+.3f |", a.Label, a.Mean, a.Std, beta(a), b.Mean, b.Std, beta(b), diff)
		if !strings.Contains(md, want) {
			t.Errorf("compare.md lacks %q:\n%s", want, md)
		}
		if !strings.Contains(stdout, fmt.Sprintf("%+.3f\n", diff)) {
			t.Errorf("printed table lacks %s's difference %+.3f", a.Label, diff)
		}
		l := csvLine("wide", a.Label)
		if got, err := strconv.ParseFloat(l[12], 64); err != nil || got != diff {
			t.Errorf("%s: diff_vs_first %q, want %v", a.Label, l[12], diff)
		}
		if got, err := strconv.ParseFloat(l[7], 64); err != nil || got != b.Mean || l[1] != dirs[1] || l[3] != "true" {
			t.Errorf("%s: wide line %q, want mean %v", a.Label, l, b.Mean)
		}
		if l := csvLine("narrow", a.Label); l[12] != "" {
			t.Errorf("%s: the first run has a difference %q", a.Label, l[12])
		}
	}
	if shared != 4 {
		t.Errorf("%d shared rows, want 4", shared)
	}
	// The figure: three learned rows, one curve per run in each, the
	// legend naming both.
	svg := string(readFile(t, filepath.Join(out, "compare-validation.svg")))
	for _, name := range []string{"narrow", "wide"} {
		if got := strings.Count(svg, ">"+name+"</text>"); got != 3 {
			t.Errorf("the legends name %s %d times, want 3 (one per learned row)", name, got)
		}
	}
}

// TestCompareCommandBuildsAndNames: --names names the runs, flags may come
// first, the default output is compare/ in the working directory, and
// runs of two builds (env.json linalg_backend) are compared with a
// warning.
func TestCompareCommandBuildsAndNames(t *testing.T) {
	dirs, _ := compareRuns(t)
	// The other build: the copy's env.json names the other backend
	// (this test runs under either build).
	other := filepath.Join(t.TempDir(), "other")
	copyDir(t, dirs[0], other)
	var env map[string]string
	if err := json.Unmarshal(readFile(t, filepath.Join(other, "env.json")), &env); err != nil {
		t.Fatal(err)
	}
	this := env["linalg_backend"]
	that := map[string]string{"gonum": "openblas", "openblas": "gonum"}[this]
	if that == "" {
		t.Fatalf("env.json names backend %q", this)
	}
	env["linalg_backend"] = that
	b, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, other, "env.json", string(b))
	t.Chdir(t.TempDir())
	code, stdout, stderr := run("compare", "--formats", "md, csv", "--names", "this,that", dirs[0], other)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if want := "warning: the runs come from different builds (linalg_backend: this: " + this + "; that: " + that + ")\n"; stderr != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
	if !strings.Contains(stdout, "Δ that − this") || !strings.Contains(stdout, filepath.Join("compare", "compare.csv")) {
		t.Errorf("stdout:\n%s", stdout)
	}
	entries, err := os.ReadDir("compare")
	if err != nil || len(entries) != 2 {
		t.Errorf("compare/ holds %v (%v), want compare.md and compare.csv", entries, err)
	}
}

func TestCompareCommandErrors(t *testing.T) {
	dir := reportFixture(t)
	other := reportFixture(t)
	empty := t.TempDir()
	for _, test := range []struct {
		name string
		args []string
		msg  string
	}{
		{"no run dir", []string{"compare"}, "give at least 2 run directories (RUN_DIR RUN_DIR...), got 0"},
		{"one run dir", []string{"compare", dir, "--out", empty}, "give at least 2 run directories (RUN_DIR RUN_DIR...), got 1"},
		{"missing dir", []string{"compare", dir, filepath.Join(empty, "nope")}, "run directory " + filepath.Join(empty, "nope") + ": not a directory"},
		{"not a run", []string{"compare", dir, empty}, empty + ": report: not a finished run directory (no summary.json"},
		{"same dir twice", []string{"compare", dir, dir}, "run directory " + dir + " is given twice"},
		{"duplicate names", []string{"compare", dir, other, "--names", "a,A"}, `--names: runs 1 (` + dir + `) and 2 (` + other + `) are both named "A"`},
		{"names count", []string{"compare", dir, other, "--names", "a"}, "--names: give one name per run directory (2), got 1 (a)"},
		{"empty name", []string{"compare", dir, other, "--names", "a,"}, "--names: name 2 (for " + other + ") is empty"},
		{"bad format", []string{"compare", dir, other, "--formats", "md,tex"}, `--formats: each must be one of md,html,png,svg,csv, got "tex"`},
		{"no format", []string{"compare", dir, other, "--formats", " "}, "--formats: give at least one of md,html,png,svg,csv"},
		{"unknown flag", []string{"compare", dir, other, "--bogus"}, "flag provided but not defined: -bogus"},
	} {
		t.Run(test.name, func(t *testing.T) {
			code, _, stderr := run(test.args...)
			if code != ExitUsage || !strings.Contains(stderr, test.msg) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, stderr, test.msg)
			}
		})
	}
	// Same directory under two names: allowed (a run against itself).
	if code, _, stderr := run("compare", dir, dir, "--names", "a,b", "--formats", "md", "--out", t.TempDir()); code != ExitOK {
		t.Errorf("a run against itself: exit %d: %s", code, stderr)
	}
}

package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/internal/nbtest"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// copyDir copies the files of src (and its subdirectories) into dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := nbtest.CopyDir(src, dst); err != nil {
		t.Fatal(err)
	}
}

// reportFixture is a copy of pkg/report's hand-made run directory with a
// config.resolved.yaml whose rows name their kernel or group.
func reportFixture(t *testing.T) string {
	dir := t.TempDir()
	copyDir(t, filepath.Join(repoRoot, "pkg", "report", "testdata", "run"), dir)
	writeFile(t, dir, "config.resolved.yaml", `name: fixture_50%
rows:
  - {label: A native, method: native, kernel: A}
  - {label: A K1 diag, method: k1, kernel: A, mode: diag}
  - {label: B_1 native, method: native, kernel: B_1}
  - {label: B_1 K1 full, method: k1, kernel: B_1, mode: full}
  - {label: sum native, method: native, group: pair}
  - {label: MKPOE K4 diag, method: k4, group: pair, mode: diag}
  - {label: MKPOE K4 full, method: k4, group: pair, mode: full}
`)
	return dir
}

func TestReportCommand(t *testing.T) {
	dir := reportFixture(t)
	out := filepath.Join(t.TempDir(), "rep")
	code, stdout, stderr := run("report", dir, "--out", out)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, name := range []string{"table.md", "table.tex", "fig-validation.png", "fig-map.svg", "report.html", "report.ipynb"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Errorf("%s not written: %v", name, err)
		}
		if !strings.Contains(stdout, filepath.Join(out, name)) {
			t.Errorf("stdout does not list %s", name)
		}
	}
	// Rows are named after the summary rows' table_row (the config's group).
	md, err := os.ReadFile(filepath.Join(out, "table.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "| pair | 0.610 ± 0.014 (0.718) |") {
		t.Errorf("table.md does not name the group row:\n%s", md)
	}
	// Default output directory and a format subset.
	if code, _, stderr := run("report", "--formats", "md, tex", dir); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "report"))
	if len(entries) != 2 {
		t.Errorf("RUN_DIR/report holds %d files, want table.md and table.tex", len(entries))
	}
}

func TestReportCommandErrors(t *testing.T) {
	empty := t.TempDir()
	dir := reportFixture(t)
	for _, test := range []struct {
		name string
		args []string
		msg  string
	}{
		{"no run dir", []string{"report"}, "usage: mkpoe report RUN_DIR"},
		{"missing dir", []string{"report", filepath.Join(empty, "nope")}, "not a directory"},
		{"not a run", []string{"report", empty}, "no summary.json"},
		{"bad format", []string{"report", dir, "--formats", "md,pdf"}, `--formats: each must be one of md,tex,png,svg,html,ipynb,csv, got "pdf"`},
		{"two run dirs", []string{"report", dir, "other"}, "report writes the report of one run directory, got 2: " + dir + " other; to set runs side by side use: mkpoe compare " + dir + " other"},
		{"two run dirs between flags", []string{"report", "--formats", "md", dir, "--out", empty, "other"}, "got 2: " + dir + " other; to set runs side by side use: mkpoe compare " + dir + " other\n"},
	} {
		t.Run(test.name, func(t *testing.T) {
			code, _, stderr := run(test.args...)
			if code != ExitUsage || !strings.Contains(stderr, test.msg) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, stderr, test.msg)
			}
		})
	}
	// A corrupt summary is bad input too.
	writeFile(t, dir, "summary.json", "{")
	if code, _, stderr := run("report", dir); code != ExitUsage || !strings.Contains(stderr, "parsing summary.json") {
		t.Errorf("corrupt summary: exit %d, %q", code, stderr)
	}
}

// TestRunWritesReport: mkpoe run writes RUN_DIR/report after the summary,
// unless --no-report is given.
func TestRunWritesReport(t *testing.T) {
	cfg := writeFile(t, t.TempDir(), "tiny.yaml", tinyConfig)
	dir := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := run("run", cfg, "--out", dir, "--workers", "2")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, name := range []string{"table.md", "report.html", "report.ipynb", "fig-map.png", "fig-weights-both-k4-diag-s01.png"} {
		if _, err := os.Stat(filepath.Join(dir, "report", name)); err != nil {
			t.Errorf("report/%s not written: %v", name, err)
		}
	}
	if !strings.Contains(stdout, filepath.Join(dir, "report", "report.html")) {
		t.Errorf("stdout does not name the report:\n%s", stdout)
	}
	// The report reads what the harness wrote (pkg/results): the K4 rows'
	// kernel shares, from summary.json, appear in every format.
	sum, err := results.DecodeSummary(readFile(t, filepath.Join(dir, "summary.json")), "summary.json")
	if err != nil {
		t.Fatal(err)
	}
	shares := 0
	for _, r := range sum.Rows {
		if r.KernelShare == nil {
			continue
		}
		shares++
		want := fmt.Sprintf("%s %.3f, %s %.3f", r.Kernels[0], r.KernelShare[0], r.Kernels[1], r.KernelShare[1])
		for _, name := range []string{"table.md", "table.tex", "report.html", "report.ipynb"} {
			if b := readFile(t, filepath.Join(dir, "report", name)); !strings.Contains(string(b), want) {
				t.Errorf("report/%s lacks the kernel shares of %s (%q)", name, r.Label, want)
			}
		}
	}
	if shares != 2 {
		t.Errorf("%d rows with kernel shares, want the 2 K4 rows", shares)
	}
	// Rerun (every task done) with --no-report after removing the report.
	if err := os.RemoveAll(filepath.Join(dir, "report")); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run("run", cfg, "--out", dir, "--no-report"); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "report")); !os.IsNotExist(err) {
		t.Errorf("--no-report wrote a report (%v)", err)
	}
	if code, _, stderr := run("report", dir); code != ExitOK || stderr != "" {
		t.Fatalf("report of an intact run: exit %d, stderr %q (want no warning)", code, stderr)
	}
	if b := readFile(t, filepath.Join(dir, "report", "report.html")); strings.Contains(string(b), `class="warnings"`) {
		t.Error("report.html of an intact run shows warnings")
	}
}

// TestReportFlagsRejectedTaskFiles: task files that no longer back the
// summary (another task's result, a corrupt file, a missing file) are
// warned about on stderr and at the top of table.md, report.html and
// report.ipynb; the report is still written (exit 0).
func TestReportFlagsRejectedTaskFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	c := loadTiny(t, dir)
	cfg := writeFile(t, t.TempDir(), "tiny.yaml", tinyConfig)
	if code, _, stderr := run("run", cfg, "--out", dir, "--no-report"); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	task := func(tok string) string { return filepath.Join(dir, "tasks", expandIDs(c, tok)+".json") }
	writeFile(t, filepath.Dir(task("{native 0 1 -1}")), filepath.Base(task("{native 0 1 -1}")), string(readFile(t, task("{native 0 0 -1}"))))
	writeFile(t, filepath.Dir(task("{cv 2 0 1}")), filepath.Base(task("{cv 2 0 1}")), "{")
	if err := os.Remove(task("{refit 3 1 -1}")); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run("report", dir)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := []string{
		expandIDs(c, "task {native 0 1 -1}: result file rejected (the file holds task {native 0 0 -1})"),
		expandIDs(c, "task {cv 2 0 1}: result file rejected (unreadable result file: "),
		expandIDs(c, "task {refit 3 1 -1}: result file missing; the summary was written before, `mkpoe run "+dir+"` recomputes it"),
	}
	for _, w := range want {
		if !strings.Contains(stderr, "warning: "+w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	for _, name := range []string{"table.md", "report.html", "report.ipynb"} {
		b := string(readFile(t, filepath.Join(dir, "report", name)))
		for _, id := range []string{"{native 0 1 -1}", "{cv 2 0 1}", "{refit 3 1 -1}"} {
			if id := expandIDs(c, id); !strings.Contains(b, id) {
				t.Errorf("report/%s does not flag task %s", name, id)
			}
		}
	}
	if b := readFile(t, filepath.Join(dir, "report", "table.md")); !strings.Contains(string(b), "**Warnings**") {
		t.Error("table.md has no Warnings section")
	}
}

// TestReportTeXOfCommittedResults: the table.tex that mkpoe report writes
// for every committed results/ directory compiles in a plain article (345
// pt of text) with no overfull box.
func TestReportTeXOfCommittedResults(t *testing.T) {
	if _, err := exec.LookPath("pdflatex"); err != nil {
		t.Skip("no pdflatex: the committed results' LaTeX tables are not compiled (apt-get install texlive-latex-base texlive-latex-recommended)")
	}
	if testing.Short() {
		t.Skip("short: compiles one LaTeX document per committed result")
	}
	summaries, err := filepath.Glob(filepath.Join(repoRoot, "results", "*", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(summaries) == 0 {
		t.Fatal("no results/*/summary.json")
	}
	const doc = "\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage[utf8]{inputenc}\n\\usepackage{booktabs}\n\\usepackage{graphicx}\n" +
		"\\begin{document}\n\\input{table.tex}\n\\end{document}\n"
	for _, s := range summaries {
		runDir := filepath.Dir(s)
		t.Run(filepath.Base(runDir), func(t *testing.T) {
			out := t.TempDir()
			if code, _, errs := run("report", runDir, "--formats", "tex", "--out", out); code != 0 {
				t.Fatalf("report: exit %d: %s", code, errs)
			}
			writeFile(t, out, "doc.tex", doc)
			cmd := exec.Command("pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex")
			cmd.Dir = out
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("pdflatex: %v\n%s", err, b)
			}
			log := string(readFile(t, filepath.Join(out, "doc.log")))
			if i := strings.Index(log, "Overfull \\hbox"); i >= 0 {
				t.Errorf("%s: %s", filepath.Join(runDir, "report", "table.tex"), strings.SplitN(log[i:], "\n", 2)[0])
			}
		})
	}
}

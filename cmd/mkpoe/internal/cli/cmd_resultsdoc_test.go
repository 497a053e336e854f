package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResultsDocCommand: --out writes, --check passes on that file and
// fails (exit 1) with the first differing line after an edit; a missing
// config folder is bad input (exit 2) naming it.
func TestResultsDocCommand(t *testing.T) {
	dir := t.TempDir()
	res := filepath.Join(dir, "results", "toy")
	if err := os.MkdirAll(res, 0o755); err != nil {
		t.Fatal(err)
	}
	summary := `{"format":"mkpoe-summary/1","name":"toy","config_hash":"h1","splits":1,"inner_folds":2,"beta_grid":[1],` +
		`"rows":[{"label":"ST native","method":"native","kernels":["ST"],"accuracy":[0.75],"mean":0.75,"std":0,"train_comparisons":[4],"test_comparisons":[8]}]}`
	if err := os.WriteFile(filepath.Join(res, "summary.json"), []byte(summary), 0o644); err != nil {
		t.Fatal(err)
	}
	tmpl := filepath.Join(dir, "doc.md.tmpl")
	if err := os.WriteFile(tmpl, []byte("# Results\n\nST native: {{acc \"toy\" \"ST native\"}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	doc := filepath.Join(dir, "doc.md")
	base := []string{"--template", tmpl, "--results", filepath.Join(dir, "results")}
	run := func(args ...string) (int, string) {
		var stdout, stderr bytes.Buffer
		code := Main(context.Background(), append([]string{"resultsdoc"}, append(append([]string{}, base...), args...)...), &stdout, &stderr)
		return code, stdout.String() + stderr.String()
	}
	if code, out := run("--out", doc); code != 0 {
		t.Fatalf("--out: exit %d: %s", code, out)
	}
	if got := readText(t, doc); got != "# Results\n\nST native: 0.750\n" {
		t.Errorf("document %q", got)
	}
	if code, out := run("--check", doc); code != 0 || !strings.Contains(out, "up to date") {
		t.Errorf("--check on a fresh document: exit %d: %s", code, out)
	}
	if err := os.WriteFile(doc, []byte("# Results\n\nST native: 0.760\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := run("--check", doc); code != 1 || !strings.Contains(out, `line 3: has "ST native: 0.760", generated "ST native: 0.750"`) {
		t.Errorf("--check on an edited document: exit %d: %s", code, out)
	}
	if err := os.WriteFile(tmpl, []byte(`{{table "gone"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := run(); code != 2 || !strings.Contains(out, `config "gone"`) {
		t.Errorf("a missing config: exit %d: %s", code, out)
	}
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestResultsDocUpToDate: docs/results.md is exactly what its template
// and the committed results/<config>/ files give. After a rerun or an
// edit of the template: mkpoe resultsdoc --out docs/results.md.
func TestResultsDocUpToDate(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), []string{"resultsdoc",
		"--template", filepath.Join(repoRoot, "docs", "results.md.tmpl"),
		"--results", filepath.Join(repoRoot, "results"),
		"--check", filepath.Join(repoRoot, "docs", "results.md")}, &stdout, &stderr)
	if code != 0 {
		t.Errorf("exit %d: %s%s", code, stdout.String(), stderr.String())
	}
}

// TestReadmeResultsUpToDate: README.md's results section (between its
// results:begin and results:end markers) is exactly what
// docs/readme-results.md.tmpl and the committed results give, so no
// number there is typed by hand. After a rerun: mkpoe resultsdoc
// --template docs/readme-results.md.tmpl, pasted over the section.
func TestReadmeResultsUpToDate(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), []string{"resultsdoc",
		"--template", filepath.Join(repoRoot, "docs", "readme-results.md.tmpl"),
		"--results", filepath.Join(repoRoot, "results")}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	readme := readText(t, filepath.Join(repoRoot, "README.md"))
	if !strings.Contains(readme, stdout.String()) {
		t.Errorf("README.md's results section differs from docs/readme-results.md.tmpl's (%s); regenerate it: mkpoe resultsdoc --template docs/readme-results.md.tmpl",
			firstDifference([]byte(sectionOf(readme)), stdout.Bytes()))
	}
}

// sectionOf is the text from README's results:begin marker through the
// line of its results:end marker (empty without them).
func sectionOf(readme string) string {
	a := strings.Index(readme, "<!-- results:begin")
	b := strings.Index(readme, "<!-- results:end -->")
	if a < 0 || b < a {
		return ""
	}
	return readme[a : b+len("<!-- results:end -->\n")]
}

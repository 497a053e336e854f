package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/internal/linalg"
)

// TestKernelTypeMessage: a kernel type written as a word of another
// library (cosine) is refused once, at its YAML path, with the valid types,
// where docs/configs.md lists them, and a guess; a bad parameter gets its
// own message with the type's parameters. The message does not stutter
// (it once read "must be a valid kernel type and parameters, got kernels:
// unknown kernel type …").
func TestKernelTypeMessage(t *testing.T) {
	p := filepath.Join(t.TempDir(), "k.yaml")
	if err := os.WriteFile(p, []byte("name: x\ndataset: {type: synthetic}\nkernels:\n"+
		"  - {name: a, source: clean, type: cosine}\n"+
		"  - {name: b, source: clean, type: rbf, params: {sigma: 2}}\n"+
		"rows:\n  - {method: native, kernel: a}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := run("check", p)
	if code != 2 {
		t.Fatalf("exit %d, want 2: %s", code, errs)
	}
	for _, want := range []string{
		`kernels[0].type: must be one of cf, chi2, identity, linear, noise, ppk, rbf, tfidf or precomputed (docs/configs.md, "Kernel types") (did you mean cf or tfidf?), got "cosine"`,
		`kernels[1].params: unknown parameter "sigma" for kernel type "rbf" (valid: bandwidth, median_scale)`,
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if strings.Count(errs, "kernels[0]") != 1 || strings.Contains(errs, "unknown kernel type") {
		t.Errorf("the kernel type is reported more than once or stutters:\n%s", errs)
	}
}

// TestConfigCommentsCiteNoIssues: the shipped configs describe what they
// do and why; none cites an internal issue number (a new user cannot look
// it up).
func TestConfigCommentsCiteNoIssues(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(repoRoot, "configs", "*.yaml"))
	more, _ := filepath.Glob(filepath.Join(repoRoot, "configs", "*", "*.yaml"))
	paths = append(paths, more...)
	if len(paths) == 0 {
		t.Fatal("no configs found")
	}
	cite := regexp.MustCompile(`(?i)\bissues?\s*#?\d+|#\d+\b`)
	for _, p := range paths {
		for i, line := range strings.Split(string(readFile(t, p)), "\n") {
			if m := cite.FindString(line); m != "" {
				t.Errorf("%s:%d cites %q: %s", p, i+1, m, line)
			}
		}
	}
}

// TestCommandsNameTheirBackend: the commands that compute (fit, run, eval,
// native, embed, query, kernel; check for the run it validates) say which
// linear-algebra backend computed their numbers (the pure-Go build or
// OpenBLAS, with its kernels), as env.json records it for a run.
func TestCommandsNameTheirBackend(t *testing.T) {
	dir, kernel, comps, _ := fitFixture(t)
	code, out, errs := run("fit", "--kernel", kernel, "--comparisons", comps, "--beta", "10", "--out", filepath.Join(dir, "m.json"))
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, errs)
	}
	if want := "backend " + linalg.Describe() + "\n"; !strings.Contains(out, want) {
		t.Errorf("fit output lacks %q:\n%s", want, out)
	}
	code, out, errs = run("run", writeFile(t, dir, "tiny.yaml", tinyConfig), "--out", filepath.Join(dir, "run"), "--workers", "2", "--no-report")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	if want := ", backend " + linalg.Describe() + ")\n"; !strings.Contains(out, want) {
		t.Errorf("run output lacks %q:\n%s", want, out)
	}
	// The other commands that compute end their output with the same line
	// (query --json on stderr: its stdout is the JSON document); check
	// names the backend a run would use.
	model := filepath.Join(dir, "m.json")
	features := writeFile(t, dir, "x.tsv", "0\n1\n2\n4\n")
	for _, tc := range []struct {
		args       []string
		out, errs  string // a suffix of stdout, and text of stderr
		jsonStdout bool
	}{
		{[]string{"eval", "--model", model, "--comparisons", comps}, "accuracy 1.000000\n" + backendLine, "", false},
		{[]string{"native", "--kernel", kernel, "--comparisons", comps}, "accuracy 1.000000\n" + backendLine, "", false},
		{[]string{"embed", "--model", model, "--out", filepath.Join(dir, "e.tsv")}, "e.tsv\n" + backendLine, "", false},
		{[]string{"query", "--kernel", kernel, "--item", "0", "-k", "1"}, "1     1      -     1\n" + backendLine, "", false},
		{[]string{"query", "--kernel", kernel, "--item", "0", "-k", "1", "--json"}, "}\n", backendLine, true},
		{[]string{"kernel", "--type", "linear", "--features", features, "--out", filepath.Join(dir, "k.tsv")}, "k.tsv\n" + backendLine, "", false},
		{[]string{"check", writeFile(t, dir, "tiny.yaml", tinyConfig)}, "\nbackend: " + linalg.Describe() + " (this binary's linear algebra, which mkpoe run computes with)\n", "", false},
	} {
		code, out, errs := run(tc.args...)
		if code != 0 || !strings.HasSuffix(out, tc.out) || !strings.Contains(errs, tc.errs) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want stdout ending in %q, stderr with %q", strings.Join(tc.args, " "), code, out, errs, tc.out, tc.errs)
		}
		if tc.jsonStdout && !json.Valid([]byte(out)) {
			t.Errorf("%s: stdout is not JSON alone:\n%s", strings.Join(tc.args, " "), out)
		}
	}
}

// TestToyCommandsScript runs scripts/toy_commands.sh, the single-fit
// commands on examples/toy that the README documents, into a temporary
// folder: it builds mkpoe, fits the four modes and embeds.
func TestToyCommandsScript(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mkpoe and runs eleven commands")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	out := t.TempDir()
	cmd := exec.Command("bash", filepath.Join(repoRoot, "scripts", "toy_commands.sh"), out)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/toy_commands.sh: %v\n%s", err, b)
	}
	for _, name := range []string{"model-diag-sum.json", "model-diag-separate.json", "model-full-sum.json", "model-full-separate.json", "embedding.tsv"} {
		if fi, err := os.Stat(filepath.Join(out, name)); err != nil || fi.Size() == 0 {
			t.Errorf("%s missing or empty (%v)\n%s", name, err, b)
		}
	}
	if n := strings.Count(string(b), "test accuracy (new items): accuracy "); n != 4 {
		t.Errorf("%d test accuracies printed, want 4:\n%s", n, b)
	}
	if !strings.Contains(string(readFile(t, filepath.Join(repoRoot, "README.md"))), "scripts/toy_commands.sh") {
		t.Error("README.md does not document scripts/toy_commands.sh")
	}
}

// TestBuildOpenBLASScript: the one command the README gives a new user for
// the fast build is there, is valid bash, and builds with the openblas tag.
// (CI installs the packages and builds that way itself; the script's apt
// step needs root.)
func TestBuildOpenBLASScript(t *testing.T) {
	p := filepath.Join(repoRoot, "scripts", "build_openblas.sh")
	b := readFile(t, p)
	if bash, err := exec.LookPath("bash"); err == nil {
		if out, err := exec.Command(bash, "-n", p).CombinedOutput(); err != nil {
			t.Errorf("bash -n %s: %v\n%s", p, err, out)
		}
	}
	if !strings.Contains(string(b), "-tags openblas") {
		t.Errorf("%s does not build with -tags openblas", p)
	}
	if !strings.Contains(string(readFile(t, filepath.Join(repoRoot, "README.md"))), "scripts/build_openblas.sh") {
		t.Error("README.md does not give scripts/build_openblas.sh")
	}
}

// TestDocsCiteNoWorkItems: the documents are written for users, who cannot
// look up the project's internal work items: no line of README.md,
// docs/*.md or the templates they are generated from (docs/*.tmpl) names
// an issue or a work session. The dated logs under docs/notes/ may.
func TestDocsCiteNoWorkItems(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	tmpls, _ := filepath.Glob(filepath.Join(repoRoot, "docs", "*.tmpl"))
	paths = append(append(paths, tmpls...), filepath.Join(repoRoot, "README.md"))
	if len(paths) < 3 || len(tmpls) == 0 {
		t.Fatal("no docs found")
	}
	cite := regexp.MustCompile(`(?i)\b(issue|session)s?\s*#?\d+|\bsession-\d+|#\d+\b`)
	for _, p := range paths {
		for i, line := range strings.Split(string(readFile(t, p)), "\n") {
			if m := cite.FindString(line); m != "" {
				t.Errorf("%s:%d cites %q: %s", p, i+1, m, line)
			}
		}
	}
}

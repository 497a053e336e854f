package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mkpoe/mkpoe/pkg/report"
)

// runResultsDoc implements "mkpoe resultsdoc [--template FILE] [--results
// DIR] [--out FILE | --check FILE]": docs/results.md from its template and
// the committed results (report.ResultsDoc).
func runResultsDoc(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("resultsdoc", stderr)
	tmpl := fs.String("template", "docs/results.md.tmpl", "the document's template (Go text/template; docs/results.md.tmpl says which functions it has)")
	dir := fs.String("results", "results", "the committed results: one folder per config with summary.json and provenance.json")
	out := fs.String("out", "", "write the document to FILE (default: standard output)")
	check := fs.String("check", "", "compare the document with FILE and exit 1 if they differ")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if *out != "" && *check != "" {
		return usagef("--out and --check exclude each other")
	}
	t, err := os.ReadFile(*tmpl)
	if err != nil {
		return badInput(fmt.Errorf("--template: %w", err))
	}
	if _, err := os.Stat(*dir); err != nil {
		return badInput(fmt.Errorf("--results: %w", err))
	}
	doc, err := report.ResultsDoc(string(t), os.DirFS(*dir))
	if err != nil {
		return badInput(fmt.Errorf("%s with %s: %w", *tmpl, *dir, err))
	}
	switch {
	case *check != "":
		have, err := os.ReadFile(*check)
		if err != nil {
			return badInput(fmt.Errorf("--check: %w", err))
		}
		if !bytes.Equal(have, doc) {
			return fmt.Errorf("%s differs from what %s and %s give (%s); regenerate it: mkpoe resultsdoc --template %s --results %s --out %s",
				*check, *tmpl, *dir, firstDifference(have, doc), *tmpl, *dir, *check)
		}
		fmt.Fprintf(stdout, "%s is up to date\n", *check)
	case *out != "":
		if err := os.WriteFile(*out, doc, 0o644); err != nil {
			return err
		}
		fmt.Fprintln(stdout, *out)
	default:
		_, err := stdout.Write(doc)
		return err
	}
	return nil
}

// firstDifference names the first line where two texts differ.
func firstDifference(have, want []byte) string {
	h, w := strings.Split(string(have), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(h), len(w)); i++ {
		var a, b string
		if i < len(h) {
			a = h[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return fmt.Sprintf("line %d: has %q, generated %q", i+1, a, b)
		}
	}
	return "same lines"
}

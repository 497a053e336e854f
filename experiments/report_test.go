package experiments

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/internal/errkind"
)

func TestNotebookRunDir(t *testing.T) {
	t.Parallel()
	for _, test := range []struct{ dir, out, want string }{
		{"/x/run", "/x/run/report", ".."},
		{"/x/run", "/y/rep", "../../x/run"},
		{"/x/run", "/x/run", "."},
	} {
		if got := notebookRunDir(test.dir, test.out); got != test.want {
			t.Errorf("notebookRunDir(%q, %q) = %q, want %q", test.dir, test.out, got, test.want)
		}
	}
}

// TestWriteReportInputErrors: a missing or unfinished run directory and an
// unknown format are the user's input errors, and nothing is written.
func TestWriteReportInputErrors(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	for _, test := range []struct {
		dir     string
		formats []string
		err     string
	}{
		{filepath.Join(empty, "none"), nil, "not a directory"},
		{empty, []string{"md", "pdf"}, `--formats: each must be one of`},
		{empty, nil, empty + ": "},
	} {
		paths, _, err := WriteReport(test.dir, "", test.formats)
		var in errkind.Input
		if err == nil || !errors.As(err, &in) || !strings.Contains(err.Error(), test.err) || paths != nil {
			t.Errorf("WriteReport(%q, %v): %v, %v; want an input error containing %q", test.dir, test.formats, paths, err, test.err)
		}
	}
}

// TestTaskFileWarnings: a prepared run directory with no results warns of
// every task; a directory with task files but no config warns that
// nothing was checked; a record of a run (summary and provenance only, as
// results/<config>/ commits it) has nothing to check.
func TestTaskFileWarnings(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	c := loadTiny(t, dir)
	if err := Prepare(c, false); err != nil {
		t.Fatal(err)
	}
	w := taskFileWarnings(dir)
	want := "task " + Plan(c)[0].ID + ": result file missing; the summary was written before, `mkpoe run " + dir + "` recomputes it and rewrites the summary"
	if len(w) != 22 || w[0] != want {
		t.Errorf("%d warnings, the first %q; want 22, %q", len(w), w[0], want)
	}
	noConfig := t.TempDir()
	if err := os.Mkdir(filepath.Join(noConfig, "tasks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if w := taskFileWarnings(noConfig); len(w) != 1 || !strings.HasPrefix(w[0], "task files not checked: ") || strings.Contains(w[0], "\n") {
		t.Errorf("without a config: %q", w)
	}
	record := t.TempDir()
	writeFile(t, record, "summary.json", "{}")
	writeFile(t, record, "provenance.json", "{}")
	if w := taskFileWarnings(record); w != nil {
		t.Errorf("a record of a run: %q, want none", w)
	}
}

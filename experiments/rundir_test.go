package experiments

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/internal/errkind"
)

// TestCheckRunDirPath: a run directory that cannot be one (a file, a path
// through a file, a folder of other files) is bad input with a sentence;
// a new, empty or earlier run's folder is taken, and --force takes a
// folder of other files.
func TestCheckRunDirPath(t *testing.T) {
	root := t.TempDir()
	mk := func(files ...string) string {
		dir, err := os.MkdirTemp(root, "d")
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			p := filepath.Join(dir, f)
			if strings.HasSuffix(f, "/") {
				os.MkdirAll(p, 0o755)
			} else if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	file := filepath.Join(mk("README.md"), "README.md")
	for _, tc := range []struct {
		name  string
		dir   string
		force bool
		want  string // "" for accepted
	}{
		{"new", filepath.Join(root, "new", "run"), false, ""},
		{"empty", mk(), false, ""},
		{"an earlier run", mk("tasks/", ".lock"), false, ""},
		{"a committed result", mk("summary.json", "table.md", "provenance.json"), false, ""},
		{"a file", file, false, "run directory " + file + " is a file, not a folder"},
		{"a file, forced", file, true, "is a file, not a folder"},
		{"under a file", filepath.Join(file, "run"), false, "lies under " + file + ", which is a file"},
		{"other files", mk("go.mod", "README.md"), false, "holds other files (README.md, go.mod) and no run of mkpoe"},
		{"other files, forced", mk("go.mod"), true, ""},
	} {
		err := checkRunDirPath(tc.dir, tc.force)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		case tc.want != "" && !errors.As(err, new(errkind.Input)):
			t.Errorf("%s: %v is not bad input", tc.name, err)
		}
	}
}

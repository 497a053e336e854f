package experiments

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mkpoe/mkpoe/internal/errkind"
)

// runMarks are entries that a run puts in its directory first (the lock,
// tasks/) or that a run directory holds (a committed result has
// summary.json): a folder with one of them, or an empty one, can be a run
// directory.
var runMarks = []string{".lock", "tasks", "models", "config.resolved.yaml", "summary.json"}

// checkRunDirPath refuses, as bad input, a run directory (--out, or the
// config's output) that cannot be one: an existing file, a path through a
// file, or (unless force) a folder that holds other files and no run, such
// as the repository or docs/, where a run would scatter tasks/, models/,
// summary.json, tables and report/ among them.
func checkRunDirPath(dir string, force bool) error {
	const what = "a run directory is a folder for the run's tasks, models, summary, tables and report"
	st, err := os.Stat(dir)
	switch {
	case err == nil && !st.IsDir():
		return errkind.BadInput(fmt.Errorf("run directory %s is a file, not a folder: %s; give --out (or the config's output) a new folder, or a run directory of this experiment", dir, what))
	case errors.Is(err, os.ErrNotExist):
		return nil // created by the run
	case err != nil:
		// A path through a file (a/README.md/run): name the file.
		for p := filepath.Dir(dir); p != filepath.Dir(p); p = filepath.Dir(p) {
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				return errkind.BadInput(fmt.Errorf("run directory %s lies under %s, which is a file, not a folder: %s; give --out (or the config's output) a new folder", dir, p, what))
			}
		}
		return err
	}
	if force {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var names []string
	for _, e := range entries {
		if slices.Contains(runMarks, e.Name()) {
			return nil
		}
		names = append(names, e.Name())
	}
	if len(names) == 0 {
		return nil
	}
	if len(names) > 4 {
		names = append(names[:4], "…")
	}
	return errkind.BadInput(fmt.Errorf("run directory %s holds other files (%s) and no run of mkpoe: %s, and they would land among these; give --out (or the config's output) a new or empty folder, or add --force to run there anyway", dir, strings.Join(names, ", "), what))
}

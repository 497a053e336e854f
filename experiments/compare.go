package experiments

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mkpoe/mkpoe/internal/errkind"
	"github.com/mkpoe/mkpoe/pkg/report"
)

// DefaultCompareDir is where [WriteCompare] writes without an output
// directory: compare/ under the working directory.
const DefaultCompareDir = "compare"

// LoadComparison reads the run directories dirs (at least two) and builds
// their comparison (see report.NewComparison). names name the runs in
// order (nil: each directory's base name, or its path as given when two
// base names clash). Each run's warnings name its task files that no
// longer back its summary, as mkpoe report's do. Fewer than two
// directories, a directory that is not a finished run, a names list of
// the wrong length, an empty name or two equal names (case-insensitively)
// are input errors (errkind.Input) naming the argument.
func LoadComparison(dirs, names []string) (*report.Comparison, error) {
	if len(dirs) < 2 {
		return nil, errkind.Usagef("give at least 2 run directories to compare, got %d", len(dirs))
	}
	if names == nil {
		names = defaultRunNames(dirs)
	} else if len(names) != len(dirs) {
		return nil, errkind.Usagef("--names: give one name per run directory (%d), got %d (%s)", len(dirs), len(names), strings.Join(names, ","))
	}
	for i, n := range names {
		if strings.TrimSpace(n) == "" {
			return nil, errkind.Usagef("--names: name %d (for %s) is empty", i+1, dirs[i])
		}
		for j := range i {
			if strings.EqualFold(names[j], n) {
				if n == names[j] && filepath.Clean(dirs[i]) == filepath.Clean(dirs[j]) {
					return nil, errkind.Usagef("run directory %s is given twice; to compare a run with itself, name the two with --names", dirs[i])
				}
				return nil, errkind.Usagef("--names: runs %d (%s) and %d (%s) are both named %q; names must differ (case-insensitively)", j+1, dirs[j], i+1, dirs[i], n)
			}
		}
	}
	runs := make([]report.CompareRun, len(dirs))
	for i, dir := range dirs {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, errkind.Usagef("run directory %s: not a directory", dir)
		}
		run, err := report.Load(os.DirFS(dir))
		if err != nil {
			// Not a finished run (report.ErrNotRunDir) or an unreadable file.
			return nil, errkind.BadInput(fmt.Errorf("%s: %w", dir, err))
		}
		runs[i] = report.CompareRun{Name: names[i], Source: dir, Run: run, Warnings: taskFileWarnings(dir)}
	}
	return report.NewComparison(runs, nil)
}

// defaultRunNames names each run by its directory's base name, or by the
// paths as given when two base names clash.
func defaultRunNames(dirs []string) []string {
	names := make([]string, len(dirs))
	seen := map[string]bool{}
	clash := false
	for i, d := range dirs {
		names[i] = filepath.Base(filepath.Clean(d))
		key := strings.ToLower(names[i])
		clash = clash || seen[key]
		seen[key] = true
	}
	if clash {
		for i, d := range dirs {
			names[i] = filepath.Clean(d)
		}
	}
	return names
}

// WriteCompare compares the run directories dirs ([LoadComparison]) and
// writes the files of the formats given (nil: all of
// report.CompareFormats) to out (default [DefaultCompareDir]). It returns
// the comparison and the paths written. An unknown format is an input
// error naming --formats.
func WriteCompare(dirs, names []string, out string, formats []string) (*report.Comparison, []string, error) {
	for _, f := range formats {
		if !slices.Contains(report.CompareFormats, f) {
			return nil, nil, errkind.Usagef("--formats: each must be one of %s, got %q", strings.Join(report.CompareFormats, ","), f)
		}
	}
	if formats != nil && len(formats) == 0 {
		return nil, nil, errkind.Usagef("--formats: give at least one of %s", strings.Join(report.CompareFormats, ","))
	}
	c, err := LoadComparison(dirs, names)
	if err != nil {
		return nil, nil, err
	}
	files, err := c.Files(formats)
	if err != nil {
		return nil, nil, err
	}
	if out == "" {
		out = DefaultCompareDir
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, nil, err
	}
	var paths []string
	for _, f := range files {
		p := filepath.Join(out, f.Name)
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return nil, nil, err
		}
		paths = append(paths, p)
	}
	return c, paths, nil
}

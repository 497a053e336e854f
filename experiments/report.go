package experiments

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mkpoe/mkpoe/internal/errkind"
	"github.com/mkpoe/mkpoe/pkg/report"
)

// WriteReport builds the report of the run directory dir (see package
// report) in the given formats (nil: all) and writes its files to out
// (default dir/report). It returns the paths written and the warnings the
// report shows at its top: task files that no longer back the summary
// (see [taskFileWarnings]) and the summary's NaN rows and columns. A
// directory that is not a finished run, or an unknown format, is an input
// error (errkind.Input).
func WriteReport(dir, out string, formats []string) (paths, warnings []string, err error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, nil, errkind.Usagef("run directory %s: not a directory", dir)
	}
	for _, f := range formats {
		if !slices.Contains(report.Formats, f) {
			return nil, nil, errkind.Usagef("--formats: each must be one of %s, got %q", strings.Join(report.Formats, ","), f)
		}
	}
	run, err := report.Load(os.DirFS(dir))
	if err != nil {
		if errors.Is(err, report.ErrNotRunDir) {
			return nil, nil, errkind.BadInput(fmt.Errorf("%s: %w", dir, err))
		}
		return nil, nil, errkind.BadInput(err)
	}
	if out == "" {
		out = filepath.Join(dir, "report")
	}
	rep, err := report.NewReport(run, report.Options{Source: dir, Warnings: taskFileWarnings(dir), NotebookRunDir: notebookRunDir(dir, out)})
	if err != nil {
		return nil, nil, err
	}
	files, err := rep.Files(formats)
	if err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, nil, err
	}
	for _, f := range files {
		p := filepath.Join(out, f.Name)
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return nil, nil, err
		}
		paths = append(paths, p)
	}
	return paths, rep.Warnings, nil
}

// notebookRunDir is the run directory dir as seen from the report
// directory out, for report.ipynb's RUN_DIR: relative ("..", for the
// default out) when both are on one tree, else absolute.
func notebookRunDir(dir, out string) string {
	absDir, err1 := filepath.Abs(dir)
	absOut, err2 := filepath.Abs(out)
	if err1 != nil || err2 != nil {
		return dir
	}
	if rel, err := filepath.Rel(absOut, absDir); err == nil {
		return filepath.ToSlash(rel)
	}
	return absDir
}

// taskFileWarnings checks the task files of run directory dir against its
// config.resolved.yaml, as "mkpoe status" does, and returns one warning per
// task whose result file is missing, rejected (unreadable, another task's,
// computed from other inputs) or failed: the summary was written from
// results the directory no longer holds, so the report cannot be traced
// back to them. A directory whose config cannot be read gets one warning
// saying so. A folder with neither tasks/ nor config.resolved.yaml (the
// committed results/<config>/: summary, table, provenance) is a record of
// a run, not a run directory: nothing to check. A snapshot in a run
// directory's history/ (archivePrevious) has no tasks/ of its own: its
// tasks are checked in the run directory, and when a later config's run
// has replaced some, one warning says so.
func taskFileWarnings(dir string) []string {
	notChecked := func(err error) []string {
		msg := strings.ReplaceAll(strings.ReplaceAll(err.Error(), ":\n", ": "), "\n", "; ")
		return []string{"task files not checked: " + msg}
	}
	cfg := filepath.Join(dir, "config.resolved.yaml")
	tasksDir := dir
	snapshot := false
	if _, err := os.Stat(filepath.Join(dir, "tasks")); errors.Is(err, os.ErrNotExist) {
		if _, err := os.Stat(cfg); errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if parent := filepath.Dir(filepath.Clean(dir)); filepath.Base(parent) == "history" {
			tasksDir, snapshot = filepath.Dir(parent), true
		}
	}
	c, err := LoadConfig(cfg)
	if err != nil {
		return notChecked(err)
	}
	c.Output = tasksDir
	st := Status(c)
	if snapshot {
		if gone := len(st.Missing) + len(st.Failed); gone > 0 {
			return []string{fmt.Sprintf("a snapshot kept in %s's history/: %d of its %d task files have since been replaced or removed by a later run of that directory, so its summary stands as merged but cannot be traced to task files", tasksDir, gone, st.Total)}
		}
		return nil
	}
	var out []string
	rerun := fmt.Sprintf("`mkpoe run %s` recomputes it and rewrites the summary", dir)
	for _, t := range st.Missing {
		what := "result file rejected (" + t.Reason + ")"
		if t.Reason == "no result" {
			what = "result file missing"
		}
		out = append(out, fmt.Sprintf("task %s: %s; the summary was written before, %s", t.ID, what, rerun))
	}
	for _, t := range st.Failed {
		out = append(out, fmt.Sprintf("task %s: failed (%s); %s", t.ID, t.Error, rerun))
	}
	return out
}

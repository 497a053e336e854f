package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mkpoe/mkpoe/pkg/report"
)

// runReport implements "mkpoe report RUN_DIR [--formats md,tex,png,svg,html,ipynb] [--out DIR]".
func runReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report", stderr)
	formats := fs.String("formats", strings.Join(report.Formats, ","), "comma-separated outputs among "+strings.Join(report.Formats, ","))
	out := fs.String("out", "", "output directory (default RUN_DIR/report)")
	var dir string
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		dir, args = args[0], args[1:]
	}
	positional := 1
	if dir != "" {
		positional = 0
	}
	if err := parseFlags(fs, args, positional); err != nil {
		return err
	}
	if dir == "" && fs.NArg() == 1 {
		dir = fs.Arg(0)
	}
	if dir == "" {
		return usagef("usage: mkpoe report RUN_DIR [--formats %s] [--out DIR]", strings.Join(report.Formats, ","))
	}
	var list []string
	for _, f := range strings.Split(*formats, ",") {
		if f = strings.TrimSpace(f); f != "" {
			list = append(list, f)
		}
	}
	files, err := WriteReport(dir, *out, list)
	if err != nil {
		return err
	}
	for _, f := range files {
		fmt.Fprintln(stdout, f)
	}
	return nil
}

// WriteReport builds the report of the run directory dir (see package
// report) in the given formats (nil: all) and writes its files to out
// (default dir/report). It returns the paths written. A directory that is
// not a finished run, or an unknown format, is an input error (exit 2).
func WriteReport(dir, out string, formats []string) ([]string, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, usagef("run directory %s: not a directory", dir)
	}
	for _, f := range formats {
		if !containsString(report.Formats, f) {
			return nil, usagef("--formats: each must be one of %s, got %q", strings.Join(report.Formats, ","), f)
		}
	}
	run, err := report.Load(os.DirFS(dir))
	if err != nil {
		if errors.Is(err, report.ErrNotRunDir) {
			return nil, badInput(fmt.Errorf("%s: %w", dir, err))
		}
		return nil, badInput(err)
	}
	files, err := report.Build(run, report.Options{Formats: formats, Source: dir})
	if err != nil {
		return nil, err
	}
	if out == "" {
		out = filepath.Join(dir, "report")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range files {
		p := filepath.Join(out, f.Name)
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

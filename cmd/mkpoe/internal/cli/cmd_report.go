package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/mkpoe/mkpoe/experiments"
	"github.com/mkpoe/mkpoe/pkg/report"
)

// runReport implements "mkpoe report RUN_DIR [--formats md,tex,png,svg,html,ipynb,csv] [--out DIR]".
func runReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report", stderr)
	formats := fs.String("formats", strings.Join(report.Formats, ","), "comma-separated outputs among "+strings.Join(report.Formats, ","))
	out := fs.String("out", "", "output directory (default RUN_DIR/report)")
	// RUN_DIR may come before, between or after the flags.
	var dirs []string
	for rest := args; ; rest = fs.Args()[1:] {
		if err := parseFlags(fs, rest, len(rest)); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		dirs = append(dirs, fs.Arg(0))
	}
	if len(dirs) > 1 {
		return usagef("report writes the report of one run directory, got %d: %s; to set runs side by side use: mkpoe compare %s", len(dirs), strings.Join(dirs, " "), strings.Join(dirs, " "))
	}
	var dir string
	if len(dirs) == 1 {
		dir = dirs[0]
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
	files, warnings, err := experiments.WriteReport(dir, *out, list)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	for _, f := range files {
		fmt.Fprintln(stdout, f)
	}
	return nil
}

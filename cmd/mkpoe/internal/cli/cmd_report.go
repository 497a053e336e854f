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

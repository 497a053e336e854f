package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/mkpoe/mkpoe/experiments"
	"github.com/mkpoe/mkpoe/pkg/report"
)

// runCompare implements "mkpoe compare RUN_DIR RUN_DIR... [--names a,b,...]
// [--formats md,html,png,svg,csv] [--out DIR]": several runs' tables side
// by side with differences, their claims, and their validation curves
// overlaid (experiments.WriteCompare, report.Comparison).
func runCompare(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("compare", stderr)
	formats := fs.String("formats", strings.Join(report.CompareFormats, ","), "comma-separated outputs among "+strings.Join(report.CompareFormats, ","))
	out := fs.String("out", "", "output `DIR`ectory (default "+experiments.DefaultCompareDir+"/ under the working directory)")
	namesFlag := fs.String("names", "", "comma-separated run `NAMES`, one per RUN_DIR in order (default: the directories' base names)")
	// Run directories may come before, between or after the flags.
	var dirs []string
	rest := args
	for {
		for len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
			dirs, rest = append(dirs, rest[0]), rest[1:]
		}
		if len(rest) == 0 {
			break
		}
		if err := parseFlags(fs, rest, len(rest)); err != nil {
			return err
		}
		if rest = fs.Args(); len(rest) == 0 {
			break
		}
		if strings.HasPrefix(rest[0], "-") { // after "--"
			dirs, rest = append(dirs, rest[0]), rest[1:]
		}
	}
	if len(dirs) < 2 {
		return usagef("give at least 2 run directories (RUN_DIR RUN_DIR...), got %d; usage: mkpoe compare %s", len(dirs), commands["compare"].synopsis)
	}
	var names []string
	if *namesFlag != "" {
		names = strings.Split(*namesFlag, ",")
		for i := range names {
			names[i] = strings.TrimSpace(names[i])
		}
	}
	var list []string
	for _, f := range strings.Split(*formats, ",") {
		if f = strings.TrimSpace(f); f != "" {
			list = append(list, f)
		}
	}
	if list == nil {
		list = []string{} // --formats "": an error, not every format
	}
	c, files, err := experiments.WriteCompare(dirs, names, *out, list)
	if err != nil {
		return err
	}
	for _, w := range c.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	if err := c.Text(stdout); err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	for _, f := range files {
		fmt.Fprintln(stdout, f)
	}
	return nil
}

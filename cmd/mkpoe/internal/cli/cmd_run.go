package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/mkpoe/mkpoe/experiments"
	"github.com/mkpoe/mkpoe/experiments/slurm"
	"github.com/mkpoe/mkpoe/internal/linalg"
	"github.com/mkpoe/mkpoe/internal/progress"
)

// loadConfigArgs parses "CONFIG [flags]" and applies --out.
func loadConfigArgs(name string, args []string, stderr io.Writer, extra func(fs *flagSet)) (*experiments.Config, error) {
	path, out, err := pathAndOut(name, args, stderr, "run directory (default: the config's output, results/<name>)", extra)
	if err != nil {
		return nil, err
	}
	if path == "" {
		return nil, usagef("usage: mkpoe %s CONFIG [flags]", name)
	}
	return loadConfigFile(path, out)
}

// pathAndOut parses "PATH [--out DIR] [flags]" with the flags extra adds,
// and returns PATH ("" if absent) and the --out value.
func pathAndOut(name string, args []string, stderr io.Writer, outHelp string, extra func(fs *flagSet)) (path, out string, err error) {
	fs := newFlagSet(name, stderr)
	o := fs.String("out", "", outHelp)
	if extra != nil {
		extra(fs)
	}
	path, err = pathArg(fs, args)
	return path, *o, err
}

// pathArg parses args with fs and returns the one positional argument
// (before or after the flags), or "" if there is none.
func pathArg(fs *flagSet, args []string) (string, error) {
	var path string
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		path, args = args[0], args[1:]
	}
	if err := parseFlags(fs, args, 1); err != nil {
		return "", err
	}
	if path == "" && fs.NArg() == 1 {
		path = fs.Arg(0)
	}
	return path, nil
}

// loadConfigFile loads a config by its absolute path and applies out. An
// absolute path makes the dataset paths absolute, so the config hash does
// not depend on the working directory and the run directory's
// config.resolved.yaml loads back to the same hash.
func loadConfigFile(path, out string) (*experiments.Config, error) {
	c, err := experiments.LoadConfig(absPath(path))
	if err != nil {
		return nil, badInput(err)
	}
	if out != "" {
		c.Output = out
	}
	return c, nil
}

// runRun implements "mkpoe run CONFIG [--out DIR] [--workers N]", and with
// --task-index/--shard/--phase (or $SLURM_ARRAY_TASK_ID) one shard of it
// (see experiments/slurm).
func runRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var workers *int
	var shard *slurm.ShardRequest
	var noReport, force *bool
	var every *time.Duration
	c, err := loadConfigArgs("run", args, stderr, func(fs *flagSet) {
		workers = fs.Int("workers", 0, "tasks run in parallel (default: all cores)")
		shard = addShardFlags(fs)
		noReport = fs.Bool("no-report", false, "do not write the report (RUN_DIR/report) after the summary")
		force = fs.Bool("force", false, "take over a run directory that belongs to another experiment (its summary is replaced), or run in a folder that holds other files")
		every = addProgressFlag(fs)
	})
	if err != nil {
		return err
	}
	if advice := linalg.BLASAdvice(); advice != "" {
		fmt.Fprintf(stderr, "mkpoe: warning: %s\n", advice)
	}
	opts := experiments.RunOptions{Workers: *workers, Log: stderr, Force: *force, ProgressEvery: *every}
	if *every == 0 {
		opts.ProgressEvery = -1 // none
	}
	start := time.Now()
	if sh, err := shard.Resolve(len(experiments.Plan(c)), os.Getenv); err != nil {
		return err
	} else if sh.Active() {
		return runShard(ctx, c, sh, opts, stdout, stderr)
	}
	s, err := experiments.Run(ctx, c, opts)
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, experiments.SummaryMarkdown(s))
	if !*noReport {
		if _, _, err := experiments.WriteReport(c.Output, "", nil); err != nil {
			return fmt.Errorf("the run finished but its report failed (retry with mkpoe report %s): %v", c.Output, err)
		}
		fmt.Fprintf(stdout, "\nreport: %s\n", filepath.Join(c.Output, "report", "report.html"))
	}
	fmt.Fprintf(stdout, "\nrun directory: %s (%.1fs, backend %s)\n", c.Output, time.Since(start).Seconds(), linalg.Describe())
	return nil
}

// addProgressFlag adds --progress-every: the interval of the plain
// progress lines written when stderr is not a terminal (docs/progress.md).
func addProgressFlag(fs *flagSet) *time.Duration {
	return fs.Duration("progress-every", progress.PlainEvery, "without a terminal: interval of the progress lines on stderr (0: none)")
}

// runCheck implements "mkpoe check CONFIG": validate the config and the data
// it names, and print the size of the plan.
func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := loadConfigArgs("check", args, stderr, nil)
	if err != nil {
		return checkOtherFile(err, stdout)
	}
	data, err := experiments.Check(c)
	if err != nil {
		return err
	}
	plan := experiments.Plan(c)
	counts := map[string]int{}
	fits := 0
	for _, t := range plan {
		counts[t.Kind]++
		fits += experiments.TaskFits(c, t)
	}
	fmt.Fprintf(stdout, "config %s ok (hash %s)\n", c.Name, c.Hash())
	fmt.Fprintf(stdout, "data: %s, %d items (split: %d train / %d test %s), %d kernels, %d rows\n", c.Dataset.Type, data.Items, data.Train, data.Test, data.Unit, len(c.Kernels), len(c.Rows))
	perRow := "per learned row"
	if slices.ContainsFunc(c.Rows, func(r experiments.RowConfig) bool { return len(r.Rank) > 1 }) {
		perRow = "× ranks per learned row (cv tasks a row shares counted once)"
	}
	fmt.Fprintf(stdout, "plan: %d tasks (%d native, %d cv, %d refit), %d model fits (%d β values × %d folds × splits %s, plus refits)\n",
		len(plan), counts[experiments.KindNative], counts[experiments.KindCV], counts[experiments.KindRefit], fits, len(c.BetaGrid.Values), c.Protocol.InnerFolds, perRow)
	for _, note := range data.Notes {
		fmt.Fprintf(stdout, "note: %s\n", note)
	}
	fmt.Fprintf(stdout, "output: %s\n", c.Output)
	fmt.Fprintf(stdout, "backend: %s (this binary's linear algebra, which mkpoe run computes with)\n", linalg.Describe())
	return nil
}

// runPlan implements "mkpoe plan CONFIG": list the tasks, one per line
// (index, ID, kind), or as JSON with --json.
func runPlan(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var asJSON *bool
	c, err := loadConfigArgs("plan", args, stderr, func(fs *flagSet) {
		asJSON = fs.Bool("json", false, "print the plan as JSON")
	})
	if err != nil {
		return err
	}
	plan := experiments.Plan(c)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(plan)
	}
	for i, t := range plan {
		fmt.Fprintf(stdout, "%d\t%s\t%s\t%s\n", i, t.ID, t.Kind, c.Rows[t.Row].Label)
	}
	fmt.Fprintln(stderr, priorLine(c))
	return nil
}

// priorLine is plan's rough estimate of the run's time, on stderr (stdout
// stays the task list): the plan's fits at the documented per-fit prior
// (docs/progress.md, "The prior") in this binary's build, in CPU seconds
// at the rate the machine gives a busy thread now (measured over
// planProbe), and at an idle machine's.
func priorLine(c *experiments.Config) string {
	workers := max(runtime.NumCPU(), 1)
	speed, ok := experiments.MachineRate(workers, planProbe)
	var rate func(j int) float64
	if ok {
		rate = progress.TaskRates(speed, float64(workers), workers)
	}
	work, idle, wall, fits, err := experiments.PriorEstimate(c, workers, rate)
	if err != nil {
		return fmt.Sprintf("prior estimate: unknown (%v)", err)
	}
	if !ok {
		return fmt.Sprintf("prior estimate (not measured; docs/progress.md): %d fits, about %s of work, %s on %d workers on an idle machine, backend %s; "+
			"the machine's speed could not be measured", fits, progress.FormatDuration(work), progress.FormatDuration(idle), workers, linalg.Backend())
	}
	load := ""
	if l, ok := experiments.LoadAverage(); ok {
		load = fmt.Sprintf(", load average %.1f", l)
	}
	return fmt.Sprintf("prior estimate (not measured; docs/progress.md): %d fits, about %s of work, %s on %d workers at the machine's speed now "+
		"(a busy thread got %.2f of a core over %.1fs%s; idle: %s), backend %s; the load may change under the run",
		fits, progress.FormatDuration(work), progress.FormatDuration(wall), workers, speed, planProbe.Seconds(), load,
		progress.FormatDuration(idle), linalg.Backend())
}

// planProbe is how long plan measures the machine's speed
// (experiments.MachineRate).
const planProbe = 300 * time.Millisecond

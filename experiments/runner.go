package experiments

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mkpoe/mkpoe/pkg/results"

	"go.yaml.in/yaml/v3"

	"github.com/mkpoe/mkpoe/internal/errkind"
	"github.com/mkpoe/mkpoe/internal/linalg"
	"github.com/mkpoe/mkpoe/internal/progress"
)

// RunOptions control a run.
type RunOptions struct {
	Workers int // parallel tasks (default: all cores)
	// Log receives the progress (docs/progress.md): on a terminal one live
	// line (fits and tasks done, ETA, the running fit); else a line per
	// finished task and a progress block every ProgressEvery.
	Log io.Writer
	// ProgressEvery is the interval of the progress blocks in a log
	// (0: progress.PlainEvery, 30 s; negative: none).
	ProgressEvery time.Duration
	// Only, if not nil, restricts the run to the tasks for which it returns
	// true (Slurm shards); the summary is built only once every task is done.
	Only func(index int, t results.Task) bool
	// NoMerge skips building the summary (a shard: the merge job builds it
	// once every shard is done); Run then returns a nil summary.
	NoMerge bool
	// Force lets the run take over a run directory that belongs to another
	// experiment (claimRunDir).
	Force bool
}

// Run executes the plan of c in c.Output: phase 0 (native and cv tasks),
// then phase 1 (refits), each on opts.Workers goroutines. Finished tasks of
// the same config are skipped, so a rerun resumes an interrupted run. A task
// that fails records its error and does not stop the others. When every
// task is done it writes summary.json, table.md and timings.json and returns
// the summary; failed tasks give an error after the others finished.
//
// Cancelling ctx (Ctrl-C in mkpoe) stops the running fits within about one
// solver iteration; their tasks are not recorded, finished ones stay on
// disk, and Run returns an error matching context.Canceled that says how
// many tasks are kept (the same call resumes).
func Run(ctx context.Context, c *Config, opts RunOptions) (*results.Summary, error) {
	if opts.Workers <= 0 {
		opts.Workers = runtime.NumCPU()
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	ds, err := c.loadAndCheckData()
	if err != nil {
		return nil, errkind.BadInput(err)
	}
	for _, note := range ds.notes {
		fmt.Fprintln(opts.Log, "data:", note)
	}
	if err := claimRunDir(c, opts.Force); err != nil {
		return nil, err
	}
	unlock, err := lockRunDir(c.Output, opts.Only != nil)
	if err != nil {
		return nil, err
	}
	defer unlock()
	st, err := openStore(c)
	if err != nil {
		return nil, err
	}
	if err := prepareRunDir(c, ds, st, opts); err != nil {
		return nil, err
	}
	plan := Plan(c)
	var todo [2][]results.Task
	fits := 0
	for i, t := range plan {
		if (opts.Only == nil || opts.Only(i, t)) && !st.done(t.ID) {
			todo[t.Phase] = append(todo[t.Phase], t)
			fits += TaskFits(c, t)
		}
	}
	todo[0], todo[1] = runOrder(todo[0]), runOrder(todo[1])
	if left := len(todo[0]) + len(todo[1]); left < len(plan) && opts.Only == nil {
		fmt.Fprintf(opts.Log, "reusing %d of %d tasks finished earlier (their inputs unchanged); %d to run\n", len(plan)-left, len(plan), left)
	}
	reportReruns(st, append(slices.Clone(todo[0]), todo[1]...), opts.Log)
	live, width := progress.Terminal(opts.Log)
	trace, closeTrace := etaTrace(opts.Log)
	defer closeTrace()
	disp := progress.NewRun(opts.Log, progress.RunOptions{Live: live, Width: width, Every: opts.ProgressEvery, Workers: opts.Workers, Trace: trace,
		CPU: processCPU(), Tol: c.Solver.Tol},
		time.Now(), len(todo[0])+len(todo[1]), fits)
	ps := newPlanSize(c, ds)
	for phase := range todo {
		for _, t := range todo[phase] {
			disp.Plan(t.ID, phase, taskUnits(c, t, ps))
		}
	}
	stopTicker := progress.StartRun(progress.Interval(live, opts.ProgressEvery), disp)
	defer disp.Finish()
	defer stopTicker()
	// The ETA is told a refit's β once its row and split's cv tasks have
	// all ended (tellRefitBeta): at once for a resumed run's refits whose
	// cv tasks finished earlier, else when the last of them ends here.
	cvLeft := map[string]int{}
	for _, t := range todo[0] {
		if t.Kind == KindCV {
			cvLeft[refitOf(c, t).ID]++
		}
	}
	for _, t := range todo[1] {
		if cvLeft[t.ID] == 0 {
			tellRefitBeta(c, st, disp, t)
		}
	}
	cvDone := func(t results.Task) {
		if t.Kind != KindCV {
			return
		}
		refit := refitOf(c, t)
		if cvLeft[refit.ID]--; cvLeft[refit.ID] == 0 {
			tellRefitBeta(c, st, disp, refit)
		}
	}
	for phase := 0; phase <= 1; phase++ {
		disp.SetPhase(phase)
		if err := runTasks(ctx, taskRun{c: c, ds: ds, st: st, opts: opts, disp: disp, okDone: cvDone}, todo[phase], phase); err != nil {
			if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
				return nil, interrupted(c, st, plan, opts.Only, ctx.Err())
			}
			return nil, err
		}
	}
	if err := failedTasks(st, plan, opts.Only); err != nil {
		return nil, err
	}
	stopTicker()
	disp.Finish()
	if opts.NoMerge {
		return nil, nil
	}
	return Merge(c)
}

// prepareRunDir readies the locked run directory for the run: old task
// files renamed or trimmed (not for a Slurm shard, whose files "mkpoe
// slurm" prepared), an earlier summary archived, and the run's own files
// written (config, environment, items, held-out comparisons).
func prepareRunDir(c *Config, ds *dataset, st *store, opts RunOptions) error {
	if opts.Only == nil {
		if err := reportLegacyTasks(c, Plan(c), opts.Log); err != nil {
			return err
		}
		if err := saveTruncated(st, Plan(c), opts.Log); err != nil {
			return err
		}
	}
	if err := archivePrevious(c, opts.Log, time.Now()); err != nil {
		return err
	}
	if err := writeRunFiles(c, opts.Workers); err != nil {
		return err
	}
	if err := writeItems(c, ds); err != nil {
		return err
	}
	return writeHeldout(c, ds)
}

// failedTasks reports the tasks of the plan (those only selects, if not
// nil: another shard's task is not this run's failure) whose result file
// says they failed, with their errors.
func failedTasks(st *store, plan []results.Task, only func(int, results.Task) bool) error {
	var failed []string
	for i, t := range plan {
		if only != nil && !only(i, t) {
			continue
		}
		if r, ok := st.load(t.ID); ok && r.Status == "failed" {
			failed = append(failed, fmt.Sprintf("%s: %s", t.ID, r.Error))
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d task(s) failed (rerun the same command to retry them):\n  %s", len(failed), joinLines(failed))
	}
	return nil
}

// interrupted is the error of a run stopped by its context (Ctrl-C,
// SIGTERM): how many tasks are finished and kept on disk, and how to resume.
func interrupted(c *Config, st *store, plan []results.Task, only func(int, results.Task) bool, cause error) error {
	done, total := 0, 0
	for i, t := range plan {
		if only != nil && !only(i, t) {
			continue
		}
		total++
		if st.done(t.ID) {
			done++
		}
	}
	return &errkind.Interrupted{
		Msg: fmt.Sprintf("interrupted; %d of %d tasks finished and kept in %s; rerun the same command to resume", done, total, c.Output),
		Err: cause,
	}
}

func joinLines(s []string) string {
	out := ""
	for i, l := range s {
		if i > 0 {
			out += "\n  "
		}
		out += l
	}
	return out
}

// taskRun is what every task of a run shares: the config, its data set,
// the run's result store, the run's options and progress display, and
// okDone, called one task at a time for each task saved with status ok.
type taskRun struct {
	c      *Config
	ds     *dataset
	st     *store
	opts   RunOptions
	disp   *progress.Run
	okDone func(results.Task)
}

// runTasks runs the tasks todo of a phase on a pool of workers, saving
// each result as it ends, and shows their progress on r.disp: in a log, a
// line per finished task ("[done/total] id status seconds", with its error
// or convergence note); on a terminal the live line, with only errors and
// notes printed above it.
func runTasks(ctx context.Context, r taskRun, todo []results.Task, phase int) error {
	c, ds, st, opts, disp, okDone := r.c, r.ds, r.st, r.opts, r.disp, r.okDone
	if len(todo) == 0 {
		return nil
	}
	live := disp.Live()
	if !live {
		disp.Println(fmt.Sprintf("phase %d: %d tasks on %d workers", phase, len(todo), opts.Workers), time.Now())
	}
	jobs := make(chan results.Task)
	var mu sync.Mutex
	var saveErr error
	done := 0
	var wg sync.WaitGroup
	for w := 0; w < opts.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range jobs {
				var again *results.TaskResult // a refit fitted earlier at the β chosen now
				why := ""
				if t.Kind == KindRefit {
					if r, w := st.read(t); r != nil && r.Status == "ok" {
						again = r
					} else if rawTask(st.dir, t.ID) != nil {
						why = w
					}
				}
				tp := disp.StartTask(t.ID, TaskFits(c, t), time.Now())
				if again != nil {
					mu.Lock()
					okDone(t)
					done++
					line := fmt.Sprintf("[%d/%d] %s reused: its split's cv tasks chose %s again, at which it fits cold", done, len(todo), t.ID, refitChoice(c, t, again))
					if live {
						line = ""
					}
					disp.EndTask(tp, line, time.Now())
					mu.Unlock()
					continue
				}
				release := func() {}
				if opts.Workers > 1 {
					// A core per worker: the fits' own goroutines
					// (linalg.Parallel) stay within the cores.
					release = linalg.Occupy()
				}
				r, stopped := runTask(ctx, c, ds, st, t, tp, opts.Workers == 1)
				release()
				if stopped {
					// Cancelled mid-task: nothing to keep, a rerun redoes it.
					disp.EndTask(tp, "", time.Now())
					continue
				}
				err := st.save(r)
				note := taskNote(&r, c.Solver.Tol)
				mu.Lock()
				if err == nil && r.Status == "ok" {
					okDone(t)
				}
				done++
				if err != nil && saveErr == nil {
					saveErr = err
				}
				if why != "" {
					why = " (rerun: " + strings.TrimPrefix(why, "stale: ") + ")"
				}
				line := fmt.Sprintf("[%d/%d] %s %s %.1fs%s%s%s", done, len(todo), t.ID, r.Status, r.Seconds, why, errSuffix(r.Error), errSuffix(note))
				if live {
					line = ""
					if r.Error != "" || note != "" {
						line = t.ID + " " + r.Status + errSuffix(r.Error) + errSuffix(note)
					}
				}
				disp.EndTask(tp, line, time.Now())
				mu.Unlock()
			}
		}()
	}
	for _, t := range todo {
		select {
		case <-ctx.Done():
		case jobs <- t:
			continue
		}
		break
	}
	close(jobs)
	wg.Wait()
	if saveErr != nil {
		return saveErr
	}
	if done < len(todo) {
		return ctx.Err() // only cancellation leaves tasks undone
	}
	return nil
}

// taskNote is a finished task's note on its fits that are not
// certified: those not converged, those stationary, or both.
func taskNote(r *results.TaskResult, tol float64) string {
	note := r.NotConvergedNote(tol)
	if st := r.StationaryNote(tol); st != "" && note != "" {
		note += "; " + st
	} else if st != "" {
		note = st
	}
	return note
}

// tellRefitBeta tells the ETA the β refit will fit at, once the cv tasks
// of its row and split have all ended (chooseBeta; before, or if they
// failed, nothing): the ETA then estimates the refit at that β rather
// than over the grid (docs/progress.md).
func tellRefitBeta(c *Config, st *store, disp *progress.Run, refit results.Task) {
	if _, beta, err := chooseRankBeta(c, st, refit); err == nil {
		disp.SetPlannedBeta(refit.ID, slices.Index(c.BetaGrid.Values, beta))
	}
}

// refitOf returns the refit task of cv task t's row and split.
func refitOf(c *Config, t results.Task) results.Task {
	id := c.rowID(c.Rows[t.Row])
	return refitTask(t.Row, rowPrefix(c.Rows[t.Row], id), id, t.Split)
}

func errSuffix(e string) string {
	if e == "" {
		return ""
	}
	return ": " + e
}

// claimRunDir refuses a run directory that holds another experiment's run:
// its config.resolved.yaml names another experiment. Running there would
// overwrite that run's summary and resolved config (a run directory belongs
// to one experiment); force takes it over anyway. The same experiment, even
// edited, may run again: its finished tasks are reused by their inputs.
func claimRunDir(c *Config, force bool) error {
	if err := checkRunDirPath(c.Output, force); err != nil {
		return err
	}
	b, err := os.ReadFile(filepath.Join(c.Output, "config.resolved.yaml"))
	if errors.Is(err, os.ErrNotExist) || force {
		return nil
	} else if err != nil {
		return err
	}
	var owner struct {
		Name string `yaml:"name"`
	}
	if err := yaml.Unmarshal(b, &owner); err != nil {
		return errkind.BadInput(fmt.Errorf("%s holds an unreadable config.resolved.yaml (%v): not a run directory of mkpoe? Use another --out, or --force to take it over", c.Output, err))
	}
	if owner.Name != c.Name {
		return errkind.BadInput(fmt.Errorf("run directory %s belongs to experiment %q, not %q: use another --out, or --force to take it over (its summary and resolved config will be replaced)", c.Output, owner.Name, c.Name))
	}
	return nil
}

// runOutputs are the files a merge and a report write from a run's tasks,
// which archivePrevious keeps when another config takes the directory.
var runOutputs = []string{"summary.json", "table.md", "table.csv", "fits.csv", "timings.json", results.ProvenanceFile, "report", "config.resolved.yaml", "env.json", heldoutFile, heldoutItemsFile}

// archivePrevious keeps what an earlier, different config of this run
// directory produced: when summary.json records another config hash (an
// edited config, such as an extended β grid, or a run taken over with
// --force), its summary, tables, report, resolved config and environment
// move to history/<time>-<that hash>/ before this run writes its own, and
// the log says where. Task files stay: those whose inputs are unchanged
// are reused, the others are kept beside them.
func archivePrevious(c *Config, log io.Writer, now time.Time) error {
	prevHash, _, ok, err := summaryHead(c.Output)
	if err != nil || !ok || prevHash == c.Hash() || prevHash == c.legacyHash() {
		return err // nothing merged, or a rerun of the same config rewrites the same results
	}
	name := now.UTC().Format("20060102T150405Z") + "-" + prevHash
	if prevHash == "" {
		name = now.UTC().Format("20060102T150405Z") + "-unknown"
	}
	dest := filepath.Join(c.Output, "history", name)
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return err
	}
	for _, f := range runOutputs {
		from := filepath.Join(c.Output, f)
		if _, err := os.Stat(from); errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err := os.Rename(from, filepath.Join(dest, f)); err != nil {
			return err
		}
	}
	fmt.Fprintf(log, "the previous results (config %s) are kept in %s; this config is %s\n", prevHash, dest, c.Hash())
	return nil
}

// summaryHead is what a run directory's summary.json says of itself: the
// config hash it was merged for, and when it was written. ok is false
// when there is no readable summary (absent, or not JSON); err is any
// other I/O error.
func summaryHead(dir string) (hash string, written time.Time, ok bool, err error) {
	p := filepath.Join(dir, "summary.json")
	st, err := os.Stat(p)
	if errors.Is(err, os.ErrNotExist) {
		return "", time.Time{}, false, nil
	} else if err != nil {
		return "", time.Time{}, false, err
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "", time.Time{}, false, err
	}
	var head struct {
		ConfigHash string `json:"config_hash"`
	}
	if json.Unmarshal(b, &head) != nil {
		return "", time.Time{}, false, nil
	}
	return head.ConfigHash, st.ModTime(), true, nil
}

// SummaryCurrent reports whether dir's summary.json was merged for the
// config of hash and after its last task file was written (mkpoe status:
// "complete", or "complete, not merged yet").
func SummaryCurrent(dir, hash string) bool {
	got, written, ok, err := summaryHead(dir)
	if err != nil || !ok || got != hash {
		return false
	}
	tasks, _ := filepath.Glob(filepath.Join(dir, "tasks", "*.json"))
	for _, t := range tasks {
		if ts, err := os.Stat(t); err == nil && ts.ModTime().After(written) {
			return false
		}
	}
	return true
}

// writeRunFiles writes the resolved config and the environment (Go,
// module and VCS versions, the linear-algebra backend: numbers from the
// gonum and openblas builds agree to rounding, not bit for bit) into the run
// directory, with the machine (CPU model, cores) and the workers of this
// invocation (0: unknown, as for Slurm's scripts), which provenance.json
// reports.
func writeRunFiles(c *Config, workers int) error {
	// The output absolute, as the data paths are: the file loads back to
	// the same run directory from wherever it is read.
	cc := *c
	cc.Output = absPath(c.Output)
	b, err := yaml.Marshal(&cc)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(c.Output, "config.resolved.yaml"), func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
		return err
	}
	return writeJSON(filepath.Join(c.Output, "env.json"), runEnv(c, workers))
}

// runEnv is the record of env.json: the Go, module and VCS versions, the
// build and linear-algebra backend, the machine, and the workers (0:
// unknown), with the time it is called as "started".
func runEnv(c *Config, workers int) map[string]string {
	env := map[string]string{"go": runtime.Version(), "goos": runtime.GOOS, "goarch": runtime.GOARCH, "config_hash": c.Hash(),
		"started": time.Now().UTC().Format(time.RFC3339), "linalg_backend": linalg.Backend()}
	if core := linalg.BLASCore(); core != "" {
		env["openblas_core"] = core
		env["openblas_config"] = linalg.BLASConfig()
		if v := os.Getenv("OPENBLAS_CORETYPE"); v != "" {
			env["OPENBLAS_CORETYPE"] = v
		}
	}
	env["cpu_model"], env["cores"] = cpuModel(), strconv.Itoa(runtime.NumCPU())
	if workers > 0 {
		env["workers"] = strconv.Itoa(workers)
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		env["module"] = bi.Main.Path + "@" + bi.Main.Version
		env["build_tags"] = ""
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision", "vcs.modified":
				env[s.Key] = s.Value
			case "-tags":
				env["build_tags"] = s.Value
			}
		}
	}
	if env["vcs.revision"] == "" {
		// Builds with -buildvcs=false (or go run) carry no VCS stamp: ask git.
		if out, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil {
			env["git_commit"] = strings.TrimSpace(string(out))
			if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil {
				env["git_dirty"] = strconv.FormatBool(len(strings.TrimSpace(string(st))) > 0)
			}
		}
	}
	return env
}

func writeItems(c *Config, ds *dataset) error {
	it := &results.Items{Names: ds.names, Labels: ds.labels, LabelNames: ds.labelNames, Notes: ds.notes}
	if it.Labels == nil {
		it.Labels = ds.shownLabels
	}
	for s := 0; s < c.Protocol.Splits; s++ {
		train, test := splitItems(c, ds, s)
		it.Splits = append(it.Splits, results.Split{Train: train, Test: test})
	}
	return writeJSON(filepath.Join(c.Output, "items.json"), it)
}

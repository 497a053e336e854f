package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/mkpoe/mkpoe/internal/errkind"
	"github.com/mkpoe/mkpoe/pkg/mkpoe"
)

// command is one subcommand of the mkpoe binary.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
	// synopsis is what follows "mkpoe NAME" in the command's -h.
	synopsis string
}

// commands lists the subcommands. Each lives in its own cmd_<name>.go file.
// Add one line per command, keeping the list sorted. It is filled by init:
// the commands' flag sets read it for their -h (newFlagSet).
var commands map[string]command

func init() {
	commands = map[string]command{
		"check":      {"validate a config and its data, print the plan size", runCheck, "CONFIG [--out DIR]"},
		"compare":    {"tables of several run directories side by side, with differences and overlaid validation curves", runCompare, "RUN_DIR RUN_DIR [RUN_DIR...] [--names A,B,...] [--formats LIST] [--out DIR]"},
		"cost":       {"CPU time of some rows' cv tasks, run alone and interleaved over repeats (Table 5's cost claim)", runCost, "CONFIG --rows A,B[,C,D...] [--split S] [--folds N] [--repeats R] [--out FILE]"},
		"data":       {"derive a data set's text files from its public originals (the fetch scripts run it)", runData, "prepare aset400|lastfm|aloi DIR [--out OUT]"},
		"embed":      {"write the learned embedding of training and new items", runEmbed, "--model MODEL.json --out FILE [(--kernel-rows FILE)...]"},
		"eval":       {"accuracy of a learned model on comparisons (also for new items)", runEval, "--model MODEL.json --comparisons FILE [(--kernel-rows FILE)...] [flags]"},
		"fit":        {"learn a similarity space from kernels/features and comparisons", runFit, "(--kernel FILE... | --features FILE | --identity N) --comparisons FILE --beta B --out MODEL.json [flags]"},
		"graph":      {"clean a comparison set: dedup, contradictions, acyclic subset, transitive reduction", runGraph, "--comparisons FILE [flags]"},
		"help":       {"print this list, or a command's help (help COMMAND)", nil, "[COMMAND]"},
		"kernel":     {"build a kernel matrix (and out-of-sample rows) from features", runKernel, "--type T --features FILE --out FILE [flags]"},
		"merge":      {"build a run's summary once every task is done; else name what is missing", runMerge, "RUN_DIR (or CONFIG [--out DIR])"},
		"native":     {"accuracy of a kernel's native space on comparisons", runNative, "--kernel FILE --comparisons FILE [flags]"},
		"plan":       {"list the tasks of a config's plan", runPlan, "CONFIG [--out DIR] [flags]"},
		"query":      {"the k nearest neighbours of items in a learned model's or a kernel's space", runQuery, "(--model MODEL.json | --kernel FILE... | --run DIR) --item ITEM... [flags]"},
		"recheck":    {"recompute a committed run's claims from its summary.json (the claim rows refitted at the recorded β, tallies checked)", runRecheck, "CONFIG --results DIR [--write]"},
		"report":     {"tables, figures, HTML and notebook from a run directory", runReport, "RUN_DIR [--formats LIST] [--out DIR]"},
		"resultsdoc": {"the results document (docs/results.md) from its template and the committed results/<config>/ files", runResultsDoc, "[--template FILE] [--results DIR] [--out FILE | --check FILE]"},
		"run":        {"run an experiment config: nested CV over β, resumable, parallel", runRun, "CONFIG [--out DIR] [--workers N] [flags]"},
		"slurm":      {"write (and --submit) Slurm array jobs for a run, then a merge job", runSlurm, "CONFIG [--out DIR] [--submit] [flags]"},
		"synth":      {"write a synthetic generic data set with noisy triplets (for GNMDS and comparison holdout)", runSynth, "--out DIR [flags]"},
		"status":     {"done, missing and failed tasks of a run, and how to resubmit them", runStatus, "RUN_DIR (or CONFIG [--out DIR])"},
		"version":    {"the module version, commit, Go version and linear-algebra backend of this binary", runVersion, "(also mkpoe --version)"},
	}
}

// Exit statuses of Main.
const (
	ExitOK          = 0
	ExitFailure     = 1   // the command could not finish
	ExitUsage       = 2   // bad command line, bad input file or bad config
	ExitInternal    = 3   // a bug in mkpoe (an internal solver error): please report it
	ExitInterrupted = 130 // stopped by its context: Ctrl-C (SIGINT) or SIGTERM; 128+SIGINT as shells do
)

// badInput wraps err so that Main reports it with exit status 2.
func badInput(err error) error { return errkind.BadInput(err) }

// usagef reports a command-line mistake (exit status 2).
func usagef(format string, args ...any) error { return errkind.Usagef(format, args...) }

// fitError classifies an error returned by a mkpoe fit: invalid inputs or
// settings (mkpoe.ErrInvalidInput) are the user's (exit 2), a fit too
// large for the machine's memory (mkpoe.ErrTooLarge) could not finish
// (exit 1), a cancelled context is an interruption (exit 130), anything
// else is an internal solver error (exit 3).
func fitError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, mkpoe.ErrInvalidInput):
		return badInput(err)
	case errors.Is(err, mkpoe.ErrTooLarge):
		return err
	case isCancellation(err):
		return err
	default:
		return errkind.Internal{Err: err}
	}
}

// isCancellation reports whether err comes from a cancelled context.
func isCancellation(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// exitStatus decides the exit status of a command's error and the message
// to print (empty for none). It is the one place where errors become exit
// statuses: nil and -h give 0; interruptions 130; input errors 2 (an input
// error wins over a wrapped cancellation: the input is still wrong);
// internal errors 3; everything else 1.
func exitStatus(cmd string, err error) (int, string) {
	var in errkind.Input
	var internal errkind.Internal
	var stopped *errkind.Interrupted
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return ExitOK, ""
	case errors.As(err, &in):
		return ExitUsage, fmt.Sprintf("mkpoe %s: %v", cmd, err)
	case errors.As(err, &stopped):
		return ExitInterrupted, fmt.Sprintf("mkpoe %s: %v", cmd, err)
	case isCancellation(err):
		return ExitInterrupted, fmt.Sprintf("mkpoe %s: interrupted (%v); nothing was written by the step that was stopped", cmd, err)
	case errors.As(err, &internal):
		return ExitInternal, fmt.Sprintf("mkpoe %s: %v\nThis is a bug in mkpoe, not a problem with your input: please report it with the command line and its input files.", cmd, err)
	default:
		return ExitFailure, fmt.Sprintf("mkpoe %s: %v", cmd, err)
	}
}

// Main runs the mkpoe command line with args (without the program name) and
// returns the process exit status: 0 on success, 1 when a run fails, 2 for
// bad usage or bad input (files, configs), 3 for an internal error, 130 when
// ctx is cancelled (cmd/mkpoe cancels it on SIGINT and SIGTERM). It never
// panics on user input.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 1 && args[0] == "help" {
		return help(ctx, args[1:], stdout, stderr)
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printUsage(stdout)
		if len(args) == 0 {
			return ExitUsage
		}
		return ExitOK
	}
	if args[0] == "--version" || args[0] == "-version" {
		args = append([]string{"version"}, args[1:]...)
	}
	cmd, ok := commands[args[0]]
	if !ok || cmd.run == nil {
		fmt.Fprintf(stderr, "mkpoe: unknown command %q\n", args[0])
		printUsage(stderr)
		return ExitUsage
	}
	code, msg := exitStatus(args[0], runRecovered(ctx, cmd, args[1:], stdout, stderr))
	if msg != "" {
		fmt.Fprintln(stderr, msg)
	}
	return code
}

// runRecovered runs a command, turning a panic into an internal error (exit
// 3 with a request for a report) instead of the Go runtime's exit status 2,
// which would read as bad input.
func runRecovered(ctx context.Context, cmd command, args []string, stdout, stderr io.Writer) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = errkind.Internal{Err: fmt.Errorf("panic: %v\n%s", p, debug.Stack())}
		}
	}()
	return cmd.run(ctx, args, stdout, stderr)
}

// help implements "mkpoe help COMMAND": the command's help (what
// "mkpoe COMMAND -h" prints) on stdout, exit status 0.
func help(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	name := args[0]
	if len(args) > 1 {
		fmt.Fprintf(stderr, "mkpoe help: give one command, got %d: %s\n", len(args), strings.Join(args, " "))
		return ExitUsage
	}
	if name == "help" {
		printUsage(stdout)
		return ExitOK
	}
	cmd, ok := commands[name]
	if !ok || cmd.run == nil {
		fmt.Fprintf(stderr, "mkpoe help: unknown command %q; the commands are: %s\n", name, strings.Join(commandNames(), ", "))
		return ExitUsage
	}
	code, msg := exitStatus(name, runRecovered(ctx, cmd, []string{"-h"}, stdout, stdout))
	if msg != "" {
		fmt.Fprintln(stderr, msg)
	}
	return code
}

// commandNames returns the subcommands' names, sorted.
func commandNames() []string {
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "mkpoe: learn multi-modal similarity from relative comparisons (McFee & Lanckriet, JMLR 2011)")
	fmt.Fprintln(w, "\nUsage: mkpoe COMMAND [flags]   (mkpoe help COMMAND or mkpoe COMMAND -h for a command's flags)\n\nCommands:")
	names := commandNames()
	width := 0
	for _, name := range names {
		width = max(width, len(name))
	}
	for _, name := range names {
		fmt.Fprintf(w, "  %-*s %s\n", width, name, commands[name].summary)
	}
}

// flagSet is the standard library's flag set.
type flagSet = flag.FlagSet

// newFlagSet returns a flag set that reports errors instead of exiting.
// Its -h prints the command's synopsis and summary before the flags
// (commands that need more text set their own Usage).
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("mkpoe "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	if cmd, ok := commands[name]; ok {
		fs.Usage = func() {
			fmt.Fprintf(stderr, "Usage: mkpoe %s %s\n\n%s.\n\nFlags:\n", name, cmd.synopsis, upperFirst(cmd.summary))
			fs.PrintDefaults()
		}
	}
	return fs
}

// upperFirst returns s with its first letter in upper case.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// parseFlags parses args and rejects positional arguments unless allowed.
func parseFlags(fs *flag.FlagSet, args []string, positional int) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errkind.BadInput(err)
	}
	if fs.NArg() > positional {
		return usagef("unexpected arguments: %s", strings.Join(fs.Args()[positional:], " "))
	}
	return nil
}

// stringList is a repeatable string flag (--kernel A --kernel B).
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

package experiments

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// command is one subcommand of the mkpoe binary.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// commands lists the subcommands. Each lives in its own cmd_<name>.go file.
// Add one line per command, keeping the list sorted.
var commands = map[string]command{
	"check":  {"validate a config and its data, print the plan size", runCheck},
	"embed":  {"write the learned embedding of training and new items", runEmbed},
	"eval":   {"accuracy of a learned model on comparisons (also for new items)", runEval},
	"fit":    {"learn a similarity space from kernels/features and comparisons", runFit},
	"graph":  {"clean a comparison set: dedup, contradictions, acyclic subset, transitive reduction", runGraph},
	"help":   {"print this list", nil},
	"kernel": {"build a kernel matrix (and out-of-sample rows) from features", runKernel},
	"merge":  {"build a run's summary once every task is done; else name what is missing", runMerge},
	"native": {"accuracy of a kernel's native space on comparisons", runNative},
	"plan":   {"list the tasks of a config's plan", runPlan},
	"report": {"tables, figures, HTML and notebook from a run directory", runReport},
	"run":    {"run an experiment config: nested CV over β, resumable, parallel", runRun},
	"slurm":  {"write (and --submit) Slurm array jobs for a run, then a merge job", runSlurm},
	"status": {"done, missing and failed tasks of a run, and how to resubmit them", runStatus},
}

// Exit statuses of Main.
const (
	ExitOK      = 0
	ExitFailure = 1 // the command could not finish
	ExitUsage   = 2 // bad command line, bad input file or bad config
)

// inputError marks an error caused by the user's input (flags, files,
// configs): Main exits with status 2 for it.
type inputError struct{ err error }

func (e inputError) Error() string { return e.err.Error() }
func (e inputError) Unwrap() error { return e.err }

// badInput wraps err so that Main reports it with exit status 2.
func badInput(err error) error {
	if err == nil {
		return nil
	}
	return inputError{err}
}

// usagef reports a command-line mistake (exit status 2).
func usagef(format string, args ...any) error { return inputError{fmt.Errorf(format, args...)} }

// Main runs the mkpoe command line with args (without the program name) and
// returns the process exit status: 0 on success, 1 when a run fails, 2 for
// bad usage or bad input (files, configs). It never panics on user input.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printUsage(stdout)
		if len(args) == 0 {
			return ExitUsage
		}
		return ExitOK
	}
	cmd, ok := commands[args[0]]
	if !ok || cmd.run == nil {
		fmt.Fprintf(stderr, "mkpoe: unknown command %q\n", args[0])
		printUsage(stderr)
		return ExitUsage
	}
	err := cmd.run(ctx, args[1:], stdout, stderr)
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, flag.ErrHelp):
		return ExitOK
	default:
		fmt.Fprintf(stderr, "mkpoe %s: %v\n", args[0], err)
		var in inputError
		if errors.As(err, &in) {
			return ExitUsage
		}
		return ExitFailure
	}
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "mkpoe: learn multi-modal similarity from relative comparisons (McFee & Lanckriet, JMLR 2011)")
	fmt.Fprintln(w, "\nUsage: mkpoe COMMAND [flags]   (mkpoe COMMAND -h for a command's flags)\n\nCommands:")
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %-8s %s\n", name, commands[name].summary)
	}
}

// flagSet is the standard library's flag set.
type flagSet = flag.FlagSet

// newFlagSet returns a flag set that reports errors instead of exiting.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("mkpoe "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parseFlags parses args and rejects positional arguments unless allowed.
func parseFlags(fs *flag.FlagSet, args []string, positional int) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return inputError{err}
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

package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mkpoe/mkpoe/experiments"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// runRecheck implements "mkpoe recheck CONFIG --results DIR [--write]":
// the claims of a committed run recomputed from its summary.json alone
// (experiments.RecheckClaims: the claim rows refitted at the recorded β,
// every split's tally checked against the summary), printed beside the
// summary's; with --write, the summary's claims and table.md replaced.
func runRecheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("recheck", stderr)
	dir := fs.String("results", "", "the committed run directory: summary.json (and table.md) of CONFIG's run")
	write := fs.Bool("write", false, "replace the claims of DIR/summary.json and DIR/table.md with the recomputed ones")
	quiet := fs.Bool("quiet", false, "do not report each row and split")
	// CONFIG comes first; flags alone (-h) are parsed as such.
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if err := parseFlags(fs, args, 0); err != nil {
			return err
		}
		return usagef("usage: mkpoe recheck CONFIG --results DIR [--write]")
	}
	if err := parseFlags(fs, args[1:], 0); err != nil {
		return err
	}
	if *dir == "" {
		return usagef("--results DIR is required")
	}
	c, err := experiments.LoadConfig(args[0])
	if err != nil {
		return badInput(err)
	}
	name := filepath.Join(*dir, "summary.json")
	b, err := os.ReadFile(name)
	if err != nil {
		return badInput(err)
	}
	s, err := results.DecodeSummary(b, name)
	if err != nil {
		return badInput(err)
	}
	if s.ConfigHash != c.Hash() {
		fmt.Fprintf(stderr, "note: the summary is of config hash %s, %s's is %s; the tallies are checked split by split\n", s.ConfigHash, args[0], c.Hash())
	}
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }
	if *quiet {
		logf = nil
	}
	cs, err := experiments.RecheckClaims(ctx, c, s, logf)
	if err != nil {
		return err
	}
	for i, cl := range cs {
		old := "(none)"
		if i < len(s.Claims) {
			old = claimLine(s.Claims[i])
		}
		fmt.Fprintf(stdout, "%s\n  summary:    %s\n  recomputed: %s\n", cl.Claim, old, claimLine(cl))
	}
	if !*write {
		return nil
	}
	s.Claims = cs
	if err := results.WriteFile(name, s); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(*dir, "table.md"), []byte(experiments.SummaryMarkdown(s)), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote the claims of %s and %s\n", name, filepath.Join(*dir, "table.md"))
	return nil
}

// claimLine is a claim's difference, clustered interval (and its design),
// Holm p and verdict on one line.
func claimLine(cl results.Claim) string {
	c := cl.Cells(4)
	design := ""
	if cl.Clustered != nil && cl.Clustered.Design != "" {
		design = " (" + cl.Clustered.Design + ")"
	}
	return fmt.Sprintf("%s %s%s, Holm p %s, holds %s", c[results.ClaimCellDifference], c[results.ClaimCellClustered], design, c[results.ClaimCellHolmP], c[results.ClaimCellHolds])
}

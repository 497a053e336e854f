package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/mkpoe/mkpoe/pkg/constraint"
	"github.com/mkpoe/mkpoe/pkg/data"
)

// graphReport is the --json output of mkpoe graph.
type graphReport struct {
	Comparisons string                  `json:"comparisons"`
	Out         string                  `json:"out,omitempty"`
	Seed        uint64                  `json:"seed"`
	Input       constraint.GraphStats   `json:"input"`
	Steps       []constraint.StepReport `json:"steps"`
	Final       constraint.GraphStats   `json:"final"`
}

// runGraph implements "mkpoe graph": it cleans a comparison set through its
// constraint graph (McFee & Lanckriet 2011, Sec. 2.2 and Sec. 5.2.4) with the
// steps of package constraint, writes the kept comparisons in the input's
// format and prints a per-step table (or JSON) with the graph statistics.
func runGraph(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("graph", stderr)
	in := fs.String("comparisons", "", "comparisons file (3 or 4 integer columns); required")
	oneBased := fs.Bool("one-based", false, "item indices in the file start at 1")
	stepList := fs.String("steps", strings.Join(constraint.PaperSteps, ","),
		"comma-separated steps, applied in order: "+strings.Join(constraint.Steps, ", "))
	seed := fs.Uint64("seed", 1, "seed of the random edge order of the acyclic step")
	out := fs.String("out", "", "write the kept comparisons here, in the input's format; if empty nothing is written")
	asJSON := fs.Bool("json", false, "print the report as JSON instead of a table")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: mkpoe graph --comparisons FILE [--one-based] [--steps LIST] [--seed S] [--out FILE] [--json]")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if *in == "" {
		return usagef("--comparisons is required")
	}
	steps, err := constraint.ParseSteps(*stepList)
	if err != nil {
		return badInput(fmt.Errorf("--steps: %w", err))
	}
	f, err := data.ReadComparisonsFile(*in, data.ComparisonOptions{OneBased: *oneBased})
	if err != nil {
		return badInput(err)
	}
	inStats, err := constraint.Stats(f.Comparisons)
	if err != nil {
		return badInput(fmt.Errorf("%s: %w", *in, err))
	}
	kept, reports, err := constraint.Run(f.Comparisons, steps, *seed)
	if err != nil {
		// Bad data (a cycle left for reduce, bad indices) is the user's input.
		return badInput(fmt.Errorf("%s: %w", *in, err))
	}
	final, err := constraint.Stats(kept)
	if err != nil {
		return err
	}
	if *out != "" {
		if err := writeComparisons(*out, kept, f.Format); err != nil {
			return err
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(graphReport{Comparisons: *in, Out: *out, Seed: *seed, Input: inStats, Steps: reports, Final: final})
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "step\tin\tremoved\tout\t")
	for _, r := range reports {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t\n", r.Step, r.In, r.Removed, r.Out)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	tw = tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "graph\tvertices\tedges\tSCCs\tlargest SCC\tcyclic\tdiameter\t")
	for _, row := range []struct {
		name string
		s    constraint.GraphStats
	}{{"input", inStats}, {"output", final}} {
		diam := "-"
		if row.s.Diameter >= 0 {
			diam = fmt.Sprint(row.s.Diameter)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%v\t%s\t\n", row.name, row.s.Vertices, row.s.Edges, row.s.SCCs, row.s.LargestSCC, row.s.Cyclic, diam)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if *out != "" {
		fmt.Fprintf(stdout, "\nwrote %d comparisons to %s\n", len(kept), *out)
	} else {
		fmt.Fprintln(stdout, "\nno --out given: nothing written")
	}
	return nil
}

// writeComparisons writes cs to path in format f.
func writeComparisons(path string, cs []data.Comparison, f data.ComparisonFormat) error {
	w, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("writing comparisons: %w", err)
	}
	if err := data.WriteComparisons(w, cs, f); err != nil {
		w.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

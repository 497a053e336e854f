package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"text/tabwriter"

	"github.com/mkpoe/mkpoe/experiments"
	"github.com/mkpoe/mkpoe/pkg/query"
)

const queryHelp = `Usage:
  mkpoe query --model MODEL.json [(--kernel-rows FILE)...] [--items FILE] [(--item ITEM)...] [-k K] [--json]
  mkpoe query (--kernel FILE)... [(--kernel-rows FILE)... (--kernel-self FILE)...] [--items FILE] [(--item ITEM)...] [-k K] [--json]
  mkpoe query --run DIR [--row LABEL] [--split S] (--item ITEM)... [-k K] [--json]

The k nearest neighbours of items, with distances and names (docs/query.md).
The space is one of:
  --model    a learned model's embedding g(x) (mkpoe fit; distances as
             mkpoe embed and eval compute them). New items come from
             --kernel-rows (one file per kernel, in fit's order) and are
             numbered n … n+t−1 after the n training items.
  --kernel   a kernel's native space, d(i,j)² = K_ii + K_jj − 2K_ij; several
             --kernel mean their sum (the "sum native" space of the paper's
             tables). New items need --kernel-rows and --kernel-self (k(x,x),
             one number per line) per kernel and are ranked against the
             kernel's n items only.
  --run      the refit model of a run directory's row (--row LABEL, default
             its only learned row) on outer split S (default 0): its training
             items and its held-out items (models/<id>.test.tsv). A native
             row's kernels are rebuilt on the split from the run's
             config.resolved.yaml and its data; held-out items are ranked
             against the training items. Indices and names are those of
             items.json.
An ITEM is a 0-based index or a name (whole, case-insensitive; an integer is
an index: write name:112 for an item named 112). Without --item, every new
item is queried. The item itself is left out; ties are broken by index.

Flags:
`

// runQuery implements "mkpoe query": nearest neighbours in a learned space
// (Sec. 3.2, 4.3 of the paper, Eq. 13) or a kernel's native space
// (pkg/query).
func runQuery(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("query", stderr)
	modelFile := fs.String("model", "", "model `FILE` written by mkpoe fit")
	var kernelFiles, rowFiles, selfFiles, items stringList
	fs.Var(&kernelFiles, "kernel", "kernel matrix `FILE` (text or .npy), n×n: its native space; repeat for the sum of kernels")
	fs.Var(&rowFiles, "kernel-rows", "t×n kernel rows `FILE` of new items, one per kernel (for an LPOE model: t×D feature rows)")
	fs.Var(&selfFiles, "kernel-self", "with --kernel: `FILE` of k(x,x) of each new item, t lines of one number, one file per kernel")
	runDir := fs.String("run", "", "run `DIR`ectory: query the refit model of a row")
	row := fs.String("row", "", "with --run: the row's `LABEL` (default: the run's only learned row)")
	split := fs.Int("split", 0, "with --run: the outer split")
	itemsFile := fs.String("items", "", "items `FILE` (id and name per line, as data sets' items.tsv) naming the n items")
	fs.Var(&items, "item", "query `ITEM`: 0-based index or name (repeatable)")
	k := fs.Int("k", 10, "number of neighbours")
	asJSON := fs.Bool("json", false, "write JSON (format mkpoe-query/1, docs/query.md) instead of tables")
	fs.Usage = func() {
		fmt.Fprint(stderr, queryHelp)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	sources := 0
	for _, on := range []bool{*modelFile != "", len(kernelFiles) > 0, *runDir != ""} {
		if on {
			sources++
		}
	}
	switch {
	case sources != 1:
		return usagef("give exactly one of --model FILE, --kernel FILE (repeatable) or --run DIR")
	case *k < 1:
		return usagef("-k must be >= 1 (the number of neighbours), got %d", *k)
	case *runDir == "" && (set["row"] || set["split"]):
		return usagef("--row and --split go with --run")
	case *runDir != "" && (len(rowFiles) > 0 || *itemsFile != ""):
		return usagef("--kernel-rows and --items go with --model or --kernel; a run's held-out items are already embedded and items.json names them")
	case len(kernelFiles) == 0 && len(selfFiles) > 0:
		return usagef("--kernel-self goes with --kernel (a model's new items need only --kernel-rows)")
	case *split < 0:
		return usagef("--split must be >= 0, got %d", *split)
	}
	var sp *query.Space
	var err error
	switch {
	case *modelFile != "":
		sp, err = query.FromModel(*modelFile, rowFiles, *itemsFile)
	case len(kernelFiles) > 0:
		sp, err = query.FromKernels(kernelFiles, rowFiles, selfFiles, *itemsFile)
	default:
		sp, err = query.FromRun(*runDir, *row, *split)
		if errors.Is(err, query.ErrNativeRow) {
			fmt.Fprintf(stderr, "mkpoe query: row %q is native: rebuilding its kernels on split %d from %s and its data (a run stores no kernels)\n", *row, *split, filepath.Join(*runDir, "config.resolved.yaml"))
			sp, err = nativeRunSpace(*runDir, *row, *split)
		}
	}
	if err != nil {
		return badInput(err)
	}
	if len(items) == 0 && sp.NewItems() == 0 {
		return usagef("give the items to query with --item INDEX or --item NAME (repeatable)")
	}
	out, err := sp.Query(items, *k)
	if err != nil {
		return badInput(err)
	}
	if *asJSON {
		// stdout is the JSON document alone: the backend goes to stderr.
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
		printBackend(stderr, stderr, "query")
		return nil
	}
	if err := writeQueryTables(stdout, sp.Desc(), out); err != nil {
		return err
	}
	printBackend(stdout, stderr, "query")
	return nil
}

// nativeRunSpace is the space of a run's native row on a split, rebuilt
// from the run's config and data.
func nativeRunSpace(dir, label string, split int) (*query.Space, error) {
	ns, err := experiments.RunNativeSpace(dir, label, split)
	if err != nil {
		return nil, err
	}
	nr := query.NativeRun{Dir: dir, Label: ns.Label, Split: split, Kernels: ns.Kernels, Train: ns.Train, Test: ns.Test, Self: ns.Self}
	for p := range ns.Grams {
		nr.Grams = append(nr.Grams, ns.Grams[p])
		nr.Rows = append(nr.Rows, ns.Rows[p])
	}
	return query.FromNativeRun(nr)
}

// writeQueryTables writes one plain table per query: rank, index, name,
// distance.
func writeQueryTables(w io.Writer, desc string, out *query.Output) error {
	for q, res := range out.Queries {
		if q > 0 {
			fmt.Fprintln(w)
		}
		name := res.Name
		if name != "" {
			name = " " + strconv.Quote(name)
		}
		fmt.Fprintf(w, "nearest %d of %d items to %d%s (%s) in %s\n", len(res.Neighbors), res.Ranked, res.Index, name, res.Kind, desc)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "rank\tindex\tname\tdistance")
		for _, nb := range res.Neighbors {
			name := nb.Name
			if name == "" {
				name = "-"
			}
			if nb.Kind != query.KindTrain {
				name += " (" + nb.Kind + ")"
			}
			fmt.Fprintf(tw, "%d\t%d\t%s\t%.6g\n", nb.Rank, nb.Index, name, nb.Distance)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if res.TiedBeyondK > 0 {
			fmt.Fprintf(w, "(%d more items tie with rank %d at distance %.6g)\n", res.TiedBeyondK, len(res.Neighbors), res.Neighbors[len(res.Neighbors)-1].Distance)
		}
	}
	return nil
}

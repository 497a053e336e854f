package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/eval"
	"github.com/mkpoe/mkpoe/pkg/mkpoe"
	"github.com/mkpoe/mkpoe/pkg/results"
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
             items and its held-out items (models/<id>.test.tsv). Indices and
             names are those of items.json.
An ITEM is a 0-based index or a name (whole, case-insensitive; an integer is
an index: write name:112 for an item named 112). Without --item, every new
item is queried. The item itself is left out; ties are broken by index.

Flags:
`

// runQuery implements "mkpoe query": nearest neighbours in a learned space
// (Sec. 3.2, 4.3 of the paper, Eq. 13) or a kernel's native space.
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
	var sp *querySpace
	var err error
	switch {
	case *modelFile != "":
		sp, err = modelSpace(*modelFile, rowFiles, *itemsFile)
	case len(kernelFiles) > 0:
		sp, err = nativeSpace(kernelFiles, rowFiles, selfFiles, *itemsFile)
	default:
		sp, err = runSpace(*runDir, *row, *split)
	}
	if err != nil {
		return err
	}
	queries := []string(items)
	var at []int
	if len(queries) == 0 {
		if sp.newItems == 0 {
			return usagef("give the items to query with --item INDEX or --item NAME (repeatable)")
		}
		for q := 0; q < sp.newItems; q++ {
			at = append(at, sp.total-sp.newItems+q)
			queries = append(queries, sp.names[sp.total-sp.newItems+q])
		}
	} else {
		for _, q := range queries {
			i, err := sp.resolve(q)
			if err != nil {
				return err
			}
			at = append(at, i)
		}
	}
	out := queryOutput{Format: queryFormat, Space: sp.kind, K: *k, Candidates: sp.candidates,
		Model: sp.model, Kernels: sp.kernels, KernelRows: sp.rows, Run: sp.run, Row: sp.row, Split: sp.split}
	for r, i := range at {
		nn, tied := eval.Nearest(sp.dist, sp.candidates, i, *k)
		res := queryResult{Query: queries[r], Index: sp.index[i], Name: sp.names[i], Kind: sp.kinds[i], Ranked: sp.candidates, TiedBeyondK: tied, Neighbors: []queryNeighbor{}}
		if i < sp.candidates {
			res.Ranked-- // the item itself
		}
		for rank, nb := range nn {
			res.Neighbors = append(res.Neighbors, queryNeighbor{Rank: rank + 1, Index: sp.index[nb.Item], Name: sp.names[nb.Item],
				Kind: sp.kinds[nb.Item], Distance: nb.Distance(), SquaredDistance: nb.Squared})
		}
		out.Queries = append(out.Queries, res)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	return writeQueryTables(stdout, sp.desc, &out)
}

// queryFormat tags the JSON output of mkpoe query.
const queryFormat = "mkpoe-query/1"

// queryOutput is the JSON output of mkpoe query (docs/query.md). Fields are
// only ever added to this format, never renamed or removed.
type queryOutput struct {
	Format     string        `json:"format"`
	Space      string        `json:"space"` // model, native or run
	Model      string        `json:"model,omitempty"`
	Kernels    []string      `json:"kernels,omitempty"`
	KernelRows []string      `json:"kernel_rows,omitempty"`
	Run        string        `json:"run,omitempty"`
	Row        string        `json:"row,omitempty"`
	Split      *int          `json:"split,omitempty"`
	K          int           `json:"k"`
	Candidates int           `json:"candidates"`
	Queries    []queryResult `json:"queries"`
}

// queryResult is one query item and its neighbours.
type queryResult struct {
	Query       string          `json:"query"`
	Index       int             `json:"index"`
	Name        string          `json:"name"`
	Kind        string          `json:"kind"`
	Ranked      int             `json:"ranked"` // the items it was ranked against
	Neighbors   []queryNeighbor `json:"neighbors"`
	TiedBeyondK int             `json:"tied_beyond_k"`
}

// queryNeighbor is one neighbour of a query item.
type queryNeighbor struct {
	Rank            int     `json:"rank"`
	Index           int     `json:"index"`
	Name            string  `json:"name"`
	Kind            string  `json:"kind"`
	Distance        float64 `json:"distance"`
	SquaredDistance float64 `json:"squared_distance"`
}

// Item kinds of a query space.
const (
	kindTrain = "train" // a training item of a model, or an item of a kernel
	kindTest  = "test"  // a run's held-out item, embedded out of sample
	kindNew   = "new"   // a new item from --kernel-rows
)

// querySpace is the space a query runs in: items 0 … total−1 with a
// squared distance; the first candidates of them are the possible
// neighbours (all of them, except a native space's new items, whose mutual
// kernel values are unknown).
type querySpace struct {
	kind, desc string
	dist       eval.Distance
	total      int
	candidates int
	newItems   int      // the last newItems items are new (from --kernel-rows)
	names      []string // per item; "" when no names were given
	kinds      []string
	index      []int // per item, the index shown to the user (items.json's for a run)
	// userNames and userIDs name the items as the user numbers them (for
	// a run: every item of items.json, also those outside the space);
	// absent says why a user index is not in the space (nil: all are).
	userNames, userIDs []string
	absent             func(user int) string
	// What the output's JSON names as its source.
	model         string
	kernels, rows []string
	run, row      string
	split         *int
}

// newSpace fills the per-item fields of a space of n items (named by names,
// of kind kind) and t new items.
func newSpace(n, t int, names, ids []string, kind string) *querySpace {
	sp := &querySpace{total: n + t, candidates: n + t, newItems: t}
	for i := 0; i < n+t; i++ {
		sp.index = append(sp.index, i)
		switch {
		case i >= n:
			sp.names = append(sp.names, fmt.Sprintf("new:%d", i-n))
			sp.kinds = append(sp.kinds, kindNew)
		case names != nil:
			sp.names = append(sp.names, names[i])
			sp.kinds = append(sp.kinds, kind)
		default:
			sp.names = append(sp.names, "")
			sp.kinds = append(sp.kinds, kind)
		}
		if ids != nil && i < n {
			sp.userIDs = append(sp.userIDs, ids[i])
		} else if ids != nil {
			sp.userIDs = append(sp.userIDs, "")
		}
	}
	sp.userNames = sp.names
	return sp
}

// readQueryItems reads an items file (data.ReadItemsFile) that must name
// exactly n items.
func readQueryItems(path string, n int, of string) (ids, names []string, err error) {
	if path == "" {
		return nil, nil, nil
	}
	if ids, names, err = data.ReadItemsFile(path); err != nil {
		return nil, nil, badInput(err)
	}
	if len(ids) != n {
		return nil, nil, badInput(&data.FileError{File: path, Rule: fmt.Sprintf("--items must list one item per %s (%d)", of, n), Value: fmt.Sprintf("%d items", len(ids))})
	}
	return ids, names, nil
}

// modelSpace is the embedding of a learned model, with new items from
// kernel (or feature) rows.
func modelSpace(modelFile string, rowFiles []string, itemsFile string) (*querySpace, error) {
	m, err := readModel(modelFile)
	if err != nil {
		return nil, err
	}
	if len(rowFiles) > 0 && m.Input == mkpoe.InputIdentity {
		return nil, usagef("--kernel-rows: %s is a GNMDS model (identity kernel), which has no out-of-sample extension", modelFile)
	}
	if len(rowFiles) > 0 && len(rowFiles) != m.NumInputs {
		return nil, usagef("--kernel-rows: model %s takes %d files of new-item rows (one per kernel given to fit, in fit's order), got %d", modelFile, m.NumInputs, len(rowFiles))
	}
	ids, names, err := readQueryItems(itemsFile, m.N, "training item of the model")
	if err != nil {
		return nil, err
	}
	emb, err := embedAll(m, rowFiles)
	if err != nil {
		return nil, err
	}
	total, _ := emb.Dims()
	sp := newSpace(m.N, total-m.N, names, ids, kindTrain)
	sp.kind, sp.model, sp.rows = "model", modelFile, rowFiles
	sp.desc = fmt.Sprintf("the embedding of model %s (%d dimensions)", modelFile, m.Dim())
	sp.dist = eval.EmbeddingDistance(emb)
	return sp, nil
}

// nativeSpace is the native space of one kernel or of the sum of several
// (Eq. 9), with new items from kernel rows and self-similarities.
func nativeSpace(kernelFiles, rowFiles, selfFiles []string, itemsFile string) (*querySpace, error) {
	var ks []mat.Symmetric
	for _, path := range kernelFiles {
		k, err := data.ReadKernelFile(path)
		if err != nil {
			return nil, badInput(err)
		}
		ks = append(ks, k)
	}
	if err := data.CheckSameSize(ks, kernelFiles); err != nil {
		return nil, badInput(err)
	}
	n := ks[0].SymmetricDim()
	sum := mat.NewSymDense(n, nil)
	for _, k := range ks {
		sum.AddSym(sum, k)
	}
	if len(rowFiles) != len(selfFiles) || (len(rowFiles) > 0 && len(rowFiles) != len(kernelFiles)) {
		return nil, usagef("new items in a native space need one --kernel-rows and one --kernel-self per --kernel (%d), got %d and %d: the distance k(x,x) + K_jj − 2k(x,x_j) needs k(x,x)",
			len(kernelFiles), len(rowFiles), len(selfFiles))
	}
	ids, names, err := readQueryItems(itemsFile, n, "kernel row")
	if err != nil {
		return nil, err
	}
	t := 0
	var rows *mat.Dense
	var self []float64
	for p, path := range rowFiles {
		r, err := data.ReadKernelRowsFile(path, n)
		if err != nil {
			return nil, badInput(err)
		}
		rt, _ := r.Dims()
		if p == 0 {
			t, rows, self = rt, mat.NewDense(rt, n, nil), make([]float64, rt)
		} else if rt != t {
			return nil, badInput(&data.FileError{File: path, Rule: fmt.Sprintf("kernel rows must describe the same new items as %s (%d rows)", rowFiles[0], t), Value: fmt.Sprintf("%d rows", rt)})
		}
		rows.Add(rows, r)
		s, err := readSelf(selfFiles[p], t)
		if err != nil {
			return nil, err
		}
		for q := range self {
			self[q] += s[q]
		}
	}
	sp := newSpace(n, t, names, ids, kindTrain)
	sp.candidates = n
	sp.kind, sp.kernels, sp.rows = "native", kernelFiles, rowFiles
	sp.desc = "the native space of " + strings.Join(kernelFiles, " + ")
	if rows == nil {
		sp.dist = eval.NativeDistance(sum)
	} else {
		sp.dist = eval.NativeDistanceNew(sum, rows, self)
	}
	return sp, nil
}

// readSelf reads a --kernel-self file: t lines of one number k(x,x) ≥ 0.
func readSelf(path string, t int) ([]float64, error) {
	x, err := data.ReadMatrixFile(path)
	if err != nil {
		return nil, badInput(err)
	}
	r, c := x.Dims()
	if c != 1 || r != t {
		return nil, badInput(&data.FileError{File: path, Rule: fmt.Sprintf("--kernel-self must hold k(x,x) of each of the %d new items: %d lines of one number", t, t), Value: fmt.Sprintf("%d×%d values", r, c)})
	}
	s := make([]float64, t)
	for q := range s {
		if s[q] = x.At(q, 0); s[q] < 0 {
			return nil, badInput(&data.FileError{File: path, Line: q + 1, Col: 1, Rule: "k(x,x) must be >= 0 (a kernel's self-similarity is a squared norm)", Value: strconv.FormatFloat(s[q], 'g', -1, 64)})
		}
	}
	return s, nil
}

// runSpace is the refit model of a run directory's row on one split: its
// training items and held-out items, numbered as items.json numbers them.
func runSpace(dir, label string, split int) (*querySpace, error) {
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, usagef("--run %s: not a finished run directory (no summary.json; mkpoe run or merge writes it)", dir)
	} else if err != nil {
		return nil, badInput(fmt.Errorf("--run: %w", err))
	}
	sum, err := results.DecodeSummary(b, filepath.Join(dir, "summary.json"))
	if err != nil {
		return nil, badInput(err)
	}
	itemsPath := filepath.Join(dir, "items.json")
	if b, err = os.ReadFile(itemsPath); err != nil {
		return nil, badInput(fmt.Errorf("--run: reading %s (the run's item names and splits): %w", itemsPath, err))
	}
	items, err := results.DecodeItems(b, itemsPath)
	if err != nil {
		return nil, badInput(err)
	}
	r, err := pickRow(sum, label)
	if err != nil {
		return nil, err
	}
	if split >= len(r.Models) || split >= len(items.Splits) {
		return nil, usagef("--split must be in 0..%d (the run's outer splits), got %d", min(len(r.Models), len(items.Splits))-1, split)
	}
	modelPath := filepath.Join(dir, r.Models[split])
	m, err := readModel(modelPath)
	if err != nil {
		return nil, err
	}
	train, test := items.Splits[split].Train, items.Splits[split].Test
	if m.N != len(train) {
		return nil, badInput(fmt.Errorf("%s: the model has %d training items but %s splits[%d].train lists %d", modelPath, m.N, itemsPath, split, len(train)))
	}
	emb := m.Train
	heldPath := strings.TrimSuffix(modelPath, ".json") + ".test.tsv"
	held, err := data.ReadMatrixFile(heldPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		held = nil // GNMDS: no out-of-sample extension
	case err != nil:
		return nil, badInput(err)
	default:
		hr, hc := held.Dims()
		if hr != len(test) || hc != m.Dim() {
			return nil, badInput(&data.FileError{File: heldPath, Rule: fmt.Sprintf("must hold one row per held-out item of %s splits[%d].test (%d) and one column per dimension of the model (%d)", itemsPath, split, len(test), m.Dim()),
				Value: fmt.Sprintf("%d×%d values", hr, hc)})
		}
		all := mat.NewDense(len(train)+len(test), m.Dim(), nil)
		all.Stack(m.Train, held)
		emb = all
	}
	sp := &querySpace{kind: "run", run: dir, row: r.Label, split: &split, dist: eval.EmbeddingDistance(emb)}
	sp.desc = fmt.Sprintf("row %q of run %s, split %d (model %s)", r.Label, dir, split, r.Models[split])
	global := train
	if held != nil {
		global = append(append([]int(nil), train...), test...)
	}
	for p, g := range global {
		sp.index = append(sp.index, g)
		sp.names = append(sp.names, items.Names[g])
		sp.kinds = append(sp.kinds, map[bool]string{true: kindTrain, false: kindTest}[p < len(train)])
	}
	sp.total, sp.candidates = len(global), len(global)
	sp.userNames = items.Names
	sp.absent = func(g int) string {
		for _, i := range test {
			if i == g {
				return fmt.Sprintf("is held out in split %d, and the run has no out-of-sample embedding of its held-out items (no %s; GNMDS models have none)", split, heldPath)
			}
		}
		return fmt.Sprintf("is in neither the training nor the test items of split %d", split)
	}
	return sp, nil
}

// pickRow finds the learned row labelled label, or the only learned row.
func pickRow(sum *results.Summary, label string) (*results.Row, error) {
	var learned []string
	for i := range sum.Rows {
		r := &sum.Rows[i]
		if label != "" && r.Label == label {
			if !r.Learned() {
				return nil, usagef("--row %q is a native row, with no learned model: query its kernel's native space with --kernel FILE", label)
			}
			if len(r.Models) == 0 {
				return nil, badInput(fmt.Errorf("--row %q: summary.json lists no refit models for this row", label))
			}
			return r, nil
		}
		if r.Learned() && len(r.Models) > 0 {
			learned = append(learned, strconv.Quote(r.Label))
		}
	}
	switch {
	case label != "":
		return nil, usagef("--row: no row is labelled %q; the learned rows are %s", label, orNone(learned))
	case len(learned) == 1:
		for i := range sum.Rows {
			if r := &sum.Rows[i]; r.Learned() && len(r.Models) > 0 {
				return r, nil
			}
		}
	}
	return nil, usagef("--row is required: the run has %d learned rows: %s", len(learned), orNone(learned))
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}

// maxSuggestions bounds the candidates an unknown or ambiguous name lists.
const maxSuggestions = 10

// resolve returns the item of the space that a --item value names: an
// integer is an index as the user numbers items (name:N forces a name);
// otherwise a name or id, matched whole, first exactly, then ignoring case.
// A name that matches several items or none is an error listing the
// candidates (for none: the names that contain it, ignoring case).
func (sp *querySpace) resolve(q string) (int, error) {
	u, err := sp.lookup(q)
	if err != nil {
		return 0, err
	}
	for i, g := range sp.index {
		if g == u {
			return i, nil
		}
	}
	return 0, usagef("--item %q: item %d%s %s", q, u, sp.quoted(u), sp.absent(u))
}

// quoted returns ` "name"` for user item u, or "" if it has no name.
func (sp *querySpace) quoted(u int) string {
	if sp.userNames[u] == "" {
		return ""
	}
	return " " + strconv.Quote(sp.userNames[u])
}

func (sp *querySpace) lookup(q string) (int, error) {
	n := len(sp.userNames)
	if i, err := strconv.Atoi(q); err == nil {
		if i < 0 || i >= n {
			return 0, usagef("--item %s: an index must be in 0..%d (0-based), got %d%s", q, n-1, i, sp.nameHint(q))
		}
		return i, nil
	}
	name := strings.TrimPrefix(q, "name:")
	if strings.TrimSpace(name) == "" {
		return 0, usagef("--item %q: give a 0-based index or a name", q)
	}
	for _, same := range []func(a, b string) bool{func(a, b string) bool { return a == b }, strings.EqualFold} {
		var hits []int
		for i := 0; i < n; i++ {
			if same(sp.userNames[i], name) || (sp.userIDs != nil && same(sp.userIDs[i], name)) {
				hits = append(hits, i)
			}
		}
		switch {
		case len(hits) == 1:
			return hits[0], nil
		case len(hits) > 1:
			return 0, usagef("--item %q: %d items have this name, give an index: %s", q, len(hits), sp.list(hits))
		}
	}
	var near []int
	lower := strings.ToLower(name)
	for i := 0; i < n; i++ {
		if strings.Contains(strings.ToLower(sp.userNames[i]), lower) || (sp.userIDs != nil && strings.Contains(strings.ToLower(sp.userIDs[i]), lower)) {
			near = append(near, i)
		}
	}
	switch {
	case sp.userIDs == nil && allEmpty(sp.userNames):
		return 0, usagef("--item %q: the items have no names (give --items FILE to name them), so query by 0-based index", q)
	case len(near) == 0:
		return 0, usagef("--item %q: no item has this name (matched whole, ignoring case), and no name contains it", q)
	}
	return 0, usagef("--item %q: no item has this name (matched whole, ignoring case); names containing it: %s", q, sp.list(near))
}

// nameHint says, for an out-of-range integer that is also a name, how to
// look the name up.
func (sp *querySpace) nameHint(q string) string {
	for _, s := range [][]string{sp.userNames, sp.userIDs} {
		for _, name := range s {
			if name == q {
				return fmt.Sprintf(" (an item is named %s: write --item name:%s)", q, q)
			}
		}
	}
	return ""
}

// list formats user items as `12 "name"`, at most maxSuggestions of them.
func (sp *querySpace) list(items []int) string {
	var parts []string
	for r, i := range items {
		if r == maxSuggestions {
			parts = append(parts, fmt.Sprintf("and %d more", len(items)-maxSuggestions))
			break
		}
		parts = append(parts, fmt.Sprintf("%d%s", i, sp.quoted(i)))
	}
	return strings.Join(parts, ", ")
}

func allEmpty(s []string) bool {
	for _, x := range s {
		if x != "" {
			return false
		}
	}
	return true
}

// writeQueryTables writes one plain table per query: rank, index, name,
// distance.
func writeQueryTables(w io.Writer, desc string, out *queryOutput) error {
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
			if nb.Kind != kindTrain {
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

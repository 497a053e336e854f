package query

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/eval"
	"github.com/mkpoe/mkpoe/pkg/mkpoe"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// FromModel is the embedding of the model in modelFile (written by mkpoe
// fit), with new items from rowFiles: one file of t×n kernel rows per
// kernel given to fit, in fit's order (t×D feature rows for an LPOE model),
// embedded out of sample. itemsFile, when not "", names the n training
// items (data.ReadItemsFile).
func FromModel(modelFile string, rowFiles []string, itemsFile string) (*Space, error) {
	m, err := readModel(modelFile)
	if err != nil {
		return nil, err
	}
	if len(rowFiles) > 0 && m.Input == mkpoe.InputIdentity {
		return nil, fmt.Errorf("--kernel-rows: %s is a GNMDS model (identity kernel), which has no out-of-sample extension", modelFile)
	}
	if len(rowFiles) > 0 && len(rowFiles) != m.NumInputs {
		return nil, fmt.Errorf("--kernel-rows: model %s takes %d files of new-item rows (one per kernel given to fit, in fit's order), got %d", modelFile, m.NumInputs, len(rowFiles))
	}
	ids, names, err := readItems(itemsFile, m.N, "training item of the model")
	if err != nil {
		return nil, err
	}
	emb, err := Embedding(m, rowFiles)
	if err != nil {
		return nil, err
	}
	total, _ := emb.Dims()
	sp := newSpace(m.N, total-m.N, names, ids, KindTrain)
	sp.kind, sp.model, sp.rows = "model", modelFile, rowFiles
	sp.desc = fmt.Sprintf("the embedding of model %s (%d dimensions)", modelFile, m.Dim())
	sp.dist = eval.EmbeddingDistance(emb)
	return sp, nil
}

// Embedding returns the embedding of m's training items followed by the
// new items described by rowFiles (kernel rows per kernel, or feature rows
// for an LPOE model; none: the training items only). m is not modified.
func Embedding(m *mkpoe.Model, rowFiles []string) (*mat.Dense, error) {
	if len(rowFiles) == 0 {
		return m.Train, nil
	}
	var rows []*mat.Dense
	for _, path := range rowFiles {
		var r *mat.Dense
		var err error
		if m.Input == mkpoe.InputFeatures {
			r, err = data.ReadMatrixFile(path)
		} else {
			r, err = data.ReadKernelRowsFile(path, m.N)
		}
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	emb, err := m.Embed(rows)
	if err != nil {
		return nil, err
	}
	n, d := m.Train.Dims()
	t, _ := emb.Dims()
	all := mat.NewDense(n+t, d, nil)
	all.Slice(0, n, 0, d).(*mat.Dense).Copy(m.Train)
	all.Slice(n, n+t, 0, d).(*mat.Dense).Copy(emb)
	return all, nil
}

// FromKernels is the native space of one kernel or of the sum of several
// (Eq. 9), with new items from rowFiles (t×n kernel rows) and selfFiles
// (k(x,x) of each new item, t lines of one number), one of each per
// kernel. itemsFile, when not "", names the n items.
func FromKernels(kernelFiles, rowFiles, selfFiles []string, itemsFile string) (*Space, error) {
	var ks []mat.Symmetric
	for _, path := range kernelFiles {
		k, err := data.ReadKernelFile(path)
		if err != nil {
			return nil, err
		}
		ks = append(ks, k)
	}
	if err := data.CheckSameSize(ks, kernelFiles); err != nil {
		return nil, err
	}
	n := ks[0].SymmetricDim()
	sum := mat.NewSymDense(n, nil)
	for _, k := range ks {
		sum.AddSym(sum, k)
	}
	if len(rowFiles) != len(selfFiles) || (len(rowFiles) > 0 && len(rowFiles) != len(kernelFiles)) {
		return nil, fmt.Errorf("new items in a native space need one --kernel-rows and one --kernel-self per --kernel (%d), got %d and %d: the distance k(x,x) + K_jj − 2k(x,x_j) needs k(x,x)",
			len(kernelFiles), len(rowFiles), len(selfFiles))
	}
	ids, names, err := readItems(itemsFile, n, "kernel row")
	if err != nil {
		return nil, err
	}
	rows, self, err := readNewRows(rowFiles, selfFiles, n)
	if err != nil {
		return nil, err
	}
	t := len(self)
	sp := newSpace(n, t, names, ids, KindTrain)
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

// readNewRows sums the kernel rows of new items over the kernels, and
// their self-similarities; rows is nil when there are no files.
func readNewRows(rowFiles, selfFiles []string, n int) (rows *mat.Dense, self []float64, err error) {
	t := 0
	for p, path := range rowFiles {
		r, err := data.ReadKernelRowsFile(path, n)
		if err != nil {
			return nil, nil, err
		}
		rt, _ := r.Dims()
		if p == 0 {
			t, rows, self = rt, mat.NewDense(rt, n, nil), make([]float64, rt)
		} else if rt != t {
			return nil, nil, &data.FileError{File: path, Rule: fmt.Sprintf("kernel rows must describe the same new items as %s (%d rows)", rowFiles[0], t), Value: fmt.Sprintf("%d rows", rt)}
		}
		rows.Add(rows, r)
		s, err := readSelf(selfFiles[p], t)
		if err != nil {
			return nil, nil, err
		}
		for q := range self {
			self[q] += s[q]
		}
	}
	return rows, self, nil
}

// readSelf reads a --kernel-self file: t lines of one number k(x,x) ≥ 0.
func readSelf(path string, t int) ([]float64, error) {
	x, err := data.ReadMatrixFile(path)
	if err != nil {
		return nil, err
	}
	r, c := x.Dims()
	if c != 1 || r != t {
		return nil, &data.FileError{File: path, Rule: fmt.Sprintf("--kernel-self must hold k(x,x) of each of the %d new items: %d lines of one number", t, t), Value: fmt.Sprintf("%d×%d values", r, c)}
	}
	s := make([]float64, t)
	for q := range s {
		if s[q] = x.At(q, 0); s[q] < 0 {
			return nil, &data.FileError{File: path, Line: q + 1, Col: 1, Rule: "k(x,x) must be >= 0 (a kernel's self-similarity is a squared norm)", Value: strconv.FormatFloat(s[q], 'g', -1, 64)}
		}
	}
	return s, nil
}

// readItems reads an items file (data.ReadItemsFile) that must name
// exactly n items; path "" gives none.
func readItems(path string, n int, of string) (ids, names []string, err error) {
	if path == "" {
		return nil, nil, nil
	}
	if ids, names, err = data.ReadItemsFile(path); err != nil {
		return nil, nil, err
	}
	if len(ids) != n {
		return nil, nil, &data.FileError{File: path, Rule: fmt.Sprintf("--items must list one item per %s (%d)", of, n), Value: fmt.Sprintf("%d items", len(ids))}
	}
	return ids, names, nil
}

// readModel reads a model file.
func readModel(path string) (*mkpoe.Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading model: %w", err)
	}
	defer f.Close()
	return mkpoe.ReadJSON(f, path)
}

// FromRun is the refit model of a finished run directory's row on outer
// split split: its training items and held-out items (embedded out of
// sample in models/<id>.test.tsv; none for GNMDS), numbered and named as
// the run's items.json numbers and names them. label "" picks the run's
// only learned row.
func FromRun(dir, label string, split int) (*Space, error) {
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("--run %s: not a finished run directory (no summary.json; mkpoe run or merge writes it)", dir)
	} else if err != nil {
		return nil, fmt.Errorf("--run: %w", err)
	}
	sum, err := results.DecodeSummary(b, filepath.Join(dir, "summary.json"))
	if err != nil {
		return nil, err
	}
	itemsPath := filepath.Join(dir, "items.json")
	if b, err = os.ReadFile(itemsPath); err != nil {
		return nil, fmt.Errorf("--run: reading %s (the run's item names and splits): %w", itemsPath, err)
	}
	items, err := results.DecodeItems(b, itemsPath)
	if err != nil {
		return nil, err
	}
	r, err := pickRow(sum, label)
	if err != nil {
		return nil, err
	}
	if split >= len(r.Models) || split >= len(items.Splits) {
		return nil, fmt.Errorf("--split must be in 0..%d (the run's outer splits), got %d", min(len(r.Models), len(items.Splits))-1, split)
	}
	modelPath := filepath.Join(dir, r.Models[split])
	m, err := readModel(modelPath)
	if err != nil {
		return nil, err
	}
	train, test := items.Splits[split].Train, items.Splits[split].Test
	if m.N != len(train) {
		return nil, fmt.Errorf("%s: the model has %d training items but %s splits[%d].train lists %d", modelPath, m.N, itemsPath, split, len(train))
	}
	heldPath := strings.TrimSuffix(modelPath, ".json") + ".test.tsv"
	emb, held, err := runEmbedding(m, heldPath, len(test), fmt.Sprintf("%s splits[%d].test", itemsPath, split))
	if err != nil {
		return nil, err
	}
	sp := &Space{kind: "run", run: dir, row: r.Label, split: &split, dist: eval.EmbeddingDistance(emb)}
	sp.desc = fmt.Sprintf("row %q of run %s, split %d (model %s)", r.Label, dir, split, r.Models[split])
	global := train
	if held {
		global = append(append([]int(nil), train...), test...)
	}
	for p, g := range global {
		sp.index = append(sp.index, g)
		sp.names = append(sp.names, items.Names[g])
		sp.kinds = append(sp.kinds, map[bool]string{true: KindTrain, false: KindTest}[p < len(train)])
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

// runEmbedding is a refit model's training embedding followed by its
// held-out items' embedding from heldPath (nTest rows; of names them in
// errors); held is false when heldPath does not exist (GNMDS).
func runEmbedding(m *mkpoe.Model, heldPath string, nTest int, of string) (emb *mat.Dense, held bool, err error) {
	x, err := data.ReadMatrixFile(heldPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return m.Train, false, nil // GNMDS: no out-of-sample extension
	case err != nil:
		return nil, false, err
	}
	hr, hc := x.Dims()
	if hr != nTest || hc != m.Dim() {
		return nil, false, &data.FileError{File: heldPath, Rule: fmt.Sprintf("must hold one row per held-out item of %s (%d) and one column per dimension of the model (%d)", of, nTest, m.Dim()),
			Value: fmt.Sprintf("%d×%d values", hr, hc)}
	}
	all := mat.NewDense(m.N+nTest, m.Dim(), nil)
	all.Stack(m.Train, x)
	return all, true, nil
}

// pickRow finds the learned row labelled label (case aside, as configs
// match labels), or the only learned row.
func pickRow(sum *results.Summary, label string) (*results.Row, error) {
	var learned []string
	for i := range sum.Rows {
		r := &sum.Rows[i]
		if label != "" && strings.EqualFold(r.Label, label) {
			if !r.Learned() {
				return nil, fmt.Errorf("--row %q is %w", r.Label, ErrNativeRow)
			}
			if len(r.Models) == 0 {
				return nil, fmt.Errorf("--row %q: summary.json lists no refit models for this row", label)
			}
			return r, nil
		}
		if r.Learned() && len(r.Models) > 0 {
			learned = append(learned, strconv.Quote(r.Label))
		}
	}
	switch {
	case label != "":
		return nil, fmt.Errorf("--row: no row is labelled %q; the learned rows are %s", label, orNone(learned))
	case len(learned) == 1:
		for i := range sum.Rows {
			if r := &sum.Rows[i]; r.Learned() && len(r.Models) > 0 {
				return r, nil
			}
		}
	}
	return nil, fmt.Errorf("--row is required: the run has %d learned rows: %s", len(learned), orNone(learned))
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}

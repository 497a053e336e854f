package cli

import (
	"context"
	"fmt"
	"io"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/eval"
	"github.com/mkpoe/mkpoe/pkg/mkpoe"
)

// runEval implements "mkpoe eval": the fraction of comparisons a learned
// space satisfies strictly (GAUC, Appendix C). New items, described by
// kernel rows (or feature rows for an LPOE model), are numbered n … n+t−1.
func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("eval", stderr)
	modelFile := fs.String("model", "", "model file written by mkpoe fit (required)")
	compFile := fs.String("comparisons", "", "comparisons file (required)")
	oneBased := fs.Bool("one-based", false, "item indices in the comparisons file start at 1")
	var rowFiles stringList
	fs.Var(&rowFiles, "kernel-rows", "t×n kernel rows of new items, one file per kernel in fit's order (for an LPOE model: t×D feature rows)")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if *modelFile == "" || *compFile == "" {
		return usagef("--model and --comparisons are required")
	}
	m, err := readModel(*modelFile)
	if err != nil {
		return err
	}
	emb, err := embedAll(m, rowFiles)
	if err != nil {
		return err
	}
	total, _ := emb.Dims()
	cf, err := readComparisons(*compFile, data.ComparisonOptions{OneBased: *oneBased, N: total})
	if err != nil {
		if len(rowFiles) == 0 {
			if _, errAny := data.ReadComparisonsFile(*compFile, data.ComparisonOptions{OneBased: *oneBased}); errAny == nil {
				// Only the bound on the indices failed: the file is
				// about new items.
				return badInput(fmt.Errorf("%w\n%s", err, newItemsHint(m)))
			}
		}
		return badInput(err)
	}
	fmt.Fprintf(stdout, "accuracy %.6f\n", eval.Accuracy(cf.Comparisons, eval.EmbeddingDistance(emb)))
	printBackend(stdout, stderr, "eval")
	return nil
}

// newItemsHint tells how to give a model's new items, for comparisons
// whose indices reach beyond its training items.
func newItemsHint(m *mkpoe.Model) string {
	switch m.Input {
	case mkpoe.InputIdentity:
		return fmt.Sprintf("The model has %d training items (0 … %d) and, learnt without features (GNMDS), cannot place new items: score comparisons among its training items only.", m.N, m.N-1)
	case mkpoe.InputFeatures:
		return fmt.Sprintf("The model has %d training items (0 … %d); comparisons about new items (numbered %d, %d, …) need the new items' feature rows: give --kernel-rows FILE (t×D feature rows, as for fit's --features).", m.N, m.N-1, m.N, m.N+1)
	}
	files := "one file per kernel, in fit's order"
	if m.NumInputs == 1 {
		files = "one file, for the model's one kernel"
	} else {
		files += fmt.Sprintf(" (this model has %d kernels: give --kernel-rows %d times)", m.NumInputs, m.NumInputs)
	}
	return fmt.Sprintf("The model has %d training items (0 … %d); comparisons about new items (numbered %d, %d, …) need the new items' kernel rows against the training items: give --kernel-rows FILE, %s; mkpoe kernel --test-out writes them.", m.N, m.N-1, m.N, m.N+1, files)
}

// runNative implements "mkpoe native": accuracy in a kernel's native space,
// d(i,j) = K_ii + K_jj − 2K_ij (the "Native" columns of Tables 1–3).
func runNative(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("native", stderr)
	kernelFile := fs.String("kernel", "", "kernel matrix file (text or .npy), n×n (required)")
	compFile := fs.String("comparisons", "", "comparisons file (required)")
	oneBased := fs.Bool("one-based", false, "item indices in the comparisons file start at 1")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if *kernelFile == "" || *compFile == "" {
		return usagef("--kernel and --comparisons are required")
	}
	k, err := data.ReadKernelFile(*kernelFile)
	if err != nil {
		return badInput(err)
	}
	cf, err := readComparisons(*compFile, data.ComparisonOptions{OneBased: *oneBased, N: k.SymmetricDim()})
	if err != nil {
		return badInput(err)
	}
	acc, err := eval.NativeAccuracy(k, cf.Comparisons)
	if err != nil {
		return badInput(err)
	}
	fmt.Fprintf(stdout, "accuracy %.6f\n", acc)
	printBackend(stdout, stderr, "native")
	return nil
}

// runEmbed implements "mkpoe embed": write the embedding g(x) of the
// training items, then of the new items, one row per item (TSV).
func runEmbed(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("embed", stderr)
	modelFile := fs.String("model", "", "model file written by mkpoe fit (required)")
	var rowFiles stringList
	fs.Var(&rowFiles, "kernel-rows", "t×n kernel rows of new items, one file per kernel in fit's order (for an LPOE model: t×D feature rows)")
	out := fs.String("out", "", "embedding file to write: n (+t) rows, tab-separated (.npy also works) (required)")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if *modelFile == "" || *out == "" {
		return usagef("--model and --out are required")
	}
	emb, err := modelEmbedding(*modelFile, rowFiles)
	if err != nil {
		return err
	}
	if err := data.WriteMatrixFile(*out, emb); err != nil {
		return err
	}
	r, c := emb.Dims()
	fmt.Fprintf(stdout, "wrote %d items × %d dimensions to %s\n", r, c, *out)
	printBackend(stdout, stderr, "embed")
	return nil
}

// modelEmbedding reads a model file and returns the embedding of its
// training items followed by the new items of rowFiles (see embedAll).
func modelEmbedding(modelFile string, rowFiles []string) (*mat.Dense, error) {
	m, err := readModel(modelFile)
	if err != nil {
		return nil, err
	}
	return embedAll(m, rowFiles)
}

package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/kernels"
)

const kernelHelp = `Usage: mkpoe kernel --type T --features FILE --out FILE [--test-features FILE --test-out FILE] [flags]

Builds the n×n kernel matrix of the training items in --features and, with
--test-features, the t×n rows of new items against the training items,
computed with training statistics only (IDF, median bandwidth, normalisers,
centring means). Matrices are written as text, or NumPy .npy when the file
name ends in .npy, and read back with data.ReadKernelFile and
data.ReadKernelRowsFile. See docs/kernels.md.

Feature files (text or .npy, one item per row):
  linear, rbf, chi2   n×D feature matrix (chi2: histograms, values ≥ 0)
  tfidf, cf           n×V count matrix (cf binarises: count > 0); an all-zero
                      row gets an identity row and column (missing item)
  ppk                 frames file: column 1 is the item index (0-based
                      integer), the other columns one frame; every item
                      0..n−1 needs at least 'components' frames, rows may
                      come in any order (frames keep their file order)
  identity, noise     contents ignored; only the number of rows counts
                      (or give --n / --test-n instead)

Kernel types:
`

// runKernel implements "mkpoe kernel".
func runKernel(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("kernel", stderr)
	typ := fs.String("type", "", "kernel type (required; see below)")
	features := fs.String("features", "", "training features `FILE` (text or .npy)")
	testFeatures := fs.String("test-features", "", "features `FILE` of new items (optional)")
	out := fs.String("out", "", "output `FILE` for the n×n kernel matrix (required)")
	testOut := fs.String("test-out", "", "output `FILE` for the t×n rows of new items (with --test-features)")
	norm := fs.String("normalize", "none", "normalisation: none, diag, trace or center")
	bandwidth := fs.Float64("bandwidth", 0, "rbf: bandwidth σ > 0 (default: the median heuristic)")
	median := fs.Bool("median", false, "rbf: σ = median pairwise training distance (the default)")
	sigma := fs.Float64("sigma", 0, "chi2: scale σ > 0 (default 256, Sec. 5.2.1)")
	seed := fs.Uint64("seed", 0, "ppk, noise: random seed")
	n := fs.Int("n", 0, "identity, noise: number of training items (instead of --features)")
	testN := fs.Int("test-n", 0, "identity, noise: number of new items (instead of --test-features)")
	var extra stringList
	fs.Var(&extra, "param", "other kernel parameter `name=value` (repeatable), e.g. components=8, rho=0.5, dim=3")
	fs.Usage = func() {
		fmt.Fprint(stderr, kernelHelp)
		for _, name := range kernels.Types() {
			summary, params, _ := kernels.Describe(name)
			p := ""
			if len(params) > 0 {
				p = " [" + strings.Join(params, ", ") + "]"
			}
			fmt.Fprintf(stderr, "  %-9s %s%s\n", name, summary, p)
		}
		fmt.Fprintln(stderr, "\nFlags:")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	*typ = strings.ToLower(*typ) // kernels.Types are lower case; --type RBF is rbf

	switch {
	case *typ == "":
		return usagef("--type is required (one of %s)", strings.Join(kernels.Types(), ", "))
	case *out == "":
		return usagef("--out is required")
	case (*testFeatures != "" || set["test-n"]) != (*testOut != ""):
		return usagef("--test-out and --test-features (or --test-n) go together")
	case set["median"] && *typ != "rbf":
		return usagef("--median applies to --type rbf only, got --type %s", *typ)
	case *median && set["bandwidth"]:
		return usagef("give either --bandwidth or --median, not both")
	}
	z, err := kernels.ParseNormalization(*norm)
	if err != nil {
		return usagef("--normalize: %v", err)
	}
	params, err := kernelParams(set, *bandwidth, *sigma, *seed, extra)
	if err != nil {
		return err
	}
	k, err := kernels.New(*typ, params)
	if err != nil {
		return badInput(err)
	}

	train, err := readKernelInput(*typ, *features, *n, "--features", "--n")
	if err != nil {
		return err
	}
	m, err := kernels.Fit(k, train, kernels.Options{Normalize: z})
	if err != nil {
		return badInput(fmt.Errorf("%s: %w", *features, err))
	}
	g := m.Gram()
	if err := kernels.ValidateGram(g, 1e-8); err != nil {
		fmt.Fprintf(stderr, "mkpoe kernel: warning: %v\n", err)
	}
	if err := data.WriteMatrixFile(*out, g); err != nil {
		return err
	}
	desc := fmt.Sprintf("%s kernel, normalize %s", *typ, z)
	if f, ok := m.Fitted().(*kernels.RBFFit); ok {
		desc += fmt.Sprintf(", bandwidth σ = %.6g", f.Sigma)
	}
	fmt.Fprintf(stdout, "wrote %d×%d %s to %s\n", m.N(), m.N(), desc, *out)

	if *testOut == "" {
		printBackend(stdout, stderr, "kernel")
		return ctx.Err()
	}
	if err := writeKernelRows(stdout, m, *typ, *testFeatures, *testN, *testOut); err != nil {
		return err
	}
	printBackend(stdout, stderr, "kernel")
	return ctx.Err()
}

// writeKernelRows writes to testOut the kernel rows of the new items read
// from testFeatures (or testN items for identity and noise) against the
// fitted kernel m's training items.
func writeKernelRows(stdout io.Writer, m *kernels.Model, typ, testFeatures string, testN int, testOut string) error {
	test, err := readKernelInput(typ, testFeatures, testN, "--test-features", "--test-n")
	if err != nil {
		return err
	}
	rows, err := m.Rows(test)
	if err != nil {
		return badInput(fmt.Errorf("%s: %w", testFeatures, err))
	}
	if err := data.WriteMatrixFile(testOut, rows); err != nil {
		return err
	}
	t, _ := rows.Dims()
	fmt.Fprintf(stdout, "wrote %d×%d rows of new items to %s\n", t, m.N(), testOut)
	return nil
}

// kernelParams collects the kernel parameters mkpoe kernel was given: the
// flags set (--bandwidth, --sigma, --seed) and every --param name=value.
func kernelParams(set map[string]bool, bandwidth, sigma float64, seed uint64, extra []string) (map[string]float64, error) {
	params := map[string]float64{}
	if set["bandwidth"] {
		if !(bandwidth > 0) {
			return nil, usagef("--bandwidth must be > 0, got %v (use --median for the median heuristic)", bandwidth)
		}
		params["bandwidth"] = bandwidth
	}
	if set["sigma"] {
		if !(sigma > 0) {
			return nil, usagef("--sigma must be > 0, got %v", sigma)
		}
		params["sigma"] = sigma
	}
	if set["seed"] {
		params["seed"] = float64(seed)
	}
	for _, kv := range extra {
		name, val, ok := strings.Cut(kv, "=")
		x, err := strconv.ParseFloat(val, 64)
		if !ok || name == "" || err != nil {
			return nil, usagef("--param must be name=value with a number, got %q", kv)
		}
		if _, dup := params[name]; dup {
			return nil, usagef("parameter %q given twice", name)
		}
		params[name] = x
	}
	return params, nil
}

// readKernelInput reads the input of a kernel type from path (or takes count
// items for identity and noise). Errors are input errors (exit status 2).
func readKernelInput(typ, path string, count int, pathFlag, countFlag string) (kernels.Input, error) {
	if typ == "identity" || typ == "noise" {
		if path == "" {
			if count <= 0 {
				return kernels.Input{}, usagef("%s or %s (> 0) is required for --type %s", pathFlag, countFlag, typ)
			}
			return kernels.Input{N: count}, nil
		}
		if count != 0 {
			return kernels.Input{}, usagef("give either %s or %s, not both", pathFlag, countFlag)
		}
	} else if count != 0 {
		return kernels.Input{}, usagef("%s applies to --type identity and noise only", countFlag)
	}
	if path == "" {
		return kernels.Input{}, usagef("%s is required", pathFlag)
	}
	if typ == "ppk" {
		frames, err := data.ReadFramesFile(path)
		if err != nil {
			return kernels.Input{}, badInput(err)
		}
		return kernels.Input{Frames: frames}, nil
	}
	x, err := data.ReadMatrixFile(path)
	if err != nil {
		return kernels.Input{}, badInput(err)
	}
	if typ == "identity" || typ == "noise" {
		r, _ := x.Dims()
		return kernels.Input{N: r}, nil
	}
	return kernels.Input{Features: x}, nil
}

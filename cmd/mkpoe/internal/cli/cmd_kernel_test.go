package cli_test

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/cmd/mkpoe/internal/cli"
	"github.com/mkpoe/mkpoe/pkg/data"
)

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func runMain(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := cli.Main(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestKernelCommand writes kernels and rows and reads them back.
func TestKernelCommand(t *testing.T) {
	dir := t.TempDir()
	feat := writeFile(t, dir, "x.txt", "1 2\n3 4\n")
	testFeat := writeFile(t, dir, "y.txt", "1 0\n")
	for _, test := range []struct {
		name     string
		args     []string
		out      string
		want     []float64 // n×n
		testOut  string
		wantRows []float64 // t×n
	}{
		{
			// (1,2)·(1,2) = 5, (1,2)·(3,4) = 11, (3,4)·(3,4) = 25;
			// (1,0) against them: 1, 3.
			name: "linear text", args: []string{"--type", "linear"}, out: "k.txt", want: []float64{5, 11, 11, 25},
			testOut: "rows.txt", wantRows: []float64{1, 3},
		},
		{
			// Unit diagonal: 11/√(5·25); new rows 1/√5, 3/5.
			name: "linear diag npy", args: []string{"--type", "linear", "--normalize", "diag"}, out: "k.npy", want: []float64{1, 11 / math.Sqrt(125), 11 / math.Sqrt(125), 1},
			testOut: "rows.npy", wantRows: []float64{1 / math.Sqrt(5), 0.6},
		},
		{
			// ‖(1,2) − (3,4)‖² = 8, σ = 2: exp(−1); (1,0): ‖·‖² = 4 and 20.
			name: "rbf", args: []string{"--type", "rbf", "--bandwidth", "2"}, out: "rbf.txt", want: []float64{1, math.Exp(-1), math.Exp(-1), 1},
			testOut: "rbf-rows.txt", wantRows: []float64{math.Exp(-0.5), math.Exp(-2.5)},
		},
		{
			// Median of the single distance √8 is σ: exp(−8/16).
			name: "rbf median", args: []string{"--type", "rbf", "--median"}, out: "rbfm.txt", want: []float64{1, math.Exp(-0.5), math.Exp(-0.5), 1},
		},
		{
			// Kernel types and normalisations are read case aside.
			name: "RBF median, Diag", args: []string{"--type", "RBF", "--median", "--normalize", "Diag"}, out: "rbfm2.txt", want: []float64{1, math.Exp(-0.5), math.Exp(-0.5), 1},
		},
		{
			name: "identity", args: []string{"--type", "identity"}, out: "id.txt", want: []float64{1, 0, 0, 1},
			testOut: "id-rows.txt", wantRows: []float64{0, 0},
		},
	} {
		t.Run(test.name, func(t *testing.T) {
			args := append([]string{"kernel", "--features", feat, "--out", filepath.Join(dir, test.out)}, test.args...)
			if test.testOut != "" {
				args = append(args, "--test-features", testFeat, "--test-out", filepath.Join(dir, test.testOut))
			}
			code, stdout, stderr := runMain(args...)
			if code != 0 {
				t.Fatalf("exit %d, stderr: %s", code, stderr)
			}
			if !strings.Contains(stdout, "wrote 2×2") {
				t.Errorf("stdout = %q", stdout)
			}
			k, err := data.ReadKernelFile(filepath.Join(dir, test.out))
			if err != nil {
				t.Fatal(err)
			}
			if want := mat.NewDense(2, 2, test.want); !mat.EqualApprox(k, want, 1e-14) {
				t.Errorf("kernel = %v, want %v", mat.Formatted(k), mat.Formatted(want))
			}
			if test.testOut == "" {
				return
			}
			rows, err := data.ReadKernelRowsFile(filepath.Join(dir, test.testOut), 2)
			if err != nil {
				t.Fatal(err)
			}
			if want := mat.NewDense(1, 2, test.wantRows); !mat.EqualApprox(rows, want, 1e-14) {
				t.Errorf("rows = %v, want %v", mat.Formatted(rows), mat.Formatted(want))
			}
		})
	}
}

// TestKernelCommandFrames builds a PPK kernel from a frames file.
func TestKernelCommandFrames(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 30; i++ { // items 0 and 1 interleaved, 15 frames each
		x := float64(i%7) / 7
		b.WriteString(strings.Join([]string{[]string{"0", "1"}[i%2], ftoa(x + float64(i%2)*3), ftoa(x * x)}, " ") + "\n")
	}
	frames := writeFile(t, dir, "frames.txt", b.String())
	out := filepath.Join(dir, "ppk.txt")
	code, _, stderr := runMain("kernel", "--type", "ppk", "--param", "components=2", "--seed", "4", "--normalize", "diag", "--features", frames, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	k, err := data.ReadKernelFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if k.SymmetricDim() != 2 || k.At(0, 0) != 1 || !(k.At(0, 1) >= 0 && k.At(0, 1) < 1) {
		t.Errorf("ppk kernel = %v", mat.Formatted(k))
	}
}

func ftoa(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// TestKernelCommandBadInput checks that bad input exits with status 2 and a
// message naming the problem.
func TestKernelCommandBadInput(t *testing.T) {
	dir := t.TempDir()
	feat := writeFile(t, dir, "x.txt", "1 2\n3 4\n")
	hist := writeFile(t, dir, "h.txt", "0.5 0.5\n0.2 -0.1\n")
	ragged := writeFile(t, dir, "r.txt", "1 2\n3\n")
	wide := writeFile(t, dir, "w.txt", "1 2 3\n")
	out := filepath.Join(dir, "k.txt")
	for _, test := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown type", []string{"--type", "gauss", "--features", feat, "--out", out}, `unknown kernel type "gauss"`},
		{"no type", []string{"--features", feat, "--out", out}, "--type is required"},
		{"no out", []string{"--type", "linear", "--features", feat}, "--out is required"},
		{"unknown parameter", []string{"--type", "rbf", "--sigma", "2", "--features", feat, "--out", out}, `unknown parameter "sigma" for kernel type "rbf" (valid: bandwidth, median_scale)`},
		{"bad param syntax", []string{"--type", "ppk", "--param", "components", "--features", feat, "--out", out}, "--param must be name=value"},
		{"median and bandwidth", []string{"--type", "rbf", "--median", "--bandwidth", "1", "--features", feat, "--out", out}, "either --bandwidth or --median"},
		{"zero bandwidth", []string{"--type", "rbf", "--bandwidth", "0", "--features", feat, "--out", out}, "--bandwidth must be > 0"},
		{"bad normalize", []string{"--type", "linear", "--normalize", "unit", "--features", feat, "--out", out}, `unknown normalization "unit"`},
		{"negative histogram", []string{"--type", "chi2", "--features", hist, "--out", out}, "got -0.1 at row 1, column 1 (0-based) of the training items"},
		{"ragged rows", []string{"--type", "linear", "--features", ragged, "--out", out}, "ragged rows"},
		{"missing file", []string{"--type", "linear", "--features", filepath.Join(dir, "none.txt"), "--out", out}, "none.txt"},
		{"test dimension", []string{"--type", "linear", "--features", feat, "--out", out, "--test-features", wide, "--test-out", filepath.Join(dir, "r.out")}, "new items have 3 features but the training items have 2"},
		{"test out without test features", []string{"--type", "linear", "--features", feat, "--out", out, "--test-out", filepath.Join(dir, "r.out")}, "go together"},
		{"frames without index", []string{"--type", "ppk", "--features", writeFile(t, dir, "f1.txt", "1\n2\n"), "--out", out}, "item index column"},
		{"frames bad index", []string{"--type", "ppk", "--features", writeFile(t, dir, "f2.txt", "0 1\n1.5 2\n"), "--out", out}, "item index must be an integer"},
		{"frames gap", []string{"--type", "ppk", "--param", "components=1", "--features", writeFile(t, dir, "f3.txt", "0 1\n2 2\n0 3\n"), "--out", out}, "none for item 1"},
		{"identity without n", []string{"--type", "identity", "--out", out}, "--features or --n"},
		{"positional", []string{"--type", "linear", "--features", feat, "--out", out, "extra"}, "unexpected arguments"},
	} {
		t.Run(test.name, func(t *testing.T) {
			code, _, stderr := runMain(append([]string{"kernel"}, test.args...)...)
			if code != cli.ExitUsage {
				t.Errorf("exit %d, want %d; stderr: %s", code, cli.ExitUsage, stderr)
			}
			if !strings.Contains(stderr, test.want) {
				t.Errorf("stderr = %q, want it to contain %q", stderr, test.want)
			}
		})
	}
}

// TestKernelCommandHelp checks that -h lists the kernel types and exits 0.
func TestKernelCommandHelp(t *testing.T) {
	code, _, stderr := runMain("kernel", "-h")
	if code != 0 || !strings.Contains(stderr, "tfidf") || !strings.Contains(stderr, "frames file") {
		t.Errorf("exit %d, help: %s", code, stderr)
	}
}

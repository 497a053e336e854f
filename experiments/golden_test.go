package experiments

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/mkpoe/mkpoe/internal/linalg"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// updateGolden rewrites testdata/golden/*.json from the current code:
//
//	go test ./experiments -run TestSummaryNumbersGolden -golden.update
//
// Only do so for a change that is meant to change results, and say why in
// the commit.
var updateGolden = flag.Bool("golden.update", false, "rewrite testdata/golden from this build")

// summaryNumbers is every number of a run's summary.json, row by row: what
// a refactoring of the harness must leave byte-identical. Names, hashes and
// paths are left out on purpose.
type summaryNumbers struct {
	BetaGrid []float64    `json:"beta_grid"`
	Rows     []rowNumbers `json:"rows"`
}

type rowNumbers struct {
	Label            string      `json:"label"`
	Accuracy         []float64   `json:"accuracy"`
	Mean             float64     `json:"mean"`
	Std              float64     `json:"std"`
	Beta             []float64   `json:"beta,omitempty"`
	ValCurve         [][]float64 `json:"val_curve,omitempty"`
	KernelShare      []float64   `json:"kernel_share,omitempty"`
	TrainComparisons []int       `json:"train_comparisons"`
	TestComparisons  []int       `json:"test_comparisons"`
	Fits             *int        `json:"fits,omitempty"`
	UnconvergedFits  *int        `json:"unconverged_fits,omitempty"`
	MaxGap           *float64    `json:"max_gap,omitempty"`
}

// readSummaryNumbers projects a run directory's summary.json on
// summaryNumbers and encodes it (one row per line, for readable diffs).
func readSummaryNumbers(t *testing.T, dir string) []byte {
	t.Helper()
	var s summaryNumbers
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, "summary.json")), &s); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	grid, _ := json.Marshal(s.BetaGrid)
	b.WriteString("{\"beta_grid\": " + string(grid) + ",\n\"rows\": [\n")
	for i, r := range s.Rows {
		line, _ := json.Marshal(r)
		b.Write(line)
		if i < len(s.Rows)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]}\n")
	return b.Bytes()
}

// TestSummaryNumbersGolden runs shipped configs and compares every number of
// their summaries with testdata/golden, written before the harness was
// split into pkg/cv, pkg/results and the CLI (issue 12): refactoring must not
// change a single digit. The goldens come from the default (pure Go) build;
// the OpenBLAS build agrees only to rounding, so it skips this test.
func TestSummaryNumbersGolden(t *testing.T) {
	if linalg.Backend() != "gonum" {
		t.Skip("goldens are from the pure-Go build; this build is " + linalg.Backend())
	}
	cases := []struct {
		name, config string
		long, data   bool
	}{
		{name: "tiny"},
		{name: "quickstart", config: "quickstart.yaml"},
		{name: "aset400_short", config: "aset400_short.yaml", long: true, data: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.long && testing.Short() {
				t.Skip("-short: skipping a run of about 100 s")
			}
			if tc.data {
				if _, err := os.Stat(filepath.Join("..", "data", "aset400")); err != nil {
					t.Skip("data/ absent: run scripts/fetch_aset400.sh (or with --mirror ../shared/data)")
				}
			}
			out := t.TempDir()
			var c *Config
			if tc.config == "" {
				c = loadTiny(t, out)
			} else {
				var err error
				if c, err = LoadConfig(filepath.Join("..", "configs", tc.config)); err != nil {
					t.Fatal(err)
				}
				c.Output = out
			}
			if _, err := Run(context.Background(), c, RunOptions{Workers: 2}); err != nil {
				t.Fatal(err)
			}
			got := readSummaryNumbers(t, out)
			golden := filepath.Join("testdata", "golden", tc.name+".json")
			if *updateGolden {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want := readFile(t, golden)
			if !bytes.Equal(got, want) {
				t.Errorf("summary numbers differ from %s (a change of results: if intended, rerun with -golden.update and say why)\ngot:\n%s\nwant:\n%s", golden, got, want)
			}
		})
	}
}

// TestRunFilesReadableByAll checks that every file a run writes has mode
// 0644 (a shared run directory must be readable by colleagues) and that
// the JSON result files carry their format tags.
func TestRunFilesReadableByAll(t *testing.T) {
	out := t.TempDir()
	c := loadTiny(t, out)
	if _, err := Run(context.Background(), c, RunOptions{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	n := 0
	err := filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if perm := info.Mode().Perm(); perm != 0o644 {
			t.Errorf("%s: mode %o, want 644", p, perm)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Fatalf("only %d files in the run directory", n)
	}
	for file, tag := range map[string]string{"summary.json": results.SummaryFormat, "items.json": results.ItemsFormat, filepath.Join("tasks", expandIDs(c, "{refit 2 0 -1}")+".json"): results.TaskFormat} {
		if !bytes.Contains(readFile(t, filepath.Join(out, file)), []byte(`"format": "`+tag+`"`)) {
			t.Errorf("%s lacks format %q", file, tag)
		}
	}
}

package experiments

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/eval"
)

// TestNativeAccuracyTable computes the native-space accuracy of every kernel
// of the shipped aset400 and ALOI configs on the full comparison sets
// (aset400: all 9107 triplets over all 412 artists; ALOI: all taxonomy
// comparisons among the seeded 10×20 subset), docs/results.md's table
// "Native accuracy of our kernels on the full comparison sets". The
// kernels are fitted on all items: no learning happens here. Random kernels
// must score about 0.5; real ones must beat chance on the comparisons they do
// not tie (ties count as errors in the accuracy: identical genre sets, and
// artists sharing no Last.fm user, tie often). The numbers of each line
// must stand in docs/results.md.tmpl's table (the random kernels as one
// line with their range), so that none there is typed by hand.
func TestNativeAccuracyTable(t *testing.T) {
	for _, set := range []string{"aset400", "aloi10"} {
		if _, err := os.Stat(filepath.Join("..", "data", set)); err != nil {
			t.Skipf("data/%s absent: run scripts/fetch_aset400.sh and scripts/fetch_aloi.sh (or with --mirror ../shared/data)", set)
		}
	}
	doc, err := os.ReadFile(filepath.Join("..", "docs", "results.md.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	table.WriteString("| data set | kernel | comparisons | native accuracy | ties | accuracy among untied |\n|---|---|---|---|---|---|\n")
	for _, name := range []string{"aset400_kernel_groups", "aloi10_taxonomy_experiment"} {
		randomLo, randomHi, randomN := 1.0, 0.0, 0
		c, err := LoadConfig(filepath.Join("..", "configs", name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		ds, err := loadDataset(c)
		if err != nil {
			t.Fatal(err)
		}
		all := make([]int, ds.n)
		for i := range all {
			all[i] = i
		}
		cs := ds.comps
		if ds.taxonomy != nil {
			if cs, err = ds.taxonomy.Comparisons(ds.labels, all, all); err != nil {
				t.Fatal(err)
			}
		}
		for _, k := range c.Kernels {
			gram, _, _, err := buildKernelSelf(k, ds, all, nil)
			if err != nil {
				t.Fatalf("%s %s: %v", name, k.Name, err)
			}
			acc, err := eval.NativeAccuracy(gram, cs)
			if err != nil {
				t.Fatal(err)
			}
			d := eval.NativeDistance(gram)
			ties := 0
			for _, cmp := range cs {
				if d(cmp.I, cmp.J) == d(cmp.K, cmp.L) {
					ties++
				}
			}
			tieFrac := float64(ties) / float64(len(cs))
			untied := acc / (1 - tieFrac)
			fmt.Fprintf(&table, "| %s | %s (%s) | %d | %.4f | %.4f | %.4f |\n", c.Dataset.Type, k.Name, k.Type, len(cs), acc, tieFrac, untied)
			random := k.Type == "noise"
			if random {
				randomLo, randomHi, randomN = min(randomLo, acc), max(randomHi, acc), len(cs)
			} else if cells := fmt.Sprintf("| %d | %.4f | %.4f | %.4f |", len(cs), acc, tieFrac, untied); !strings.Contains(string(doc), cells) {
				t.Errorf("docs/results.md.tmpl's native table has no line ending %q (%s %s)", cells, name, k.Name)
			}
			if random && (acc < 0.45 || acc > 0.55) {
				t.Errorf("%s: a random kernel scores %.4f, want about 0.5", k.Name, acc)
			}
			if !random && untied < 0.55 {
				t.Errorf("%s: native accuracy among untied comparisons %.4f, want clearly above chance", k.Name, untied)
			}
		}
		if randomN > 0 {
			if cells := fmt.Sprintf("| %d | %.4f–%.4f | 0 | — |", randomN, randomLo, randomHi); !strings.Contains(string(doc), cells) {
				t.Errorf("docs/results.md.tmpl's native table has no random-kernel line ending %q (%s)", cells, name)
			}
		}
	}
	t.Logf("\n%s", table.String())
}

package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mkpoe/mkpoe/pkg/data"
)

// synthSpec is the quickstart's synthetic data set (configs/quickstart.yaml):
// 90 items in six classes under a two-level taxonomy, two informative views
// of different quality and three noise views (the set-up of Sec. 5.1).
func synthSpec(perClass int, seed uint64) data.SyntheticSpec {
	return data.SyntheticSpec{Branching: []int{3, 2}, PerClass: perClass, Seed: seed, Views: []data.SyntheticView{
		{Name: "clean", Dim: 4, Noise: 0.9}, {Name: "blurry", Dim: 4, Noise: 2.5},
		{Name: "noise_a", Random: true}, {Name: "noise_b", Random: true}, {Name: "noise_c", Random: true}}}
}

// runSynth implements "mkpoe synth --out DIR": it writes the quickstart's
// synthetic data set as a generic data set (docs/datasets.md) with noisy
// triplets instead of a taxonomy: items.tsv, triplets.tsv (0-based
// "i j k": i is more similar to j than to k), one feature file per view
// and SOURCE.txt with the command that made it.
func runSynth(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("synth", stderr)
	out := fs.String("out", "", "directory to write the data set to (created); required")
	seed := fs.Uint64("seed", 1, "seed of the data (views) and of the triplets")
	perClass := fs.Int("per-class", 15, "items per class (6 classes)")
	m := fs.Int("triplets", 3000, "number of distinct triplets to draw")
	flip := fs.Float64("flip", 0.1, "probability that a triplet's answer is reversed (survey noise), in [0, 0.5)")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if *out == "" {
		return usagef("--out is required")
	}
	if *perClass < 1 || *perClass > 1000 {
		return usagef("--per-class must be in [1, 1000], got %d", *perClass)
	}
	syn, err := data.GenerateSynthetic(synthSpec(*perClass, *seed))
	if err != nil {
		return badInput(err)
	}
	cs, err := syn.Triplets(*m, *flip, *seed)
	if err != nil {
		return usagef("--triplets/--flip: %v", err)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	var items strings.Builder
	items.WriteString("id\tname\n")
	count := map[int]int{}
	for i, l := range syn.Labels {
		count[l]++
		fmt.Fprintf(&items, "i%03d\tclass %d item %d\n", i, l, count[l])
	}
	write := func(name string, fn func(w io.Writer) error) error {
		f, err := os.Create(filepath.Join(*out, name))
		if err != nil {
			return err
		}
		if err := fn(f); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	if err := write("items.tsv", func(w io.Writer) error { _, err := io.WriteString(w, items.String()); return err }); err != nil {
		return err
	}
	format := data.ComparisonFormat{Arity: 3, Separator: "\t", Header: []string{"i", "j", "k"}}
	if err := write("triplets.tsv", func(w io.Writer) error { return data.WriteComparisons(w, cs, format) }); err != nil {
		return err
	}
	for v, x := range syn.Views {
		if err := data.WriteMatrixFile(filepath.Join(*out, syn.ViewNames[v]+".tsv"), x); err != nil {
			return err
		}
	}
	source := fmt.Sprintf(`Synthetic data set written by mkpoe (cmd/mkpoe/internal/cli/cmd_synth.go):

    mkpoe synth --out DIR --seed %d --per-class %d --triplets %d --flip %g

%d items in 6 classes under a two-level taxonomy (the quickstart's data set,
configs/quickstart.yaml), %d distinct triplets "i j k" (0-based item indices:
i is more similar to j than to k, by the taxonomy), each reversed with
probability %g, and the feature views %s (rows in items.tsv order).
`, *seed, *perClass, *m, *flip, len(syn.Labels), len(cs), *flip, strings.Join(syn.ViewNames, ", "))
	if err := write("SOURCE.txt", func(w io.Writer) error { _, err := io.WriteString(w, source); return err }); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d items, %d triplets and %d views to %s\n", len(syn.Labels), len(cs), len(syn.Views), *out)
	return nil
}

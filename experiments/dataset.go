package experiments

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/kernels"
)

// dataset is a loaded data set in the form the harness needs: n items, the
// data sources kernels are built from (over all n items; folds take
// subsets), and either a fixed set of comparisons or a taxonomy that
// synthesises them per split (Sec. 5.1).
type dataset struct {
	n        int
	names    []string
	labels   []int          // class labels (taxonomy data sets), else nil
	taxonomy *data.Taxonomy // non-nil: comparisons come from the taxonomy
	comps    []data.Comparison
	sources  map[string]kernels.Input
	// precomputed holds n×n kernel matrices of the generic data set, used by
	// kernels of type "precomputed" (blocks are taken per fold).
	precomputed map[string]*mat.SymDense
	// notes are what the loader left out or changed, one line each (e.g.
	// aset400's degenerate triplets); run and check print them.
	notes []string
}

func loadDataset(c *Config) (*dataset, error) {
	d := c.Dataset
	switch d.Type {
	case "synthetic":
		views := make([]data.SyntheticView, len(d.Synthetic.Views))
		for i, v := range d.Synthetic.Views {
			views[i] = data.SyntheticView{Name: v.Name, Dim: v.Dim, Noise: v.Noise, Random: v.Random}
		}
		syn, err := data.GenerateSynthetic(data.SyntheticSpec{Branching: d.Synthetic.Branching, PerClass: d.Synthetic.PerClass, Views: views, Seed: c.Seed})
		if err != nil {
			return nil, fmt.Errorf("dataset.synthetic: %w", err)
		}
		ds := &dataset{n: len(syn.Labels), labels: syn.Labels, taxonomy: syn.Taxonomy, sources: map[string]kernels.Input{}}
		for v, name := range syn.ViewNames {
			ds.sources[name] = kernels.Input{Features: syn.Views[v]}
		}
		for i, l := range syn.Labels {
			ds.names = append(ds.names, fmt.Sprintf("class%d-%d", l, i))
		}
		return ds, nil
	case "aset400":
		a, err := data.LoadAset400(d.Dir)
		if err != nil {
			return nil, err
		}
		n := len(a.Names)
		ds := &dataset{n: n, names: a.DisplayNames, comps: a.Comparisons, sources: map[string]kernels.Input{}}
		if note := data.DroppedSummary(filepath.Join(d.Dir, data.Aset400TripletsFile), a.Dropped); note != "" {
			ds.notes = append(ds.notes, note)
		}
		for i, name := range ds.names {
			if name == "" {
				ds.names[i] = a.Names[i]
			}
		}
		noGenre := make([]bool, n)
		for i := 0; i < n; i++ {
			noGenre[i] = mat.Sum(a.GenreLabels.RowView(i)) == 0
		}
		ds.sources["genre"] = kernels.Input{Features: a.GenreLabels, Missing: noGenre}
		if d.LastFMDir != "" {
			lf, err := data.LoadLastFM(d.LastFMDir)
			if err != nil {
				return nil, err
			}
			missing := make([]bool, n)
			for i, p := range lf.Present {
				missing[i] = !p
			}
			ds.sources["tags"] = kernels.Input{Counts: lf.TagCounts, Missing: missing}
			ds.sources["cf"] = kernels.Input{Sets: lf.Users, Missing: missing}
		}
		return ds, nil
	case "aloi10":
		al, err := data.LoadALOI(d.Dir)
		if err != nil {
			return nil, err
		}
		tax, err := taxonomyOf(d.Taxonomy)
		if err != nil {
			return nil, fmt.Errorf("dataset.taxonomy: %w", err)
		}
		rng := rand.New(rand.NewPCG(c.Seed, 101))
		idx, err := data.SamplePerClass(al.Labels, d.PerClass, rng)
		if err != nil {
			return nil, fmt.Errorf("dataset.per_class: %w", err)
		}
		ds := &dataset{n: len(idx), taxonomy: tax, sources: map[string]kernels.Input{}}
		for _, i := range idx {
			ds.labels = append(ds.labels, al.Labels[i])
			ds.names = append(ds.names, fmt.Sprintf("obj%d-img%d", al.Labels[i], i))
		}
		for v, x := range al.Views {
			sub := mat.NewDense(len(idx), x.RawMatrix().Cols, nil)
			for r, i := range idx {
				sub.SetRow(r, x.RawRowView(i))
			}
			ds.sources[fmt.Sprintf("view%d", v+1)] = kernels.Input{Features: sub}
		}
		return ds, nil
	case "generic":
		spec := data.Spec{Items: d.Items, Comparisons: d.Comparisons, OneBased: d.OneBased}
		keys := sortedKeys(d.Features)
		for _, k := range keys {
			spec.Features = append(spec.Features, d.Features[k])
		}
		g, err := data.LoadDataset(spec)
		if err != nil {
			return nil, err
		}
		ds := &dataset{n: len(g.IDs), names: g.Names, comps: g.Comparisons, sources: map[string]kernels.Input{}, precomputed: map[string]*mat.SymDense{}}
		for i, k := range keys {
			ds.sources[k] = kernels.Input{Features: g.Features[i]}
			if r, cols := g.Features[i].Dims(); r == cols {
				if sym, err := data.KernelFromDense(g.Features[i], d.Features[k]); err == nil {
					ds.precomputed[k] = sym
				}
			}
		}
		return ds, nil
	}
	return nil, fmt.Errorf("dataset.type: unknown %q", d.Type)
}

// taxonomyOf reads a taxonomy given inline (nested lists) or as a YAML file
// holding a "taxonomy:" key or a bare nested list (data.ReadTaxonomyFile).
func taxonomyOf(v any) (*data.Taxonomy, error) {
	if path, ok := v.(string); ok {
		return data.ReadTaxonomyFile(path)
	}
	return data.TaxonomyFromNested(v)
}

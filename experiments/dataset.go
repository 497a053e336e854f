package experiments

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/kernels"
	"github.com/mkpoe/mkpoe/pkg/mkpoe"
)

// dataset is a loaded data set in the form the harness needs: n items, the
// data sources kernels are built from (over all n items; folds take
// subsets), and either a fixed set of comparisons or a taxonomy that
// synthesises them per split (Sec. 5.1).
type dataset struct {
	n      int
	names  []string
	labels []int // class labels (taxonomy data sets), else nil
	// shownLabels are labels for display only (items.json, the map's
	// colours) of a data set whose classes take no part in the protocol:
	// aset400's main genre (data.Aset400.MainGenres). They are kept out of
	// labels, which stratify partitioned outer splits (foldOf) and make a
	// taxonomy's comparisons, so that they change no split and no fit.
	shownLabels []int
	// labelNames name the label values (labelNames[l] names label l), nil
	// if the data set has no names for them.
	labelNames []string
	// eigen keeps the kernels' eigenbases for every fit of the run
	// (mkpoe.Settings.Cache): the folds' kernels recur across β and rows.
	eigen    *mkpoe.EigenCache
	taxonomy *data.Taxonomy // non-nil: comparisons come from the taxonomy
	comps    []data.Comparison
	// given is the split of protocol outer: given (applyGiven), else nil.
	given   *givenSplit
	sources map[string]kernels.Input
	// precomputed holds n×n kernel matrices of the generic data set, used by
	// kernels of type "precomputed" (blocks are taken per fold).
	precomputed map[string]*mat.SymDense
	// notes are what the loader left out or changed, one line each (e.g.
	// aset400's degenerate triplets); run and check print them.
	notes []string
}

func loadDataset(c *Config) (*dataset, error) {
	switch c.Dataset.Type {
	case "synthetic":
		return loadSynthetic(c)
	case "aset400":
		return loadAset400(c)
	case "aloi10":
		return loadALOI10(c)
	case "planted":
		return loadPlanted(c)
	case "generic":
		return loadGeneric(c)
	}
	return nil, fmt.Errorf("dataset.type: unknown %q", c.Dataset.Type)
}

// loadSynthetic generates the seeded synthetic data set of dataset.synthetic (the paper's Sec. 5.1 set-up).
func loadSynthetic(c *Config) (*dataset, error) {
	d := c.Dataset
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
}

// loadAset400 loads aset400 and, with dataset.lastfm_dir, its Last.fm HetRec sources (tags, cf, listens).
func loadAset400(c *Config) (*dataset, error) {
	d := c.Dataset
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
	ds.shownLabels, ds.labelNames = a.MainGenres()
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
		// The listening counts behind cf's user sets (user → plays), for
		// a CF kernel that weighs users by how much they listen.
		ds.sources["listens"] = kernels.Input{Counts: lf.Listens, Missing: missing}
	}
	return ds, nil
}

// loadALOI10 loads ALOI-10, draws its seeded per-class subset and builds or reads its taxonomy.
func loadALOI10(c *Config) (*dataset, error) {
	d := c.Dataset
	al, err := data.LoadALOI(d.Dir)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(c.Seed, 101))
	idx, err := data.SamplePerClass(al.Labels, d.PerClass, rng)
	if err != nil {
		return nil, fmt.Errorf("dataset.per_class: %w", err)
	}
	ds := &dataset{n: len(idx), sources: map[string]kernels.Input{}}
	if spec, ok, err := parseTaxonomySpec(d.Taxonomy); err != nil {
		return nil, err
	} else if ok {
		if ds.taxonomy, err = clusterTaxonomy(spec, al, idx, d.PerClass, &ds.notes); err != nil {
			return nil, err
		}
	} else if ds.taxonomy, err = taxonomyOf(d.Taxonomy); err != nil {
		return nil, fmt.Errorf("dataset.taxonomy: %w", err)
	}
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
}

// loadPlanted generates the planted-embedding triplet set of dataset.planted.
func loadPlanted(c *Config) (*dataset, error) {
	d := c.Dataset
	pl := d.Planted
	g, err := data.GeneratePlanted(data.PlantedSpec{N: pl.N, Dim: pl.Dim, Triplets: pl.Triplets, Flip: pl.Flip, Seed: c.Seed})
	if err != nil {
		return nil, fmt.Errorf("dataset.planted: %w", err)
	}
	ds := &dataset{n: pl.N, comps: g.Triplets, sources: map[string]kernels.Input{"points": {Features: g.Points}}}
	for i := 0; i < pl.N; i++ {
		ds.names = append(ds.names, fmt.Sprintf("p%05d", i))
	}
	return ds, nil
}

// loadGeneric loads a data set of the generic format (items, comparisons, features or precomputed kernels).
func loadGeneric(c *Config) (*dataset, error) {
	d := c.Dataset
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

// taxonomyOf reads a taxonomy given inline (nested lists) or as a YAML file
// holding a "taxonomy:" key or a bare nested list (data.ReadTaxonomyFile).
// taxonomySpec is dataset.taxonomy given as a mapping: the taxonomy is
// clustered from the images' features (data.ClassTaxonomy, docs/datasets.md
// "ALOI taxonomy") rather than listed.
type taxonomySpec struct {
	// Cluster names the images clustered: unusedImages (those the
	// per_class draw left out, so that no image of the experiment shapes
	// the tree its comparisons come from) or allImages (every image, items
	// included: the tree as first built).
	Cluster string
	// Levels are the cluster counts the dendrogram is cut into, increasing.
	Levels []int
	// Views are the feature views clustered (0-based: view1 is 0), all of
	// them when the config gives none. Leaving out the views a row learns
	// on gives a ground truth that its kernel did not shape (the taxonomy
	// control configs).
	Views []int
}

const (
	aloiViews    = 4 // ALOI-10's feature views, view1 … view4
	unusedImages = "unused_images"
	allImages    = "all_images"
)

// parseTaxonomySpec reads dataset.taxonomy as a taxonomySpec; ok is false
// when it is not a mapping (a file or a nested list).
func parseTaxonomySpec(v any) (spec taxonomySpec, ok bool, err error) {
	m, ok := v.(map[string]any)
	if !ok {
		return spec, false, nil
	}
	for _, k := range sortedKeys(m) {
		switch k {
		case "cluster":
			s, isString := m[k].(string)
			if !isString || (s != unusedImages && s != allImages) {
				return spec, true, fmt.Errorf("dataset.taxonomy.cluster: must be %s (the images the per_class draw left out) or %s, got %v", unusedImages, allImages, m[k])
			}
			spec.Cluster = s
		case "levels":
			list, isList := m[k].([]any)
			if !isList || len(list) == 0 {
				return spec, true, fmt.Errorf("dataset.taxonomy.levels: must be a list of increasing cluster counts such as [3, 5, 7], got %v", m[k])
			}
			for i, e := range list {
				n, isInt := e.(int)
				if f, isFloat := e.(float64); isFloat && f == math.Trunc(f) && math.Abs(f) < 1<<31 {
					n, isInt = int(f), true // 5.0 as LoadConfig's shape check reads it (yamlnum)
				}
				if !isInt || n < 2 || (i > 0 && n <= spec.Levels[i-1]) {
					return spec, true, fmt.Errorf("dataset.taxonomy.levels[%d]: must be an integer ≥ 2 and above the level before, got %v", i, e)
				}
				spec.Levels = append(spec.Levels, n)
			}
		case "views":
			list, isList := m[k].([]any)
			if !isList || len(list) == 0 {
				return spec, true, fmt.Errorf("dataset.taxonomy.views: must be a list of feature views such as [view1, view2], got %v", m[k])
			}
			for i, e := range list {
				name, _ := e.(string)
				v, err := strconv.Atoi(strings.TrimPrefix(name, "view"))
				if !strings.HasPrefix(name, "view") || err != nil || v < 1 || v > aloiViews || slices.Contains(spec.Views, v-1) {
					return spec, true, fmt.Errorf("dataset.taxonomy.views[%d]: must be one of view1 … view%d, each once, got %v", i, aloiViews, e)
				}
				spec.Views = append(spec.Views, v-1)
			}
		default:
			return spec, true, fmt.Errorf("dataset.taxonomy.%s: unknown key (a clustered taxonomy has cluster, levels and optionally views)", k)
		}
	}
	if spec.Cluster == "" || spec.Levels == nil {
		return spec, true, fmt.Errorf("dataset.taxonomy: a clustered taxonomy needs both cluster (%s or %s) and levels, got %v", unusedImages, allImages, v)
	}
	return spec, true, nil
}

// clusterTaxonomy builds the taxonomy of spec from the ALOI images (idx:
// the items drawn) and adds a note saying which images made it and the
// tree.
func clusterTaxonomy(spec taxonomySpec, al *data.ALOI, idx []int, perClass int, notes *[]string) (*data.Taxonomy, error) {
	used := make([]bool, len(al.Labels))
	for _, i := range idx {
		used[i] = true
	}
	var rows []int
	for i := range al.Labels {
		if spec.Cluster == allImages || !used[i] {
			rows = append(rows, i)
		}
	}
	views, from := al.Views, spec.Cluster
	if spec.Views != nil {
		views, from = nil, from+"; views"
		for _, v := range spec.Views {
			views = append(views, al.Views[v])
			from += fmt.Sprintf(" view%d", v+1)
		}
	}
	tax, merges, classes, err := data.ClassTaxonomy(views, al.Labels, rows, spec.Levels)
	if err != nil {
		return nil, fmt.Errorf("dataset.taxonomy: %w", err)
	}
	for _, i := range idx {
		if !slices.Contains(classes, al.Labels[i]) {
			return nil, fmt.Errorf("dataset.taxonomy.cluster: %s leaves no image of class %d to cluster (per_class %d takes them all)", spec.Cluster, al.Labels[i], perClass)
		}
	}
	*notes = append(*notes, fmt.Sprintf("taxonomy %v clustered from %d images (%s), dendrogram %s", tax, len(rows), from, data.DendrogramString(merges, classes)))
	return tax, nil
}

func taxonomyOf(v any) (*data.Taxonomy, error) {
	if path, ok := v.(string); ok {
		return data.ReadTaxonomyFile(path)
	}
	return data.TaxonomyFromNested(v)
}

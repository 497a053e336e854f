package experiments

import (
	"slices"
	"strings"

	"github.com/mkpoe/mkpoe/pkg/constraint"
	"github.com/mkpoe/mkpoe/pkg/kernels"
	"github.com/mkpoe/mkpoe/pkg/mkpoe"
)

// The config's enumerations, each a word from a fixed list, are read case
// aside (as row labels and item names are): canonicalEnums rewrites each
// into its list's spelling, through the function that decides it, before
// anything is derived from it (labels, task ids, the hash, the rules):
//
//	dataset.type                  synthetic, planted, aset400, aloi10, generic
//	dataset.taxonomy.cluster      unused_images, all_images (parseTaxonomySpec)
//	dataset.taxonomy.views[i]     view1 … view4 (parseTaxonomySpec)
//	kernels[i].type               kernels.Types() or precomputed (kernels.Describe)
//	kernels[i].normalize          none, diag, trace, center (kernels.ParseNormalization)
//	constraints.train[i], .test[i], rows[i].train_steps[j]
//	                              constraint.Steps (constraint.ParseSteps)
//	protocol.holdout              items, comparisons
//	protocol.outer                random, partition, given
//	solver.method                 accelerated, lowrank, alm, auto, subgradient (mkpoe.ParseSolver)
//	rows[i].method                native, k1, k4
//	rows[i].mode                  full, diag; diagonal is diag (mkpoe.ParseMode)
//
// A word that is in no list is left as written, for the rules to report.
// Names the config gives (kernels, groups, sources, labels) are not enums:
// they are matched as the data set or the config spells them.
func (c *Config) canonicalEnums() {
	d := &c.Dataset
	d.Type = oneOf(d.Type, datasetTypes...)
	canonicalTaxonomySpec(d.Taxonomy)
	for i := range c.Kernels {
		k := &c.Kernels[i]
		k.Type = oneOf(k.Type, append(kernels.Types(), kernelPrecomputed)...)
		if z, err := kernels.ParseNormalization(k.Normalize); err == nil && k.Normalize != "" {
			k.Normalize = z.String()
		}
	}
	canonicalSteps(c.Constraints.Train)
	canonicalSteps(c.Constraints.Test)
	c.Protocol.Holdout = oneOf(c.Protocol.Holdout, holdoutItems, holdoutComparisons)
	c.Protocol.Outer = oneOf(c.Protocol.Outer, outerRandom, outerPartition, outerGiven)
	if m, err := mkpoe.ParseSolver(c.Solver.Method); err == nil && c.Solver.Method != "" {
		c.Solver.Method = string(m)
	}
	for i := range c.Rows {
		r := &c.Rows[i]
		r.Method = oneOf(r.Method, rowMethods...) // K1, K4 as the paper writes them
		// diagonal becomes diag before labels, task ids and table columns
		// are derived from the mode.
		if m, err := mkpoe.ParseMode(r.Mode); err == nil && r.Mode != "" {
			r.Mode = m.String()
		}
		if r.TrainSteps != nil {
			canonicalSteps(*r.TrainSteps)
		}
	}
}

// datasetTypes are the values of dataset.type; rowMethods of rows[i].method.
var (
	datasetTypes = []string{"synthetic", "planted", "aset400", "aloi10", "generic"}
	rowMethods   = []string{"native", "k1", "k4"}
)

// kernelPrecomputed is the kernel type of a generic data set's n×n kernel files.
const kernelPrecomputed = "precomputed"

// oneOf returns the word of words that equals s case aside, else s.
func oneOf(s string, words ...string) string {
	if i := slices.IndexFunc(words, func(w string) bool { return strings.EqualFold(w, s) }); i >= 0 {
		return words[i]
	}
	return s
}

// canonicalSteps spells each known constraint step as constraint.Steps does.
func canonicalSteps(steps []string) {
	for i, s := range steps {
		if ok, err := constraint.ParseSteps(s); err == nil && len(ok) == 1 {
			steps[i] = ok[0]
		}
	}
}

// canonicalTaxonomySpec spells the cluster and views of a clustered
// taxonomy (a mapping) as parseTaxonomySpec reads them.
func canonicalTaxonomySpec(v any) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	if s, ok := m["cluster"].(string); ok {
		m["cluster"] = oneOf(s, unusedImages, allImages)
	}
	if views, ok := m["views"].([]any); ok {
		for i, e := range views {
			if s, ok := e.(string); ok {
				views[i] = strings.ToLower(s)
			}
		}
	}
}

package experiments

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mkpoe/mkpoe/internal/errkind"
	"github.com/mkpoe/mkpoe/pkg/constraint"
	"github.com/mkpoe/mkpoe/pkg/cv"
	"github.com/mkpoe/mkpoe/pkg/kernels"
	"github.com/mkpoe/mkpoe/pkg/mkpoe"
)

// Config declares one experiment: a data set, its kernels, the protocol of
// the paper's experiments (Sec. 5.1, 5.2.2: outer train/test splits of items,
// inner k-fold cross-validation over a β grid), and the rows of the table.
// Decode with [LoadConfig]; every field's zero value means the documented
// default filled in by [Config.applyDefaults].
type Config struct {
	Name        string `yaml:"name"`        // experiment name (default: config file name)
	Description string `yaml:"description"` // free text for reports
	Seed        uint64 `yaml:"seed"`        // every random choice derives from it
	// Output is the run directory. Written in a config file, a relative
	// path is relative to the file's folder, like every path there;
	// unset, it is results/<name> in the working directory; --out (a
	// command-line path) is relative to the working directory.
	Output string `yaml:"output"`
	// configDir is the folder of the config file, against which dataset
	// paths were resolved (LoadConfig); "" for a config built in code.
	configDir string
	// unread are the YAML paths LoadConfig could not read (shapeProblems:
	// a value of the wrong kind, or a misspelt key and the key it was
	// meant to be). The rules skip them, and the rules that depend on one
	// of them (unreadAt): their zero value is not what the file says.
	unread map[string]bool
	// givenDigest is the SHA-256 of protocol.test_comparisons' contents
	// (outer: given), read by Validate: part of every task's inputs, so
	// that editing the file reruns the tasks and moving it does not.
	givenDigest string
	Dataset     DatasetConfig `yaml:"dataset"`
	// Kernels are built per fold from training items only (no leakage).
	Kernels     []KernelConfig    `yaml:"kernels"`
	Groups      []GroupConfig     `yaml:"groups"`
	Constraints ConstraintsConfig `yaml:"constraints"`
	Protocol    ProtocolConfig    `yaml:"protocol"`
	BetaGrid    BetaGrid          `yaml:"beta_grid"`
	Solver      SolverConfig      `yaml:"solver"`
	Rows        []RowConfig       `yaml:"rows"`
	// Claims are comparisons of two rows that the text makes (e.g. "MKPOE
	// beats the sum kernel"): the summary gives each the paired difference
	// of their test accuracies with a bootstrap interval (pkg/stats).
	Claims []ClaimConfig `yaml:"claims"`
}

// ClaimConfig is one claim: row Better is more accurate than row Worse on
// the same held-out comparisons.
type ClaimConfig struct {
	Claim  string `yaml:"claim"`  // the claim in words
	Better string `yaml:"better"` // label of the row claimed better
	Worse  string `yaml:"worse"`  // label of the row claimed worse
	Paper  string `yaml:"paper"`  // where the paper makes it, e.g. "Table 3"
}

// DatasetConfig selects a loader of pkg/data and its options.
type DatasetConfig struct {
	// Type is synthetic (embedded, no files), planted (generated points
	// and triplets, no files), aset400, aloi10 or generic.
	Type string `yaml:"type"`
	// Dir is the data folder (aset400, aloi10), relative to the config file.
	Dir string `yaml:"dir"`
	// LastFMDir is the Last.fm HetRec 2011 folder for aset400's tags and cf sources.
	LastFMDir string `yaml:"lastfm_dir"`
	// PerClass is the number of images per class drawn (seeded) for aloi10 (default 20, Sec. 5.1).
	PerClass int `yaml:"per_class"`
	// Taxonomy is a nested list of class labels (aloi10, synthetic), a .yaml
	// file holding one, or (aloi10) a mapping {cluster: unused_images,
	// levels: [3, 5, 7]} that clusters it from images the experiment does
	// not use (taxonomySpec): comparisons come from it (Sec. 5.1).
	Taxonomy any `yaml:"taxonomy"`
	// Synthetic configures the embedded synthetic data set.
	Synthetic SyntheticConfig `yaml:"synthetic"`
	// Planted configures a planted-embedding data set (the scale
	// benchmarks; data.GeneratePlanted). A pointer, omitted when absent, so
	// that the hashes of configs without it do not change.
	Planted *PlantedConfig `yaml:"planted,omitempty"`
	// Generic: items file, comparisons file, named feature or kernel files.
	Items       string            `yaml:"items"`
	Comparisons string            `yaml:"comparisons"`
	OneBased    bool              `yaml:"one_based"`
	Features    map[string]string `yaml:"features"`
}

// KernelConfig names one kernel: a source of the data set and a kernel type
// of pkg/kernels with its parameters and normalisation.
type KernelConfig struct {
	Name      string             `yaml:"name"`
	Source    string             `yaml:"source"`    // data source (see docs/configs.md per data set)
	Type      string             `yaml:"type"`      // linear, rbf, chi2, tfidf, cf, ppk, identity, noise
	Params    map[string]float64 `yaml:"params"`    // kernel parameters (pkg/kernels)
	Normalize string             `yaml:"normalize"` // none (default), diag, trace, center
	// Standardize scales each feature column to zero mean and unit variance
	// with the training items' statistics (per fold) before the kernel.
	Standardize bool `yaml:"standardize"`
}

// GroupConfig is a named set of kernels (e.g. acoustic = MFCC + AT, paper Table 4).
type GroupConfig struct {
	Name    string   `yaml:"name"`
	Kernels []string `yaml:"kernels"`
}

// ConstraintsConfig lists pkg/constraint steps for the training comparisons
// and for pruning the test comparisons (Sec. 5.2.2, 5.2.4).
type ConstraintsConfig struct {
	Train []string `yaml:"train"`
	Test  []string `yaml:"test"`
}

// ProtocolConfig is the outer and inner cross-validation protocol.
type ProtocolConfig struct {
	// Holdout is what the splits and folds hold out: "items" (default, the
	// paper's protocol: held-out items are embedded by the out-of-sample
	// extension and scored through comparisons anchored at them, Sec. 5)
	// or "comparisons" (every item trains; a fraction of the comparisons
	// is held out and scored in the learned embedding). GNMDS (an identity
	// kernel) has no out-of-sample extension and needs "comparisons";
	// taxonomy data sets derive their comparisons from the split items and
	// need "items" (cv.HoldOut).
	Holdout string `yaml:"holdout"`
	// Outer is how the outer splits are drawn: "random" (default:
	// independent seeded permutations, an item may be tested in several
	// splits or none), "partition" (the splits are the folds of one
	// seeded partition, every item tested exactly once, stratified by class
	// when the data set has classes: the "partitioned into five 80/20
	// splits" of Sec. 5.1); test_fraction must then be 1/splits) or
	// "given" (one split whose test set is the file TestComparisons, e.g.
	// a data set's published test triplets: docs/configs.md, "A given
	// test set"; holdout then defaults to comparisons).
	Outer string `yaml:"outer"`
	// TestComparisons is the given test set of outer: given, a
	// comparisons file (pkg/data.ReadComparisons) relative to the config
	// file, numbered as the data set's comparisons (dataset.one_based for
	// generic data sets, 1-based for aset400, 0-based for planted).
	TestComparisons string `yaml:"test_comparisons,omitempty"`
	// Splits is the number of outer train/test splits of the items (default
	// 1: a single fixed split, aset400's 330/82; the taxonomy experiment uses 5).
	Splits int `yaml:"splits"`
	// TestFraction is the fraction of items held out per split (default 0.2).
	TestFraction float64 `yaml:"test_fraction"`
	// InnerFolds is the number of inner CV folds over the training items
	// used to choose β (default 5; the paper uses 5 and 10).
	InnerFolds int `yaml:"inner_folds"`
	// MaxTrainComparisons and MaxTestComparisons, if positive, subsample
	// (seeded) the comparisons of each fit and each evaluation.
	MaxTrainComparisons int `yaml:"max_train_comparisons"`
	MaxTestComparisons  int `yaml:"max_test_comparisons"`
}

// SolverConfig are mkpoe.Settings shared by every fit.
type SolverConfig struct {
	Method  string  `yaml:"method"`   // auto (default), accelerated, lowrank, alm or subgradient
	Tol     float64 `yaml:"tol"`      // default 1e-3
	MaxIter int     `yaml:"max_iter"` // default: solver's
	// KernelRank and KernelEnergy, if set, truncate every kernel of the
	// full-W rows (k1 and k4 with mode full) to its leading eigenpairs:
	// at most KernelRank of them, and only as many as hold KernelEnergy
	// of the positive eigenvalues' sum (mkpoe.Settings.KernelRank and
	// KernelEnergy). Native and diagonal rows are not affected. The
	// fraction each fit kept is recorded in its task file.
	KernelRank   int     `yaml:"kernel_rank,omitempty"`
	KernelEnergy float64 `yaml:"kernel_energy,omitempty"`
}

// RowConfig is one row of the table.
type RowConfig struct {
	// Label is shown in the table. The default is the kernel or group,
	// the method and the mode: "clean native", "all K4 diag".
	Label string `yaml:"label"`
	// Method is native (the kernel's own space, or the unweighted sum of a
	// group), k1 (KPOE on one kernel, or on the sum kernel of a group,
	// Sec. 4.1) or k4 (MKPOE over a group, Alg. 4).
	Method string `yaml:"method"`
	Kernel string `yaml:"kernel"` // one kernel (native, k1)
	Group  string `yaml:"group"`  // a group (native sum, k1 on the sum, k4)
	Mode   string `yaml:"mode"`   // full or diag (k1, k4)
	// TrainSteps, if set, replaces constraints.train for this row (the
	// graph-processing levels of the paper's Table 5); an empty list means no processing.
	TrainSteps *[]string `yaml:"train_steps"`
	// Paper is the paper's reported accuracy for this row, shown beside ours.
	Paper *float64 `yaml:"paper"`
	// TableRow names the row of the paper-style table this result goes to
	// (its column is the method and mode); by default the kernel or group.
	// Rows that share a kernel and a column need distinct table rows (the
	// graph-processing experiment names them after their constraint sets).
	TableRow string `yaml:"table_row,omitempty"`
	// Rank, if positive, bounds the rank of a full W (an embedding of at
	// most Rank dimensions per kernel): the row's fits use the low-rank
	// method at that many columns (mkpoe.Settings.Rank); 0 is the convex
	// fit. A list of ranks (rank: [0, 2, 5, 10]) lets the inner CV choose
	// the rank with β (Ranks).
	Rank Ranks `yaml:"rank,omitempty"`
}

// tableRow returns the table row of r: TableRow, else its kernel or group.
func (r RowConfig) tableRow() string {
	switch {
	case r.TableRow != "":
		return r.TableRow
	case r.Kernel != "":
		return r.Kernel
	}
	return r.Group
}

// LoadConfig reads a YAML config strictly (unknown keys are errors), fills
// in defaults and validates it, reporting every problem with its YAML path.
// Relative paths written in it (the dataset section, output) are resolved
// against the config file's directory.
func LoadConfig(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	if len(b) > maxConfigBytes {
		return nil, fmt.Errorf("config %s: a config file must be at most %d MB, got %.1f MB (data belong in the files the dataset section names)", path, maxConfigBytes>>20, float64(len(b))/(1<<20))
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("parsing YAML file %s: %w", path, err)
	}
	if e := identifyFile(&doc, path, b); e != nil {
		return nil, e // another of mkpoe's files: say which, not each key a config lacks
	}
	// Unknown keys and values of the wrong kind first, every one of them
	// (shapeProblems), then the rules on what could be read.
	var ps problems
	reported := map[string]bool{}
	at := nodePositions(&doc)
	shapeProblems(&doc, reflect.TypeOf(Config{}), &ps, reported)
	if reported[""] {
		return nil, fmt.Errorf("config %s:\n%w", path, errors.Join(ps...))
	}
	var c Config
	if len(ps) == 0 {
		dec := yaml.NewDecoder(bytes.NewReader(b))
		dec.KnownFields(true)
		if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("parsing YAML file %s: %w", path, err)
		}
	} else {
		_ = doc.Decode(&c) // what can be read; shapeProblems said what cannot
	}
	if c.Name == "" {
		c.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	c.resolvePaths(filepath.Dir(path))
	c.applyDefaults()
	c.unread = reported
	var rules problems
	c.validate(&rules)
	ps = append(ps, at.locate(rules)...)
	if len(ps) > 0 {
		return nil, fmt.Errorf("config %s:\n%w", path, errors.Join(ps...))
	}
	return &c, nil
}

func (c *Config) resolvePaths(dir string) {
	// Absolute, whichever way the config's path was spelled; the config
	// hash and the task digests take them relative to the repository
	// that holds them (portablePath).
	if a, err := filepath.Abs(dir); err == nil {
		dir = a
	}
	abs := func(p string) string {
		switch {
		case p == "":
			return p
		case filepath.IsAbs(p):
			return filepath.Clean(p)
		}
		return filepath.Join(dir, p)
	}
	c.configDir = dir
	c.Output = abs(c.Output)
	c.Protocol.TestComparisons = abs(c.Protocol.TestComparisons)
	d := &c.Dataset
	d.Dir, d.LastFMDir, d.Items, d.Comparisons = abs(d.Dir), abs(d.LastFMDir), abs(d.Items), abs(d.Comparisons)
	for k, v := range d.Features {
		d.Features[k] = abs(v)
	}
	if s, ok := d.Taxonomy.(string); ok && strings.HasSuffix(s, ".yaml") {
		d.Taxonomy = abs(s)
	}
}

func (c *Config) applyDefaults() {
	c.canonicalEnums()
	if c.Output == "" {
		c.Output = filepath.Join("results", c.Name)
	}
	if c.Protocol.Outer == "" {
		c.Protocol.Outer = outerRandom
	}
	if c.Protocol.Holdout == "" {
		c.Protocol.Holdout = holdoutItems
		if c.Protocol.Outer == outerGiven {
			c.Protocol.Holdout = holdoutComparisons
		}
	}
	if c.Protocol.Splits == 0 {
		c.Protocol.Splits = 1
	}
	if c.Protocol.TestFraction == 0 && c.Protocol.Outer != outerGiven {
		c.Protocol.TestFraction = 0.2 // a given test set has no fraction: it stays 0
	}
	if c.Protocol.InnerFolds == 0 {
		c.Protocol.InnerFolds = 5
	}
	if c.Dataset.Type == "aloi10" && c.Dataset.PerClass == 0 {
		c.Dataset.PerClass = 20
	}
	if c.Solver.Method == "" {
		c.Solver.Method = string(mkpoe.DefaultSolver)
	}
	if c.Solver.Tol == 0 {
		c.Solver.Tol = mkpoe.DefaultTol
	}
	for i := range c.Kernels {
		if c.Kernels[i].Normalize == "" {
			c.Kernels[i].Normalize = "none"
		}
	}
	defer c.canonicalClaimLabels()
	for i := range c.Rows {
		r := &c.Rows[i]
		if r.Label == "" {
			what := r.Kernel
			if what == "" {
				what = r.Group
			}
			r.Label = strings.TrimSpace(fmt.Sprintf("%s %s %s", what, methodName(r.Method), r.Mode))
			r.Label += r.Rank.labelSuffix()
		}
	}
}

// methodName is a method as labels write it: "native", and "K1", "K4" as
// the paper writes them ("clean native", "all K4 diag").
func methodName(method string) string {
	if method == "native" {
		return method
	}
	return strings.ToUpper(method)
}

// canonicalClaimLabels spells each claim's rows as the rows' labels are
// spelt (labels match case aside).
func (c *Config) canonicalClaimLabels() {
	for i := range c.Claims {
		cl := &c.Claims[i]
		for _, r := range c.Rows {
			if strings.EqualFold(cl.Better, r.Label) {
				cl.Better = r.Label
			}
			if strings.EqualFold(cl.Worse, r.Label) {
				cl.Worse = r.Label
			}
		}
	}
}

// Validate checks every field and returns all problems at once, each naming
// its YAML path, the rule and the value (errors.Join). The sections are
// checked in the order of the file: data set, kernels, groups, constraint
// steps, protocol, β grid, solver, rows, claims.
func (c *Config) Validate() error {
	var ps problems
	c.validate(&ps)
	return errors.Join(ps...)
}

// validate adds every rule's problems to ps, except those of a YAML path
// in c.unread or below one (LoadConfig's shape problems, already reported).
func (c *Config) validate(out *problems) {
	var ps problems
	c.validateDataset(&ps)
	kernelNames := c.validateKernels(&ps)
	groupNames := c.validateGroups(&ps, kernelNames)
	c.validateConstraints(&ps)
	c.validateProtocol(&ps)
	c.validateBetaGrid(&ps)
	c.validateSolver(&ps)
	if labels, ok := c.validateRows(&ps, kernelNames, groupNames); ok && !c.unreadAt("rows") {
		c.validateClaims(&ps, labels) // the labels derive from every key of a row
	}
	for _, p := range ps {
		if !underReported(p.Error(), c.unread) {
			*out = append(*out, p)
		}
	}
}

// underReported reports whether a problem "path: …" concerns a path in
// skip or below one.
func underReported(msg string, skip map[string]bool) bool {
	for path := range skip {
		if path == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(msg, path); ok && (strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, ".") || strings.HasPrefix(rest, "[")) {
			return true
		}
	}
	return false
}

// unreadAt reports whether LoadConfig could not read a value at one of
// the paths: at it, above it or below it. A "[*]" in a path matches any
// index ("kernels[*].name": the name of any kernel). A rule that reads
// values of other paths than its own asks, so that a value that could not
// be read (and was reported) does not spawn a second, false problem.
func (c *Config) unreadAt(paths ...string) bool {
	for u := range c.unread {
		for _, p := range paths {
			if pathsMeet(pathSteps(u), pathSteps(p)) {
				return true
			}
		}
	}
	return false
}

// pathSteps splits a YAML path into its keys and indices:
// "rows[2].mode" is rows, [2], mode.
func pathSteps(path string) []string {
	var out []string
	for _, key := range strings.Split(path, ".") {
		for {
			i := strings.IndexByte(key, '[')
			if i < 0 {
				break
			}
			if i > 0 {
				out = append(out, key[:i])
			}
			j := strings.IndexByte(key[i:], ']')
			if j < 0 {
				break
			}
			out, key = append(out, key[i:i+j+1]), key[i+j+1:]
		}
		if key != "" {
			out = append(out, key)
		}
	}
	return out
}

// pathsMeet reports whether one of two split paths lies on the other (equal
// up to the shorter's length), "[*]" matching any index.
func pathsMeet(a, b []string) bool {
	for i := range min(len(a), len(b)) {
		star := (a[i] == "[*]" && strings.HasPrefix(b[i], "[")) || (b[i] == "[*]" && strings.HasPrefix(a[i], "["))
		if a[i] != b[i] && !star {
			return false
		}
	}
	return true
}

// problems collects the errors of Validate.
type problems []error

// bad adds the problem "path: rule, got value".
func (ps *problems) bad(path, rule string, value any) {
	*ps = append(*ps, fmt.Errorf("%s: %s, got %v", path, rule, value))
}

// kernelTypeHint is " (did you mean T?)" for a misspelt kernel type, or
// for a word of a type's description (cosine: cf and tfidf), else "".
func kernelTypeHint(typ string) string {
	var near []string
	for _, t := range kernels.Types() {
		summary, _, _ := kernels.Describe(t)
		if editDistance(strings.ToLower(typ), t) <= max(1, len(t)/3) || (len(typ) >= 3 && strings.Contains(strings.ToLower(summary), strings.ToLower(typ))) {
			near = append(near, t)
		}
	}
	if len(near) == 0 {
		return ""
	}
	return " (did you mean " + strings.Join(near, " or ") + "?)"
}

// validateDataset checks dataset: a known type and the fields it needs.
func (c *Config) validateDataset(ps *problems) {
	d := c.Dataset
	switch d.Type {
	case "synthetic":
	case "aset400":
		if d.Dir == "" {
			ps.bad("dataset.dir", "must name the aset400 folder", `""`)
		}
	case "aloi10":
		if d.Dir == "" {
			ps.bad("dataset.dir", "must name the aloi10 folder", `""`)
		}
		if d.Taxonomy == nil {
			ps.bad("dataset.taxonomy", "must be a nested list of class labels, a .yaml file holding one, or {cluster: unused_images, levels: [3, 5, 7]}", "nothing")
		} else if _, _, err := parseTaxonomySpec(d.Taxonomy); err != nil {
			*ps = append(*ps, err)
		}
		if d.PerClass < 1 {
			ps.bad("dataset.per_class", "must be >= 1", d.PerClass)
		}
	case "planted":
		c.validatePlanted(ps)
	case "generic":
		if d.Items == "" || d.Comparisons == "" {
			ps.bad("dataset", "generic data sets need items and comparisons files", fmt.Sprintf("items=%q comparisons=%q", d.Items, d.Comparisons))
		}
	default:
		ps.bad("dataset.type", "must be synthetic, planted, aset400, aloi10 or generic", fmt.Sprintf("%q", d.Type))
	}
}

// validateKernels checks kernels and returns the set of their names.
func (c *Config) validateKernels(ps *problems) map[string]bool {
	names := map[string]bool{}
	for i, k := range c.Kernels {
		at := fmt.Sprintf("kernels[%d]", i)
		if k.Name == "" {
			ps.bad(at+".name", "must be set", `""`)
		} else if names[k.Name] {
			ps.bad(at+".name", "must be unique", fmt.Sprintf("%q again", k.Name))
		}
		names[k.Name] = true
		if k.Source == "" && k.Type != "identity" && k.Type != "noise" {
			ps.bad(at+".source", "must name a data source of the data set", `""`)
		}
		if k.Type == "precomputed" {
			if c.Dataset.Type != "generic" && !c.unreadAt("dataset.type") {
				ps.bad(at+".type", "precomputed kernels need a generic data set (the source is an n×n kernel file)", fmt.Sprintf("%q", k.Type))
			}
		} else if _, _, known := kernels.Describe(k.Type); !known {
			ps.bad(at+".type", "must be one of "+strings.Join(kernels.Types(), ", ")+" or precomputed (docs/configs.md, \"Kernel types\")"+kernelTypeHint(k.Type), fmt.Sprintf("%q", k.Type))
		} else if _, err := kernels.New(k.Type, k.Params); err != nil {
			*ps = append(*ps, fmt.Errorf("%s.params: %s", at, strings.TrimPrefix(err.Error(), "kernels: ")))
		}
		if _, err := kernels.ParseNormalization(k.Normalize); err != nil {
			ps.bad(at+".normalize", "must be none, diag, trace or center", fmt.Sprintf("%q", k.Normalize))
		} else if k.Type == "precomputed" && k.Normalize != "none" {
			ps.bad(at+".normalize", "must be none for a precomputed kernel (the file is used as it is: normalise it before)", fmt.Sprintf("%q", k.Normalize))
		}
	}
	if len(c.Kernels) == 0 {
		ps.bad("kernels", "must list at least one kernel", "none")
	}
	return names
}

// validateGroups checks groups against the kernel names and returns the
// set of group names.
func (c *Config) validateGroups(ps *problems, kernelNames map[string]bool) map[string]bool {
	groups := map[string]bool{}
	for i, g := range c.Groups {
		at := fmt.Sprintf("groups[%d]", i)
		if g.Name == "" || groups[g.Name] || kernelNames[g.Name] {
			ps.bad(at+".name", "must be set and unique among kernels and groups", fmt.Sprintf("%q", g.Name))
		}
		groups[g.Name] = true
		if len(g.Kernels) == 0 {
			ps.bad(at+".kernels", "must list at least one kernel", "none")
		}
		for j, k := range g.Kernels {
			if !kernelNames[k] && !c.unreadAt("kernels[*].name") {
				ps.bad(fmt.Sprintf("%s.kernels[%d]", at, j), "must name a kernel", fmt.Sprintf("%q", k))
			}
		}
	}
	return groups
}

// validateConstraints checks the step names of constraints.train and
// constraints.test.
func (c *Config) validateConstraints(ps *problems) {
	validateSteps(ps, "constraints.train", c.Constraints.Train)
	validateSteps(ps, "constraints.test", c.Constraints.Test)
}

// validateSteps checks that each step of the list at path names a step of
// pkg/constraint.
func validateSteps(ps *problems, path string, steps []string) {
	for i, s := range steps {
		if !validStep(s) {
			ps.bad(fmt.Sprintf("%s[%d]", path, i), "must be one of "+strings.Join(constraint.Steps, ", "), fmt.Sprintf("%q", s))
		}
	}
}

// validateProtocol checks protocol: the kind of hold-out and outer
// splits, their numbers and sizes, the bounds on the size of the plan
// (which include the length of beta_grid) and the subsampling.
func (c *Config) validateProtocol(ps *problems) {
	p := c.Protocol
	if p.Holdout != holdoutItems && p.Holdout != holdoutComparisons {
		ps.bad("protocol.holdout", "must be items or comparisons", fmt.Sprintf("%q", p.Holdout))
	}
	if p.Outer != outerRandom && p.Outer != outerPartition && p.Outer != outerGiven {
		ps.bad("protocol.outer", "must be random, partition or given", fmt.Sprintf("%q", p.Outer))
	}
	if p.Outer == outerGiven {
		c.validateGiven(ps)
	} else if p.TestComparisons != "" {
		ps.bad("protocol.test_comparisons", "is the test set of outer: given only (set protocol.outer: given, or remove it)", fmt.Sprintf("%q with outer %q", p.TestComparisons, p.Outer))
	}
	if p.Outer == outerPartition && !c.unreadAt("protocol.splits", "protocol.outer") && (p.Splits < 2 || math.Abs(p.TestFraction-1/float64(p.Splits)) > 1e-9) {
		ps.bad("protocol.test_fraction", fmt.Sprintf("must be 1/splits with outer: partition (splits %d: %g; at least 2 splits)", p.Splits, 1/float64(max(p.Splits, 1))), p.TestFraction)
	}
	if p.Holdout == holdoutItems {
		for i, k := range c.Kernels {
			if k.Type == "identity" && c.kernelUsed(i) && !c.unreadAt("protocol.holdout", "rows") {
				ps.bad(fmt.Sprintf("kernels[%d].type", i), "identity (GNMDS) has no out-of-sample extension: a held-out item's kernel row is zero, so it embeds at the origin and its comparisons are scored on nothing; set protocol.holdout: comparisons to hold out comparisons among the same items", `"identity" with protocol.holdout: items`)
			}
		}
	}
	if p.Splits < 1 {
		ps.bad("protocol.splits", "must be >= 1", p.Splits)
	}
	if !(p.TestFraction > 0 && p.TestFraction < 1) && p.Outer != outerGiven {
		ps.bad("protocol.test_fraction", "must be in (0,1)", p.TestFraction)
	}
	if p.InnerFolds < 2 {
		ps.bad("protocol.inner_folds", "must be >= 2", p.InnerFolds)
	}
	c.validatePlanSize(ps)
	if p.MaxTrainComparisons < 0 {
		ps.bad("protocol.max_train_comparisons", "must be >= 0 (0: all)", p.MaxTrainComparisons)
	}
	if p.MaxTestComparisons < 0 {
		ps.bad("protocol.max_test_comparisons", "must be >= 0 (0: all)", p.MaxTestComparisons)
	}
}

// validateGiven checks the protocol of outer: given: one split, no
// test_fraction, a data set with a fixed list of comparisons, and a
// test_comparisons file that exists; it records the file's digest
// (givenDigest). The file's lines are checked against the data set when it
// is loaded (Check, Run).
func (c *Config) validateGiven(ps *problems) {
	p := c.Protocol
	if p.Splits != 1 {
		ps.bad("protocol.splits", "must be 1 (or absent) with outer: given: the given test set is the one outer split", p.Splits)
	}
	if p.TestFraction != 0 {
		ps.bad("protocol.test_fraction", "must be absent with outer: given: the test set is the file protocol.test_comparisons", p.TestFraction)
	}
	if t := c.Dataset.Type; (t == "synthetic" || t == "aloi10") && !c.unreadAt("protocol.outer") {
		ps.bad("protocol.outer", fmt.Sprintf("given needs a data set with a fixed list of comparisons (aset400, generic, planted); a %s data set derives its comparisons from its taxonomy", t), `"given"`)
	}
	if p.TestComparisons == "" {
		ps.bad("protocol.test_comparisons", "must name the file of test comparisons with outer: given", `""`)
		return
	}
	b, err := os.ReadFile(p.TestComparisons)
	if err != nil {
		rule := "must be a readable comparisons file"
		if errors.Is(err, os.ErrNotExist) {
			rule = "does not exist"
		}
		if c.configDir != "" {
			rule += fmt.Sprintf(" (paths are relative to the config file's folder, %s)", c.configDir)
		}
		ps.bad("protocol.test_comparisons", rule, p.TestComparisons)
		return
	}
	sum := sha256.Sum256(b)
	c.givenDigest = hex.EncodeToString(sum[:])
}

// validatePlanSize checks the bounds on splits, inner folds and β values:
// far above any experiment (the paper: ≤ 20 rows, splits and β values, 10
// folds), they keep a mistyped config from planning millions of tasks.
// (The bound on rows is checked with the rows.)
func (c *Config) validatePlanSize(ps *problems) {
	p := c.Protocol
	if p.Splits > maxSplits {
		ps.bad("protocol.splits", fmt.Sprintf("must be at most %d", maxSplits), p.Splits)
	}
	if p.InnerFolds > maxInnerFolds {
		ps.bad("protocol.inner_folds", fmt.Sprintf("must be at most %d", maxInnerFolds), p.InnerFolds)
	}
	if len(c.BetaGrid.Values) > maxBetas {
		ps.bad("beta_grid", fmt.Sprintf("must list at most %d values", maxBetas), len(c.BetaGrid.Values))
	}
}

// validateBetaGrid checks beta_grid: present when a row learns, and its
// values positive, finite and strictly increasing.
func (c *Config) validateBetaGrid(ps *problems) {
	needsBeta := false
	for _, r := range c.Rows {
		needsBeta = needsBeta || r.Method != "native"
	}
	g := c.BetaGrid
	if needsBeta && len(g.Values) == 0 && !c.unreadAt("rows[*].method") {
		ps.bad("beta_grid", "must list at least one β > 0 for k1/k4 rows", "none")
	}
	for i, b := range g.Values {
		switch {
		case g.Relative && !(b > 1):
			ps.bad(g.path(i), "must be > 1 (a multiple of β_min; at or below 1 the fit learns W = 0)", b)
		case !(b > 0):
			ps.bad(g.path(i), "must be > 0 and finite", b)
		case math.IsInf(b, 0):
			ps.bad(g.path(i), "must be > 0 and finite", b)
		}
		if i > 0 && b <= g.Values[i-1] {
			ps.bad(g.path(i), "must be strictly increasing", b)
		}
	}
}

// validateSolver checks solver and the rows' solver settings with
// mkpoe.Settings.Validate, the rules every fit obeys, naming the YAML key
// of the field that breaks one. The solver block is checked first, and a
// row only when it is valid, so that one mistake gives one message.
func (c *Config) validateSolver(ps *problems) {
	keys := map[string]string{"Solver": "solver.method", "Tol": "solver.tol", "MaxIter": "solver.max_iter",
		"KernelRank": "solver.kernel_rank", "KernelEnergy": "solver.kernel_energy"}
	// rankKey is the YAML path of the rank a row's settings were
	// checked at (rows[i].rank, or rows[i].rank[j] in a list).
	report := func(err error, row int, rankKey string) {
		var se *mkpoe.SettingsError
		if !errors.As(err, &se) {
			ps.bad("solver", err.Error(), "")
			return
		}
		key, ok := keys[se.Field]
		switch {
		case ok:
		case se.Field == "Rank":
			key = rankKey
		default:
			key = fmt.Sprintf("rows[%d].%s", row, strings.ToLower(se.Field))
		}
		ps.bad(key, se.Rule, se.Value)
	}
	// β comes from the grid (validated as beta_grid): 1 stands in for it.
	// A method that could not be read is reported where it was read: the
	// default stands in for it here.
	method := mkpoe.Solver(c.Solver.Method)
	if c.unreadAt("solver.method") {
		method = ""
	}
	base := mkpoe.Settings{Beta: 1, Solver: method, Tol: c.Solver.Tol, MaxIter: c.Solver.MaxIter,
		KernelRank: c.Solver.KernelRank, KernelEnergy: c.Solver.KernelEnergy}
	if err := base.Validate(); err != nil {
		report(err, -1, "")
		return
	}
	for i, r := range c.Rows {
		at := fmt.Sprintf("rows[%d]", i)
		if r.Method == "native" || c.unreadAt(at+".method", at+".mode", at+".rank") {
			continue
		}
		for j, k := range r.Rank.list() {
			s, err := rowSettings(c, r.withRank(k))
			if err != nil {
				break // the row's mode, reported by validateRow
			}
			s.Beta, s.Solver = 1, method
			if err := s.Validate(); err != nil {
				report(err, i, r.Rank.path(fmt.Sprintf("rows[%d]", i), j))
			}
		}
	}
}

// validateRows checks rows and returns the set of row labels, and false
// if there are more than maxRows rows: then the rows themselves are not
// checked (a million of them would take long and bury the message), nor
// the claims that name them.
func (c *Config) validateRows(ps *problems, kernelNames, groupNames map[string]bool) (labels map[string]bool, ok bool) {
	if len(c.Rows) == 0 {
		ps.bad("rows", "must list at least one row", "none")
	}
	if len(c.Rows) > maxRows {
		ps.bad("rows", fmt.Sprintf("must list at most %d rows", maxRows), len(c.Rows))
		return nil, false
	}
	labels = map[string]bool{}
	cells := map[[3]string]int{}
	for i, r := range c.Rows {
		at := fmt.Sprintf("rows[%d]", i)
		derived := c.unreadAt(at) // its label and table cell derive from what could not be read
		if labels[strings.ToLower(r.Label)] && !derived {
			ps.bad(at+".label", "must be unique (case aside: claims and query --row match labels so)", fmt.Sprintf("%q again", r.Label))
		}
		labels[strings.ToLower(r.Label)] = true
		cell := [3]string{r.tableRow(), r.Method, r.Mode}
		if j, taken := cells[cell]; taken && cell[0] != "" && !derived {
			ps.bad(at+".table_row", fmt.Sprintf("must differ from rows[%d]'s: both put a %s %s result in table row %q", j, r.Method, r.Mode, cell[0]), fmt.Sprintf("%q", cell[0]))
		} else {
			cells[cell] = i
		}
		c.validateRow(ps, r, at, kernelNames, groupNames)
	}
	return labels, true
}

// validateRow checks the fields of row r (at is its YAML path) that do not
// depend on the other rows.
func (c *Config) validateRow(ps *problems, r RowConfig, at string, kernelNames, groupNames map[string]bool) {
	if !c.unreadAt(at+".method", at+".kernel", at+".group") {
		c.validateRowKind(ps, r, at) // which of kernel and group a row needs depends on its method
	}
	if r.Kernel != "" && !kernelNames[r.Kernel] && !c.unreadAt("kernels[*].name") {
		ps.bad(at+".kernel", "must name a kernel", fmt.Sprintf("%q", r.Kernel))
	}
	if r.Group != "" && !groupNames[r.Group] && !c.unreadAt("groups[*].name") {
		ps.bad(at+".group", "must name a group", fmt.Sprintf("%q", r.Group))
	}
	if c.unreadAt(at + ".method") {
		return // the mode and rank rules depend on the method
	}
	if r.Method != "native" {
		if _, err := mkpoe.ParseMode(r.Mode); err != nil {
			ps.bad(at+".mode", "must be full or diag", fmt.Sprintf("%q", r.Mode))
		}
	} else if r.Mode != "" {
		ps.bad(at+".mode", "must be empty for a native row", fmt.Sprintf("%q", r.Mode))
	}
	// A learned row's rank is checked with its solver settings
	// (validateSolver).
	if !r.Rank.IsZero() && r.Method == "native" {
		ps.bad(at+".rank", "must be absent for a native row (it bounds a learned W)", r.Rank)
	} else if r.Method != "native" {
		validateRanks(ps, r.Rank, at)
	}
	if r.TrainSteps != nil {
		validateSteps(ps, at+".train_steps", *r.TrainSteps)
	}
	if r.Paper != nil && (*r.Paper < 0 || *r.Paper > 1) {
		ps.bad(at+".paper", "must be an accuracy in [0,1]", *r.Paper)
	}
}

// validateRowKind checks that row r has the method it names and the
// kernel or group that method needs.
func (c *Config) validateRowKind(ps *problems, r RowConfig, at string) {
	switch r.Method {
	case "native", "k1":
		if (r.Kernel == "") == (r.Group == "") {
			ps.bad(at, "a "+r.Method+" row needs exactly one of kernel or group", fmt.Sprintf("kernel=%q group=%q", r.Kernel, r.Group))
		}
	case "k4":
		if r.Group == "" || r.Kernel != "" {
			ps.bad(at, "a k4 row needs a group and no kernel", fmt.Sprintf("kernel=%q group=%q", r.Kernel, r.Group))
		}
	default:
		ps.bad(at+".method", "must be native, k1 or k4", fmt.Sprintf("%q", r.Method))
	}
}

// validateClaims checks claims against the row labels.
func (c *Config) validateClaims(ps *problems, labels map[string]bool) {
	for i, cl := range c.Claims {
		at := fmt.Sprintf("claims[%d]", i)
		if strings.TrimSpace(cl.Claim) == "" {
			ps.bad(at+".claim", "must say the claim in words", `""`)
		}
		for _, side := range []struct{ key, label string }{{"better", cl.Better}, {"worse", cl.Worse}} {
			if !labels[strings.ToLower(side.label)] {
				var all []string
				for _, r := range c.Rows {
					all = append(all, strconv.Quote(r.Label))
				}
				ps.bad(at+"."+side.key, "must be the label of a row (case aside), one of "+strings.Join(all, ", "), fmt.Sprintf("%q", side.label))
			}
		}
		if strings.EqualFold(cl.Better, cl.Worse) && cl.Better != "" {
			ps.bad(at+".worse", "must differ from better", fmt.Sprintf("%q", cl.Worse))
		}
	}
}

// checkDataPaths reports, all at once, every dataset path that does not
// exist, with its key, the rule (relative to the config file's folder) and
// the fix (the data set's fetch script, or an absolute path).
func (c *Config) checkDataPaths() error {
	d := c.Dataset
	fetch := map[string]string{"aset400": "scripts/fetch_aset400.sh", "aloi10": "scripts/fetch_aloi.sh"}[d.Type]
	type entry struct{ key, path string }
	paths := []entry{{"dataset.dir", d.Dir}, {"dataset.lastfm_dir", d.LastFMDir}, {"dataset.items", d.Items}, {"dataset.comparisons", d.Comparisons}}
	keys := make([]string, 0, len(d.Features))
	for k := range d.Features {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		paths = append(paths, entry{"dataset.features." + k, d.Features[k]})
	}
	var ps problems
	for _, e := range paths {
		if e.path == "" {
			continue
		}
		if _, err := os.Stat(e.path); err == nil {
			continue
		}
		rule := "does not exist"
		if c.configDir != "" {
			rule += fmt.Sprintf(" (dataset paths are relative to the config file's folder, %s)", c.configDir)
		}
		fix := "give the path from the config file's folder, or an absolute one"
		if fetch != "" {
			fix = fmt.Sprintf("fetch the data with %s [--mirror DIR] from the repository, or give the path from the config file's folder", fetch)
		}
		ps = append(ps, fmt.Errorf("%s: %s %s; %s", e.key, e.path, rule, fix))
	}
	return errors.Join(ps...)
}

// runEigenCacheBytes bounds the eigenbases a run keeps (dataset.eigen):
// 512 MiB holds the bases of about 16 kernels of order 2000.
const runEigenCacheBytes = 512 << 20

// loadAndCheckData loads c's data set and runs checkData on it.
func (c *Config) loadAndCheckData() (*dataset, error) {
	if err := c.checkDataPaths(); err != nil {
		return nil, err
	}
	ds, err := loadDataset(c)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	ds.eigen = mkpoe.NewEigenCache(runEigenCacheBytes)
	if c.Protocol.Outer == outerGiven {
		if err := applyGiven(c, ds); err != nil {
			return nil, fmt.Errorf("config %s, with its data:\n%w", c.Name, err)
		}
	}
	if err := c.checkData(ds); err != nil {
		return nil, fmt.Errorf("config %s, with its data:\n%w", c.Name, err)
	}
	return ds, nil
}

// DataReport is what Check found: the data set's size and the first
// split's sizes.
type DataReport struct {
	Items int
	// Unit is what the first split's Train and Test count: "items" or
	// "comparisons" (protocol.holdout).
	Unit        string
	Train, Test int
	// Notes are what the loader left out, one line each (e.g. aset400's
	// degenerate triplets).
	Notes []string
}

// Check loads c's data set and checks c against it (the checks of
// checkData): the validation that "mkpoe run", "check" and "slurm" share,
// after LoadConfig. Its errors are the user's input errors.
func Check(c *Config) (*DataReport, error) {
	if err := checkRunDirPath(c.Output, true); err != nil {
		return nil, err // a file: no run can go there, --force or not
	}
	ds, err := c.loadAndCheckData()
	if err != nil {
		return nil, errkind.BadInput(err)
	}
	if c.Protocol.Holdout == holdoutComparisons {
		train, test := c.foldProtocol(ds).Fold(len(ds.comps), cv.Outer(0))
		return &DataReport{Items: ds.n, Unit: holdoutComparisons, Train: len(train), Test: len(test), Notes: ds.notes}, nil
	}
	train, test := splitItems(c, ds, 0)
	return &DataReport{Items: ds.n, Unit: holdoutItems, Train: len(train), Test: len(test), Notes: ds.notes}, nil
}

// checkData checks the config against its data set, reporting every problem
// with its YAML path: each kernel's source is one the data set offers, and
// every split leaves enough training items for the inner folds and the
// held-out set (pkg/cv's protocol rules).
func (c *Config) checkData(ds *dataset) error {
	var errs []error
	for i, k := range c.Kernels {
		if k.Type == "identity" || k.Type == "noise" {
			continue
		}
		if k.Type == "precomputed" {
			if _, ok := ds.precomputed[k.Source]; !ok {
				errs = append(errs, fmt.Errorf("kernels[%d].source: must be an n×n kernel file of the data set (one of %v), got %q", i, sortedKeys(ds.precomputed), k.Source))
			}
			continue
		}
		if _, ok := ds.sources[k.Source]; !ok {
			errs = append(errs, fmt.Errorf("kernels[%d].source: must be one of %v for a %s data set, got %q", i, sortedKeys(ds.sources), c.Dataset.Type, k.Source))
		}
	}
	p := c.foldProtocol(ds)
	if len(p.BetaGrid) == 0 {
		p.BetaGrid = []float64{1} // native rows only: no β to check
	}
	if c.Protocol.Holdout == holdoutComparisons {
		if ds.taxonomy != nil {
			errs = append(errs, fmt.Errorf("protocol.holdout: comparisons needs a data set with a fixed list of comparisons (aset400, generic); a %s data set derives its comparisons from the taxonomy and the split items, got %q", c.Dataset.Type, c.Protocol.Holdout))
		} else if err := p.Validate(len(ds.comps)); err != nil {
			errs = append(errs, fmt.Errorf("protocol (holdout comparisons, %d comparisons): %w", len(ds.comps), err))
		}
		return errors.Join(errs...)
	}
	if err := p.Validate(ds.n); err != nil {
		train, _ := splitItems(c, ds, 0)
		if c.Protocol.Outer == outerGiven {
			errs = append(errs, fmt.Errorf("protocol (outer given, holdout items, %d training items): %w", len(train), err))
		} else if len(train) < c.Protocol.InnerFolds {
			errs = append(errs, fmt.Errorf("protocol.inner_folds: must be at most the %d training items of a split (%d items, test_fraction %g), got %d", len(train), ds.n, c.Protocol.TestFraction, c.Protocol.InnerFolds))
		} else {
			errs = append(errs, fmt.Errorf("protocol: %w", err))
		}
	}
	return errors.Join(errs...)
}

// cvProtocol is the config's protocol in pkg/cv's terms.
func (c *Config) cvProtocol() cv.Protocol {
	h := cv.HoldOutItems
	if c.Protocol.Holdout == holdoutComparisons {
		h = cv.HoldOutComparisons
	}
	return cv.Protocol{HoldOut: h, Partition: c.Protocol.Outer == outerPartition, Splits: c.Protocol.Splits, TestFraction: c.Protocol.TestFraction, InnerFolds: c.Protocol.InnerFolds, BetaGrid: c.BetaGrid.Values, Seed: c.Seed}
}

// foldProtocol is cvProtocol with what the data set adds: the given split
// (outer: given), or the classes that stratify a partition.
func (c *Config) foldProtocol(ds *dataset) cv.Protocol {
	p := c.cvProtocol()
	switch {
	case ds.given != nil:
		p.Given = &ds.given.split
	case p.Partition:
		p.Strata = ds.labels // stratified by class where the data set has classes
	}
	return p
}

// protocol.holdout values (cv.HoldOut) and protocol.outer values
// (cv.Protocol.Partition).
const (
	holdoutItems       = "items"
	holdoutComparisons = "comparisons"
	outerRandom        = "random"
	outerPartition     = "partition"
	outerGiven         = "given"
)

// kernelUsed reports whether some row uses kernel i (alone or in its group).
func (c *Config) kernelUsed(i int) bool {
	for _, r := range c.Rows {
		if slices.Contains(c.rowKernels(r), i) {
			return true
		}
	}
	return false
}

// Bounds of a config (Validate).
const (
	maxRows       = 1000
	maxSplits     = 1000
	maxInnerFolds = 100
	maxBetas      = 100
	// maxConfigBytes bounds a config file (the largest shipped is 4 KB):
	// YAML parsing takes about 0.3 s and 35 MB per MB.
	maxConfigBytes = 4 << 20
)

// Hash is a digest of the resolved config, which names the config a
// summary was merged for. The output directory is not part of it, and
// the data paths enter it relative to the repository that holds them
// (portablePath): moving a run, or running in a clone elsewhere, keeps
// the hash.
func (c *Config) Hash() string {
	cc := c.portable()
	return hashYAML(&cc)
}

// legacyHash is Hash as mkpoe computed it before data paths entered it
// portable: with this clone's absolute paths. A summary of that hash was
// merged for this config (archivePrevious keeps it in place).
func (c *Config) legacyHash() string {
	cc := *c
	cc.Output = ""
	return hashYAML(&cc)
}

// hashYAML is 16 hexadecimal digits of the SHA-256 of c's YAML.
func hashYAML(c *Config) string {
	b, err := yaml.Marshal(c)
	if err != nil {
		panic(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// kernelIndex returns the kernel's position in c.Kernels.
func (c *Config) kernelIndex(name string) int {
	for i, k := range c.Kernels {
		if k.Name == name {
			return i
		}
	}
	return -1
}

// rowKernels returns the kernel indices a row uses.
func (c *Config) rowKernels(r RowConfig) []int {
	if r.Kernel != "" {
		return []int{c.kernelIndex(r.Kernel)}
	}
	for _, g := range c.Groups {
		if g.Name == r.Group {
			var out []int
			for _, k := range g.Kernels {
				out = append(out, c.kernelIndex(k))
			}
			return out
		}
	}
	return nil
}

// SyntheticConfig configures the embedded synthetic data set (data.GenerateSynthetic).
type SyntheticConfig struct {
	Branching []int                 `yaml:"branching"` // children per taxonomy level (default [3, 2])
	PerClass  int                   `yaml:"per_class"` // items per leaf class (default 10)
	Views     []SyntheticViewConfig `yaml:"views"`
}

// PlantedConfig is dataset.planted: N points drawn from a standard normal
// distribution in Dim dimensions, Triplets distinct random triplets
// answered by their distances, each reversed with probability Flip; the
// data set's one source, points, holds the true coordinates.
type PlantedConfig struct {
	N        int     `yaml:"n"`
	Dim      int     `yaml:"dim"`
	Triplets int     `yaml:"triplets"`
	Flip     float64 `yaml:"flip"`
}

// validatePlanted checks dataset.planted.
func (c *Config) validatePlanted(ps *problems) {
	pl := c.Dataset.Planted
	if pl == nil {
		ps.bad("dataset.planted", "must give {n, dim, triplets, flip} for a planted data set", "nothing")
		return
	}
	if pl.N < 3 || pl.N > mkpoe.MaxIdentityItems {
		ps.bad("dataset.planted.n", fmt.Sprintf("must be in [3, %d]", mkpoe.MaxIdentityItems), pl.N)
	}
	if pl.Dim < 1 || pl.Dim > 1000 {
		ps.bad("dataset.planted.dim", "must be in [1, 1000]", pl.Dim)
	}
	if most := float64(pl.N) * float64(pl.N-1) * float64(pl.N-2) / 8; pl.Triplets < 1 || float64(pl.Triplets) > most || pl.Triplets > 10_000_000 {
		ps.bad("dataset.planted.triplets", fmt.Sprintf("must be in [1, min(n(n−1)(n−2)/8, 10⁷)] = [1, %.0f]", math.Min(most, 1e7)), pl.Triplets)
	}
	if !(pl.Flip >= 0 && pl.Flip < 0.5) {
		ps.bad("dataset.planted.flip", "must be in [0, 0.5)", pl.Flip)
	}
}

// SyntheticViewConfig is one synthetic view.
type SyntheticViewConfig struct {
	Name   string  `yaml:"name"`
	Dim    int     `yaml:"dim"`
	Noise  float64 `yaml:"noise"`
	Random bool    `yaml:"random"` // a pure noise view (points on the unit sphere)
}

// validStep reports whether s names a step of pkg/constraint.
func validStep(s string) bool { return slices.Contains(constraint.Steps, s) }

package experiments

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// TestMissingArtistsCounted: on aset400 the social-tag kernel lacks the 33
// artists with no Last.fm match (identity rows, Sec. 5.2.1). The summary
// counts the test comparisons that touch one, which must equal a count made
// from the Last.fm matching and data.SplitComparisons directly.
func TestMissingArtistsCounted(t *testing.T) {
	root := filepath.Join("..", "data")
	if _, err := os.Stat(filepath.Join(root, "lastfm-hetrec2011")); err != nil {
		t.Skip("no data/ (scripts/fetch_aset400.sh --mirror ../shared/data)")
	}
	dir := t.TempDir()
	aset, _ := filepath.Abs(filepath.Join(root, "aset400"))
	lfm, _ := filepath.Abs(filepath.Join(root, "lastfm-hetrec2011"))
	cfg := writeFile(t, dir, "m.yaml", `
name: missing
seed: 1
dataset: {type: aset400, dir: `+aset+`, lastfm_dir: `+lfm+`}
kernels:
  - {name: ST, source: tags, type: tfidf}
protocol: {splits: 1, test_fraction: 0.2, inner_folds: 2}
rows:
  - {method: native, kernel: ST}
`)
	c, s := runConfigFile(t, cfg)
	a, err := data.LoadAset400(aset)
	if err != nil {
		t.Fatal(err)
	}
	lf, err := data.LoadLastFM(lfm)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := loadDataset(c)
	if err != nil {
		t.Fatal(err)
	}
	train, test := splitItems(c, ds, 0)
	_, held := data.SplitComparisons(a.Comparisons, train, test)
	global := append(append([]int(nil), train...), test...)
	want := 0
	for _, h := range held {
		if !lf.Present[global[h.I]] || !lf.Present[global[h.J]] || !lf.Present[global[h.L]] {
			want++
		}
	}
	if want == 0 {
		t.Fatal("no test comparison touches a missing artist: the test checks nothing")
	}
	if got := s.Rows[0].TestMissing; len(got) != 1 || got[0] != want {
		t.Errorf("test_missing %v, want [%d] (of %d test comparisons)", got, want, len(held))
	}
	// The loader's note (17 degenerate triplets dropped) is kept in
	// items.json for the reports.
	b, err := os.ReadFile(filepath.Join(c.Output, "items.json"))
	if err != nil {
		t.Fatal(err)
	}
	var items results.Items
	if err := json.Unmarshal(b, &items); err != nil {
		t.Fatal(err)
	}
	if len(items.Notes) != 1 || !strings.Contains(items.Notes[0], "dropped 17 degenerate comparisons") || !slices.Equal(items.Notes, ds.notes) {
		t.Errorf("items.json notes %q, want the loader's %q", items.Notes, ds.notes)
	}
}

// TestAset400GenreLabelsDisplayOnly: aset400's main genres reach items.json
// (labels, label_names) but not the protocol: ds.labels stays nil, so a
// partitioned outer split is not stratified by genre (it would differ if
// it were).
func TestAset400GenreLabelsDisplayOnly(t *testing.T) {
	root := filepath.Join("..", "data", "aset400")
	if _, err := os.Stat(root); err != nil {
		t.Skip("no data/ (scripts/fetch_aset400.sh --mirror ../shared/data)")
	}
	dir := t.TempDir()
	aset, _ := filepath.Abs(root)
	c, err := LoadConfig(writeFile(t, dir, "g.yaml", `
name: genres
seed: 1
dataset: {type: aset400, dir: `+aset+`}
kernels:
  - {name: genre, source: genre, type: linear}
protocol: {splits: 5, test_fraction: 0.2, outer: partition, inner_folds: 2}
rows:
  - {method: native, kernel: genre}
`))
	if err != nil {
		t.Fatal(err)
	}
	c.Output = dir
	ds, err := loadDataset(c)
	if err != nil {
		t.Fatal(err)
	}
	if ds.labels != nil || len(ds.shownLabels) != 412 || len(ds.labelNames) != 59 || ds.labelNames[58] != data.NoGenre {
		t.Fatalf("labels %d, shown %d, names %d: want none, 412 and 59 ending in %q", len(ds.labels), len(ds.shownLabels), len(ds.labelNames), data.NoGenre)
	}
	if err := writeItems(c, ds); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "items.json"))
	if err != nil {
		t.Fatal(err)
	}
	it, err := results.DecodeItems(b, "items.json")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(it.Labels, ds.shownLabels) || !slices.Equal(it.LabelNames, ds.labelNames) || it.LabelNames[it.Labels[0]] != "r&b" {
		t.Errorf("items.json labels %v… names %v…, want the main genres (artist 1: r&b)", it.Labels[:5], it.LabelNames[:3])
	}
	// Stratifying by genre would change the split: the test would notice.
	strat := *ds
	strat.labels = ds.shownLabels
	train, _ := splitItems(c, ds, 0)
	stratTrain, _ := splitItems(c, &strat, 0)
	if slices.Equal(train, stratTrain) {
		t.Error("a genre-stratified split equals the plain one: the test checks nothing")
	}
}

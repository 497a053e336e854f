package experiments

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/data"
)

// TestClusteredTaxonomy builds the ALOI taxonomy at load time from images
// the experiment does not use (dataset.taxonomy: {cluster: unused_images,
// levels}): with the taxonomy experiment's seed and 20 images per class,
// the 879 left-over images give the tree of configs/taxonomies/aloi10.yaml,
// which was clustered from all 1079 (items included); cutting into fewer
// levels gives the coarser tree of the sensitivity config; bad
// specifications are errors naming their YAML path.
func TestClusteredTaxonomy(t *testing.T) {
	aloi, _ := filepath.Abs(filepath.Join("..", "data", "aloi10"))
	if _, err := os.Stat(aloi); err != nil {
		t.Skip("no data/ (scripts/fetch_aloi.sh --mirror ../shared/data)")
	}
	shipped, err := data.ReadTaxonomyFile(filepath.Join("..", "configs", "taxonomies", "aloi10.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	config := func(perClass, taxonomy string) string {
		return `
name: tax
seed: 1
dataset: {type: aloi10, dir: ` + aloi + `, per_class: ` + perClass + `, taxonomy: ` + taxonomy + `}
kernels:
  - {name: rgb, source: view1, type: rbf}
protocol: {outer: partition, splits: 5, test_fraction: 0.2, inner_folds: 2}
rows:
  - {method: native, kernel: rgb}
`
	}
	cases := []struct {
		name, perClass, taxonomy string
		want                     string // the tree, or the error's text
		images                   string // the note's image count
	}{
		{"unused images", "20", "{cluster: unused_images, levels: [3, 5, 7]}", shipped.String(), "879 images"},
		{"all images", "20", "{cluster: all_images, levels: [3, 5, 7]}", shipped.String(), "1079 images"},
		{"coarser cut", "20", "{cluster: unused_images, levels: [3, 5]}", "[[1,[2,4,7],[3,5,6,10]],8,9]", "879 images"},
		{"no image left", "107", "{cluster: unused_images, levels: [3, 5, 7]}", "dataset.taxonomy.cluster: unused_images leaves no image of class", ""},
		{"too many clusters", "20", "{cluster: unused_images, levels: [3, 10]}", "dataset.taxonomy: data: CutTaxonomy: levels[1] must be a cluster count in [2, 9]", ""},
		{"levels not increasing", "20", "{cluster: unused_images, levels: [5, 3]}", "dataset.taxonomy.levels[1]: must be an integer ≥ 2 and above the level before, got 3", ""},
		{"unknown image set", "20", "{cluster: test_images, levels: [3]}", "dataset.taxonomy.cluster: must be unused_images", ""},
		{"unknown key", "20", "{cluster: unused_images, levels: [3], linkage: single}", "dataset.taxonomy.linkage: is not a key of dataset.taxonomy (its keys: cluster, levels, views)", ""},
		{"a fraction of a level", "20", "{cluster: unused_images, levels: [3, 5.5]}", `dataset.taxonomy.levels[1]: must be a whole number, got "5.5"`, ""},
		{"a whole level written 5.0", "20", "{cluster: unused_images, levels: [3, 5.0]}", "[[1,[2,4,7],[3,5,6,10]],8,9]", "879 images"},
		{"a fraction of a label", "20", "[[1, 2.5], 3]", `: dataset.taxonomy[0][1]: must be a class label (a whole number) or a list of subtrees, got "2.5"`, ""},
		{"levels missing", "20", "{cluster: unused_images}", "dataset.taxonomy: a clustered taxonomy needs both cluster", ""},
		{"levels not a list", "20", "{cluster: unused_images, levels: 3}", "dataset.taxonomy.levels: must be a list", ""},
		{"every view named", "20", "{cluster: unused_images, levels: [3, 5, 7], views: [view1, view2, view3, view4]}", shipped.String(), "unused_images; views view1 view2 view3 view4"},
		// Leaving out RGB or colour gives the main tree: the controls that
		// matter leave out HSV or texture (docs/results.md).
		{"without rgb", "20", "{cluster: unused_images, levels: [3, 5, 7], views: [view2, view3, view4]}", shipped.String(), "views view2 view3 view4"},
		{"without colour", "20", "{cluster: unused_images, levels: [3, 5, 7], views: [view1, view2, view4]}", shipped.String(), "views view1 view2 view4"},
		{"without hsv", "20", "{cluster: unused_images, levels: [3, 5, 7], views: [view1, view3, view4]}", "[[1,[2,3,[5,6,10]],[4,7]],8,9]", "views view1 view3 view4"},
		{"without texture", "20", "{cluster: unused_images, levels: [3, 5, 7], views: [view1, view2, view3]}", "[[1,[2,[3,6],[5,10]],[4,7]],8,9]", "unused_images; views view1 view2 view3"},
		{"words case aside", "20", "{cluster: Unused_Images, levels: [3, 5, 7], views: [View1, VIEW2, view3, view4]}", shipped.String(), "unused_images; views view1 view2 view3 view4"},
		{"a view twice", "20", "{cluster: unused_images, levels: [3], views: [view1, view1]}", "dataset.taxonomy.views[1]: must be one of view1 … view4, each once, got view1", ""},
		{"no such view", "20", "{cluster: unused_images, levels: [3], views: [view5]}", "dataset.taxonomy.views[0]: must be one of view1 … view4", ""},
		{"views not a list", "20", "{cluster: unused_images, levels: [3], views: view1}", "dataset.taxonomy.views: must be a list", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := LoadConfig(writeFile(t, t.TempDir(), "c.yaml", config(tc.perClass, tc.taxonomy)))
			var ds *dataset
			if err == nil {
				ds, err = loadDataset(c)
			}
			if tc.images == "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %v, want one containing %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := ds.taxonomy.String(); got != tc.want {
				t.Errorf("taxonomy %s, want %s", got, tc.want)
			}
			if len(ds.notes) != 1 || !strings.Contains(ds.notes[0], tc.images) || !strings.Contains(ds.notes[0], tc.want) {
				t.Errorf("notes %q, want one naming %s and the tree", ds.notes, tc.images)
			}
		})
	}
}

package data

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mkpoe/mkpoe/internal/yamlnum"
)

// Taxonomy is a rooted tree over class labels: a leaf carries a label, an
// internal node has children. "((1,2),(3,(4,5)))" is the tree whose root has
// the subtrees (1,2) and (3,(4,5)). Build one with [Leaf] and [Node], parse
// it with [ParseTaxonomy], or convert a decoded YAML nested sequence with
// [TaxonomyFromNested].
type Taxonomy struct {
	Label    int         // class label of a leaf; unused when Children is non-empty
	Children []*Taxonomy // subtrees; empty for a leaf
}

// Leaf returns a leaf with the given class label.
func Leaf(label int) *Taxonomy { return &Taxonomy{Label: label} }

// Node returns an internal node with the given subtrees.
func Node(children ...*Taxonomy) *Taxonomy { return &Taxonomy{Children: children} }

// IsLeaf reports whether t has no children.
func (t *Taxonomy) IsLeaf() bool { return len(t.Children) == 0 }

// String writes t as the YAML flow sequence read by [ParseTaxonomy], e.g.
// "[[1,2],[3,[4,5]]]".
func (t *Taxonomy) String() string {
	if t.IsLeaf() {
		return strconv.Itoa(t.Label)
	}
	parts := make([]string, len(t.Children))
	for i, c := range t.Children {
		parts[i] = c.String()
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// Labels returns the leaf labels of t in left-to-right order.
func (t *Taxonomy) Labels() []int {
	if t.IsLeaf() {
		return []int{t.Label}
	}
	var out []int
	for _, c := range t.Children {
		out = append(out, c.Labels()...)
	}
	return out
}

// Validate checks that t is non-nil, has no nil subtree and that every leaf
// label appears once.
func (t *Taxonomy) Validate() error {
	if t == nil {
		return fmt.Errorf("data: taxonomy must not be nil")
	}
	seen := map[int]bool{}
	var walk func(*Taxonomy, string) error
	walk = func(n *Taxonomy, at string) error {
		if n == nil {
			return fmt.Errorf("data: taxonomy %s: subtree must not be nil", at)
		}
		if n.IsLeaf() {
			if seen[n.Label] {
				return fmt.Errorf("data: taxonomy %s: every class label must appear once, got %d again", at, n.Label)
			}
			seen[n.Label] = true
			return nil
		}
		for i, c := range n.Children {
			if err := walk(c, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(t, "root")
}

// ParseTaxonomy parses a taxonomy written as YAML: one nested sequence of
// integer class labels, e.g. "[[1, 2], [3, [4, 5]]]" (a list is an internal
// node, a whole number a leaf, '#' starts a comment), either bare or under a
// "taxonomy:" key. A bare integer is a single-leaf tree. The result is
// validated ([Taxonomy.Validate]); errors name the YAML line and column and
// the node (e.g. root[1][0]).
func ParseTaxonomy(s string) (*Taxonomy, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(s), &doc); err != nil {
		return nil, fmt.Errorf("data: taxonomy: %w", err)
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("data: taxonomy: the file is empty, want a nested list of class labels such as [[1, 2], [3, 4]]")
	}
	n := doc.Content[0]
	if n.Kind == yaml.MappingNode && len(n.Content) == 2 && n.Content[0].Value == "taxonomy" {
		n = n.Content[1]
	}
	t, err := fromNode(n, "root")
	if err != nil {
		return nil, err
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return t, nil
}

// fromNode converts a YAML node of nested labels to a Taxonomy; at is the
// node's path (root[1][0]).
func fromNode(n *yaml.Node, at string) (*Taxonomy, error) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind == yaml.SequenceNode {
		t := &Taxonomy{}
		for i, c := range n.Content {
			ct, err := fromNode(c, fmt.Sprintf("%s[%d]", at, i))
			if err != nil {
				return nil, err
			}
			t.Children = append(t.Children, ct)
		}
		return checkInternal(t, at)
	}
	var label int
	if !yamlnum.IsWhole(n) || n.Decode(&label) != nil {
		got := "a mapping"
		if n.Kind == yaml.ScalarNode {
			got = strconv.Quote(n.Value)
		}
		return nil, fmt.Errorf("data: taxonomy: line %d, column %d: %s: must be a class label (a whole number) or a list of subtrees, got %s", n.Line, n.Column, at, got)
	}
	return Leaf(label), nil
}

// ReadTaxonomyFile reads a taxonomy file (see [ParseTaxonomy]), such as
// configs/taxonomies/aloi10.yaml.
func ReadTaxonomyFile(path string) (*Taxonomy, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("data: reading taxonomy: %w", err)
	}
	t, err := ParseTaxonomy(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// TaxonomyFromNested converts a nested list of labels, as decoded from YAML
// or JSON into an `any` (int, int64, uint64, whole float64 and []any of
// those, or typed []int / [][]int ...), to a validated Taxonomy.
func TaxonomyFromNested(v any) (*Taxonomy, error) {
	t, err := fromNested(v, "root")
	if err != nil {
		return nil, err
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return t, nil
}

func fromNested(v any, at string) (*Taxonomy, error) {
	switch x := v.(type) {
	case int:
		return Leaf(x), nil
	case int64:
		return Leaf(int(x)), nil
	case uint64:
		return Leaf(int(x)), nil
	case float64:
		if x != float64(int(x)) {
			return nil, fmt.Errorf("data: taxonomy %s: label must be an integer, got %v", at, x)
		}
		return Leaf(int(x)), nil
	case []int:
		n := &Taxonomy{}
		for _, l := range x {
			n.Children = append(n.Children, Leaf(l))
		}
		return checkInternal(n, at)
	case [][]int:
		return fromSubtrees(x, at)
	case []any:
		return fromSubtrees(x, at)
	}
	return nil, fmt.Errorf("data: taxonomy %s: must be an integer label or a list of subtrees, got %T %v", at, v, v)
}

// fromSubtrees is fromNested of a list: an internal node whose children are
// the subtrees x[0], x[1], … (at[i] in messages).
func fromSubtrees[T any](x []T, at string) (*Taxonomy, error) {
	n := &Taxonomy{}
	for i, c := range x {
		ct, err := fromNested(c, fmt.Sprintf("%s[%d]", at, i))
		if err != nil {
			return nil, err
		}
		n.Children = append(n.Children, ct)
	}
	return checkInternal(n, at)
}

func checkInternal(n *Taxonomy, at string) (*Taxonomy, error) {
	if len(n.Children) == 0 {
		return nil, fmt.Errorf("data: taxonomy %s: an internal node must have children, got an empty list", at)
	}
	return n, nil
}

// paths returns, for every leaf label, the ids of the nodes on the path from
// the root (id 0) to the leaf, so that the depth of the least common
// ancestor of labels a and b is the length of their common prefix minus 1.
func (t *Taxonomy) paths() map[int][]int {
	out := map[int][]int{}
	next := 0
	var walk func(n *Taxonomy, prefix []int)
	walk = func(n *Taxonomy, prefix []int) {
		p := append(slices.Clip(prefix), next)
		next++
		if n.IsLeaf() {
			out[n.Label] = p
			return
		}
		for _, c := range n.Children {
			walk(c, p)
		}
	}
	walk(t, nil)
	return out
}

// LCADepth returns the depth (root = 0) of the least common ancestor of the
// leaves labelled a and b; LCADepth(a, a) is the depth of leaf a. Labels not
// in t are an error.
func (t *Taxonomy) LCADepth(a, b int) (int, error) {
	ps := t.paths()
	pa, ok := ps[a]
	if !ok {
		return 0, fmt.Errorf("data: taxonomy %v has no label %d", t, a)
	}
	pb, ok := ps[b]
	if !ok {
		return 0, fmt.Errorf("data: taxonomy %v has no label %d", t, b)
	}
	return commonPrefix(pa, pb) - 1, nil
}

func commonPrefix(a, b []int) int {
	k := 0
	for k < len(a) && k < len(b) && a[k] == b[k] {
		k++
	}
	return k
}

// Comparisons synthesises relative comparisons from the taxonomy, as in the
// taxonomy experiment of McFee & Lanckriet (2011, Sec. 5.1): "relative
// comparisons to span subtrees via their least common ancestor", e.g.
//
//	(Lemon #1, Lemon #2, Lemon #1, Pear #1), (Lemon #1, Pear #1, Lemon #1, Sneaker #1),
//
// "generated so as to avoid redundant, transitive edges in the graph".
//
// Item x has class labels[x]. For every anchor i in anchors and items j, k
// in refs (j ≠ i, k ≠ i) it considers the triplet (i,j,i,k), implied by the
// tree when the least common ancestor of (labels[i], labels[j]) lies strictly
// below that of (labels[i], labels[k]). Of these it emits only the
// non-redundant ones: those for which no item x in refs (x ≠ i) has its LCA
// with i strictly between the two. Equivalently, sort the refs by the depth
// of their LCA with i into levels; only pairs from consecutive non-empty
// levels are compared.
//
// Why this is exactly the transitive reduction: in the constraint graph
// (Sec. 2.1) the edge (i,j,i,k) goes from the pair {i,j} to {i,k}, and
// along any path the LCA of the pair moves strictly up the tree. A pair
// whose LCA lies strictly between LCA(i,j) and LCA(i,k) contains an item x
// outside the child subtree holding i, so LCA(i,x) is that node and
// (i,j,i,x), (i,x,i,k) is a path of length 2. Hence (i,j,i,k) has a longer
// path iff such an x exists in refs. The tests check this by brute force.
//
// Use Comparisons(labels, train, train) for the training set and
// Comparisons(labels, test, train) for test or validation ("i belongs to the
// validation (or test) set, and j and k belong to the training set", Sec.
// 5.1). Interpretation: each set is reduced on its own, so it is the
// transitive reduction of the comparisons implied among its items (the
// paper does not say whether the reduction was done before or after
// splitting).
//
// Output order: anchors in the given order, then levels from deepest, then j
// and k in refs order. labels is not modified. Indices out of range, duplicate
// indices within anchors or refs, and labels missing from the taxonomy are
// errors.
func (t *Taxonomy) Comparisons(labels, anchors, refs []int) ([]Comparison, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	ps := t.paths()
	n := len(labels)
	for _, set := range []struct {
		name string
		idx  []int
	}{{"anchors", anchors}, {"refs", refs}} {
		seen := map[int]bool{}
		for p, x := range set.idx {
			if x < 0 || x >= n {
				return nil, fmt.Errorf("data: Taxonomy.Comparisons: %s[%d] must be an item index in [0,%d), got %d", set.name, p, n, x)
			}
			if seen[x] {
				return nil, fmt.Errorf("data: Taxonomy.Comparisons: %s must not repeat an item, got %d twice", set.name, x)
			}
			seen[x] = true
			if _, ok := ps[labels[x]]; !ok {
				return nil, fmt.Errorf("data: Taxonomy.Comparisons: label of item %d must be a leaf of the taxonomy %v, got %d", x, t, labels[x])
			}
		}
	}
	var out []Comparison
	levels := map[int][]int{} // LCA depth -> refs at that depth, reused per anchor
	for _, i := range anchors {
		clear(levels)
		pi := ps[labels[i]]
		for _, x := range refs {
			if x == i {
				continue
			}
			d := commonPrefix(pi, ps[labels[x]]) - 1
			levels[d] = append(levels[d], x)
		}
		depths := make([]int, 0, len(levels))
		for d := range levels {
			depths = append(depths, d)
		}
		slices.Sort(depths)
		slices.Reverse(depths)
		for a := 0; a+1 < len(depths); a++ {
			for _, j := range levels[depths[a]] {
				for _, k := range levels[depths[a+1]] {
					out = append(out, Triplet(i, j, k))
				}
			}
		}
	}
	return out, nil
}

package data

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// A taxonomy made from features. The paper synthesises its comparisons
// from "an artificial taxonomy over the label set" (Sec. 5.1) whose figure
// is not available; for ALOI-10, whose object identities are unknown, the
// taxonomy is clustered from the images' features (docs/datasets.md, "ALOI
// taxonomy"). ClassTaxonomy does that from any set of images, so that the
// images an experiment tests can be kept out of the tree that defines its
// ground truth.

// Merge is one step of agglomerative clustering: clusters A and B are
// joined at Height. Clusters 0…n−1 are the points; merge k makes cluster
// n+k.
type Merge struct {
	A, B   int
	Height float64
}

// AverageLinkage clusters the rows of x by average linkage (UPGMA) on their
// Euclidean distances: the distance of two clusters is the mean distance of
// their members. It returns the n−1 merges in order; ties join the pair
// with the smallest cluster indices first. Cost O(n³), for the few class
// means a taxonomy is made of.
func AverageLinkage(x *mat.Dense) []Merge {
	n, _ := x.Dims()
	if n < 2 {
		return nil
	}
	// dist[a][b] between live clusters; size of each; id maps a slot to its
	// cluster index.
	dist := make([][]float64, n)
	for a := range dist {
		dist[a] = make([]float64, n)
		for b := 0; b < a; b++ {
			dist[a][b] = floats.Distance(x.RawRowView(a), x.RawRowView(b), 2)
			if math.IsNaN(dist[a][b]) {
				dist[a][b] = math.Inf(1) // non-finite features: merged last
			}
			dist[b][a] = dist[a][b]
		}
	}
	size := make([]int, n)
	id := make([]int, n)
	live := make([]bool, n)
	for a := range size {
		size[a], id[a], live[a] = 1, a, true
	}
	merges := make([]Merge, 0, n-1)
	for k := 0; k < n-1; k++ {
		ba, bb, best := -1, -1, math.Inf(1)
		for a := 0; a < n; a++ {
			if !live[a] {
				continue
			}
			for b := a + 1; b < n; b++ {
				if !live[b] {
					continue
				}
				if d := dist[a][b]; ba < 0 || d < best || (d == best && lessPair(id[a], id[b], id[ba], id[bb])) {
					ba, bb, best = a, b, d
				}
			}
		}
		lo, hi := min(id[ba], id[bb]), max(id[ba], id[bb])
		merges = append(merges, Merge{A: lo, B: hi, Height: best})
		// The merged cluster takes slot ba; slot bb dies.
		for c := 0; c < n; c++ {
			if live[c] && c != ba && c != bb {
				d := (float64(size[ba])*dist[ba][c] + float64(size[bb])*dist[bb][c]) / float64(size[ba]+size[bb])
				dist[ba][c], dist[c][ba] = d, d
			}
		}
		size[ba] += size[bb]
		id[ba] = n + k
		live[bb] = false
	}
	return merges
}

// lessPair orders cluster pairs (each given smallest first or not) by their
// smaller, then larger index.
func lessPair(a, b, c, d int) bool {
	p := [2]int{min(a, b), max(a, b)}
	q := [2]int{min(c, d), max(c, d)}
	return p[0] < q[0] || (p[0] == q[0] && p[1] < q[1])
}

// CutTaxonomy turns the dendrogram merges of points labelled labels[i]
// (one point per class, as ClassTaxonomy makes them) into a taxonomy by
// cutting it into levels[0] < levels[1] < … clusters: the top level's
// clusters are the root's children, each of them splits into its clusters
// at the next level where it splits at all, and the clusters of the last
// level hold their classes as leaves. A one-class cluster is a leaf.
// Children are ordered by their smallest label. Cutting by cluster counts,
// not heights, keeps a tree's shape when the heights shift a little (as
// they do between image sets).
func CutTaxonomy(merges []Merge, labels []int, levels []int) (*Taxonomy, error) {
	n := len(labels)
	if len(merges) != n-1 {
		return nil, fmt.Errorf("data: CutTaxonomy: %d merges for %d points, want %d", len(merges), n, n-1)
	}
	if len(levels) == 0 {
		return nil, fmt.Errorf("data: CutTaxonomy: levels must list at least one cluster count")
	}
	for i, c := range levels {
		if c < 2 || c >= n {
			return nil, fmt.Errorf("data: CutTaxonomy: levels[%d] must be a cluster count in [2, %d] (classes − 1), got %d", i, n-1, c)
		}
		if i > 0 && c <= levels[i-1] {
			return nil, fmt.Errorf("data: CutTaxonomy: levels must increase, got %d after %d", c, levels[i-1])
		}
	}
	// partition[l][i] is point i's cluster at level l (a representative
	// index), from a union-find replay of the first n − levels[l] merges.
	partition := make([][]int, len(levels))
	for l, c := range levels {
		parent := make([]int, 2*n-1)
		for i := range parent {
			parent[i] = i
		}
		find := func(i int) int {
			for parent[i] != i {
				i = parent[i]
			}
			return i
		}
		for k := 0; k < n-c; k++ {
			m := merges[k]
			if m.A < 0 || m.B < 0 || m.A >= n+k || m.B >= n+k || m.A == m.B {
				return nil, fmt.Errorf("data: CutTaxonomy: merge %d joins clusters %d and %d, want two distinct clusters below %d", k, m.A, m.B, n+k)
			}
			parent[find(m.A)] = n + k
			parent[find(m.B)] = n + k
		}
		partition[l] = make([]int, n)
		for i := range partition[l] {
			partition[l][i] = find(i)
		}
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	return cutBelow(all, 0, partition, labels), nil
}

// cutBelow builds the subtree of the points members from level l down.
func cutBelow(members []int, l int, partition [][]int, labels []int) *Taxonomy {
	if len(members) == 1 {
		return Leaf(labels[members[0]])
	}
	for ; l < len(partition); l++ {
		groups := map[int][]int{}
		for _, i := range members {
			groups[partition[l][i]] = append(groups[partition[l][i]], i)
		}
		if len(groups) < 2 {
			continue
		}
		parts := make([][]int, 0, len(groups))
		for _, g := range groups {
			parts = append(parts, g)
		}
		sort.Slice(parts, func(a, b int) bool { return minLabel(parts[a], labels) < minLabel(parts[b], labels) })
		node := Node()
		for _, g := range parts {
			node.Children = append(node.Children, cutBelow(g, l+1, partition, labels))
		}
		return node
	}
	leaves := slices.Clone(members)
	sort.Slice(leaves, func(a, b int) bool { return labels[leaves[a]] < labels[leaves[b]] })
	node := Node()
	for _, i := range leaves {
		node.Children = append(node.Children, Leaf(labels[i]))
	}
	return node
}

func minLabel(members []int, labels []int) int {
	m := math.MaxInt
	for _, i := range members {
		m = min(m, labels[i])
	}
	return m
}

// ClassTaxonomy clusters the classes of the images rows into a taxonomy
// (docs/datasets.md, "ALOI taxonomy"): each view is standardised over rows
// (columns to mean 0 and standard deviation 1; a constant column stays 0)
// and weighted by 1/√d, so that each view weighs the same whatever its
// dimension d; the classes' mean vectors over rows are clustered by
// AverageLinkage and the dendrogram cut into levels clusters (CutTaxonomy).
// It returns the taxonomy, the merges (over the classes in increasing label
// order) and those labels. Only the classes with an image in rows are
// clustered: a caller that needs every class checks the labels returned.
func ClassTaxonomy(views []*mat.Dense, labels []int, rows []int, levels []int) (*Taxonomy, []Merge, []int, error) {
	if len(views) == 0 || len(rows) == 0 {
		return nil, nil, nil, fmt.Errorf("data: ClassTaxonomy: needs at least one view and one image")
	}
	classOf := map[int]int{}
	for _, i := range rows {
		if i < 0 || i >= len(labels) {
			return nil, nil, nil, fmt.Errorf("data: ClassTaxonomy: image %d out of range [0, %d)", i, len(labels))
		}
		classOf[labels[i]] = 0
	}
	classes := slices.Sorted(maps.Keys(classOf))
	for c, l := range classes {
		classOf[l] = c
	}
	width := 0
	for v, x := range views {
		r, d := x.Dims()
		if r != len(labels) {
			return nil, nil, nil, fmt.Errorf("data: ClassTaxonomy: view %d has %d rows, want %d (one per label)", v+1, r, len(labels))
		}
		width += d
	}
	means := mat.NewDense(len(classes), width, nil)
	count := make([]float64, len(classes))
	for _, i := range rows {
		count[classOf[labels[i]]]++
	}
	off := 0
	for _, x := range views {
		_, d := x.Dims()
		w := 1 / math.Sqrt(float64(d))
		colMeans, sds := ColumnMeanStd(x, rows)
		for j, sd := range sds {
			if !(sd > 0) || math.IsInf(sd, 0) {
				continue // constant (or unusable) column: 0 for every class
			}
			for _, i := range rows {
				c := classOf[labels[i]]
				means.Set(c, off+j, means.At(c, off+j)+w*(x.At(i, j)-colMeans[j])/sd/count[c])
			}
		}
		off += d
	}
	merges := AverageLinkage(means)
	t, err := CutTaxonomy(merges, classes, levels)
	if err != nil {
		return nil, nil, nil, err
	}
	return t, merges, classes, nil
}

// DendrogramString writes merges over the labelled points as nested pairs
// with their heights, e.g. "((1, 2)@0.50, 3)@1.20", for notes and docs.
func DendrogramString(merges []Merge, labels []int) string {
	n := len(labels)
	name := make([]string, n+len(merges))
	for i, l := range labels {
		name[i] = fmt.Sprint(l)
	}
	for k, m := range merges {
		a, b := name[m.A], name[m.B]
		name[n+k] = fmt.Sprintf("(%s, %s)@%.2f", a, b, m.Height)
	}
	if len(merges) == 0 {
		if n == 1 {
			return name[0]
		}
		return ""
	}
	return name[n+len(merges)-1]
}

package query

import "github.com/mkpoe/mkpoe/pkg/eval"

// Format tags the JSON output of mkpoe query.
const Format = "mkpoe-query/1"

// Output is the answer to the queries of one space, and the JSON output of
// mkpoe query (docs/query.md). Fields are only ever added to this format,
// never renamed or removed.
type Output struct {
	Format     string   `json:"format"`
	Space      string   `json:"space"` // model, native or run
	Model      string   `json:"model,omitempty"`
	Kernels    []string `json:"kernels,omitempty"`
	KernelRows []string `json:"kernel_rows,omitempty"`
	Run        string   `json:"run,omitempty"`
	Row        string   `json:"row,omitempty"`
	Split      *int     `json:"split,omitempty"`
	K          int      `json:"k"`
	Candidates int      `json:"candidates"`
	Queries    []Result `json:"queries"`
}

// Result is one query item and its neighbours.
type Result struct {
	Query       string     `json:"query"`
	Index       int        `json:"index"`
	Name        string     `json:"name"`
	Kind        string     `json:"kind"`
	Ranked      int        `json:"ranked"` // the items it was ranked against
	Neighbors   []Neighbor `json:"neighbors"`
	TiedBeyondK int        `json:"tied_beyond_k"`
}

// Neighbor is one neighbour of a query item.
type Neighbor struct {
	Rank            int     `json:"rank"`
	Index           int     `json:"index"`
	Name            string  `json:"name"`
	Kind            string  `json:"kind"`
	Distance        float64 `json:"distance"`
	SquaredDistance float64 `json:"squared_distance"`
}

// Query returns the k nearest neighbours (k ≥ 1) of each item that queries
// name (see Resolve), nearest first, with the items tied with the k-th
// counted in TiedBeyondK (eval.Nearest). With no queries, every new item is
// queried, each under its name "new:q". It returns the first query that
// names no item of the space as an error, before ranking any.
func (sp *Space) Query(queries []string, k int) (*Output, error) {
	var at []int
	if len(queries) == 0 {
		for q := 0; q < sp.newItems; q++ {
			at = append(at, sp.total-sp.newItems+q)
			queries = append(queries, sp.names[sp.total-sp.newItems+q])
		}
	} else {
		for _, q := range queries {
			i, err := sp.Resolve(q)
			if err != nil {
				return nil, err
			}
			at = append(at, i)
		}
	}
	out := &Output{Format: Format, Space: sp.kind, K: k, Candidates: sp.candidates,
		Model: sp.model, Kernels: sp.kernels, KernelRows: sp.rows, Run: sp.run, Row: sp.row, Split: sp.split}
	for r, i := range at {
		nn, tied := eval.Nearest(sp.dist, sp.candidates, i, k)
		res := Result{Query: queries[r], Index: sp.index[i], Name: sp.names[i], Kind: sp.kinds[i], Ranked: sp.candidates, TiedBeyondK: tied, Neighbors: []Neighbor{}}
		if i < sp.candidates {
			res.Ranked-- // the item itself
		}
		for rank, nb := range nn {
			res.Neighbors = append(res.Neighbors, Neighbor{Rank: rank + 1, Index: sp.index[nb.Item], Name: sp.names[nb.Item],
				Kind: sp.kinds[nb.Item], Distance: nb.Distance(), SquaredDistance: nb.Squared})
		}
		out.Queries = append(out.Queries, res)
	}
	return out, nil
}

package constraint

import (
	"github.com/mkpoe/mkpoe/pkg/data"
)

// Dedup removes exact repeats: a comparison is dropped when an earlier one has
// the same [EdgeKey], that is the same near pair and the same far pair. Pairs
// are unordered, so (i,j,k,l) and (j,i,l,k) repeat each other; the first
// occurrence, as written, is kept. A contradiction (k,l,i,j) is not a repeat.
//
// kept and removed are in input order; cs is not modified. Dedup returns an
// error if cs fails [Validate].
func Dedup(cs []data.Comparison) (kept, removed []data.Comparison, err error) {
	if err := Validate(cs); err != nil {
		return nil, nil, err
	}
	seen := make(map[EdgeKey]struct{}, len(cs))
	keep := make([]bool, len(cs))
	for e, c := range cs {
		k := KeyOf(c)
		if _, dup := seen[k]; !dup {
			seen[k] = struct{}{}
			keep[e] = true
		}
	}
	kept, removed = split(cs, keep)
	return kept, removed, nil
}

// undirected returns the key of the unordered pair of vertices an edge joins,
// and whether the edge runs "forwards" (From < To).
func undirected(k EdgeKey) (EdgeKey, bool) {
	if k.From < k.To {
		return k, true
	}
	return EdgeKey{From: k.To, To: k.From}, false
}

// Length2 removes every length-2 cycle, as McFee & Lanckriet (2011,
// Sec. 5.2.4, Table 5 "Length-2") do: whenever both (i,j,k,l) and (k,l,i,j)
// occur, both are removed, together with all their repeats. Comparisons whose
// reverse never occurs are kept, repeats included.
//
// kept and removed are in input order; cs is not modified. Length2 returns an
// error if cs fails [Validate].
func Length2(cs []data.Comparison) (kept, removed []data.Comparison, err error) {
	if err := Validate(cs); err != nil {
		return nil, nil, err
	}
	votes := countVotes(cs)
	keep := make([]bool, len(cs))
	for e, c := range cs {
		u, _ := undirected(KeyOf(c))
		v := votes[u]
		keep[e] = v[0] == 0 || v[1] == 0
	}
	kept, removed = split(cs, keep)
	return kept, removed, nil
}

// countVotes counts, for each unordered pair of vertices, the comparisons in
// each direction: [0] for From→To, [1] for To→From of the undirected key.
func countVotes(cs []data.Comparison) map[EdgeKey][2]int {
	votes := make(map[EdgeKey][2]int, len(cs))
	for _, c := range cs {
		u, fwd := undirected(KeyOf(c))
		v := votes[u]
		if fwd {
			v[0]++
		} else {
			v[1]++
		}
		votes[u] = v
	}
	return votes
}

// Vote resolves repeated judgements of the same two pairs by majority, the
// refinement suggested in McFee & Lanckriet (2011, Sec. 5.2.4, footnote to the
// length-2 pruning): for each unordered pair of vertices {u,v} it counts the
// comparisons u→v and v→u, keeps the first occurrence of the majority
// direction and removes every other comparison of the two; on a tie it
// removes them all. On data without repeats Vote equals Length2 followed by
// Dedup.
//
// kept and removed are in input order; cs is not modified. Vote returns an
// error if cs fails [Validate].
func Vote(cs []data.Comparison) (kept, removed []data.Comparison, err error) {
	if err := Validate(cs); err != nil {
		return nil, nil, err
	}
	votes := countVotes(cs)
	done := make(map[EdgeKey]bool, len(votes))
	keep := make([]bool, len(cs))
	for e, c := range cs {
		u, fwd := undirected(KeyOf(c))
		v := votes[u]
		if v[0] == v[1] || done[u] {
			continue
		}
		if (v[0] > v[1]) == fwd {
			keep[e] = true
			done[u] = true
		}
	}
	kept, removed = split(cs, keep)
	return kept, removed, nil
}

// Degenerate removes the comparisons that no embedding can satisfy because
// their far pair is a single item, (i,j,m,m): they ask d(i,j) < d(m,m) = 0.
// Comparisons whose near pair is degenerate, (m,m,k,l), are kept: they ask
// d(k,l) > 0 (with the unit margin of McFee & Lanckriet 2011, Eq. 1,
// d(k,l)² > 1), which is a real constraint.
//
// This step is not in the paper; the aset400 triplets hold three such
// comparisons; the other steps keep them unless they happen to lie on a
// cycle. kept and removed are in input order; cs is not modified. Degenerate
// returns an error if cs fails [Validate].
func Degenerate(cs []data.Comparison) (kept, removed []data.Comparison, err error) {
	if err := Validate(cs); err != nil {
		return nil, nil, err
	}
	keep := make([]bool, len(cs))
	for e, c := range cs {
		keep[e] = c.K != c.L
	}
	kept, removed = split(cs, keep)
	return kept, removed, nil
}

package experiments

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Ranks is a learned row's rank key: one whole number (rank: 5 bounds W
// to rank 5; 0, or no key, is the convex fit with no bound,
// mkpoe.Settings.Rank), or a list of distinct ones (rank: [0, 2, 5, 10]),
// among which the inner cross-validation chooses with β: every cv task
// fits one rank over the β grid, and the refit fits the (rank, β) pair of
// the best mean inner accuracy (cv.ChooseRankBeta). A list of one value is
// that value: same label, task IDs and numbers.
type Ranks []int

// maxRanks bounds a row's list of ranks, as maxBetas bounds the grid:
// each rank is a sweep of the grid per inner fold.
const maxRanks = 20

// UnmarshalYAML reads a whole number or a list of them. Its errors are
// yaml.TypeErrors, so that decoding a config goes on past them (LoadConfig
// has reported them with their paths: shapeForm).
func (r *Ranks) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		var v int
		if err := n.Decode(&v); err != nil {
			return err
		}
		*r = Ranks{v}
		return nil
	case yaml.SequenceNode:
		var vs []int
		if err := n.Decode(&vs); err != nil {
			return err
		}
		if len(vs) == 0 {
			return typeError("line %d: rank: %s", n.Line, ranksForms)
		}
		*r = Ranks(vs)
		return nil
	}
	return typeError("line %d: rank: %s", n.Line, ranksForms)
}

// ranksForms says in words what rank may be.
const ranksForms = "a whole number ≥ 0 (0: convex, no rank bound) or a list of distinct ones such as [0, 2, 5, 10]"

// shapeForm tells LoadConfig's shape check (walkShape) the form of n: a
// whole number, or a non-empty list of them.
func (r *Ranks) shapeForm(n *yaml.Node) (reflect.Type, string) {
	switch {
	case n.Kind == yaml.ScalarNode:
		return reflect.TypeOf(0), ""
	case n.Kind == yaml.SequenceNode && len(n.Content) > 0:
		return reflect.TypeOf([]int(nil)), ""
	}
	return nil, ranksForms
}

// IsZero reports whether r is the convex fit written no other way (no
// key, rank: 0 or rank: [0]): the key is then left out of the config's
// YAML, as it was before lists, so that the hashes do not change.
func (r Ranks) IsZero() bool { return len(r) == 0 || (len(r) == 1 && r[0] == 0) }

// MarshalYAML writes one rank as a number (the form before lists) and
// several as a list.
func (r Ranks) MarshalYAML() (any, error) {
	if len(r) == 1 {
		return r[0], nil
	}
	return []int(r), nil
}

// many reports whether r lists several ranks for the inner CV to choose
// among.
func (r Ranks) many() bool { return len(r) > 1 }

// one is the rank of a row that has one (0: convex, no bound).
func (r Ranks) one() int {
	if len(r) == 0 {
		return 0
	}
	return r[0]
}

// list is every rank the row fits: one for a row of one rank.
func (r Ranks) list() []int {
	if len(r) == 0 {
		return []int{0}
	}
	return r
}

// sorted is a copy of the ranks in increasing order (a list's task
// inputs: the order it is written in changes no number).
func (r Ranks) sorted() []int {
	s := slices.Clone([]int(r))
	slices.Sort(s)
	return s
}

// labelSuffix is what a default label says of the ranks: " rank 5", "
// ranks 0,2,5" or nothing for the convex fit.
func (r Ranks) labelSuffix() string {
	if r.many() {
		parts := make([]string, len(r))
		for i, k := range r {
			parts[i] = strconv.Itoa(k)
		}
		return " ranks " + strings.Join(parts, ",")
	}
	if k := r.one(); k > 0 {
		return fmt.Sprintf(" rank %d", k)
	}
	return ""
}

// path is the YAML path of rank number i of row at (rows[n]): the key
// itself for one rank.
func (r Ranks) path(at string, i int) string {
	if r.many() {
		return fmt.Sprintf("%s.rank[%d]", at, i)
	}
	return at + ".rank"
}

// validateRanks checks a learned row's list of ranks: at most maxRanks,
// none twice. Each value is checked with the solver settings
// (validateSolver).
func validateRanks(ps *problems, r Ranks, at string) {
	if len(r) > maxRanks {
		ps.bad(at+".rank", fmt.Sprintf("must list at most %d ranks", maxRanks), len(r))
		return
	}
	for i, k := range r {
		if j := slices.Index(r[:i], k); j >= 0 {
			ps.bad(r.path(at, i), fmt.Sprintf("must not repeat a rank (%s is %d too)", r.path(at, j), k), k)
		}
	}
}

// withRank is row r fitting rank k alone: the row whose task inputs a
// cv task of rank k has, shared with a row of that one rank.
func (row RowConfig) withRank(k int) RowConfig {
	row.Rank = Ranks{k}
	if k == 0 {
		row.Rank = nil
	}
	return row
}

// String is the ranks as a config writes them: 5, or [0, 2, 5].
func (r Ranks) String() string {
	if !r.many() {
		return strconv.Itoa(r.one())
	}
	parts := make([]string, len(r))
	for i, k := range r {
		parts[i] = strconv.Itoa(k)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

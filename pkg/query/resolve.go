package query

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// maxSuggestions bounds the candidates an unknown or ambiguous name lists.
const maxSuggestions = 10

// Resolve returns the item of the space that a user's query q names: an
// integer is an index as the user numbers items (for a run: items.json's;
// "name:N" forces a name); otherwise a name or id, matched whole, first
// exactly, then ignoring case. A name that matches several items or none
// is an error listing the candidates (for none: the names that contain it,
// ignoring case), as is an item the space does not hold.
func (sp *Space) Resolve(q string) (int, error) {
	u, err := sp.lookup(q)
	if err != nil {
		return 0, err
	}
	for i, g := range sp.index {
		if g == u {
			return i, nil
		}
	}
	return 0, fmt.Errorf("--item %q: item %d%s %s", q, u, sp.quoted(u), sp.absent(u))
}

// quoted returns ` "name"` for user item u, or "" if it has no name.
func (sp *Space) quoted(u int) string {
	if sp.userNames[u] == "" {
		return ""
	}
	return " " + strconv.Quote(sp.userNames[u])
}

// lookup returns the user index that q names.
func (sp *Space) lookup(q string) (int, error) {
	n := len(sp.userNames)
	if i, err := strconv.Atoi(q); err == nil {
		if i < 0 || i >= n {
			return 0, fmt.Errorf("--item %s: an index must be in 0..%d (0-based), got %d%s", q, n-1, i, sp.nameHint(q))
		}
		return i, nil
	}
	name := strings.TrimPrefix(q, "name:")
	if strings.TrimSpace(name) == "" {
		return 0, fmt.Errorf("--item %q: give a 0-based index or a name", q)
	}
	for _, same := range []func(a, b string) bool{func(a, b string) bool { return a == b }, strings.EqualFold} {
		var hits []int
		for i := 0; i < n; i++ {
			if same(sp.userNames[i], name) || (sp.userIDs != nil && same(sp.userIDs[i], name)) {
				hits = append(hits, i)
			}
		}
		switch {
		case len(hits) == 1:
			return hits[0], nil
		case len(hits) > 1:
			return 0, fmt.Errorf("--item %q: %d items have this name, give an index: %s", q, len(hits), sp.list(hits))
		}
	}
	var near []int
	lower := strings.ToLower(name)
	for i := 0; i < n; i++ {
		if strings.Contains(strings.ToLower(sp.userNames[i]), lower) || (sp.userIDs != nil && strings.Contains(strings.ToLower(sp.userIDs[i]), lower)) {
			near = append(near, i)
		}
	}
	if sp.userIDs == nil && allEmpty(sp.userNames) {
		return 0, fmt.Errorf("--item %q: the items have no names (give --items FILE to name them), so query by 0-based index", q)
	}
	msg := fmt.Sprintf("--item %q: no item has this name (matched whole, ignoring case)", q)
	if len(near) == 0 {
		msg += ", and no name contains it"
	} else {
		msg += "; names containing it: " + sp.list(near)
	}
	if close := sp.closeNames(lower); len(close) > 0 {
		msg += "; did you mean " + sp.list(close) + "?"
	}
	return 0, errors.New(msg)
}

// closeNames returns the items whose names are nearest to lower (a
// lower-case name) in edit distance, ignoring case, if that distance is
// small for its length: at most 1 + len/5 edits, 3 at most ("Metalica"
// finds "Metallica").
func (sp *Space) closeNames(lower string) []int {
	limit := min(3, 1+len([]rune(lower))/5)
	best, items := limit+1, []int(nil)
	for i, name := range sp.userNames {
		if name == "" {
			continue
		}
		switch d := editDistance(lower, strings.ToLower(name)); {
		case d > limit:
		case d < best:
			best, items = d, []int{i}
		case d == best:
			items = append(items, i)
		}
	}
	return items
}

// editDistance is the Levenshtein distance between a and b: the fewest
// insertions, deletions and substitutions of a rune that turn a into b.
func editDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	prev, cur := make([]int, len(t)+1), make([]int, len(t)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(s); i++ {
		cur[0] = i
		for j := 1; j <= len(t); j++ {
			sub := prev[j-1]
			if s[i-1] != t[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(t)]
}

// nameHint says, for an out-of-range integer that is also a name, how to
// look the name up.
func (sp *Space) nameHint(q string) string {
	for _, s := range [][]string{sp.userNames, sp.userIDs} {
		for _, name := range s {
			if name == q {
				return fmt.Sprintf(" (an item is named %s: write --item name:%s)", q, q)
			}
		}
	}
	return ""
}

// list formats user items as `12 "name"`, at most maxSuggestions of them.
func (sp *Space) list(items []int) string {
	var parts []string
	for r, i := range items {
		if r == maxSuggestions {
			parts = append(parts, fmt.Sprintf("and %d more", len(items)-maxSuggestions))
			break
		}
		parts = append(parts, fmt.Sprintf("%d%s", i, sp.quoted(i)))
	}
	return strings.Join(parts, ", ")
}

func allEmpty(s []string) bool {
	for _, x := range s {
		if x != "" {
			return false
		}
	}
	return true
}

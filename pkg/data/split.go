package data

// ItemSplit numbers the items of a train/held-out split the way a fitted
// model sees them: training item train[r] becomes r, held-out item test[q]
// becomes len(train)+q (new items are embedded after the training items,
// Sec. 4.3 of McFee & Lanckriet 2011).
type ItemSplit struct {
	pos    map[int]int
	nTrain int
}

// NewItemSplit returns the numbering of train followed by test (global item
// indices, disjoint).
func NewItemSplit(train, test []int) ItemSplit {
	pos := make(map[int]int, len(train)+len(test))
	for r, i := range train {
		pos[i] = r
	}
	for r, i := range test {
		pos[i] = len(train) + r
	}
	return ItemSplit{pos: pos, nTrain: len(train)}
}

// IsTrain reports whether global item i is a training item.
func (s ItemSplit) IsTrain(i int) bool { p, ok := s.pos[i]; return ok && p < s.nTrain }

// IsHeldOut reports whether global item i is a held-out item.
func (s ItemSplit) IsHeldOut(i int) bool { p, ok := s.pos[i]; return ok && p >= s.nTrain }

// Renumber maps a comparison of global items to the split's numbering. Every
// item of c must belong to the split.
func (s ItemSplit) Renumber(c Comparison) Comparison {
	return Comparison{I: s.pos[c.I], J: s.pos[c.J], K: s.pos[c.K], L: s.pos[c.L]}
}

// SplitComparisons returns, renumbered by NewItemSplit(train, test) and in
// their original order, the training comparisons (all four items training)
// and the held-out comparisons: triplets (i,j,i,k) with i held out and j, k
// training items, the protocol of Sec. 5.1 and 5.2.2 (a held-out item is
// compared through the training items it is embedded against). Other
// comparisons are dropped.
func SplitComparisons(cs []Comparison, train, test []int) (trainCs, heldCs []Comparison) {
	s := NewItemSplit(train, test)
	for _, c := range cs {
		switch {
		case s.IsTrain(c.I) && s.IsTrain(c.J) && s.IsTrain(c.K) && s.IsTrain(c.L):
			trainCs = append(trainCs, s.Renumber(c))
		case c.IsTriplet() && s.IsHeldOut(c.I) && s.IsTrain(c.J) && s.IsTrain(c.L):
			heldCs = append(heldCs, s.Renumber(c))
		}
	}
	return trainCs, heldCs
}

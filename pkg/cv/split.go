package cv

import (
	"math/rand/v2"
	"slices"
)

// OuterSplit returns outer split s of n items: a permutation drawn with
// rand.NewPCG(seed, 1000+s), whose first round(n·testFraction) items (at
// least one) are held out. Different splits use different permutations: the
// repeated random splits of Sec. 5.1. Both lists are sorted.
func OuterSplit(n int, testFraction float64, seed uint64, s int) (train, test []int) {
	rng := rand.New(rand.NewPCG(seed, 1000+uint64(s)))
	perm := rng.Perm(n)
	nt := int(float64(n)*testFraction + 0.5)
	if nt < 1 {
		nt = 1
	}
	test = append([]int(nil), perm[:nt]...)
	train = append([]int(nil), perm[nt:]...)
	slices.Sort(test)
	slices.Sort(train)
	return train, test
}

// InnerFold returns inner fold f of the training items train of outer split
// s: the items are dealt into folds folds by a permutation drawn with
// rand.NewPCG(seed, 2000+s); fold f is the validation set, the other folds
// the inner training set. Over f = 0..folds−1 the validation sets partition
// train. Both lists are sorted.
func InnerFold(train []int, folds int, seed uint64, s, f int) (innerTrain, val []int) {
	rng := rand.New(rand.NewPCG(seed, 2000+uint64(s)))
	perm := rng.Perm(len(train))
	for r, p := range perm {
		if r%folds == f {
			val = append(val, train[p])
		} else {
			innerTrain = append(innerTrain, train[p])
		}
	}
	slices.Sort(innerTrain)
	slices.Sort(val)
	return innerTrain, val
}

// PartitionFold returns outer split s of a partition of n units into k
// folds: fold s is held out, the rest trains. The units of each stratum
// (strata[i] is unit i's label; nil: one stratum) are permuted with
// rand.NewPCG(seed, 3000), strata in increasing label order, and dealt
// round robin over the folds, the count running on from one stratum to the
// next: every unit is held out in exactly one split, each stratum's units
// are spread over the folds as evenly as possible (sizes differ by at most
// one), and fold sizes differ by at most one. Both lists are sorted.
func PartitionFold(n, k int, strata []int, seed uint64, s int) (train, test []int) {
	byLabel := map[int][]int{}
	for i := 0; i < n; i++ {
		l := 0
		if strata != nil {
			l = strata[i]
		}
		byLabel[l] = append(byLabel[l], i)
	}
	labels := make([]int, 0, len(byLabel))
	for l := range byLabel {
		labels = append(labels, l)
	}
	slices.Sort(labels)
	rng := rand.New(rand.NewPCG(seed, 3000))
	deal := 0
	for _, l := range labels {
		units := byLabel[l]
		for _, p := range rng.Perm(len(units)) {
			if deal%k == s {
				test = append(test, units[p])
			} else {
				train = append(train, units[p])
			}
			deal++
		}
	}
	slices.Sort(test)
	slices.Sort(train)
	return train, test
}

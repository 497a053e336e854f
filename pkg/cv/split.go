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

package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/mkpoe/mkpoe/pkg/data"
)

// The kinds of problem: a planted set of -sizes, or a crowd set of -sets.
const (
	kindPlanted    = "planted"
	kindMaterial   = "material"
	kindPerceptual = "perceptual"
)

// problem is one data set the benchmark runs on.
type problem struct {
	Kind string
	Size size   // planted: n and the triplets generated
	Path string // material: the folder of the two JSON files; perceptual: one raw file
	Name string // the table's and the log's label; "" for a planted set
}

// label names the problem in the log.
func (p problem) label() string {
	if p.Name != "" {
		return p.Name
	}
	return fmt.Sprintf("n=%d", p.Size.N)
}

// parseSets reads -sets: comma-separated "material:DIR" (DIR holds
// answers_processed_{train,test}.json) or "perceptual:PATH", PATH one raw
// triplet file (<palette>-<task>.txt) or a folder holding all 12, run in
// the order of data.PerceptualPalettes × data.PerceptualTasks.
func parseSets(s string) ([]problem, error) {
	var out []problem
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		kind, path, ok := strings.Cut(f, ":")
		if !ok || path == "" {
			return nil, fmt.Errorf("-sets: %q is not kind:PATH (material:DIR or perceptual:FILE|DIR)", f)
		}
		switch kind {
		case kindMaterial:
			out = append(out, problem{Kind: kind, Path: path, Name: "material"})
		case kindPerceptual:
			st, err := os.Stat(path)
			if err != nil {
				return nil, fmt.Errorf("-sets: %w", err)
			}
			if !st.IsDir() {
				out = append(out, problem{Kind: kind, Path: path, Name: "perceptual " + strings.TrimSuffix(filepath.Base(path), ".txt")})
				continue
			}
			for _, pal := range data.PerceptualPalettes {
				for _, task := range data.PerceptualTasks {
					name := pal + "-" + task
					out = append(out, problem{Kind: kind, Path: filepath.Join(path, name+".txt"), Name: "perceptual " + name})
				}
			}
		default:
			return nil, fmt.Errorf("-sets: unknown kind %q in %q (want material or perceptual)", kind, f)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-sets: no sets in %q", s)
	}
	return out, nil
}

// load returns the problem's number of items and its training and
// held-out triplets. A planted set's first 80% train (splitTrainTest);
// the material set keeps its authors' split, one triplet per query by
// majority with ties dropped (data.MaterialAnswers.Majority); a
// perceptual set pools its subjects' triplets and holds out 20% by a
// shuffle seeded with seed (shuffleSplit).
func (p problem) load(seed uint64) (n int, train, test []data.Comparison, err error) {
	switch p.Kind {
	case kindMaterial:
		m, err := data.LoadMaterial(p.Path)
		if err != nil {
			return 0, nil, nil, err
		}
		train, _ = m.Train.Majority()
		test, _ = m.Test.Majority()
		return m.N, train, test, nil
	case kindPerceptual:
		pk, err := data.ReadPerceptualFile(p.Path)
		if err != nil {
			return 0, nil, nil, err
		}
		train, test = shuffleSplit(pk.Triplets(), seed)
		return pk.N(), train, test, nil
	}
	pl, err := data.GeneratePlanted(data.PlantedSpec{N: p.Size.N, Dim: 5, Triplets: p.Size.Triplets, Flip: 0.1, Seed: seed})
	if err != nil {
		return 0, nil, nil, err
	}
	train, test = splitTrainTest(pl.Triplets)
	return p.Size.N, train, test, nil
}

// shuffleSplit shuffles a copy of cs with a PCG generator seeded by seed
// (a stream of its own, not the CV folds') and returns its first ⌊0.8·m⌋
// comparisons as the training set and the rest as the held-out set.
func shuffleSplit(cs []data.Comparison, seed uint64) (train, test []data.Comparison) {
	s := append([]data.Comparison(nil), cs...)
	rand.New(rand.NewPCG(seed, 0x5eed_0de1)).Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	return splitTrainTest(s)
}

// dataText describes, for the header, how each kind of problem in probs
// was split.
func dataText(probs []problem, seed uint64) string {
	var parts []string
	seen := map[string]bool{}
	for _, p := range probs {
		if seen[p.Kind] {
			continue
		}
		seen[p.Kind] = true
		switch p.Kind {
		case kindPlanted:
			parts = append(parts, fmt.Sprintf("Planted sets (dim 5, flip 0.1, seed %d), first 80%% of the triplets train, last 20%% held out", seed))
		case kindMaterial:
			parts = append(parts, "material set (Lagunas et al. 2019): the authors' train/test split, one triplet per query by majority, ties dropped")
		case kindPerceptual:
			parts = append(parts, fmt.Sprintf("perceptual-kernel sets (Demiralp et al. 2014): the 20 subjects' palette triplets pooled "+
				"(practice triplets and catch trials dropped), 20%% held out by a shuffle seeded %d", seed))
		}
	}
	return strings.Join(parts, "; ")
}

// stdErr is the standard error of a held-out accuracy p measured on m
// comparisons, √(p(1−p)/m).
func stdErr(p float64, m int) float64 {
	return math.Sqrt(p * (1 - p) / float64(m))
}

// inSE writes the difference d in standard errors se ("+1.2 SE"), or
// says why it cannot where se is 0 (a cblearn accuracy of exactly 0 or 1).
func inSE(d, se float64) string {
	if !(se > 0) {
		return "no SE (cblearn p is 0 or 1)"
	}
	return fmt.Sprintf("%+.1f SE", d/se)
}

// summaryLines compares, per problem, the held-out accuracy of mkpoe's CV
// choice (the row with Choice set) with the best cblearn row (the best of
// its fits on the held-out set itself) and, with -peer-cv, with cblearn's
// own CV choice, each in standard errors of a held-out accuracy on the
// problem's held-out comparisons, √(p(1−p)/m) at that cblearn row's p.
func summaryLines(rows []row) []string {
	var out []string
	for i, r := range rows {
		if !r.Choice || len(r.Accuracy) == 0 {
			continue
		}
		best, cv := -1, -1
		for j := i + 1; j < len(rows) && rows[j].Size == r.Size && rows[j].Set == r.Set; j++ {
			switch {
			case rows[j].Certs != nil || len(rows[j].Accuracy) == 0:
			case rows[j].PeerCV:
				cv = j
			case best < 0 || mean(rows[j].Accuracy) > mean(rows[best].Accuracy):
				best = j
			}
		}
		if best < 0 || r.Test == 0 {
			continue
		}
		name := r.Set
		if name == "" {
			name = fmt.Sprintf("n = %d", r.Size.N)
		}
		p, q := mean(r.Accuracy), mean(rows[best].Accuracy)
		se := stdErr(q, r.Test)
		line := fmt.Sprintf("%s: CV's choice %.4f, best cblearn (%s) %.4f, difference %+.4f = %s (SE √(p(1−p)/m) = %.4f at the cblearn p, m = %d held out)",
			name, p, strings.TrimPrefix(rows[best].Method, "cblearn "), q, p-q, inSE(p-q, se), se, r.Test)
		if cv >= 0 {
			c := mean(rows[cv].Accuracy)
			sc := stdErr(c, r.Test)
			line += fmt.Sprintf("; cblearn's CV choice (%s) %.4f, difference %+.4f = %s (SE %.4f)",
				strings.Join(rows[cv].Chosen, "; "), c, p-c, inSE(p-c, sc), sc)
		}
		out = append(out, line)
	}
	return out
}

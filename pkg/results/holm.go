package results

import (
	"math"
	"slices"

	"github.com/mkpoe/mkpoe/pkg/stats"
)

// FamilyRun is one run's claims, named, for HolmFamilies.
type FamilyRun struct {
	Name   string
	Claims []Claim
}

// Family is a set of claims adjusted together: those of the runs Runs
// that cite the paper's place Name ("" for none), M of them with a
// clustered p-value.
type Family struct {
	Name string
	M    int
	Runs []string
}

// HolmFamilies adjusts the claims of several runs of one build over
// families that cross runs: the claims citing the same paper place
// (Claim.Paper, e.g. "Table 3") are one family, those citing none ("")
// another. Each claim's clustered p-value is Holm-adjusted over its family
// (stats.Holm), so a claim listed by two configs is adjusted over the same
// m in both. It returns the runs' claims, copied, with HolmP, HolmM and
// Holds (the clustered interval above 0 and HolmP < 0.05) set by the
// family, and the families in order of first appearance. Claims without a
// clustered interval keep HolmP nil and Holds false.
func HolmFamilies(runs []FamilyRun) ([][]Claim, []Family) {
	out := make([][]Claim, len(runs))
	type ref struct{ run, claim int }
	var fams []Family
	members := map[string][]ref{}
	for r, run := range runs {
		out[r] = slices.Clone(run.Claims)
		for i, cl := range run.Claims {
			out[r][i].HolmP, out[r][i].HolmM, out[r][i].Holds = nil, 0, false
			k := slices.IndexFunc(fams, func(f Family) bool { return f.Name == cl.Paper })
			if k < 0 {
				fams = append(fams, Family{Name: cl.Paper})
				k = len(fams) - 1
			}
			if !slices.Contains(fams[k].Runs, run.Name) {
				fams[k].Runs = append(fams[k].Runs, run.Name)
			}
			members[cl.Paper] = append(members[cl.Paper], ref{r, i})
		}
	}
	for k, f := range fams {
		refs := members[f.Name]
		p := make([]float64, len(refs))
		for j, m := range refs {
			p[j] = math.NaN()
			if c := runs[m.run].Claims[m.claim].Clustered; c != nil {
				p[j] = c.P
				fams[k].M++
			}
		}
		for j, h := range stats.Holm(p) {
			if math.IsNaN(h) {
				continue
			}
			c := &out[refs[j].run][refs[j].claim]
			c.HolmP, c.HolmM = &h, fams[k].M
			c.Holds = c.Clustered.Lo > 0 && h < 0.05
		}
	}
	return out, fams
}

package experiments

import (
	"context"
	"fmt"
	"slices"

	"github.com/mkpoe/mkpoe/pkg/eval"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// RecheckClaims recomputes the claims of a finished run from its summary
// alone, for a run whose task files are gone (a committed results/<config>/
// keeps summary.json, not tasks/): for every row a claim compares and every
// split it rebuilds the test outcomes and their anchors as the run's native
// or refit task did — a learned row refitted at the β the summary records
// for that split, which is all a refit takes from its cv tasks — checks
// that each split's tally (right, ties, wrong) is the summary's exactly,
// and then computes the claims as Merge does (checkClaim with the same
// seeds, holmClaims). An error names the first row and split whose tally
// differs: those outcomes would not be the run's, and no claim is
// returned. The config hash is not compared (it changes with fields that
// no task reads); the tallies are the check. logf, if not nil, reports each row and split as it is done.
func RecheckClaims(ctx context.Context, c *Config, s *results.Summary, logf func(format string, args ...any)) ([]results.Claim, error) {
	if s.Name != c.Name || s.Splits != c.Protocol.Splits || len(s.Rows) != len(c.Rows) {
		return nil, fmt.Errorf("recheck: the summary (%s, %d splits, %d rows) is not a run of config %s (%d splits, %d rows)", s.Name, s.Splits, len(s.Rows), c.Name, c.Protocol.Splits, len(c.Rows))
	}
	var used []string
	for _, cl := range c.Claims {
		for _, l := range []string{cl.Better, cl.Worse} {
			if !slices.Contains(used, l) {
				used = append(used, l)
			}
		}
	}
	ds, err := loadDataset(c)
	if err != nil {
		return nil, err
	}
	byID := map[string]results.TaskResult{}
	for ri, row := range c.Rows {
		if !slices.Contains(used, row.Label) {
			continue
		}
		sr := &s.Rows[ri]
		if sr.Label != row.Label || len(sr.TestTallies) != c.Protocol.Splits {
			return nil, fmt.Errorf("recheck: row %d of the summary is %q with %d split tallies, the config's %q", ri, sr.Label, len(sr.TestTallies), row.Label)
		}
		kidx := c.rowKernels(row)
		for sp := 0; sp < c.Protocol.Splits; sp++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			f, err := taskFold(c, ds, row, kidx, taskFoldID(results.Task{Kind: KindNative, Split: sp, Fold: -1}))
			if err != nil {
				return nil, err
			}
			kind := KindNative
			var os []eval.Outcome
			if row.Method == "native" {
				os = nativeOutcomes(f, kidx)
			} else {
				kind = KindRefit
				if len(sr.Beta) != c.Protocol.Splits {
					return nil, fmt.Errorf("recheck: row %q records β for %d of %d splits", row.Label, len(sr.Beta), c.Protocol.Splits)
				}
				fitAs := row
				if row.Rank.many() { // the rank chosen with β
					if len(sr.Rank) != c.Protocol.Splits {
						return nil, fmt.Errorf("recheck: row %q records its rank for %d of %d splits", row.Label, len(sr.Rank), c.Protocol.Splits)
					}
					fitAs = row.withRank(sr.Rank[sp])
				}
				m, err := (&rowTrial{c: c, row: fitAs, f: f, kidx: kidx}).Fit(ctx, sr.Beta[sp], nil)
				if err != nil {
					return nil, fmt.Errorf("recheck: row %q split %d β=%g: %w", row.Label, sp, sr.Beta[sp], err)
				}
				if os, _, err = learnedOutcomesEmbedding(m, f, kidx); err != nil {
					return nil, err
				}
			}
			got, want := tally(eval.Count(os)), sr.TestTallies[sp]
			if got != want {
				return nil, fmt.Errorf("recheck: row %q split %d: the outcomes tally %+v, the summary %+v", row.Label, sp, got, want)
			}
			byID[c.rowTaskID(kind, row, sp, -1)] = results.TaskResult{TestComparisons: len(os), TestOutcomes: string(os), TestAnchors: testAnchors(f)}
			if logf != nil {
				logf("%s split %d: %d right, %d ties, %d wrong, as the summary", row.Label, sp, got.Right, got.Ties, got.Wrong)
			}
		}
	}
	var cs []results.Claim
	for i, cl := range c.Claims {
		cs = append(cs, checkClaim(c, cl, byID, c.Seed*1_000_033+uint64(i)))
	}
	holmClaims(cs)
	return cs, nil
}

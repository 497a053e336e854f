package report

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/mkpoe/mkpoe/pkg/results"
)

// loadCost reads results/<cfg>/cost.json (written by `mkpoe cost`); an
// error when the config has none, or when it measured another version of
// the config than its summary's.
func (d *resultsDoc) loadCost(cfg string) (*results.CostReport, error) {
	r, err := d.load(cfg)
	if err != nil {
		return nil, err
	}
	name := path.Join(cfg, results.CostFile)
	b, err := fs.ReadFile(d.fsys, name)
	if err != nil {
		return nil, fmt.Errorf("config %q: %w (mkpoe cost configs/%s.yaml --rows … --out results/%s/%s)", cfg, err, cfg, cfg, results.CostFile)
	}
	c, err := results.DecodeCost(b, name)
	if err != nil {
		return nil, err
	}
	if c.ConfigHash != r.summary.ConfigHash {
		return nil, fmt.Errorf("config %q: cost.json is of config hash %s, summary.json of %s", cfg, c.ConfigHash, r.summary.ConfigHash)
	}
	return c, nil
}

// cpucost is the table of {{cpucost "cfg" "cheaper" "dearer" ...}}: for
// each pair of rows, the process CPU time per repeat of the measured cv
// tasks, the ratios and the cut (results.CompareCost), then each row's
// CPU time per iteration by solver stage.
func (d *resultsDoc) cpucost(cfg string, pairs ...string) (string, error) {
	c, err := d.loadCost(cfg)
	if err != nil {
		return "", err
	}
	if len(pairs) == 0 || len(pairs)%2 != 0 {
		return "", fmt.Errorf("cpucost %q: rows must come in pairs (cheaper, dearer), got %d", cfg, len(pairs))
	}
	var b, st strings.Builder
	b.WriteString("| Cheaper row | Dearer row | Iterations per repeat | CPU time per repeat | Ratio per repeat | Cut (median) | Cheaper in every repeat |\n|---|---|---|---|---|---|---|\n")
	st.WriteString("| Row | Stage | Iterations per repeat | CPU time per repeat | Per iteration |\n|---|---|---|---|---|\n")
	for i := 0; i < len(pairs); i += 2 {
		cut, err := results.CompareCost(c, pairs[i], pairs[i+1])
		if err != nil {
			return "", fmt.Errorf("cpucost %q: %w", cfg, err)
		}
		fmt.Fprintf(&b, "| %s | %s | %s against %s | %s against %s | %s | %.0f%% | %s |\n", mdEscape(cut.Cheaper), mdEscape(cut.Dearer),
			thousands(cut.Iterations[0]), thousands(cut.Iterations[1]), secondsList(cut.CPU[0]), secondsList(cut.CPU[1]), ratioList(cut.Ratios), 100*cut.Cut, map[bool]string{true: "yes", false: "no"}[cut.Holds])
		for k, label := range []string{cut.Cheaper, cut.Dearer} {
			for _, s := range cut.Stages[k] {
				per := "—"
				if s.Iterations > 0 {
					per = fmt.Sprintf("%.1f ms", 1000*s.PerIteration())
				}
				fmt.Fprintf(&st, "| %s | %s | %d | %s | %s |\n", mdEscape(label), s.Stage, s.Iterations, cpuSeconds(s.CPUSeconds), per)
			}
		}
	}
	folds := fmt.Sprintf("inner folds 0–%d", c.Folds-1)
	if c.Folds == 1 {
		folds = "inner fold 0"
	}
	fmt.Fprintf(&b, "\nProcess CPU time of the cv tasks of split %d, %s (every β of the grid), run one at a time and interleaved over %d repeats (`mkpoe cost`, %s). By solver stage (mean over repeats; setup is a fit's time outside its iterations):\n\n",
		c.Split, folds, c.Repeats, costBuild(c))
	return b.String() + strings.TrimSuffix(st.String(), "\n"), nil
}

// cpucut is {{cpucut "cfg" "cheaper" "dearer"}}: the median cut of CPU
// time, with the two rows' median CPU time and the ratios' range.
func (d *resultsDoc) cpucut(cfg, cheaper, dearer string) (string, error) {
	c, err := d.loadCost(cfg)
	if err != nil {
		return "", err
	}
	cut, err := results.CompareCost(c, cheaper, dearer)
	if err != nil {
		return "", fmt.Errorf("cpucut %q: %w", cfg, err)
	}
	lo, hi := cut.Ratios[0], cut.Ratios[0]
	for _, q := range cut.Ratios {
		lo, hi = min(lo, q), max(hi, q)
	}
	return fmt.Sprintf("%.0f%% (ratios %.2f–%.2f over %d repeats)", 100*cut.Cut, lo, hi, c.Repeats), nil
}

func costBuild(c *results.CostReport) string {
	s := c.LinalgBackend
	if c.OpenBLASCore != "" {
		s += " " + c.OpenBLASCore
	}
	s += fmt.Sprintf(", GOMAXPROCS %d", c.GOMAXPROCS)
	if len(c.Commit) >= 7 {
		s += ", commit " + c.Commit[:7]
		if c.Dirty != nil && *c.Dirty {
			s += " with uncommitted changes"
		}
	}
	return s
}

// cpuSeconds is a CPU time to 3 significant digits.
func cpuSeconds(sec float64) string { return fmt.Sprintf("%.3g s", sec) }

func secondsList(x []float64) string {
	s := make([]string, len(x))
	for i, v := range x {
		s[i] = cpuSeconds(v)
	}
	return strings.Join(s, ", ")
}

func ratioList(x []float64) string {
	s := make([]string, len(x))
	for i, v := range x {
		s[i] = fmt.Sprintf("%.2f", v)
	}
	return strings.Join(s, ", ")
}

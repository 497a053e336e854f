package cli

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mkpoe/mkpoe/experiments"

	"github.com/mkpoe/mkpoe/pkg/results"
)

// TestUnconvergedFitsAreMarked runs the tiny config twice: as is (every fit
// certifies solver.tol) and with solver.max_iter: 2 (no fit can), and checks
// every output a person reads: the console of "mkpoe run", "mkpoe status",
// summary.json, table.md, and the report's table.md, table.tex and HTML.
// Unconverged fits must be marked everywhere; converged runs must not be.
func TestUnconvergedFitsAreMarked(t *testing.T) {
	notConv := strings.Replace(tinyConfig, "solver: {tol: 0.01}", "solver: {tol: 0.01, max_iter: 2}", 1)
	if notConv == tinyConfig {
		t.Fatal("tinyConfig no longer has the solver line this test edits")
	}
	type outputs struct {
		stdout, stderr, status, statusJSON string
		summary                            results.Summary
		files                              map[string]string // relative path → content
	}
	runConfig := func(t *testing.T, yaml string) outputs {
		cfg := writeFile(t, t.TempDir(), "tiny.yaml", yaml)
		dir := filepath.Join(t.TempDir(), "run")
		var o outputs
		var code int
		code, o.stdout, o.stderr = run("run", cfg, "--out", dir, "--workers", "2")
		if code != ExitOK {
			t.Fatalf("run: exit %d\n%s", code, o.stderr)
		}
		if code, o.status, _ = run("status", dir); code != ExitOK {
			t.Fatalf("status: exit %d", code)
		}
		if code, o.statusJSON, _ = run("status", dir, "--json"); code != ExitOK {
			t.Fatalf("status --json: exit %d", code)
		}
		// A task file newer than the summary (a task rerun after the
		// merge): complete, but the summary is stale.
		tasks, _ := filepath.Glob(filepath.Join(dir, "tasks", "*.json"))
		later := time.Now().Add(time.Minute)
		if err := os.Chtimes(tasks[0], later, later); err != nil {
			t.Fatal(err)
		}
		if _, stale, _ := run("status", dir); !strings.Contains(stale, "complete, not merged yet: mkpoe merge ") {
			t.Errorf("status after a newer task file:\n%s", stale)
		}
		if err := json.Unmarshal(readFile(t, filepath.Join(dir, "summary.json")), &o.summary); err != nil {
			t.Fatal(err)
		}
		o.files = map[string]string{}
		for _, f := range []string{"summary.json", "table.md", "report/table.md", "report/table.tex", "report/report.html", "report/report.ipynb"} {
			o.files[f] = string(readFile(t, filepath.Join(dir, f)))
		}
		return o
	}

	learned := map[string]bool{"both K1 diag": true, "both K4 diag": true, "both K4 full": true}
	for _, test := range []struct {
		name      string
		yaml      string
		converged bool
		// want: substrings per output ("stdout", "stderr", "status" or a file).
		want map[string][]string
	}{
		{
			name: "max_iter 2: not converged",
			yaml: notConv,
			want: map[string][]string{
				"stdout": {"| both K4 full | good + junk | ", " † | ", "† not converged: certified gap above tolerance (solver.tol 0.01)",
					"- both K4 full: 10 of 10 fits not converged (max gap "},
				"stderr": {"{cv 4 0 0} ok ", ": not converged (gap ", "at β=1, gap ", "2 of 2 fits above tol 0.01)",
					"{refit 4 1 -1} ok ", "1 of 1 fits above tol 0.01)"},
				"status": {"22 tasks: 22 done, 0 missing, 0 failed\n", "18 done tasks not converged (certified gap above solver.tol 0.01",
					"  4 {cv 2 0 0}: not converged (gap ", "  21 {refit 4 1 -1}: not converged (gap "},
				"summary.json":        {`"unconverged_fits": 10`, `"fits": 10`, `"max_gap": `, `"solver_tol": 0.01`},
				"table.md":            {" † |", "† not converged: certified gap above tolerance"},
				"report/table.md":     {"0.920 ± 0.028†", "† Not converged: certified gap above tolerance (0.01)", "† 10 of 10 fits not converged (max gap "},
				"report/table.tex":    {`$^\dagger$ &`, `$^\dagger$ Not converged: certified gap above tolerance (0.01)`},
				"report/report.html":  {`<sup class="unconverged" title="not converged: certified gap above tolerance">†</sup>`, `<td class="unconverged">† 10 of 10 fits not converged`},
				"report/report.ipynb": {"†"},
			},
		},
		{
			name:      "converged",
			yaml:      tinyConfig,
			converged: true,
			want: map[string][]string{
				"stdout":          {"| both K4 full | good + junk | "},
				"status":          {"22 tasks: 22 done, 0 missing, 0 failed\ncomplete: ", "/summary.json\n"},
				"summary.json":    {`"unconverged_fits": 0`, `"fits": 10`},
				"report/table.md": {"| all converged (max gap "},
			},
		},
	} {
		t.Run(test.name, func(t *testing.T) {
			o := runConfig(t, test.yaml)
			get := func(name string) string {
				switch name {
				case "stdout":
					return o.stdout
				case "stderr":
					return o.stderr
				case "status":
					return o.status
				}
				return o.files[name]
			}
			c := configOf(t, test.yaml)
			for name, wants := range test.want {
				for _, w := range wants {
					w = expandIDs(c, w)
					if !strings.Contains(get(name), w) {
						t.Errorf("%s lacks %q:\n%s", name, w, get(name))
					}
				}
			}
			// The structured outputs, row by row and task by task.
			for _, r := range o.summary.Rows {
				switch {
				case !learned[r.Label]:
					if r.Fits != nil || r.UnconvergedFits != nil || r.MaxGap != nil || r.NotConverged() {
						t.Errorf("native row %s has convergence fields", r.Label)
					}
				case r.Fits == nil || r.UnconvergedFits == nil || r.MaxGap == nil:
					t.Errorf("learned row %s lacks convergence fields", r.Label)
				case *r.Fits != 10:
					t.Errorf("row %s: %d fits, want 10 (2 splits × (2 folds × 2 β + 1 refit))", r.Label, *r.Fits)
				case test.converged && (*r.UnconvergedFits != 0 || *r.MaxGap > 0.01):
					t.Errorf("row %s: %d unconverged fits, max gap %g; want 0 and ≤ 0.01", r.Label, *r.UnconvergedFits, *r.MaxGap)
				case !test.converged && (*r.UnconvergedFits != 10 || *r.MaxGap <= 0.01):
					t.Errorf("row %s: %d unconverged fits, max gap %g; want 10 and > 0.01", r.Label, *r.UnconvergedFits, *r.MaxGap)
				}
			}
			var st experiments.RunState
			if err := json.Unmarshal([]byte(o.statusJSON), &st); err != nil {
				t.Fatal(err)
			}
			wantTasks := 18 // 12 cv + 6 refits of the learned rows
			if test.converged {
				wantTasks = 0
			}
			if st.Done != 22 || len(st.NotConverged) != wantTasks || st.ConvergenceUnknown != 0 {
				t.Errorf("status --json: done %d, not converged %d (want 22, %d), unknown %d", st.Done, len(st.NotConverged), wantTasks, st.ConvergenceUnknown)
			}
			// Native rows are never marked; a converged run nowhere.
			for _, line := range strings.Split(o.files["table.md"], "\n") {
				if strings.Contains(line, " native |") && strings.Contains(line, "†") {
					t.Errorf("native row marked: %s", line)
				}
			}
			if test.converged {
				for name, text := range map[string]string{"stdout": o.stdout, "stderr": o.stderr, "status": o.status,
					"table.md": o.files["table.md"], "report/table.md": o.files["report/table.md"], "report/table.tex": o.files["report/table.tex"],
					"report/report.html": o.files["report/report.html"]} {
					if strings.Contains(text, "†") || strings.Contains(text, "dagger") || regexp.MustCompile(`(?i)not converged`).MatchString(text) {
						t.Errorf("%s of a converged run mentions non-convergence:\n%s", name, text)
					}
				}
			}
		})
	}
}

// TestStationaryFitsAreMarked runs the tiny config with its K4 full row at
// rank 1: fits that stop at a stationary point of the rank-bounded problem
// are converged but not certified. Every output a person reads must say
// so (‡ and a footnote; stationary_fits; fits.csv's status), and none may
// count them as certified or as failures (†, "not converged").
func TestStationaryFitsAreMarked(t *testing.T) {
	yaml := strings.Replace(tinyConfig, "{method: k4, group: both, mode: full}", "{method: k4, group: both, mode: full, rank: 1}", 1)
	if yaml == tinyConfig {
		t.Fatal("tinyConfig no longer has the K4 full row this test edits")
	}
	const label = "both K4 full rank 1"
	dir := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := run("run", writeFile(t, t.TempDir(), "tiny.yaml", yaml), "--out", dir, "--workers", "2")
	if code != ExitOK {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	_, status, _ := run("status", dir)
	_, statusJSON, _ := run("status", dir, "--json")
	files := map[string]string{"stdout": stdout, "stderr": stderr, "status": status}
	for _, f := range []string{"summary.json", "provenance.json", "table.md", "fits.csv", "table.csv", "report/table.md", "report/table.tex", "report/report.html"} {
		files[f] = string(readFile(t, filepath.Join(dir, f)))
	}
	for name, wants := range map[string][]string{
		"stdout":             {"| " + label + " | good + junk | ", " ‡ | ", "‡ stationary: fits that stopped at a stationary point (of a rank bound's non-convex problem; or the subgradient method's stall), not certified", "- " + label + ": "},
		"table.md":           {" ‡ |", "‡ stationary: "},
		"stderr":             {" ok ", ": stationary, not certified (", " fits, max gap "},
		"summary.json":       {`"stationary_fits": `},
		"provenance.json":    {`"stationary_fits": `},
		"report/table.md":    {"‡ Stationary: fits stopped at a stationary point (a rank bound; the subgradient method's stall), not certified", "| ‡ ", " fits stationary, "},
		"report/table.tex":   {`$^\ddagger$ Stationary`},
		"report/report.html": {`<sup class="stationary"`},
		"fits.csv":           {",true,stationary,"},
	} {
		for _, w := range wants {
			if !strings.Contains(files[name], w) {
				t.Errorf("%s lacks %q:\n%s", name, w, files[name])
			}
		}
	}
	// Stationary fits are no failures.
	for name, text := range files {
		if name == "fits.csv" || name == "table.csv" {
			continue
		}
		if strings.Contains(text, "†") || strings.Contains(text, `\dagger`) || regexp.MustCompile(`(?i)not converged`).MatchString(text) {
			t.Errorf("%s marks stationary fits as not converged:\n%s", name, text)
		}
	}
	var st experiments.RunState
	if err := json.Unmarshal([]byte(statusJSON), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.NotConverged) != 0 {
		t.Errorf("status --json lists %d tasks not converged, want none", len(st.NotConverged))
	}
	var sum results.Summary
	if err := json.Unmarshal([]byte(files["summary.json"]), &sum); err != nil {
		t.Fatal(err)
	}
	for _, r := range sum.Rows {
		switch {
		case r.Label == label:
			if r.Fits == nil || *r.Fits != 10 || r.UnconvergedFits == nil || *r.UnconvergedFits != 0 || r.Stationary() == 0 || r.Stationary() > *r.Fits {
				t.Errorf("row %s: fits %v, unconverged %v, stationary %v; want 10, 0 and some stationary", r.Label, r.Fits, r.UnconvergedFits, r.StationaryFits)
			}
		case r.StationaryFits != nil:
			t.Errorf("convex row %s has stationary_fits %d", r.Label, *r.StationaryFits)
		}
	}
	// fits.csv: stationary lines are the rank row's, converged with a gap
	// above solver.tol; every other line is certified within it.
	recs, err := csv.NewReader(strings.NewReader(files["fits.csv"])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	stationary := 0
	for _, rec := range recs[1:] {
		gap, _ := strconv.ParseFloat(rec[col["gap"]], 64)
		switch s := rec[col["status"]]; {
		case s == "stationary":
			stationary++
			if rec[col["label"]] != label || rec[col["converged"]] != "true" || !(gap > 0.01) {
				t.Errorf("fits.csv: stationary line %v: want the rank row's, converged, gap above 0.01", rec)
			}
		case s != "certified" || !(gap <= 0.01) || rec[col["converged"]] != "true":
			t.Errorf("fits.csv: line %v: want certified within 0.01", rec)
		}
	}
	for _, r := range sum.Rows {
		if r.Label == label && stationary != r.Stationary() {
			t.Errorf("fits.csv has %d stationary lines, summary.json %d", stationary, r.Stationary())
		}
	}
}

// TestConvergenceOfOldTaskFiles: task files written before convergence was
// recorded (no "converged" field) make the row's convergence unknown, not
// "converged": summary.json omits the fields, table.md says so, and status
// counts them apart.
func TestConvergenceOfOldTaskFiles(t *testing.T) {
	c := loadTiny(t, filepath.Join(t.TempDir(), "run"))
	if _, err := experiments.Run(t.Context(), c, experiments.RunOptions{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	// Strip "converged" from one cv task of row 3 (K4 diag), as an older
	// mkpoe wrote it.
	p := filepath.Join(c.Output, "tasks", expandIDs(c, "{cv 3 0 1}")+".json")
	var raw map[string]any
	if err := json.Unmarshal(readFile(t, p), &raw); err != nil {
		t.Fatal(err)
	}
	if _, ok := raw["converged"]; !ok {
		t.Fatalf("%s has no converged field", p)
	}
	delete(raw, "converged")
	b, _ := json.MarshalIndent(raw, "", "  ")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := experiments.Merge(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range s.Rows {
		unknown := r.Label == "both K4 diag"
		if got := r.UnconvergedFits == nil && r.Fits == nil && r.MaxGap == nil; got != (unknown || r.Method == "native") {
			t.Errorf("row %s: convergence fields present %v, want %v", r.Label, !got, !unknown && r.Method != "native")
		}
	}
	if md := experiments.SummaryMarkdown(s); !strings.Contains(md, "Convergence not recorded (task files written by an older mkpoe) for: both K4 diag\n") || strings.Contains(md, "†") {
		t.Errorf("table.md:\n%s", md)
	}
	st := experiments.Status(c)
	if st.ConvergenceUnknown != 1 || len(st.NotConverged) != 0 {
		t.Errorf("status: %d unknown, %d not converged; want 1, 0", st.ConvergenceUnknown, len(st.NotConverged))
	}
}

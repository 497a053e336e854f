package cli

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock returns a clock that starts at a fixed time and advances by
// step at every reading.
func fakeClock(step time.Duration) func() time.Time {
	var calls atomic.Int64
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	return func() time.Time { return t0.Add(time.Duration(calls.Add(1)-1) * step) }
}

// TestFitProgress runs "mkpoe fit" with a made-up clock: a fit shorter
// than the delay prints nothing on stderr; a longer one (each reading of
// the clock a minute later) ends its progress with the fit's final state,
// the same numbers as the model file, and every line it printed has the
// documented form (docs/progress.md). The models are identical.
func TestFitProgress(t *testing.T) {
	saved := clock
	defer func() { clock = saved }()
	dir, kernel, comps, _ := fitFixture(t)
	line := regexp.MustCompile(`^fit: (\d+m\d\ds|\d+h\d\dm|\d+s), (setting up \(no iteration yet\)|iteration \d+, (accelerated|interior-point), objective \S+, certified gap \d\.\de[-+]\d\d \(target 1\.0e-03\))$`)
	models := map[string][]byte{}
	for _, test := range []struct {
		name  string
		step  time.Duration
		quiet bool
		flags []string
	}{
		{"fast fit: quiet", 0, true, nil},
		{"slow fit: progress lines", time.Minute, false, nil},
		{"slow fit with --progress-every 0: quiet", time.Minute, true, []string{"--progress-every", "0"}},
	} {
		t.Run(test.name, func(t *testing.T) {
			clock = fakeClock(test.step)
			model := filepath.Join(dir, strings.ReplaceAll(test.name, " ", "_")+".json")
			code, _, stderr := run(append([]string{"fit", "--kernel", kernel, "--comparisons", comps, "--beta", "10", "--tol", "1e-3", "--out", model}, test.flags...)...)
			if code != ExitOK {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			m, err := readModel(model)
			if err != nil {
				t.Fatal(err)
			}
			m.Stats.Seconds = 0
			var b strings.Builder
			if err := m.WriteJSON(&b); err != nil {
				t.Fatal(err)
			}
			models[test.name] = []byte(b.String())
			if test.quiet {
				if stderr != "" {
					t.Errorf("a fast fit printed %q on stderr, want nothing", stderr)
				}
				return
			}
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			for _, l := range lines {
				if !line.MatchString(l) {
					t.Errorf("line %q does not have the documented form", l)
				}
			}
			last := lines[len(lines)-1]
			want := fmt.Sprintf("iteration %d, STAGE, objective %.6g, certified gap %.1e (target 1.0e-03)", m.Stats.Iterations, m.Objective, (m.Objective-m.Stats.DualBound)/m.Objective)
			if got := regexp.MustCompile(`^fit: \S+, `).ReplaceAllString(last, ""); strings.Replace(got, "interior-point", "STAGE", 1) != want && strings.Replace(got, "accelerated", "STAGE", 1) != want {
				t.Errorf("last line %q, want the model's final state %q", last, want)
			}
			if len(lines) == 1 && !strings.HasPrefix(last, "fit: 1m00s, ") {
				t.Errorf("the only line %q: want it a minute (one clock reading) after the start", last)
			}
		})
	}
	for name, m := range models {
		if string(m) != string(models["fast fit: quiet"]) {
			t.Errorf("%s: the model differs from the quiet fit's", name)
		}
	}
}

// TestRunProgressLines runs the tiny experiment with --progress-every 1ms
// (a run lasts far longer, so blocks come) and checks every stderr line
// against the documented forms (docs/progress.md): the phase and task
// lines, and progress blocks whose fits count up to the plan's 30 fits
// (2 β × 2 folds × 2 splits × 3 learned rows, and 6 refits) and whose ETA
// is known once a fit is done.
func TestRunProgressLines(t *testing.T) {
	cfg := writeFile(t, t.TempDir(), "tiny.yaml", tinyConfig)
	code, _, stderr := run("run", cfg, "--out", filepath.Join(t.TempDir(), "run"), "--no-report", "--workers", "2", "--progress-every", "1ms")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var (
		phase   = regexp.MustCompile(`^phase [01]: \d+ tasks on 2 workers$`)
		warning = regexp.MustCompile(`^mkpoe: warning: OpenBLAS .+$`) // linalg.BLASAdvice
		task    = regexp.MustCompile(`^\[\d+/\d+\] (native|cv|refit)-\S+ ok \d+\.\ds$`)
		block   = regexp.MustCompile(`^progress: (\d+)/30 fits \(\d+%\), (\d+)/22 tasks, \S+ elapsed, (ETA \S+|ETA unknown \(nothing comparable done yet\))$`)
		running = regexp.MustCompile(`^  running (native|cv|refit)-\S+: \S+, (no fit \(native space\)|\d/\d fits done, preparing|fit \d/\d \(β=\d+\), (setting up \(no iteration yet\)|iteration \d+, accelerated, objective \S+, (certified gap \S+|no certificate yet)|iteration \d+, interior-point, .*))$`)
	)
	blocks, lastFits := 0, 0
	for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		switch {
		case phase.MatchString(l), task.MatchString(l), running.MatchString(l), warning.MatchString(l):
		case block.MatchString(l):
			blocks++
			m := block.FindStringSubmatch(l)
			fits := atoi(t, m[1])
			if fits < lastFits {
				t.Errorf("fits done fell from %d to %d: %q", lastFits, fits, l)
			}
			lastFits = fits
			if (fits > 0) != (m[3] != "ETA unknown (nothing comparable done yet)") {
				t.Errorf("%q: an ETA must be known exactly once a fit is done", l)
			}
		default:
			t.Errorf("line %q has none of the documented forms", l)
		}
	}
	if blocks == 0 {
		t.Errorf("no progress block in\n%s", stderr)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

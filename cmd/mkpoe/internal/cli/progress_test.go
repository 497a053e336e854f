package cli

import (
	"fmt"
	"path/filepath"
	"regexp"
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
	}{
		{"fast fit: quiet", 0, true},
		{"slow fit: progress lines", time.Minute, false},
	} {
		t.Run(test.name, func(t *testing.T) {
			clock = fakeClock(test.step)
			model := filepath.Join(dir, strings.Fields(test.name)[0]+".json")
			code, _, stderr := run("fit", "--kernel", kernel, "--comparisons", comps, "--beta", "10", "--tol", "1e-3", "--out", model)
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
	if a, b := models["fast fit: quiet"], models["slow fit: progress lines"]; string(a) != string(b) {
		t.Errorf("the models differ with and without progress lines")
	}
}

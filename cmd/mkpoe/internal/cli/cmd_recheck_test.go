package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecheckCommittedRun: mkpoe recheck recomputes a committed run's
// claims from its summary alone and prints them beside the summary's,
// equal here (aset400_gap_cf: native rows, under a second); without
// --write it changes no file. A missing --results is a usage error.
func TestRecheckCommittedRun(t *testing.T) {
	if _, err := os.Stat(filepath.Join(repoRoot, "data", "aset400")); err != nil {
		t.Skip("data/ absent: run scripts/fetch_aset400.sh (or with --mirror ../shared/data)")
	}
	dir := filepath.Join(repoRoot, "results", "aset400_gap_cf")
	before := readFile(t, filepath.Join(dir, "summary.json"))
	code, out, errs := run("recheck", filepath.Join(repoRoot, "configs", "aset400_gap_cf.yaml"), "--results", dir, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(out, "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[1], "  summary:    ") || strings.TrimPrefix(lines[1], "  summary:    ") != strings.TrimPrefix(lines[2], "  recomputed: ") {
		t.Errorf("the recomputed claim differs from the committed one:\n%s", out)
	}
	if !strings.Contains(out, "(one split)") {
		t.Errorf("no design named:\n%s", out)
	}
	if string(readFile(t, filepath.Join(dir, "summary.json"))) != string(before) {
		t.Error("recheck without --write changed summary.json")
	}
	if code, _, errs := run("recheck", filepath.Join(repoRoot, "configs", "aset400_gap_cf.yaml")); code != ExitUsage || !strings.Contains(errs, "--results DIR is required") {
		t.Errorf("no --results: exit %d: %s", code, errs)
	}
}

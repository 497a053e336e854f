package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDataPrepare: "mkpoe data prepare aloi DIR --out OUT" writes the ALOI
// files (identical to the curators' copy in ../shared/data) and says so;
// bad command lines and missing originals exit 2 with a sentence.
func TestDataPrepare(t *testing.T) {
	setDir := filepath.Join(t.TempDir(), "aset400") // a data set's folder, not the tree
	if err := os.MkdirAll(filepath.Join(setDir, "original"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"data"}, "usage: mkpoe data prepare SET DIR"},
		{[]string{"data", "prepare", "aloi"}, "usage: mkpoe data prepare SET DIR"},
		{[]string{"data", "fetch", "aloi", "x"}, "usage: mkpoe data prepare SET DIR"},
		{[]string{"data", "prepare", "mnist", "x"}, `unknown data set "mnist": want one of aset400, lastfm, aloi`},
		{[]string{"data", "prepare", "aloi", t.TempDir()}, "aloi10/original/ALOI_UIMC.mat: the original must be in place (run scripts/fetch_aloi.sh), got no such file"},
		{[]string{"data", "prepare", "aset400", setDir}, setDir + " holds original/: give the data tree that holds the data sets' folders (e.g. data), not a data set's folder"},
	} {
		code, _, stderr := run(tc.args...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, want 2 with %q:\n%s", tc.args, code, tc.want, stderr)
		}
	}

	shared := filepath.Join(repoRoot, "..", "shared", "data")
	if _, err := os.Stat(filepath.Join(shared, "aloi10", "original")); err != nil {
		t.Skipf("../shared/data not available (%v)", err)
	}
	out := t.TempDir()
	code, stdout, stderr := run("data", "prepare", "--out", out, "aloi", shared)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if n := strings.Count(stdout, "wrote "); n != 7 || !strings.Contains(stdout, filepath.Join(out, "aloi10", "labels.tsv")) {
		t.Errorf("stdout names %d files, want 7 with labels.tsv:\n%s", n, stdout)
	}
	got, err := os.ReadFile(filepath.Join(out, "aloi10", "view4_13d_haralick_like.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := os.ReadFile(filepath.Join(shared, "aloi10", "view4_13d_haralick_like.tsv")); !bytes.Equal(got, want) {
		t.Error("view4_13d_haralick_like.tsv differs from ../shared/data's")
	}
}

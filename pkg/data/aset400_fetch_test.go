package data

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runFetch runs scripts/<script> --mirror <mirror> --dest <dest> and returns
// its combined output and exit code.
func runFetch(t *testing.T, script, mirror, dest string) (string, int) {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not available")
	}
	cmd := exec.Command(bash, filepath.Join("..", "..", "scripts", script), "--mirror", mirror, "--dest", dest)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.String(), 0
	case errors.As(err, &ee):
		return out.String(), ee.ExitCode()
	}
	t.Fatalf("running %s: %v", script, err)
	return "", -1
}

// checkMirrored checks that every file under shared/<sub> was placed at
// dest/<sub> with the same SHA-256, so the script's manifest covers the tree.
func checkMirrored(t *testing.T, shared, dest string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		root := filepath.Join(shared, sub)
		n := 0
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(shared, path)
			want, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			got, err := os.ReadFile(filepath.Join(dest, rel))
			if err != nil {
				t.Errorf("%s not placed: %v", rel, err)
				return nil
			}
			if sha256.Sum256(got) != sha256.Sum256(want) {
				t.Errorf("%s: placed file differs from the mirror", rel)
			}
			n++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Errorf("no files under %s", root)
		}
	}
}

func TestFetchAset400Mirror(t *testing.T) {
	shared := filepath.Dir(fetchedData(t, "aset400"))
	fetchedData(t, "lastfm-hetrec2011")
	dest := t.TempDir()
	out, code := runFetch(t, "fetch_aset400.sh", shared, dest)
	if code != 0 {
		t.Fatalf("exit status %d:\n%s", code, out)
	}
	checkMirrored(t, shared, dest, "aset400", "lastfm-hetrec2011")
	if _, err := LoadAset400(filepath.Join(dest, "aset400")); err != nil {
		t.Error(err)
	}
	if _, err := LoadLastFM(filepath.Join(dest, "lastfm-hetrec2011")); err != nil {
		t.Error(err)
	}
	// A second run keeps the verified files.
	out, code = runFetch(t, "fetch_aset400.sh", shared, dest)
	if code != 0 || !strings.Contains(out, "ok (already in place) aset400/triplets.tsv") {
		t.Errorf("second run: exit status %d:\n%s", code, out)
	}
}

func TestFetchAset400MirrorChecksumMismatch(t *testing.T) {
	shared := filepath.Dir(fetchedData(t, "aset400"))
	fetchedData(t, "lastfm-hetrec2011")
	// A mirror of symbolic links to the real files, with one file corrupted.
	mirror := t.TempDir()
	for _, sub := range []string{"aset400", "lastfm-hetrec2011"} {
		err := filepath.WalkDir(filepath.Join(shared, sub), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(shared, path)
			abs, _ := filepath.Abs(path)
			os.MkdirAll(filepath.Dir(filepath.Join(mirror, rel)), 0o755)
			return os.Symlink(abs, filepath.Join(mirror, rel))
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	bad := filepath.Join(mirror, "aset400", "triplets.tsv")
	os.Remove(bad)
	if err := os.WriteFile(bad, []byte("1\t2\t3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dest := t.TempDir()
	out, code := runFetch(t, "fetch_aset400.sh", mirror, dest)
	if code != 1 || !strings.Contains(out, "aset400/triplets.tsv: checksum mismatch") {
		t.Errorf("exit status %d, want 1 with a checksum mismatch for triplets.tsv:\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dest, "aset400", "triplets.tsv")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("corrupted triplets.tsv was placed (stat: %v)", err)
	}
}

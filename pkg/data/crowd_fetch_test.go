package data

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// manifestRow matches one row of a fetch script's MANIFEST: path, pin, URL.
var manifestRow = regexp.MustCompile(`(?m)^  "([^|"]+)\|([0-9a-f]{64})\|([^"]+)"$`)

// crowdScripts are the fetch scripts of the crowd sets, with the number of
// files each places and the commit its URLs pin.
var crowdScripts = []struct {
	script string
	files  int
	commit string
}{
	{"fetch_material.sh", 3, "e5fccab94462f8b245e29818a31e83253369db6e"},
	{"fetch_perceptual_kernels.sh", 13, "eda46ab3d4018e42ef77746e8750777613531238"},
}

// standInScript copies scripts/<script> and scripts/lib into a temp dir
// with every pin replaced by that of a small stand-in file, written flat
// into the returned originals folder. It returns the copied script, the
// originals folder and the stand-ins by path.
func standInScript(t *testing.T, script string) (string, string, map[string][]byte) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "scripts", script))
	if err != nil {
		t.Fatal(err)
	}
	root, originals := t.TempDir(), t.TempDir()
	if err := os.CopyFS(filepath.Join(root, "scripts", "lib"), os.DirFS(filepath.Join("..", "..", "scripts", "lib"))); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	text := string(src)
	for _, m := range manifestRow.FindAllStringSubmatch(string(src), -1) {
		rel, pin := m[1], m[2]
		body := []byte(fmt.Sprintf("stand-in for %s\n", rel))
		sum := sha256.Sum256(body)
		text = strings.Replace(text, pin, hex.EncodeToString(sum[:]), 1)
		files[rel] = body
		if err := os.WriteFile(filepath.Join(originals, filepath.Base(rel)), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(root, "scripts", script)
	if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	return path, originals, files
}

// runScript runs bash script args... and returns its output and exit code.
func runScript(t *testing.T, script string, args ...string) (string, int) {
	t.Helper()
	out, err := exec.Command("bash", append([]string{script}, args...)...).CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(out), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

// TestFetchCrowdManifests: each crowd script pins every file by a raw
// GitHub URL at its commit, and, when the set has been fetched into data/,
// the pins are the fetched files' checksums.
func TestFetchCrowdManifests(t *testing.T) {
	for _, cs := range crowdScripts {
		src, err := os.ReadFile(filepath.Join("..", "..", "scripts", cs.script))
		if err != nil {
			t.Fatal(err)
		}
		rows := manifestRow.FindAllStringSubmatch(string(src), -1)
		if len(rows) != cs.files {
			t.Errorf("%s: %d manifest rows, want %d", cs.script, len(rows), cs.files)
		}
		for _, m := range rows {
			if !strings.HasPrefix(m[3], "https://raw.githubusercontent.com/") || !strings.Contains(m[3], "/"+cs.commit+"/") {
				t.Errorf("%s: %s: URL %s is not a raw GitHub URL at %s", cs.script, m[1], m[3], cs.commit)
			}
			b, err := os.ReadFile(filepath.Join("..", "..", "data", m[1]))
			if err != nil {
				continue // not fetched here
			}
			if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != m[2] {
				t.Errorf("%s: data/%s does not match its pin", cs.script, m[1])
			}
		}
	}
}

// TestFetchCrowdOriginals runs each crowd script, its pins replaced by
// those of small stand-in files, with --originals (the stand-ins side by
// side) and --dest: every file is placed under its path; a second run
// keeps them; a corrupted original fails with exit status 1 and is not
// placed; --mirror (a tree laid out like data/) places them too.
func TestFetchCrowdOriginals(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not available")
	}
	for _, cs := range crowdScripts {
		script, originals, files := standInScript(t, cs.script)
		if len(files) != cs.files {
			t.Fatalf("%s: %d stand-ins, want %d", cs.script, len(files), cs.files)
		}
		dest := t.TempDir()
		if out, code := runScript(t, script, "--originals", originals, "--dest", dest); code != 0 {
			t.Fatalf("%s --originals: exit status %d:\n%s", cs.script, code, out)
		}
		for rel, want := range files {
			if got, err := os.ReadFile(filepath.Join(dest, rel)); err != nil || string(got) != string(want) {
				t.Errorf("%s: %s placed as %q (%v), want %q", cs.script, rel, got, err, want)
			}
		}
		out, code := runScript(t, script, "--originals", originals, "--dest", dest)
		if code != 0 || strings.Count(out, "ok (already in place)") != cs.files {
			t.Errorf("%s second run: exit status %d, want every file kept:\n%s", cs.script, code, out)
		}
		var victim string
		for rel := range files {
			victim = rel
			break
		}
		if err := os.WriteFile(filepath.Join(originals, filepath.Base(victim)), []byte("corrupted\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		fresh := t.TempDir()
		out, code = runScript(t, script, "--originals", originals, "--dest", fresh)
		if code != 1 || !strings.Contains(out, victim+": checksum mismatch") {
			t.Errorf("%s with %s corrupted: exit status %d, want 1 with a checksum mismatch:\n%s", cs.script, victim, code, out)
		}
		if _, err := os.Stat(filepath.Join(fresh, victim)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: corrupted %s was placed (stat: %v)", cs.script, victim, err)
		}
		mirrored := t.TempDir()
		if out, code := runScript(t, script, "--mirror", dest, "--dest", mirrored); code != 0 {
			t.Errorf("%s --mirror: exit status %d:\n%s", cs.script, code, out)
		}
		checkMirrored(t, dest, mirrored, filepath.Dir(victim))
	}
}

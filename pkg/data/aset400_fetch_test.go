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

// runFetch runs scripts/<script> --mirror <mirror> --dest <dest> [extra...]
// and returns its combined output and exit code.
func runFetch(t *testing.T, script, mirror, dest string, extra ...string) (string, int) {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not available")
	}
	cmd := exec.Command(bash, append([]string{filepath.Join("..", "..", "scripts", script), "--mirror", mirror, "--dest", dest}, extra...)...)
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

// TestFetchOriginals is what a user outside the lab does: in a copy of the
// module with no ../shared beside it, both fetch scripts, given
// --originals (a folder holding only the original files, side by side,
// standing in for the network), place every file under the copy's data/:
// the originals, and the derived files made by "go run ./cmd/mkpoe data
// prepare", each byte-identical to the curators' copy; the loaders read
// them. A second run keeps every file.
func TestFetchOriginals(t *testing.T) {
	shared := sharedData(t)
	if testing.Short() {
		t.Skip("builds mkpoe in a copy of the module (about 30 s)")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not on PATH")
	}
	clone := filepath.Join(t.TempDir(), "clone")
	for _, p := range []string{"cmd", "pkg", "internal", "experiments", "scripts"} {
		if err := os.CopyFS(filepath.Join(clone, p), os.DirFS(filepath.Join("..", "..", p))); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join("..", "..", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(clone, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	originals := t.TempDir()
	for _, rel := range []string{Aset400Dir + "/" + Aset400TripletsMat, Aset400Dir + "/" + Aset400LabelsMat, Aset400Dir + "/" + Aset400CblearnList,
		ALOIDir + "/" + ALOIMat, LastFMDir + "/artists.dat", LastFMDir + "/tags.dat", LastFMDir + "/user_artists.dat",
		LastFMDir + "/user_taggedartists.dat", LastFMDir + "/readme.txt"} {
		abs, _ := filepath.Abs(filepath.Join(shared, rel))
		if err := os.Symlink(abs, filepath.Join(originals, filepath.Base(rel))); err != nil {
			t.Fatal(err)
		}
	}
	fetch := func(script string) (string, int) {
		cmd := exec.Command("bash", filepath.Join(clone, "scripts", script), "--originals", originals)
		cmd.Dir = t.TempDir()
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return out.String(), ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), 0
	}
	for _, script := range []string{"fetch_aset400.sh", "fetch_aloi.sh"} {
		if out, code := fetch(script); code != 0 {
			t.Fatalf("%s --originals: exit status %d:\n%s", script, code, out)
		}
	}
	dest := filepath.Join(clone, "data")
	n := 0
	for _, set := range PrepareSets {
		for _, rel := range derivedFiles[set] {
			got, err := os.ReadFile(filepath.Join(dest, rel))
			if err != nil {
				t.Errorf("%s not placed: %v", rel, err)
				continue
			}
			if want, _ := os.ReadFile(filepath.Join(shared, rel)); !bytes.Equal(got, want) {
				t.Errorf("%s differs from the curators' copy", rel)
			}
			n++
		}
	}
	if n != 11 {
		t.Errorf("%d derived files checked, want 11", n)
	}
	for _, sub := range []string{Aset400Dir, LastFMDir, ALOIDir} {
		if b, err := os.ReadFile(filepath.Join(dest, sub, "SOURCE.txt")); err != nil || !bytes.Contains(b, []byte("Written by `mkpoe data prepare")) {
			t.Errorf("%s/SOURCE.txt: %v, starts %.60q", sub, err, b)
		}
	}
	if _, err := LoadAset400(filepath.Join(dest, Aset400Dir)); err != nil {
		t.Error(err)
	}
	if _, err := LoadLastFM(filepath.Join(dest, LastFMDir)); err != nil {
		t.Error(err)
	}
	if _, err := LoadALOI(filepath.Join(dest, ALOIDir)); err != nil {
		t.Error(err)
	}
	out, code := fetch("fetch_aset400.sh")
	if code != 0 || !strings.Contains(out, "ok (already in place) aset400/genre_labels.tsv") || strings.Contains(out, "deriving") {
		t.Errorf("second run: exit status %d, want 0 with every file kept:\n%s", code, out)
	}
}

// TestFetchOriginalsWithoutGo: with no Go on PATH the script places the
// original, says how to get the rest, and exits 3; --mirror with
// --originals is a usage error (2).
func TestFetchOriginalsWithoutGo(t *testing.T) {
	shared := sharedData(t)
	originals := t.TempDir()
	abs, _ := filepath.Abs(filepath.Join(shared, ALOIDir, ALOIMat))
	if err := os.Symlink(abs, filepath.Join(originals, "ALOI_UIMC.mat")); err != nil {
		t.Fatal(err)
	}
	var path []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, "go")); err != nil {
			path = append(path, dir)
		}
	}
	dest := t.TempDir()
	cmd := exec.Command("bash", filepath.Join("..", "..", "scripts", "fetch_aloi.sh"), "--originals", originals, "--dest", dest)
	cmd.Env = append(os.Environ(), "PATH="+strings.Join(path, string(filepath.ListSeparator)))
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 || !bytes.Contains(out, []byte("Go is not on PATH")) {
		t.Errorf("without go: %v, want exit status 3 saying Go is not on PATH:\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dest, ALOIDir, ALOIMat)); err != nil {
		t.Errorf("the original was not placed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dest, ALOIDir, ALOILabelsFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("labels.tsv placed without prepare (stat: %v)", err)
	}
	if out, code := runFetch(t, "fetch_aloi.sh", shared, dest, "--originals", originals); code != 2 || !strings.Contains(out, "exclude each other") {
		t.Errorf("--mirror with --originals: exit status %d, want 2:\n%s", code, out)
	}
}

// TestFetchUsage: -h prints the usage block of each script's header (the
// three forms and the options), not the rest of the header, and exits 2.
func TestFetchUsage(t *testing.T) {
	for _, script := range []string{"fetch_aset400.sh", "fetch_aloi.sh", "fetch_material.sh", "fetch_perceptual_kernels.sh"} {
		out, err := exec.Command("bash", filepath.Join("..", "..", "scripts", script), "-h").CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("%s -h: %v, want exit status 2", script, err)
		}
		s := string(out)
		if !strings.HasPrefix(s, "Usage:\n") || !strings.Contains(s, "--originals DIR") || !strings.Contains(s, "--mirror DIR") || strings.Contains(s, "SOURCE") || strings.Count(s, "\n") > 12 {
			t.Errorf("%s -h printed:\n%s", script, s)
		}
	}
}

package data

import (
	"path/filepath"
	"testing"
)

func TestFetchALOIMirror(t *testing.T) {
	shared := filepath.Dir(fetchedData(t, "aloi10"))
	dest := t.TempDir()
	out, code := runFetch(t, "fetch_aloi.sh", shared, dest)
	if code != 0 {
		t.Fatalf("exit status %d:\n%s", code, out)
	}
	checkMirrored(t, shared, dest, "aloi10")
	if _, err := LoadALOI(filepath.Join(dest, "aloi10")); err != nil {
		t.Error(err)
	}
}

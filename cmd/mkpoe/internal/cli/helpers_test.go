package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/mkpoe/mkpoe/experiments"
	"github.com/mkpoe/mkpoe/internal/linalg"
	"github.com/mkpoe/mkpoe/internal/testconfigs"
)

// repoRoot is the repository root, seen from this package's directory.
var repoRoot = filepath.Join("..", "..", "..", "..")

// backendLine is the last line of the commands that compute (fit, eval,
// embed, native, query, kernel; printBackend).
var backendLine = "backend " + linalg.Describe() + "\n"

// tinyConfig is a fast synthetic experiment (testconfigs.Tiny).
const tinyConfig = testconfigs.Tiny

// loadTiny loads tinyConfig with its output in out.
func loadTiny(t *testing.T, out string) *experiments.Config {
	t.Helper()
	c := configOf(t, tinyConfig)
	c.Output = out
	return c
}

// configOf loads a config from YAML text.
func configOf(t *testing.T, text string) *experiments.Config {
	t.Helper()
	c, err := experiments.LoadConfig(writeFile(t, t.TempDir(), "c.yaml", text))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// idToken is a task ID written in tests as "{kind row split fold}" (fold
// -1: none), e.g. "{cv 4 0 0}", since IDs carry the row's input digest.
var idToken = regexp.MustCompile(`\{(native|cv|refit) (\d+) (\d+) (-?\d+)\}`)

// expandIDs replaces the idTokens in s by config c's task IDs.
func expandIDs(c *experiments.Config, s string) string {
	return idToken.ReplaceAllStringFunc(s, func(tok string) string {
		m := idToken.FindStringSubmatch(tok)
		row, _ := strconv.Atoi(m[2])
		split, _ := strconv.Atoi(m[3])
		fold, _ := strconv.Atoi(m[4])
		return c.TaskID(m[1], row, split, fold)
	})
}

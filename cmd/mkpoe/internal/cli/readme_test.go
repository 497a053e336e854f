package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// README limits: the README is a new user's first page; detail lives in
// docs/, linked from it.
const (
	readmeMaxLines     = 300
	readmeMaxLineChars = 200
)

// TestREADMEShape: README.md stays short (at most readmeMaxLines lines,
// none over readmeMaxLineChars characters), and every relative link in it,
// and every docs/… .md or scripts/… .sh path it names, points to a file or
// folder of the repository.
func TestREADMEShape(t *testing.T) {
	text := string(readFile(t, filepath.Join(repoRoot, "README.md")))
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) > readmeMaxLines {
		t.Errorf("README.md has %d lines, want at most %d: move detail to docs/ and link to it", len(lines), readmeMaxLines)
	}
	for i, line := range lines {
		if n := utf8.RuneCountInString(line); n > readmeMaxLineChars {
			t.Errorf("README.md:%d has %d characters, want at most %d: %.60s…", i+1, n, readmeMaxLineChars, line)
		}
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	path := regexp.MustCompile("(?:^|[\\s(`])((?:docs|scripts|bench|results|examples)/[\\w./-]*\\.(?:md\\.tmpl|md|sh))\\b")
	targets := map[string]bool{}
	for _, m := range link.FindAllStringSubmatch(text, -1) {
		target := m[1]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "#") {
			continue
		}
		target, _, _ = strings.Cut(target, "#")
		targets[target] = true
	}
	for _, m := range path.FindAllStringSubmatch(text, -1) {
		targets[m[1]] = true
	}
	if len(targets) == 0 {
		t.Fatal("README.md has no relative links: the pattern is wrong")
	}
	for target := range targets {
		if _, err := os.Stat(filepath.Join(repoRoot, filepath.FromSlash(target))); err != nil {
			t.Errorf("README.md links to %s, which does not exist", target)
		}
	}
}

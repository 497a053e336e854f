package experiments

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// The config hash and the task digests must not depend on where a clone
// lives: the committed results and a rerun in another clone are of the
// same config. A config's data paths are absolute once loaded (LoadConfig
// resolves them against the config file's folder), so both digests see
// each path as portablePath writes it: relative to the root of the
// repository that holds it. docs/configs.md ("What the config hash and
// the task digests cover") says why not relative to the config file, nor
// the data files' digests.

// rootMarkers mark a repository's root folder: a Go module (a clone, or
// a tarball of one) or a git work tree (a researcher's own repository
// with configs and data, or a git worktree, whose .git is a file).
var rootMarkers = []string{"go.mod", ".git"}

var repoRoots sync.Map // folder → its repository root ("" for none)

// repoRoot returns the nearest folder at or above dir (absolute, clean)
// that holds one of rootMarkers, or "" if none does.
func repoRoot(dir string) string {
	if r, ok := repoRoots.Load(dir); ok {
		return r.(string)
	}
	root := ""
	for d := dir; ; {
		found := false
		for _, m := range rootMarkers {
			if _, err := os.Lstat(filepath.Join(d, m)); err == nil {
				found = true
				break
			}
		}
		if found {
			root = d
			break
		}
		up := filepath.Dir(d)
		if up == d {
			break
		}
		d = up
	}
	repoRoots.Store(dir, root)
	return root
}

// portablePath is an absolute path p as the digests see it: relative to
// the root of the repository that holds it, in slash form (so
// "data/aset400" in every clone, wherever it lives). A path outside any
// repository, a relative path (a config built in code) and "" stay as
// they are. Symbolic links are not followed: a clone's data folder may be
// a link to a shared copy and still read as data/….
func portablePath(p string) string {
	if p == "" || !filepath.IsAbs(p) {
		return p
	}
	p = filepath.Clean(p)
	root := repoRoot(filepath.Dir(p))
	if root == "" {
		return p
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return p
	}
	return filepath.ToSlash(rel)
}

// portableDataset is d with its paths made portable (portablePath): the
// form the config hash and the task digests encode. d is not modified.
func portableDataset(d DatasetConfig) DatasetConfig {
	return mapDatasetPaths(d, portablePath)
}

// mapDatasetPaths returns d with every path of it (dir, lastfm_dir,
// items, comparisons, features, a taxonomy .yaml file) replaced by f of
// it; d is not modified.
func mapDatasetPaths(d DatasetConfig, f func(string) string) DatasetConfig {
	d.Dir, d.LastFMDir, d.Items, d.Comparisons = f(d.Dir), f(d.LastFMDir), f(d.Items), f(d.Comparisons)
	if d.Features != nil {
		d.Features = maps.Clone(d.Features)
		for k, v := range d.Features {
			d.Features[k] = f(v)
		}
	}
	if s, ok := d.Taxonomy.(string); ok && strings.HasSuffix(s, ".yaml") {
		d.Taxonomy = f(s)
	}
	return d
}

// portable returns a copy of c as the config hash encodes it: no output
// directory, and the data paths and protocol.test_comparisons portable.
func (c *Config) portable() Config {
	cc := *c
	cc.Output = ""
	cc.Dataset = portableDataset(c.Dataset)
	cc.Protocol.TestComparisons = portablePath(c.Protocol.TestComparisons)
	return cc
}

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/mkpoe/mkpoe/pkg/data"
)

// cblearnEstimators are the estimators of cblearn.embedding the benchmark
// runs, all with their scipy (L-BFGS-B) backend.
var cblearnEstimators = []string{"SOE", "GNMDS", "TSTE"}

// peer runs cblearn_fit.py with one Python interpreter.
type peer struct {
	python string // interpreter that imports cblearn
	script string // path of cblearn_fit.py
	dir    string // temp dir holding the triplet files
}

// peerResult is what cblearn_fit.py prints for one fit.
type peerResult struct {
	Seconds  float64 `json:"seconds"`
	Accuracy float64 `json:"accuracy"`
}

// scriptPath finds cblearn_fit.py next to this source file (go run keeps no
// copy of it beside the binary), falling back to the working directory's
// bench/peers.
func scriptPath() string {
	if _, file, _, ok := runtime.Caller(0); ok {
		p := filepath.Join(filepath.Dir(file), "cblearn_fit.py")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return filepath.Join("bench", "peers", "cblearn_fit.py")
}

// newPeer checks that python imports cblearn (run from a temp dir, so no
// local folder shadows the package) and returns a peer with that temp dir,
// or an error saying why the peer is skipped.
func newPeer(ctx context.Context, python string) (*peer, error) {
	dir, err := os.MkdirTemp("", "mkpoe-peers-")
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, python, "-c", "import cblearn")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%s cannot import cblearn: %s", python, strings.TrimSpace(err.Error()+" "+lastLine(out)))
	}
	return &peer{python: python, script: scriptPath(), dir: dir}, nil
}

// close removes the peer's temp dir.
func (p *peer) close() { os.RemoveAll(p.dir) }

// versions returns the versions line of cblearn_fit.py --versions.
func (p *peer) versions(ctx context.Context) string {
	out, err := p.run(ctx, "--versions")
	if err != nil {
		return "versions unknown: " + err.Error()
	}
	return strings.TrimSpace(string(out))
}

// writeTriplets writes cs as 0-based "i j k" lines (i closer to j than to
// k) to a file named name in the peer's dir and returns its path.
func (p *peer) writeTriplets(name string, cs []data.Comparison) (string, error) {
	path := filepath.Join(p.dir, name)
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	w := bufio.NewWriter(f)
	for _, c := range cs {
		if !c.IsTriplet() {
			f.Close()
			return "", fmt.Errorf("comparison %v is not a triplet", c)
		}
		fmt.Fprintf(w, "%d %d %d\n", c.I, c.J, c.L)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return "", err
	}
	return path, f.Close()
}

// fit runs one estimator at dimension d on the triplet files and returns
// the fit time and held-out accuracy the script measured.
func (p *peer) fit(ctx context.Context, estimator string, d, n int, seed uint64, train, test string) (peerResult, error) {
	rs, err := p.fitAll(ctx, estimator, d, n, seed, []string{train}, []string{test})
	if err != nil {
		return peerResult{}, err
	}
	return rs[0], nil
}

// fitAll runs one estimator at dimension d once per pair of files, the
// i-th fit on trains[i] scored on tests[i], in one call of the script
// (one interpreter start for a pair's CV folds), and returns each fit's
// time and accuracy in that order.
func (p *peer) fitAll(ctx context.Context, estimator string, d, n int, seed uint64, trains, tests []string) ([]peerResult, error) {
	if len(trains) != len(tests) || len(trains) == 0 {
		return nil, fmt.Errorf("%d training and %d held-out files", len(trains), len(tests))
	}
	args := []string{"--estimator", estimator, "--dim", fmt.Sprint(d), "--n", fmt.Sprint(n), "--seed", fmt.Sprint(seed)}
	for i := range trains {
		args = append(args, "--train", trains[i], "--test", tests[i])
	}
	out, err := p.run(ctx, args...)
	if err != nil {
		return nil, err
	}
	return parseResults(out, len(trains))
}

// parseResults reads the want JSON lines cblearn_fit.py prints, one per
// fit, ignoring blank lines.
func parseResults(out []byte, want int) ([]peerResult, error) {
	var rs []peerResult
	for _, line := range strings.Split(string(out), "\n") {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		var r peerResult
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return nil, fmt.Errorf("cblearn_fit.py printed %q: %w", line, err)
		}
		rs = append(rs, r)
	}
	if len(rs) != want {
		return nil, fmt.Errorf("cblearn_fit.py printed %d results, want %d", len(rs), want)
	}
	return rs, nil
}

// run runs the script with args and returns its standard output.
func (p *peer) run(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, p.python, append([]string{p.script}, args...)...)
	cmd.Dir = p.dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %s", filepath.Base(p.script), strings.Join(args, " "), strings.TrimSpace(err.Error()+" "+lastLine(stderr.Bytes())))
	}
	return out, nil
}

// lastLine returns the last non-empty line of b, trimmed.
func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

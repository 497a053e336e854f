// Command peers compares mkpoe's GNMDS fits with the ordinal-embedding
// estimators of the Python library cblearn (SOE, GNMDS, t-STE) on planted
// triplet sets, and writes a Markdown table of fit time, held-out accuracy,
// rank or dimension, and mkpoe's certified gap.
//
// It is a manual benchmark, not part of CI; its unit tests cover only the
// pure helpers. See bench/peers/README.md for what it measures and how to
// install cblearn.
//
//	go run ./bench/peers                     # n = 100 and 300
//	go run ./bench/peers -sizes 40:2000      # a tiny smoke run
//	go run -tags openblas ./bench/peers -sizes 100,300,1000 -reps 3 -out peers.md
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"time"

	"github.com/mkpoe/mkpoe/internal/linalg"
	"github.com/mkpoe/mkpoe/pkg/data"
)

// config holds the command-line flags.
type config struct {
	sizes      []size
	dims       []int
	estimators []string
	reps       int
	seed       uint64
	python     string
	timeout    time.Duration
	out        string
	rank       int // > 0: also a rank-bounded mkpoe row at the CV's multiple
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("peers: ")
	cfg, err := parseFlags(os.Args[1:])
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, cfg, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// parseFlags reads the command line.
func parseFlags(args []string) (config, error) {
	fs := flag.NewFlagSet("peers", flag.ContinueOnError)
	sizes := fs.String("sizes", "100,300", "comma-separated sizes: 100, 300, 1000, 2000 (with 20000, 10000, 30000, 60000 triplets) or n:triplets")
	dims := fs.String("dims", "2,5,10", "cblearn embedding dimensions")
	ests := fs.String("estimators", strings.Join(cblearnEstimators, ","), "cblearn estimators (of SOE, GNMDS, TSTE)")
	reps := fs.Int("reps", 1, "repetitions; mkpoe runs first in even ones, cblearn in odd ones")
	seed := fs.Uint64("seed", 1, "seed of the planted sets, the CV folds and cblearn's initialisations")
	python := fs.String("python", "/opt/cblearn-venv/bin/python", "Python interpreter that imports cblearn (\"none\" skips cblearn)")
	timeout := fs.Duration("timeout", time.Hour, "time limit of one cblearn fit")
	out := fs.String("out", "", "also write the table to this file")
	rank := fs.Int("rank", 0, "also fit mkpoe with its rank bounded by this (fit --rank) at the CV-chosen multiple of β_min; 0: no such row")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	cfg := config{reps: *reps, seed: *seed, python: *python, timeout: *timeout, out: *out, rank: *rank}
	if cfg.rank < 0 {
		return config{}, fmt.Errorf("-rank must be ≥ 0, got %d", cfg.rank)
	}
	var err error
	if cfg.sizes, err = parseSizes(*sizes); err != nil {
		return config{}, err
	}
	if cfg.dims, err = parseInts(*dims); err != nil {
		return config{}, fmt.Errorf("-dims: %w", err)
	}
	if cfg.estimators, err = parseEstimators(*ests); err != nil {
		return config{}, err
	}
	if cfg.reps < 1 {
		return config{}, fmt.Errorf("-reps must be ≥ 1, got %d", cfg.reps)
	}
	return cfg, nil
}

// parseEstimators reads a comma-separated list of cblearn estimators.
func parseEstimators(s string) ([]string, error) {
	var out []string
	for _, e := range strings.Split(s, ",") {
		if e = strings.TrimSpace(e); e == "" {
			continue
		}
		known := false
		for _, k := range cblearnEstimators {
			known = known || e == k
		}
		if !known {
			return nil, fmt.Errorf("-estimators: unknown %q (want %s)", e, strings.Join(cblearnEstimators, ", "))
		}
		out = append(out, e)
	}
	return out, nil
}

// run benchmarks every size and writes the table to w and cfg.out.
func run(ctx context.Context, cfg config, w io.Writer) error {
	var p *peer
	skip := "skipped: -python none"
	if cfg.python != "none" {
		var err error
		if p, err = newPeer(ctx, cfg.python); err != nil {
			skip = "skipped: " + err.Error()
			log.Print("cblearn ", skip)
		} else {
			defer p.close()
		}
	}
	var rows []row
	for _, sz := range cfg.sizes {
		r, err := benchSize(ctx, cfg, sz, p, skip)
		if err != nil {
			return fmt.Errorf("n = %d: %w", sz.N, err)
		}
		rows = append(rows, r...)
	}
	var b strings.Builder
	b.WriteString(header(ctx, cfg, p) + "\n\n")
	if err := writeTable(&b, rows); err != nil {
		return err
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	if cfg.out != "" {
		return os.WriteFile(cfg.out, []byte(b.String()), 0o644)
	}
	return nil
}

// header describes the data and the software the table was made with.
func header(ctx context.Context, cfg config, p *peer) string {
	blas := linalg.Describe()
	h := fmt.Sprintf("Planted sets (dim 5, flip 0.1, seed %d), first 80%% of the triplets train, last 20%% held out; "+
		"%d repetition(s), %s, GOMAXPROCS %d, %s; mkpoe: %s build",
		cfg.seed, cfg.reps, time.Now().Format("2006-01-02"), runtime.GOMAXPROCS(0), runtime.Version(), blas)
	if p != nil {
		h += "; " + p.versions(ctx)
	}
	return h + "."
}

// benchSize runs every repetition on one planted set and returns its rows:
// mkpoe first, then each cblearn estimator and dimension (or one row saying
// why cblearn was skipped).
func benchSize(ctx context.Context, cfg config, sz size, p *peer, skip string) ([]row, error) {
	pl, err := data.GeneratePlanted(data.PlantedSpec{N: sz.N, Dim: 5, Triplets: sz.Triplets, Flip: 0.1, Seed: cfg.seed})
	if err != nil {
		return nil, err
	}
	train, test := splitTrainTest(pl.Triplets)
	rows := []row{{Size: sz, Method: "mkpoe GNMDS lowrank, 3-fold CV"}}
	var ranked *row
	if cfg.rank > 0 {
		rows = append(rows, row{Size: sz, Method: fmt.Sprintf("mkpoe GNMDS rank ≤ %d (at the CV's multiple)", cfg.rank)})
	}
	var trainFile, testFile string
	if p == nil {
		rows = append(rows, row{Size: sz, Method: "cblearn", Note: skip})
	} else {
		for _, e := range cfg.estimators {
			for _, d := range cfg.dims {
				rows = append(rows, row{Size: sz, Method: fmt.Sprintf("cblearn %s d=%d", e, d), Rank: fmt.Sprint(d), Gap: "—"})
			}
		}
		tag := fmt.Sprintf("n%d-m%d", sz.N, sz.Triplets)
		if trainFile, err = p.writeTriplets(tag+"-train.txt", train); err != nil {
			return nil, err
		}
		if testFile, err = p.writeTriplets(tag+"-test.txt", test); err != nil {
			return nil, err
		}
	}
	peers := rows[1:]
	if cfg.rank > 0 {
		ranked, peers = &rows[1], rows[2:]
	}
	for rep := 0; rep < cfg.reps; rep++ {
		steps := []func() error{
			func() error { return mkpoeRep(ctx, sz, train, test, cfg.seed, cfg.rank, &rows[0], ranked) },
			func() error { return cblearnReps(ctx, cfg, sz, p, trainFile, testFile, peers) },
		}
		if rep%2 == 1 {
			steps[0], steps[1] = steps[1], steps[0]
		}
		for _, step := range steps {
			if err := step(); err != nil {
				return nil, err
			}
		}
	}
	return rows, nil
}

// mkpoeRep runs one repetition of the mkpoe fit and adds it to r.
func mkpoeRep(ctx context.Context, sz size, train, test []data.Comparison, seed uint64, rank int, r, ranked *row) error {
	log.Printf("n=%d: mkpoe GNMDS, CV over %v·β_min ...", sz.N, betaMultiples)
	res, err := runMkpoe(ctx, sz.N, train, test, seed)
	if err != nil {
		return err
	}
	log.Printf("n=%d: mkpoe %.1f s (refit %.2f s), CV accuracy %v, chose %g·β_min, held-out %.4f, rank %d, gap %.1e",
		sz.N, res.Total.Seconds(), res.Refit, roundAll(res.CVScores), res.Multiple, res.Accuracy, res.Rank, res.Gap)
	r.Method = fmt.Sprintf("mkpoe GNMDS lowrank, 3-fold CV (chose %g·β_min)", res.Multiple)
	r.Seconds = append(r.Seconds, res.Total.Seconds())
	r.Refit = append(r.Refit, res.Refit)
	r.Accuracy = append(r.Accuracy, res.Accuracy)
	r.Rank = fmt.Sprint(res.Rank)
	r.Gap = fmt.Sprintf("%.1e", res.Gap)
	if !res.Converged {
		r.Gap += " (not converged)"
	}
	if ranked == nil {
		return nil
	}
	m, err := fitGNMDS(ctx, sz.N, train, res.Multiple, rank)
	if err != nil {
		return fmt.Errorf("rank %d at %g·β_min: %w", rank, res.Multiple, err)
	}
	acc := modelAccuracy(m, test)
	log.Printf("n=%d: mkpoe rank ≤ %d at %g·β_min: %.2f s, held-out %.4f, distance to the convex bound %.1e", sz.N, rank, res.Multiple, m.Stats.Seconds, acc, m.Stats.RelativeGap)
	ranked.Seconds = append(ranked.Seconds, m.Stats.Seconds)
	ranked.Accuracy = append(ranked.Accuracy, acc)
	ranked.Rank = fmt.Sprint(m.Dim())
	ranked.Gap = fmt.Sprintf("%.1e to the convex bound", m.Stats.RelativeGap)
	return nil
}

// cblearnReps runs one repetition of every cblearn estimator and dimension,
// in the order of rows. A failed fit is noted in its row, not fatal.
func cblearnReps(ctx context.Context, cfg config, sz size, p *peer, trainFile, testFile string, rows []row) error {
	if p == nil {
		return nil
	}
	i := 0
	for _, e := range cfg.estimators {
		for _, d := range cfg.dims {
			r := &rows[i]
			i++
			log.Printf("n=%d: cblearn %s d=%d ...", sz.N, e, d)
			fctx, cancel := context.WithTimeout(ctx, cfg.timeout)
			res, err := p.fit(fctx, e, d, sz.N, cfg.seed, trainFile, testFile)
			cancel()
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err != nil {
				log.Printf("n=%d: cblearn %s d=%d failed: %v", sz.N, e, d, err)
				r.Note = "failed: " + err.Error()
				continue
			}
			log.Printf("n=%d: cblearn %s d=%d %.1f s, held-out %.4f", sz.N, e, d, res.Seconds, res.Accuracy)
			r.Seconds = append(r.Seconds, res.Seconds)
			r.Accuracy = append(r.Accuracy, res.Accuracy)
		}
	}
	return nil
}

// roundAll rounds xs to four decimals, for the log.
func roundAll(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(int(x*1e4+0.5)) / 1e4
	}
	return out
}

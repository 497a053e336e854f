// Command peers compares mkpoe's GNMDS fits with the ordinal-embedding
// estimators of the Python library cblearn (SOE, GNMDS, t-STE) on planted
// triplet sets or on public crowd sets (-sets), and writes a Markdown table of fit time, held-out accuracy,
// rank or dimension, and mkpoe's certified gap.
//
// It is a manual benchmark, not part of CI; its unit tests cover only the
// pure helpers. See bench/peers/README.md for what it measures and how to
// install cblearn.
//
//	go run ./bench/peers                     # n = 100 and 300
//	go run ./bench/peers -sizes 40:2000      # a tiny smoke run
//	go run ./bench/peers -sets material:data/material,perceptual:data/perceptual-kernels
//	go run -tags openblas ./bench/peers -sizes 100,300,1000 -reps 3 -out peers.md
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/mkpoe/mkpoe/internal/linalg"
	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/mkpoe"
)

// config holds the command-line flags.
type config struct {
	sizes      []size
	sets       []problem // crowd sets (-sets), run after the planted sizes
	dims       []int
	estimators []string
	reps       int
	seed       uint64
	python     string
	timeout    time.Duration
	out        string
	grid       []float64    // CV grid, multiples of β_min, increasing
	solver     mkpoe.Solver // Settings.Solver of every mkpoe fit
	ranks      []int        // one mkpoe row per rank; 0: convex
	warm       bool         // warm-start each CV fold along the grid
	folds      int          // CV folds fitted at once (fitSpec.Folds)
	peerCV     bool         // also choose cblearn's estimator and d by CV
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
	sets := fs.String("sets", "", "crowd sets instead of planted ones: material:DIR (answers_processed_{train,test}.json), perceptual:FILE or perceptual:DIR (all 12 raw triplet files); with -sizes too, both")
	grid := fs.String("grid", joinFloats(defaultGrid), "CV grid of β, multiples of each training set's β_min")
	solver := fs.String("solver", string(mkpoe.DefaultSolver), "mkpoe solver, one of "+strings.Join(mkpoe.SolverNames(), ", ")+" (default: the one a user gets; a rank bound runs lowrank)")
	ranks := fs.String("ranks", "0,2,5,10", "mkpoe rows: each rank its own CV and refit (Settings.Rank); 0 = convex")
	warm := fs.Bool("warm", defaultWarm, "warm-start each CV fold's fits along the grid from the previous β's model")
	folds := fs.Int("folds", cvFolds, "CV folds fitted at once, as the harness runs tasks on its workers (1: one after the other)")
	peerCV := fs.Bool("peer-cv", false, "also choose cblearn's estimator and d by 3-fold CV on mkpoe's folds and refit (4× cblearn's fits)")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	cfg := config{reps: *reps, seed: *seed, python: *python, timeout: *timeout, out: *out, warm: *warm, folds: *folds, peerCV: *peerCV}
	var err error
	if cfg.grid, err = parseGrid(*grid); err != nil {
		return config{}, err
	}
	s, err := mkpoe.ParseSolver(*solver)
	if err != nil {
		return config{}, fmt.Errorf("-solver: %w", err)
	}
	cfg.solver = s
	if cfg.ranks, err = parseRanks(*ranks); err != nil {
		return config{}, err
	}
	sizesGiven := false
	fs.Visit(func(f *flag.Flag) { sizesGiven = sizesGiven || f.Name == "sizes" })
	if *sets != "" {
		if cfg.sets, err = parseSets(*sets); err != nil {
			return config{}, err
		}
	}
	if *sets == "" || sizesGiven {
		if cfg.sizes, err = parseSizes(*sizes); err != nil {
			return config{}, err
		}
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
	if cfg.folds < 1 || cfg.folds > cvFolds {
		return config{}, fmt.Errorf("-folds must be 1 to %d, got %d", cvFolds, cfg.folds)
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
	for _, pr := range cfg.problems() {
		r, err := benchSize(ctx, cfg, pr, p, skip)
		if err != nil {
			return fmt.Errorf("%s: %w", pr.label(), err)
		}
		rows = append(rows, r...)
	}
	var b strings.Builder
	b.WriteString(header(ctx, cfg, p) + "\n\n")
	if err := writeTable(&b, rows); err != nil {
		return err
	}
	if lines := summaryLines(rows); len(lines) > 0 {
		b.WriteString("\n- " + strings.Join(lines, "\n- ") + "\n")
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	if cfg.out != "" {
		return os.WriteFile(cfg.out, []byte(b.String()), 0o644)
	}
	return nil
}

// problems are the planted sizes, then the crowd sets.
func (cfg config) problems() []problem {
	var out []problem
	for _, sz := range cfg.sizes {
		out = append(out, problem{Kind: kindPlanted, Size: sz})
	}
	return append(out, cfg.sets...)
}

// header describes the data and the software the table was made with.
func header(ctx context.Context, cfg config, p *peer) string {
	blas := linalg.Describe()
	h := fmt.Sprintf("%s; %d repetition(s), %s, GOMAXPROCS %d, %s; mkpoe: %s build",
		dataText(cfg.problems(), cfg.seed), cfg.reps, time.Now().Format("2006-01-02"), runtime.GOMAXPROCS(0), runtime.Version(), blas)
	h += "; " + mkpoeSetup(cfg)
	if p != nil {
		if cfg.peerCV {
			h += "; " + peerCVSetup(len(cfg.estimators)*len(cfg.dims))
		}
		h += "; " + p.versions(ctx)
	}
	return h + "."
}

// mkpoeSetup describes mkpoe's fits: solver, CV grid and warm starts.
func mkpoeSetup(cfg config) string {
	start := "cold"
	if cfg.warm {
		start = "warm along the grid"
	}
	return fmt.Sprintf("mkpoe solver %s, ranks {%s}, %d-fold CV over {%s}·β_min (%s at once), %s", cfg.solver, joinInts(cfg.ranks), cvFolds,
		strings.ReplaceAll(joinFloats(cfg.grid), ",", ", "), foldsText(cfg.folds), start)
}

// foldsText says how many CV folds are fitted at once.
func foldsText(k int) string {
	if k == 1 {
		return "1 fold"
	}
	return fmt.Sprintf("%d folds", k)
}

// benchSize runs every repetition on one problem and returns its rows:
// mkpoe's (one per rank, then the CV's choice among them), then each
// cblearn estimator and dimension and, with -peer-cv, cblearn's CV choice
// among them (or one row saying why cblearn was skipped).
func benchSize(ctx context.Context, cfg config, pr problem, p *peer, skip string) ([]row, error) {
	n, train, test, err := pr.load(cfg.seed)
	if err != nil {
		return nil, err
	}
	sz := size{N: n, Triplets: len(train) + len(test)} // a planted set's is its -sizes entry
	label := pr.label()
	log.Printf("%s: %d items, %d training and %d held-out triplets", label, n, len(train), len(test))
	rows := mkpoeRows(cfg, sz)
	nMk := len(rows)
	var trainFile, testFile string
	var fits, scores []string // cblearn's CV folds (-peer-cv)
	if p == nil {
		rows = append(rows, row{Size: sz, Method: "cblearn", Note: skip})
	} else {
		pairs := peerPairs(cfg.estimators, cfg.dims)
		for _, pr := range pairs {
			rows = append(rows, row{Size: sz, Method: "cblearn " + pr.String(), Rank: fmt.Sprint(pr.Dim), Gap: "—"})
		}
		if cfg.peerCV {
			rows = append(rows, peerCVRow(sz, len(pairs)))
		}
		tag := fmt.Sprintf("n%d-m%d", sz.N, sz.Triplets)
		if pr.Name != "" {
			tag = strings.ReplaceAll(pr.Name, " ", "-")
		}
		if trainFile, err = p.writeTriplets(tag+"-train.txt", train); err != nil {
			return nil, err
		}
		if testFile, err = p.writeTriplets(tag+"-test.txt", test); err != nil {
			return nil, err
		}
		if cfg.peerCV {
			if fits, scores, err = p.foldFiles(tag, train, cfg.seed); err != nil {
				return nil, err
			}
		}
	}
	for i := range rows {
		rows[i].Set, rows[i].Train, rows[i].Test = pr.Name, len(train), len(test)
	}
	for rep := 0; rep < cfg.reps; rep++ {
		steps := []func() error{
			func() error { return mkpoeRep(ctx, cfg, label, n, train, test, rows[:nMk]) },
			func() error { return cblearnReps(ctx, cfg, label, n, p, trainFile, testFile, fits, scores, rows[nMk:]) },
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

// mkpoeRows are the empty mkpoe rows of one size: one per rank of
// cfg.ranks, then, with several, the CV's choice among them.
func mkpoeRows(cfg config, sz size) []row {
	var rows []row
	for _, k := range cfg.ranks {
		rows = append(rows, row{Size: sz, Method: rankMethod(k, cfg.solver), Certs: &certCount{}, Bounded: k > 0})
	}
	if len(cfg.ranks) > 1 {
		rows = append(rows, row{Size: sz, Method: fmt.Sprintf("mkpoe GNMDS, CV's choice of rank ∈ {%s} and β (all rows' time)", joinInts(cfg.ranks)),
			Certs: &certCount{}, Mixed: slices.Contains(cfg.ranks, 0) && slices.ContainsFunc(cfg.ranks, func(k int) bool { return k > 0 }),
			Bounded: !slices.Contains(cfg.ranks, 0), Choice: true})
	}
	return rows
}

// rankMethod names the mkpoe row of rank k (0: convex).
func rankMethod(k int, s mkpoe.Solver) string {
	if k == 0 {
		return fmt.Sprintf("mkpoe GNMDS convex (%s)", s)
	}
	return fmt.Sprintf("mkpoe GNMDS rank ≤ %d (lowrank)", k)
}

// mkpoeRep runs one repetition of mkpoe's CV and refit at every rank of
// cfg.ranks and adds each to its row of rows (as made by mkpoeRows); the
// last row, with several ranks, gets the rank whose CV score is best.
func mkpoeRep(ctx context.Context, cfg config, label string, n int, train, test []data.Comparison, rows []row) error {
	var total float64 // seconds of every rank's CV and refit
	var all certCount
	best, bestScore := -1, math.Inf(-1)
	results := make([]mkpoeResult, len(cfg.ranks))
	for i, k := range cfg.ranks {
		spec := fitSpec{Solver: cfg.solver, Rank: k, Warm: cfg.warm, Folds: cfg.folds}
		log.Printf("%s: mkpoe GNMDS rank %d (%s, warm %v), CV over %v·β_min ...", label, k, cfg.solver, cfg.warm, cfg.grid)
		res, err := runMkpoe(ctx, n, train, test, cfg.grid, spec, cfg.seed)
		if err != nil {
			return fmt.Errorf("rank %d: %w", k, err)
		}
		log.Printf("%s: rank %d: %.1f s (refit %.2f s, %s), CV accuracy %v, chose %g·β_min, held-out %.4f, rank %d, gap %.1e, certified %d/%d CV + %d/%d refit, worst convex gap %.1e",
			label, k, res.Total, res.Refit, res.Solver, roundAll(res.CVScores), res.Multiple, res.Accuracy, res.Rank, res.Gap,
			res.Certs.CVOK, res.Certs.CVFits, res.Certs.RefitOK, res.Certs.Refits, res.Certs.Worst)
		addResult(&rows[i], res)
		results[i] = res
		total += res.Total
		all.merge(res.Certs)
		if s := res.CVScores[argmax(res.CVScores)]; s > bestScore {
			best, bestScore = i, s
		}
	}
	if len(cfg.ranks) < 2 {
		return nil
	}
	r, res := &rows[len(cfg.ranks)], results[best]
	res.Total, res.Certs = total, all
	addResult(r, res)
	r.Rank = fmt.Sprintf("%d (%s)", res.Rank, rankWord(cfg.ranks[best]))
	if cfg.ranks[best] > 0 && !r.Bounded {
		r.Gap += " to the convex bound"
	}
	return nil
}

// rankWord names rank k of -ranks: "convex" for 0, else "rank ≤ k".
func rankWord(k int) string {
	if k == 0 {
		return "convex"
	}
	return fmt.Sprintf("rank ≤ %d", k)
}

// addResult adds one repetition's result to its row.
func addResult(r *row, res mkpoeResult) {
	r.Seconds = append(r.Seconds, res.Total)
	r.Refit = append(r.Refit, res.Refit)
	r.Accuracy = append(r.Accuracy, res.Accuracy)
	r.Betas = append(r.Betas, betaText(res.Beta, res.Multiple))
	r.Rank = fmt.Sprint(res.Rank)
	r.Gap = fmt.Sprintf("%.1e", res.Gap)
	if r.Bounded {
		r.Gap += " to the convex bound"
	}
	r.Certs.merge(res.Certs)
}

// cblearnReps runs one repetition of every cblearn estimator and dimension,
// in the order of rows, and with cfg.peerCV their CV on the fold files
// fits and scores, whose choice goes to the last row. A failed fit is
// noted in its row, not fatal.
func cblearnReps(ctx context.Context, cfg config, label string, n int, p *peer, trainFile, testFile string, fits, scores []string, rows []row) error {
	if p == nil {
		return nil
	}
	pairs := peerPairs(cfg.estimators, cfg.dims)
	results := make([]peerResult, len(pairs))
	ok := make([]bool, len(pairs))
	for i, pr := range pairs {
		r := &rows[i]
		log.Printf("%s: cblearn %s ...", label, pr)
		fctx, cancel := context.WithTimeout(ctx, cfg.timeout)
		res, err := p.fit(fctx, pr.Estimator, pr.Dim, n, cfg.seed, trainFile, testFile)
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			log.Printf("%s: cblearn %s failed: %v", label, pr, err)
			r.Note = "failed: " + err.Error()
			continue
		}
		log.Printf("%s: cblearn %s %.1f s, held-out %.4f", label, pr, res.Seconds, res.Accuracy)
		r.Seconds = append(r.Seconds, res.Seconds)
		r.Accuracy = append(r.Accuracy, res.Accuracy)
		results[i], ok[i] = res, true
	}
	if !cfg.peerCV {
		return nil
	}
	cv, err := peerCVRep(ctx, cfg, label, n, p, pairs, fits, scores)
	if err != nil {
		return err
	}
	r := &rows[len(pairs)]
	addPeerCV(r, pairs, cv, results, ok)
	log.Printf("%s: cblearn's CV choice %s, held-out %s, %s", label, r.Rank, r.accuracyCell(), r.timeCell())
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

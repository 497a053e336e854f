#!/usr/bin/env python3
"""Fit one cblearn ordinal-embedding estimator for the mkpoe peer benchmark.

Reads 0-based triplet files ("i j k": i is closer to j than to k), fits the
estimator on the training triplets with the scipy backend, and prints one
JSON line {"seconds": fit time, "accuracy": held-out accuracy}. With
--train and --test given k times (the folds of a cross-validation), it
makes k fits, the i-th on the i-th --train scored on the i-th --test, each
with a fresh estimator of the same seed, and prints k lines in that order,
as k separate calls would. Accuracy is
the fraction of held-out triplets with d(i, j) < d(i, k) strictly in the
embedding, as mkpoe's side counts it. Run by bench/peers (go run
./bench/peers); see bench/peers/README.md.

    cblearn_fit.py --estimator SOE --dim 5 --n 100 --seed 1 \
        --train train.txt --test test.txt
    cblearn_fit.py --estimator GNMDS --dim 2 --n 100 --seed 1 \
        --train fit1.txt --test score1.txt --train fit2.txt --test score2.txt
    cblearn_fit.py --versions
"""

import argparse
import json
import sys
import time

import numpy as np


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--estimator", choices=["SOE", "GNMDS", "TSTE"])
    p.add_argument("--dim", type=int)
    p.add_argument("--n", type=int)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--train", action="append",
                   help="training triplets; repeat with --test for several fits")
    p.add_argument("--test", action="append",
                   help="held-out triplets of the --train of the same position")
    p.add_argument("--versions", action="store_true",
                   help="print the versions of cblearn and its stack and exit")
    args = p.parse_args(argv)
    if not args.versions:
        for name in ("estimator", "dim", "n", "train", "test"):
            if getattr(args, name) is None:
                p.error(f"--{name} is required")
        if len(args.train) != len(args.test):
            p.error(f"{len(args.train)} --train but {len(args.test)} --test")
    return args


def versions():
    """Versions of the packages that the fits run on, as one line."""
    import cblearn
    import scipy
    import sklearn
    return (f"cblearn {cblearn.__version__}, numpy {np.__version__}, "
            f"scipy {scipy.__version__}, scikit-learn {sklearn.__version__}, "
            f"Python {sys.version.split()[0]}")


def load_triplets(path):
    """An (m, 3) int array of the triplets in path."""
    return np.loadtxt(path, dtype=np.int64, ndmin=2).reshape(-1, 3)


def strict_accuracy(embedding, triplets):
    """Fraction of triplets (i, j, k) with |x_i - x_j| < |x_i - x_k|."""
    x = embedding[triplets]  # (m, 3, d)
    near = np.sum((x[:, 0] - x[:, 1]) ** 2, axis=1)
    far = np.sum((x[:, 0] - x[:, 2]) ** 2, axis=1)
    return float(np.mean(near < far))


def make_estimator(name, dim, seed):
    """The cblearn estimator name at dimension dim, scipy backend, defaults
    otherwise (SOE keeps its n_init=10 random restarts)."""
    from cblearn import embedding
    cls = {"SOE": embedding.SOE, "GNMDS": embedding.GNMDS, "TSTE": embedding.TSTE}[name]
    return cls(n_components=dim, random_state=seed, backend="scipy")


def main(argv):
    args = parse_args(argv)
    if args.versions:
        print(versions())
        return 0
    for train_path, test_path in zip(args.train, args.test):
        train, test = load_triplets(train_path), load_triplets(test_path)
        est = make_estimator(args.estimator, args.dim, args.seed)
        start = time.perf_counter()
        est.fit(train, n_objects=args.n)
        seconds = time.perf_counter() - start
        acc = strict_accuracy(np.asarray(est.embedding_), test)
        print(json.dumps({"seconds": seconds, "accuracy": acc}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

# The code cells of report.ipynb (pkg/report/notebook.go). Each "# %% name"
# line starts the source of one cell; notebook.go copies the cells into the
# notebook, replacing the __UPPER__ placeholders by Python literals. The
# table cells must format exactly as the Go report (table.go, report.go):
# TestNotebookExecutes compares their outputs with the stored ones.

# %% run_dir
# The run directory this notebook reads: relative to the notebook's own
# directory (the working directory of its kernel) or absolute. `mkpoe report`
# writes RUN_DIR/report/report.ipynb, so by default it is the parent
# directory. Point it at another run directory to read that run instead.
RUN_DIR = __RUN_DIR__

# %% setup
# Loads the run directory (its files are described in mkpoe's
# results/README.md) and defines helpers that print numbers exactly as
# `mkpoe report` does: three decimals as in the paper's tables, Go's %g for β.
# Needs Python 3 with numpy, pandas and matplotlib, and ipykernel to run as a
# notebook (Debian: apt-get install python3-pandas python3-matplotlib
# python3-ipykernel jupyter-nbconvert).
import csv
import json
import math
from decimal import Decimal
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import display

try:
    get_ipython().run_line_magic("matplotlib", "inline")
except NameError:  # plain Python: no inline figures
    pass
plt.rcParams["figure.dpi"] = 100

RUN = (Path.cwd() / RUN_DIR).resolve()
WRITTEN_FOR = __CONFIG_HASH__  # config hash of the run this notebook was written from


def read_json(name, required=True):
    """The JSON file name of the run directory, or None if it is missing and not required."""
    path = RUN / name
    if not path.is_file():
        if required:
            raise FileNotFoundError(
                f"{path} not found: RUN_DIR (first code cell) must name a finished mkpoe run directory "
                f"(it is {RUN_DIR!r}, read from {Path.cwd()})")
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def num(x):
    """A number of a result file as a float; JSON null (an accuracy that could not be computed) is NaN."""
    return math.nan if x is None else float(x)


def known(x):
    """Whether an optional field is present (absent: None, or NaN once in a DataFrame)."""
    return x is not None and not (isinstance(x, float) and math.isnan(x))


summary = read_json("summary.json")
if summary.get("format", "mkpoe-summary/1") != "mkpoe-summary/1":
    raise ValueError(f"{RUN / 'summary.json'}: format {summary['format']!r}; this notebook reads mkpoe-summary/1")
if "rows" not in summary:
    raise ValueError(f"{RUN / 'summary.json'} has no rows: is it a summary written by mkpoe?")

# Fields a summary written by an older mkpoe may lack, and what absent means.
ROW_FIELDS = {"label": "", "method": "", "mode": "", "table_row": "", "kernels": [], "accuracy": [], "mean": None,
              "std": None, "beta": [], "val_curve": [], "models": [], "train_comparisons": [],
              "test_comparisons": [], "paper": None, "kernel_share": [], "fits": None, "unconverged_fits": None,
              "stationary_fits": 0, "max_gap": None, "max_iterations": None, "test_tallies": [], "test_missing": [], "val_zero_folds": [],
              "beta_multiple": [], "min_beta": [], "val_fold_min": [], "val_fold_max": []}


def summary_row(r):
    out = {k: (r.get(k) if r.get(k) is not None else v) for k, v in ROW_FIELDS.items()}
    out["accuracy"] = [num(v) for v in out["accuracy"]]
    for k in ("val_curve", "val_fold_min", "val_fold_max"):
        out[k] = [[num(v) for v in c] for c in out[k]]
    out["mean"], out["std"] = num(out["mean"]), num(out["std"])
    return out


# One row per config row (summary.json "rows"), in config order.
rows = pd.DataFrame([summary_row(r) for r in summary["rows"]], columns=list(ROW_FIELDS))
SPLITS = int(summary.get("splits") or 0)
BETA_GRID = [float(b) for b in summary.get("beta_grid") or []]
# beta_relative: the grid holds multiples of each training set's β_min
# (beta_grid: {relative_to_min: ...}), and rows record the chosen multiple.
BETA_RELATIVE = bool(summary.get("beta_relative"))
items = read_json("items.json", required=False)  # names, class labels, the items of each split
timings = read_json("timings.json", required=False) or {}
env = read_json("env.json", required=False) or {}

_models = {}


def model(path):
    """A refit model (models/<refit id>.json, mkpoe.Model JSON): W per kernel, training embedding, objective trace.

    A factored model (the low-rank solver's) has no "W" in its file: its metrics are NᵀN for the
    projections N ("projection"), and m["W"] is then empty (see metric_diagonals)."""
    if path not in _models:
        m = read_json(path)
        m["W"] = [np.array(w, dtype=float) for w in m.get("W") or []]
        m["projection"] = [np.array(p, dtype=float) for p in m.get("projection") or []]
        m["train_embedding"] = np.array(m.get("train_embedding") or [], dtype=float)
        _models[path] = m
    return _models[path]


def metric_diagonals(m):
    """The diagonal of each block's metric W: from "W", or as the column sums of squares of N (W = NᵀN) for a factored model."""
    if m["W"]:
        return [np.diag(w) for w in m["W"]]
    return [(p**2).sum(axis=0) for p in m["projection"]]


def held_out(path):
    """The held-out items' embedding of a refit (models/<refit id>.test.tsv), or None if the run has none."""
    p = RUN / (path.removesuffix(".json") + ".test.tsv")
    if not p.is_file():
        return None
    if p.stat().st_size == 0:
        return np.zeros((0, model(path)["train_embedding"].shape[1]))
    return pd.read_csv(p, sep="\t", header=None).to_numpy(dtype=float)


def fmt3(x):
    """Three decimals, as the paper's tables (report.format); n/a for NaN."""
    return "n/a" if not known(x) else f"{x:.3f}"


def go_g(x):
    """Go's %g (strconv 'g', -1): the shortest digits that read back as x, exponent form below 1e-4 or from 1e6."""
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "+Inf" if x > 0 else "-Inf"
    if x == 0:
        return "-0" if math.copysign(1, x) < 0 else "0"
    sign = "-" if x < 0 else ""
    t = Decimal(repr(abs(x))).normalize().as_tuple()
    digits = "".join(map(str, t.digits))
    nd, dp = len(digits), len(digits) + t.exponent  # x = 0.digits × 10^dp
    if dp - 1 < -4 or dp - 1 >= 6:
        e = dp - 1
        mant = digits[0] + ("." + digits[1:] if nd > 1 else "")
        return f"{sign}{mant}e{'-' if e < 0 else '+'}{abs(e):02d}"
    if dp <= 0:
        return sign + "0." + "0" * -dp + digits
    if dp >= nd:
        return sign + digits + "0" * (dp - nd)
    return sign + digits[:dp] + "." + digits[dp:]


def round3(x):
    """x rounded to three decimals, halves away from zero (Go's math.Round(x*1000)/1000)."""
    y = x * 1000
    f = math.floor(abs(y))
    if abs(y) - f >= 0.5:
        f += 1
    return math.copysign(f, y) / 1000


def md_escape(s):
    """Escapes what breaks a Markdown table cell or starts emphasis (report.mdEscape)."""
    for c in "|*_`":
        s = s.replace(c, "\\" + c)
    return s


def html_escape(s):
    """Go's html.EscapeString."""
    for a, b in (("&", "&amp;"), ("'", "&#39;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&#34;")):
        s = s.replace(a, b)
    return s


class Text:
    """A cell output shown as Markdown (and HTML where given); its plain text is the Markdown."""

    def __init__(self, markdown, html=None):
        self.markdown, self.html = markdown, html

    def _repr_markdown_(self):
        return self.markdown

    def _repr_html_(self):
        return self.html

    def __repr__(self):
        return self.markdown


def show(fig):
    """Shows a figure as the cell's output and closes it (one image per figure)."""
    display(fig)
    plt.close(fig)


print(f"{summary.get('name', '?')}: {len(rows)} rows, {SPLITS} outer split(s), β grid {', '.join(map(go_g, BETA_GRID))}{' (multiples of β_min)' if BETA_RELATIVE else ''}; "
      f"run directory {RUN}")

# %% table
# The accuracy table in the layout of the paper's Tables 2-5: one row per
# kernel or kernel group (table_row), one column per method and mode; mean ±
# sample standard deviation over the outer splits, three decimals; bold: the
# best mean of each column with two or more entries (ties at three decimals
# all bold); †: some fit of the entry stopped above the solver's tolerance.
# The same rules as `mkpoe report` (pkg/report/table.go, NewTable).
COLUMNS = [("native", "", "Native"), ("k1", "diag", "K1 diagonal"), ("k1", "full", "K1 full"),
           ("k4", "diag", "K4 diagonal"), ("k4", "full", "K4 full")]
NOT_CONVERGED = "not converged: certified gap above tolerance"
STATIONARY = "stationary: fits stopped at a stationary point (a rank bound; the subgradient method's stall), not certified"


def column_key(r):
    return ("native", "") if r.method == "native" else (r.method.lower(), r.mode.lower())


def method_name(method):
    """A method as the tables write it: "native", "K1", "K4" (report.go's methodName)."""
    return method if method == "native" else method.upper()


def paper_layout(rows):
    """The table as a DataFrame of cells (dicts; None where not run): index the table rows, columns the headers."""
    present = {column_key(r) for r in rows.itertuples()}
    cols = [c for c in COLUMNS if c[:2] in present]
    for r in rows.itertuples():
        if column_key(r) not in [c[:2] for c in cols]:
            cols.append((*column_key(r), method_name(r.method) + (" " + r.mode if r.mode else "")))
    index = {c[:2]: i for i, c in enumerate(cols)}
    names, grid = [], []
    multi, kernel_named = False, True
    for r in rows.itertuples():
        name = r.table_row or " + ".join(r.kernels)
        multi = multi or len(r.kernels) > 1
        kernel_named = kernel_named and name == " + ".join(r.kernels)
        c = index[column_key(r)]
        if name in names and grid[names.index(name)][c] is not None:
            # Two results for one cell: the later one gets its own row, named by its label.
            name = r.label
            while name in names:
                name += "′"
        if name not in names:
            names.append(name)
            grid.append([None] * len(cols))
        grid[names.index(name)][c] = {"label": r.label, "mean": r.mean, "std": r.std, "paper": r.paper,
                                      "unconverged": known(r.unconverged_fits) and r.unconverged_fits > 0,
                                      "stationary": r.stationary_fits > 0,
                                      "best": False}
    for c in range(len(cols)):
        entries = [g[c] for g in grid if g[c] is not None]
        means = [round3(e["mean"]) for e in entries if not math.isnan(e["mean"])]
        if len(means) >= 2:
            for e in entries:
                e["best"] = not math.isnan(e["mean"]) and round3(e["mean"]) == max(means)
    table = pd.DataFrame(grid, index=names, columns=[c[2] for c in cols], dtype=object)
    table.index.name = "Kernels" if multi else ("Kernel" if kernel_named else "Row")
    return table


def cell_text(e, bold, dagger, paper, ddagger="‡"):
    v = fmt3(e["mean"]) + (" ± " + fmt3(e["std"]) if SPLITS > 1 else "")
    v = bold(v) if e["best"] else v
    v += dagger if e["unconverged"] else ""
    v += ddagger if e["stationary"] else ""
    return v + (paper(fmt3(e["paper"])) if known(e["paper"]) else "")


def caption(table):
    entries = [e for col in table.columns for e in table[col] if e is not None]
    s = f"{summary.get('name', '')}: test accuracy (fraction of held-out comparisons satisfied)"
    s += f", mean ± sample standard deviation over {SPLITS} outer splits" if SPLITS > 1 else " on one outer split"
    s += ". Bold: best mean of each column. "
    if any(known(e["paper"]) for e in entries):
        s += "In parentheses: the value reported by McFee & Lanckriet (2011) for the corresponding row. "
    s += "Empty cells were not run."
    if any(e["unconverged"] for e in entries):
        s += " † " + NOT_CONVERGED[0].upper() + NOT_CONVERGED[1:]
        if summary.get("solver_tol"):
            s += f" ({go_g(summary['solver_tol'])})"
        s += ": some fits of the entry (inner-CV sweep or refit) stopped at the iteration limit; see the Rows table."
    if any(e["stationary"] for e in entries):
        s += " ‡ " + STATIONARY[0].upper() + STATIONARY[1:]
        s += ": their gap is the distance to the convex problem's optimum; see the Rows table."
    return s


def table_markdown(table):
    md = "| " + md_escape(table.index.name) + "".join(" | " + h for h in table.columns)
    md += " |\n|---" + "|---:" * len(table.columns) + "|\n"
    for name, cells in table.iterrows():
        md += "| " + md_escape(name) + "".join(
            " | " + ("" if e is None else cell_text(e, lambda v: f"**{v}**", "†", lambda p: f" ({p})")) for e in cells)
        md += " |\n"
    return md + "\n" + md_escape(caption(table)) + "\n"


def table_html(table):
    h = '<table class="results">\n<thead><tr><th>' + html_escape(table.index.name) + "</th>"
    h += "".join("<th>" + html_escape(c) + "</th>" for c in table.columns) + "</tr></thead>\n<tbody>\n"
    sup = f'<sup class="unconverged" title="{NOT_CONVERGED}">†</sup>'
    dsup = f'<sup class="stationary" title="{STATIONARY}">‡</sup>'
    for name, cells in table.iterrows():
        h += "<tr><td>" + html_escape(name) + "</td>" + "".join(
            "<td>" + ("" if e is None else cell_text(e, lambda v: f"<b>{v}</b>", sup,
                                                      lambda p: f' <span class="paper">({p})</span>', dsup)) + "</td>"
            for e in cells) + "</tr>\n"
    return h + '</tbody>\n</table>\n<p class="caption">' + html_escape(caption(table)) + "</p>\n"


table = paper_layout(rows)
display(Text(table_markdown(table), table_html(table)))

# %% shares
# Each kernel's share of the regulariser Σ_p tr(W⁽ᵖ⁾K⁽ᵖ⁾) in the K4 refits,
# mean over splits (summary.json kernel_share): how much of the learned space
# each kernel carries (the reading of the learned weights in the paper's
# Sec. 5.1.4 and Fig. 5). `shares` is a DataFrame: rows, kernels as columns.
SHARES_TITLE = "Kernel shares of Σ_p tr(W⁽ᵖ⁾K⁽ᵖ⁾) in the K4 refits (mean over splits)"
with_shares = [r for r in rows.itertuples() if 0 < len(r.kernel_share) == len(r.kernels)]
shares = pd.DataFrame([dict(zip(r.kernels, r.kernel_share)) for r in with_shares],
                      index=[r.label for r in with_shares])
share_text = {r.label: ", ".join(f"{k} {v:.3f}" for k, v in zip(r.kernels, r.kernel_share)) for r in with_shares}
if not with_shares:
    print("No row has kernel shares (they are recorded for K4 rows).")
else:
    display(Text(md_escape(SHARES_TITLE) + ":\n\n| Row | Shares |\n|---|---|\n"
         + "".join(f"| {md_escape(r.label)} | {md_escape(share_text[r.label])} |\n" for r in with_shares),
         "<p>" + html_escape(SHARES_TITLE) + ':</p>\n<table class="shares">\n'
         + "<thead><tr><th>Row</th><th>Shares</th></tr></thead>\n<tbody>\n"
         + "".join(f"<tr><td>{html_escape(r.label)}</td><td>{html_escape(share_text[r.label])}</td></tr>\n"
                   for r in with_shares) + "</tbody>\n</table>\n"))

# %% details
# One line per config row: accuracy and chosen β per outer split, comparison
# counts, the paper's value and the convergence of the row's fits (absent in
# summaries written before it was recorded: "not recorded", never converged).


def convergence(r):
    gap = ""
    if known(r.max_gap):
        its = f", ≤ {int(r.max_iterations)} iterations" if known(r.max_iterations) else ""
        gap = f" (max gap {r.max_gap:.1e}{its})"
    if r.method == "native":
        return "—"
    if not known(r.unconverged_fits):
        return "not recorded"
    if r.unconverged_fits > 0:
        fits = str(int(r.fits)) if known(r.fits) else "?"
        stationary = f", ‡ {int(r.stationary_fits)} stationary" if r.stationary_fits > 0 else ""
        return f"† {int(r.unconverged_fits)} of {fits} fits not converged{stationary}{gap}"
    if r.stationary_fits > 0 and known(r.fits):
        certified = int(r.fits) - int(r.unconverged_fits) - int(r.stationary_fits)
        return f"‡ {int(r.stationary_fits)} of {int(r.fits)} fits stationary, {certified} certified{gap}"
    return "all converged" + gap


def half_ties(r):
    """Accuracy with ties counted as one half: mean (± sample sd over splits), from test_tallies."""
    if not r.test_tallies:
        return "—"
    per = [(t["right"] + 0.5 * t["ties"]) / (t["right"] + t["ties"] + t["wrong"]) for t in r.test_tallies]
    mean = sum(per) / len(per)
    if len(per) == 1:
        return fmt3(mean)
    sd = math.sqrt(sum((a - mean) * (a - mean) for a in per) / (len(per) - 1))
    return fmt3(mean) + " ± " + fmt3(sd)


def tie_rate(r):
    """The fraction of test comparisons, over all splits, whose two distances tie."""
    if not r.test_tallies:
        return "—"
    ties = sum(t["ties"] for t in r.test_tallies)
    return fmt3(ties / sum(t["right"] + t["ties"] + t["wrong"] for t in r.test_tallies))


def test_counts(r):
    out = ", ".join(str(int(n)) for n in r.test_comparisons)
    if r.test_missing:
        out += " (with an item a kernel lacks: " + ", ".join(str(int(n)) for n in r.test_missing) + ")"
    return out


details = pd.DataFrame({
    "Row": rows.label,
    "Method": [(method_name(m) + " " + mode).strip() for m, mode in zip(rows.method, rows["mode"])],
    "Kernels": [" + ".join(k) for k in rows.kernels],
    "Accuracy per split": [", ".join(map(fmt3, a)) for a in rows.accuracy],
    "Ties ½ (mean)": [half_ties(r) for r in rows.itertuples()],
    "Tie rate": [tie_rate(r) for r in rows.itertuples()],
    "β chosen per split": [", ".join(map(go_g, b)) for b in rows.beta],
    "Train comparisons": [", ".join(str(int(n)) for n in c) for c in rows.train_comparisons],
    "Test comparisons": [test_counts(r) for r in rows.itertuples()],
    "Paper": [fmt3(p) if known(p) else "" for p in rows.paper],
    "Convergence": [convergence(r) for r in rows.itertuples()],
}, columns=["Row", "Method", "Kernels", "Accuracy per split", "Ties ½ (mean)", "Tie rate", "β chosen per split", "Train comparisons",
            "Test comparisons", "Paper", "Convergence"])
display(Text("| " + " | ".join(details.columns) + " |\n|" + "---|" * len(details.columns) + "\n"
             + "".join("| " + " | ".join(md_escape(v) for v in line) + " |\n" for line in details.itertuples(index=False))))

# %% tasks
# Every task result of the run (tasks/<id>.json, mkpoe-task/1): native, cv
# (one inner fold: a β sweep) and refit tasks, with status, time, test
# accuracy, chosen β and the convergence of their fits. The Go report does
# not read them (the summary holds every number it shows), so this cell has
# no stored output: run it. It also checks that every refit's test accuracy
# is the one summary.json gives for its row and split.
records = []
for p in sorted((RUN / "tasks").glob("*.json")):
    t = json.loads(p.read_text(encoding="utf-8"))
    gaps, conv = t.get("gaps") or [], t.get("converged")
    records.append({
        "id": t.get("id", p.stem), "kind": t.get("kind", ""), "split": t.get("split"), "fold": t.get("fold"),
        "status": t.get("status", ""), "seconds": num(t.get("seconds")),
        "test_accuracy": num(t.get("test_accuracy")) if t.get("kind") != "cv" else math.nan,
        "beta": num(t.get("beta")) if t.get("kind") == "refit" else math.nan, "fits": len(gaps),
        "unconverged": sum(not c for c in conv) if conv is not None else None,
        "stationary": sum(s == "stationary" for s in t.get("fit_status") or []),
        "max_gap": max(num(g) for g in gaps) if gaps else math.nan, "model": t.get("model", ""),
    })
tasks = pd.DataFrame(records, columns=["id", "kind", "split", "fold", "status", "seconds", "test_accuracy", "beta",
                                       "fits", "unconverged", "stationary", "max_gap", "model"])
if tasks.empty:
    print(f"{RUN / 'tasks'}: no task files")
else:
    by_model = tasks[tasks.kind == "refit"].set_index("model")
    checked, differ = 0, []
    for r in rows.itertuples():
        for s, path in enumerate(r.models):
            if path in by_model.index:
                checked += 1
                a, b = by_model.at[path, "test_accuracy"], r.accuracy[s]
                if not (a == b or (math.isnan(a) and math.isnan(b))):
                    differ.append(f"{r.label} split {s}: task {by_model.at[path, 'id']} {a}, summary {b}")
    print(f"{len(tasks)} task files; summary.json's accuracy agrees with {checked - len(differ)} of {checked} refit tasks")
    for d in differ:
        print("differs:", d)
    display(tasks.groupby("kind").agg(tasks=("id", "size"), failed=("status", lambda s: int((s != "ok").sum())),
                                      seconds=("seconds", "sum"), fits=("fits", "sum")))

# %% fig-validation
# Mean inner-CV validation accuracy against β (log axis) for each learned row,
# one line per outer split (summary.json val_curve over beta_grid), shaded
# from the lowest to the highest inner fold's accuracy (min–max over folds:
# val_fold_min, val_fold_max; absent in older summaries); the β chosen for
# the refit ringed in red.


def panels(n):
    """A figure with n panels in rows of two, and its axes in reading order (the unused one hidden)."""
    ncols = min(2, n)
    nrows = (n + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(5 * ncols, 3.4 * nrows), squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, axes.flat[:n]


learned = [r for r in rows.itertuples() if len(r.val_curve) > 0]
if not learned:
    raise ValueError("no row of summary.json has a validation curve (val_curve)")
INNER_FOLDS = int(summary.get("inner_folds") or 0)
fig, axes = panels(len(learned))
for ax, r in zip(axes, learned):
    banded = False
    for s, curve in enumerate(r.val_curve):
        x, y = np.array(BETA_GRID), np.array(curve)
        ok = np.isfinite(y)
        ax.plot(x[ok], y[ok], "o-", ms=3, color=f"C{s}", label=f"split {s}" if len(r.val_curve) > 1 else "mean over inner folds")
        if s < len(r.val_fold_min) and s < len(r.val_fold_max):  # spread across inner folds
            lo, hi = np.array(r.val_fold_min[s]), np.array(r.val_fold_max[s])
            band = np.isfinite(lo) & np.isfinite(hi)
            ax.fill_between(x[band], lo[band], hi[band], color=f"C{s}", alpha=0.22, lw=0,
                            label=f"split {s}: min–max over {INNER_FOLDS} inner folds" if len(r.val_curve) > 1
                            else f"min–max over {INNER_FOLDS} inner folds")
            banded = True
        if s < len(r.val_zero_folds):  # W = 0 in some inner folds: all distances tie, accuracy 0 there
            zero = np.array([k > 0 for k in r.val_zero_folds[s]]) & ok
            ax.plot(x[zero], y[zero], "x", ms=8, color=f"C{s}")
        picked = r.beta_multiple if BETA_RELATIVE else r.beta
        if s < len(picked) and picked[s] in BETA_GRID and np.isfinite(y[BETA_GRID.index(picked[s])]):
            ax.plot(picked[s], y[BETA_GRID.index(picked[s])], "o", ms=11, mfc="none", mec="red", mew=1.5)
    ax.set_xscale("log")
    ax.set(title=r.label, xlabel="β / β_min" if BETA_RELATIVE else "β", ylabel="validation accuracy")
    if len(r.val_curve) > 1 or banded:
        ax.legend(fontsize=8)
fig.tight_layout()
show(fig)

# %% fig-objective
# The objective of each final refit after every solver iteration (the model
# files' objective_trace), one line per outer split; log iteration axis, and
# log objective axis when every value is positive and they span a decade.
traced = []
for r in rows.itertuples():
    traces = [np.array(model(p).get("objective_trace") or [], dtype=float) for p in r.models if p]
    if any(len(t) for t in traces):
        traced.append((r, traces))
if not traced:
    raise ValueError("no model file of this run holds an objective trace (objective_trace)")
fig, axes = panels(len(traced))
for ax, (r, traces) in zip(axes, traced):
    for s, t in enumerate(traces):
        ax.plot(np.arange(1, len(t) + 1), t, color=f"C{s}", label=f"split {s}")
    ax.set_xscale("log")
    values = np.concatenate(traces)
    if (values > 0).all() and values.max() / values.min() >= 10:
        ax.set_yscale("log")
    ax.set(title=f"{r.label} (β = {go_g(model(r.models[0])['beta'])})", xlabel="iteration", ylabel="objective")
    if len(traces) > 1:
        ax.legend(fontsize=8)
fig.tight_layout()
show(fig)

# %% fig-weights
# The learned diagonal weights as in the paper's Fig. 5: for a diagonal K4
# refit, one bar panel per kernel with the diagonal of W⁽ᵖ⁾, one bar per
# training item (in the order of items.json splits[s].train), one shared y
# scale; panel titles give each kernel's trace and non-zero weights.


def plot_weights(i, split):
    """Fig. 5 for row i of summary.json (a K4 diagonal row), outer split split."""
    r = rows.iloc[i]
    m = model(r.models[split])
    if m.get("mode") != "diag":
        raise ValueError(f"row {r.label!r}: the weights figure needs a diagonal model, got mode {m.get('mode')!r}")
    ws = metric_diagonals(m)
    names = r.kernels if len(r.kernels) == len(ws) else [f"kernel {p + 1}" for p in range(len(ws))]
    top = max([0.0] + [w.max() for w in ws if len(w)]) or 1.0
    fig, axes = plt.subplots(len(ws), 1, sharex=True, figsize=(8, 1.5 * len(ws) + 0.6), squeeze=False)
    for p, (ax, w) in enumerate(zip(axes[:, 0], ws)):
        ax.bar(np.arange(len(w)), w, width=0.85, color=f"C{p}")
        ax.set(xlim=(-0.5, len(w) - 0.5), ylim=(0, top * 1.05), ylabel="weight",
               title=f"{names[p]}   (trace {w.sum():.3g}, {(w > 1e-9 * top).sum()} of {len(w)} non-zero)")
    axes[-1, 0].set_xlabel("training item index")
    fig.suptitle(f"{r.label}, split {split}, β = {go_g(m['beta'])}")
    fig.tight_layout()
    return fig


# %% fig-map
# The learned space in the manner of the paper's Fig. 6. The t-SNE map is
# computed by `mkpoe report` (Go, seeded); this cell plots the coordinates it
# drew, saved beside this notebook as fig-map.tsv (item, name, label, x, y,
# held: embedded out of sample, named: labelled in the Go figure), and checks
# them against items.json. t-SNE is not recomputed here (no scikit-learn):
# for another run, or without fig-map.tsv, the cell falls back to a PCA of the
# stored embedding (models/*.json train_embedding and models/*.test.tsv) and
# says so in the title.
MAP_ROW, MAP_SPLIT = __MAP_ROW__, __MAP_SPLIT__


def map_points(i, split):
    """The map's points (a DataFrame) and how they were computed."""
    r = rows.iloc[i]
    m, path = model(r.models[split]), r.models[split]
    train, held = m["train_embedding"], held_out(path)
    ids = None
    if items and split < len(items.get("splits", [])) and len(items["splits"][split]["train"]) == len(train):
        ids = list(items["splits"][split]["train"]) + (list(items["splits"][split]["test"]) if held is not None else [])
    tsv = Path.cwd() / "fig-map.tsv"
    if tsv.is_file() and summary.get("config_hash") == WRITTEN_FOR:
        pts = pd.read_csv(tsv, sep="\t", quoting=csv.QUOTE_NONE, keep_default_na=False, dtype={"name": str},
                          na_values={"item": [""], "label": [""]})
        n = len(train) + (0 if held is None else len(held))
        if len(pts) != n or (ids is not None and list(pts["item"]) != ids):
            raise ValueError(f"{tsv}: {len(pts)} points that are not the items of {path}: rerun mkpoe report")
        return pts.astype({"held": bool, "named": bool}), "t-SNE by mkpoe report (fig-map.tsv)"
    x = train if held is None else np.vstack([train, held])
    x = x - x.mean(axis=0)
    y = x @ np.linalg.svd(x, full_matrices=False)[2][:2].T
    pts = pd.DataFrame({"item": ids or math.nan, "name": "", "label": math.nan, "x": y[:, 0],
                        "y": y[:, 1] if y.shape[1] > 1 else 0.0, "held": np.arange(len(x)) >= len(train),
                        "named": False})
    if ids:
        names, labels = items.get("names") or [], items.get("labels") or []
        pts["name"] = [names[g] if g < len(names) else "" for g in ids]
        if labels:
            pts["label"] = [labels[g] if g < len(labels) else math.nan for g in ids]
    return pts, "PCA of the stored embedding (fig-map.tsv absent or of another run)"


pts, how = map_points(MAP_ROW, MAP_SPLIT)
fig, ax = plt.subplots(figsize=(7.5, 7.5))
label_names = (items or {}).get("label_names") or []  # aset400: genre names, then "none"


def class_name(c):
    c = int(c)
    return label_names[c] if 0 <= c < len(label_names) and label_names[c] else f"class {c}"


counts = pts["label"].dropna().astype(int).value_counts()
classes = sorted(counts.index)
if len(classes) > 10:  # as the Go report: the nine largest keep a colour, the rest are grey ("other")
    classes = sorted(classes, key=lambda c: (-counts[c], c))
    groups = [(class_name(c), pts["label"] == c) for c in classes[:9]]
    groups.append((f"other ({len(classes) - 9} classes)", pts["label"].isin(classes[9:])))
else:
    groups = [(class_name(c), pts["label"] == c) for c in classes]
colours = [plt.cm.tab10(i) for i in (0, 1, 2, 3, 4, 5, 6, 8, 9, 7)]  # grey last, as the Go report's palette: "other" is grey
for k, (name, sel) in enumerate(groups or [(None, pd.Series(True, index=pts.index))]):
    ax.scatter(pts["x"][sel], pts["y"][sel], s=16, color=colours[k], label=name)
held = pts[pts["held"]]
if len(held):
    ax.scatter(held["x"], held["y"], s=70, marker="+", color="#d62728", label="held-out (out of sample)")
for p in pts[pts["named"]].itertuples():
    ax.annotate(p.name, (p.x, p.y), xytext=(4, 0), textcoords="offset points", fontsize=6.5, va="center", color="0.19")
if ax.get_legend_handles_labels()[0]:
    ax.legend(fontsize=8)
ax.set(xticks=[], yticks=[])
ax.set_title(f"{rows.label[MAP_ROW]}, split {MAP_SPLIT}: {how}", fontsize=10)
show(fig)

# %% timings
# Seconds per task (timings.json), summed by task kind (the ID's prefix). A task's
# entry is its seconds, or (newer runs) an object with "seconds" and CPU times.
def wall(v):
    return float(v["seconds"] if isinstance(v, dict) else v)
times = pd.DataFrame({"task": sorted(timings), "seconds": [wall(timings[k]) for k in sorted(timings)]})
times["kind"] = [t.split("-")[0] for t in times["task"]]
total, by_kind = 0.0, {}
for t in times.itertuples():  # plain sums in ID order, as the Go report, so that the last digit agrees
    total += t.seconds
    n, s = by_kind.get(t.kind, (0, 0.0))
    by_kind[t.kind] = (n + 1, s + t.seconds)
display(Text(f"Total task time {total:.1f} s (sum over tasks).\n\n| Task kind | Tasks | Time |\n|---|---:|---:|\n"
             + "".join(f"| {k} | {n} | {s:.1f} s |\n" for k, (n, s) in sorted(by_kind.items()))))

# %% versions
# The build and machine of the run (env.json).
display(Text("| | |\n|---|---|\n" + "".join(f"| {md_escape(k)} | `{env[k]}` |\n" for k in sorted(env))))

"""PNG plots of run summaries (matplotlib, Agg backend: no display needed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evaluator.stats import MeanCI
from evaluator.summary import RunSummary


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _save(plt: Any, fig: Any, path: Path) -> Path:
    """Lay out, write and close the figure (open figures pile up in a long-lived server process)."""
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def _err(cis: list[MeanCI | None]) -> tuple[list[float], list[list[float]]]:
    means = [c.mean if c else 0.0 for c in cis]
    lo = [c.mean - c.lo if c else 0.0 for c in cis]
    hi = [c.hi - c.mean if c else 0.0 for c in cis]
    return means, [lo, hi]


def plot_difficulty(summary: RunSummary, path: Path) -> Path | None:
    """Bars of the mean soft score per difficulty with 95% CI whiskers; None when there is nothing."""
    names = [n for n, d in summary.by_difficulty.items() if d.soft_score is not None]
    if not names:
        return None
    plt = _pyplot()
    means, err = _err([summary.by_difficulty[n].soft_score for n in names])
    fig, ax = plt.subplots(figsize=(5.5, 3.5), dpi=120)
    ax.bar([n.capitalize() for n in names], means, yerr=err, capsize=4, color="#4C72B0")
    for k, n in enumerate(names):
        ax.annotate(f"n={summary.by_difficulty[n].n}", (k, 2), ha="center", color="white", fontsize=8)
    ax.set_ylim(0, 100)
    ax.set_ylabel("soft score")
    ax.set_title(f"{summary.run}: soft score by difficulty (95% CI)")
    return _save(plt, fig, path)


def plot_heatmap(summary: RunSummary, path: Path) -> Path | None:
    """Heat map of the mean soft score by horizon and initial complexity; None when there is no table."""
    table = summary.horizon_complexity
    if table is None or not any(c.n for row in table.cells for c in row):
        return None
    import numpy as np

    plt = _pyplot()
    values = np.array([[c.soft_score.mean if c.soft_score else np.nan for c in row] for row in table.cells])
    fig, ax = plt.subplots(figsize=(6.5, 3.8), dpi=120)
    im = ax.imshow(np.ma.masked_invalid(values), vmin=0, vmax=100, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(table.complexity_bins)), table.complexity_bins)
    ax.set_yticks(range(len(table.horizon_bins)), table.horizon_bins)
    ax.set_xlabel("initial complexity (bricks present)")
    ax.set_ylabel("horizon (bricks to place)")
    for i, row in enumerate(table.cells):
        for j, c in enumerate(row):
            text = f"{c.soft_score.mean:.0f}\n(n={c.n})" if c.soft_score else "–"
            ax.text(j, i, text, ha="center", va="center", fontsize=7, color="white" if c.soft_score else "grey")
    fig.colorbar(im, ax=ax, label="mean soft score")
    ax.set_title(f"{summary.run}: horizon x complexity")
    return _save(plt, fig, path)


def plot_rounds(summary: RunSummary, path: Path) -> Path | None:
    """Mean soft score after each reflection round, with and without time penalty; None without rounds."""
    rows = summary.reflection
    if not rows:
        return None
    plt = _pyplot()
    x = [r.round for r in rows]
    fig, ax = plt.subplots(figsize=(5.5, 3.5), dpi=120)
    for attr, label in (("soft_score", "with time penalty"), ("soft_score_no_time_penalty", "without")):
        means, err = _err([getattr(r, attr) for r in rows])
        ax.errorbar(x, means, yerr=err, marker="o", capsize=4, label=label)
    ax.set_ylim(0, 100)
    ax.set_ylabel("soft score")
    ax.set_title(f"{summary.run}: reflection rounds (95% CI)")
    ax.legend()
    return _save(plt, fig, path)


def plot_comparison(summaries: list[RunSummary], labels: list[str], path: Path) -> Path | None:
    """Grouped bars: soft score per difficulty, one bar per run; None when no run has assembly results."""
    diffs = [d for d in ("easy", "medium", "hard", "overall") if any(d in s.by_difficulty for s in summaries)]
    if not diffs:
        return None
    plt = _pyplot()
    width = 0.8 / len(summaries)
    fig, ax = plt.subplots(figsize=(max(6.0, 1.2 * len(diffs) * len(summaries) ** 0.5 + 3), 3.8), dpi=120)
    for k, (s, label) in enumerate(zip(summaries, labels, strict=True)):
        # A stratum a run has no episodes in is absent from the plot, never a zero-height bar.
        present = [(i, c) for i, d in enumerate(diffs) if d in s.by_difficulty and (c := s.by_difficulty[d].soft_score)]
        if not present:
            ax.bar([], [], width=width, label=f"{label} (no assembly scores)")
            continue
        means, err = _err([c for _, c in present])
        xs = [i + (k - (len(summaries) - 1) / 2) * width for i, _ in present]
        ax.bar(xs, means, width=width, yerr=err, capsize=3, label=label)
    ax.set_xticks(range(len(diffs)), [d.capitalize() for d in diffs])
    ax.set_ylim(0, 100)
    ax.set_ylabel("soft score")
    ax.legend(fontsize=7)
    ax.set_title("soft score by difficulty (95% CI)")
    return _save(plt, fig, path)


def plot_score_distribution(summary: RunSummary, path: Path) -> Path | None:
    """Each assembly episode's soft score as a dot per difficulty, with the mean and its 95% CI; None without any."""
    by_diff: dict[str, list[float]] = {}
    for row in summary.episodes:
        if row.family == "lego" and row.soft_score is not None:
            by_diff.setdefault(row.difficulty or "unknown", []).append(row.soft_score)
    names = [n for n in summary.by_difficulty if n in by_diff]  # the summary's order: easy, medium, hard, others
    names += sorted(set(by_diff) - set(names))
    if not names:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 3.5), dpi=120)
    for k, name in enumerate(names):
        values = by_diff[name]
        # Spread the dots sideways, left of the mean's marker, so equal scores stay visible as a row, not one dot.
        n = len(values)
        xs = [k - 0.3 + (0.2 * j / (n - 1) if n > 1 else 0.1) for j in range(n)]
        ax.scatter(xs, values, s=14, alpha=0.6, color="#4C72B0")
        ci = summary.by_difficulty.get(name)
        if ci is not None and ci.soft_score is not None:
            m = ci.soft_score
            ax.errorbar([k], [m.mean], yerr=[[m.mean - m.lo], [m.hi - m.mean]], fmt="D", color="#C44E52", capsize=5)
    ax.set_xticks(range(len(names)), [f"{n.capitalize()}\n(n={len(by_diff[n])})" for n in names])
    ax.set_xlim(-0.6, len(names) - 0.4)
    ax.set_ylim(-3, 103)
    ax.set_ylabel("soft score")
    ax.set_title(f"{summary.run}: episode scores (mean, 95% CI)")
    return _save(plt, fig, path)


def plot_failed_actions(summaries: list[RunSummary], labels: list[str], path: Path, top: int = 10) -> Path | None:
    """Failed skill calls per episode by error kind, one bar per run (model); None when no run has any.

    Per episode, so runs of different sizes compare; the `top` most frequent kinds over all runs are shown
    and the rest summed as 'other kinds'.
    """
    totals: dict[str, int] = {}
    for s in summaries:
        for kind, n in s.failed_action_kinds.items():
            totals[kind] = totals.get(kind, 0) + n
    if not totals:
        return None
    kinds = sorted(totals, key=lambda k: (-totals[k], k))
    shown = kinds[:top] + (["other kinds"] if len(kinds) > top else [])
    plt = _pyplot()
    height = 0.8 / len(summaries)
    fig, ax = plt.subplots(figsize=(7.0, 1.2 + 0.35 * len(shown) * max(1, len(summaries)) ** 0.5), dpi=120)
    for k, (s, label) in enumerate(zip(summaries, labels, strict=True)):
        n = s.n_assembly_episodes()
        if not n:
            continue  # no assembly episodes: no rate to draw, and no zero bar pretending there is one
        per = [s.failed_action_kinds.get(kind, 0) for kind in kinds[:top]]
        if len(kinds) > top:
            per.append(sum(s.failed_action_kinds.get(kind, 0) for kind in kinds[top:]))
        ys = [i + (k - (len(summaries) - 1) / 2) * height for i in range(len(shown))]
        ax.barh(ys, [v / n for v in per], height=height, label=f"{label} ({n} episodes)")
    ax.set_yticks(range(len(shown)), shown)
    ax.invert_yaxis()  # the most frequent kind on top
    ax.set_xlabel("failed skill calls per episode")
    ax.legend(fontsize=7)
    ax.set_title("failed actions by error kind" if len(summaries) > 1 else f"{summaries[0].run}: failed actions by kind")
    return _save(plt, fig, path)


def plot_rounds_comparison(summaries: list[RunSummary], labels: list[str], path: Path) -> Path | None:
    """Reflection-round curves, one per run (mean soft score after R0..Rk, 95% CI); None when no run reflected."""
    if not any(s.reflection for s in summaries):
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.0, 3.6), dpi=120)
    for s, label in zip(summaries, labels, strict=True):
        rows = [r for r in s.reflection if r.soft_score is not None]
        if not rows:
            continue  # a run without reflection rounds has no curve (not a flat line at zero)
        means, err = _err([r.soft_score for r in rows])
        ax.errorbar([r.round for r in rows], means, yerr=err, marker="o", capsize=3, label=label)
    ax.set_ylim(0, 100)
    ax.set_xlabel("reflection round")
    ax.set_ylabel("soft score")
    ax.legend(fontsize=7)
    ax.set_title("soft score after each reflection round (95% CI)")
    return _save(plt, fig, path)

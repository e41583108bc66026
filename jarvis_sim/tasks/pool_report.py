"""The pool's distribution report: figures beside the JARVIS paper's, as JSON and PNG plots."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from jarvis_sim.tasks.difficulty import stratum_of, stratum_thresholds
from jarvis_sim.tasks.pool import PoolFigures

PAPER: dict[str, float] = {
    "tasks": 236679,
    "assemblies": 8987,
    "horizon_mean": 4.9,
    "horizon_median": 4,
    "horizon_p95": 10,
    "horizon_max": 43,
    "complexity_min": 0,
    "complexity_max": 740,
    "complexity_median": 57,
    "pearson_r": 0.18,
}
HORIZON_BINS = ((1, 2), (3, 5), (6, 10), (11, None))
COMPLEXITY_BINS = ((0, 29), (30, 78), (79, 149), (150, 299), (300, None))


def _label(lo: int, hi: int | None) -> str:
    return f"{lo}+" if hi is None else f"{lo}-{hi}"


def heat_map(horizons: np.ndarray, complexities: np.ndarray) -> np.ndarray:
    """Task counts by horizon bin (rows) x initial-complexity bin (columns)."""
    out = np.zeros((len(HORIZON_BINS), len(COMPLEXITY_BINS)), dtype=np.int64)
    for i, (hl, hh) in enumerate(HORIZON_BINS):
        hm = (horizons >= hl) & (horizons <= (hh if hh is not None else 10**9))
        for j, (cl, ch) in enumerate(COMPLEXITY_BINS):
            out[i, j] = int(np.count_nonzero(hm & (complexities >= cl) & (complexities <= (ch if ch is not None else 10**9))))
    return out


def report(fig: PoolFigures, seed: int, build_s: float | None = None) -> dict[str, Any]:
    """The figures of a pool, next to the paper's."""
    h, c = fig.horizons, fig.complexities
    thresholds = stratum_thresholds(fig.scores.tolist())
    labels = [stratum_of(float(x), thresholds) for x in fig.scores]
    ours = {
        "tasks": int(h.size),
        "assemblies": int(fig.sizes.size),
        "horizon_mean": round(float(h.mean()), 3),
        "horizon_median": float(np.median(h)),
        "horizon_p95": float(np.percentile(h, 95)),
        "horizon_max": int(h.max()),
        "complexity_min": int(c.min()),
        "complexity_max": int(c.max()),
        "complexity_median": float(np.median(c)),
        "pearson_r": round(float(np.corrcoef(h, c)[0, 1]), 4),
    }
    hm = heat_map(h, c)
    return {
        "seed": seed,
        "build_seconds": build_s,
        "pool": ours,
        "paper": PAPER,
        "assembly_size": {
            "mean": round(float(fig.sizes.mean()), 2),
            "median": float(np.median(fig.sizes)),
            "max": int(fig.sizes.max()),
        },
        "strata": {
            "thresholds": [round(t, 6) for t in thresholds],
            "counts": {s: labels.count(s) for s in ("easy", "medium", "hard")},
        },
        "heat_map": {
            "rows_horizon": [_label(*b) for b in HORIZON_BINS],
            "cols_initial_complexity": [_label(*b) for b in COMPLEXITY_BINS],
            "counts": hm.tolist(),
            "percent": np.round(100.0 * hm / max(1, h.size), 2).tolist(),
        },
    }


def plot(fig: PoolFigures, rep: dict[str, Any], out_dir: Path) -> list[Path]:
    """Histograms of horizon and initial complexity and the heat map, paper figures marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    ours, paper = rep["pool"], rep["paper"]
    f, ax = plt.subplots(figsize=(7, 4))
    ax.hist(fig.horizons, bins=[k + 0.5 for k in range(int(fig.horizons.max()) + 1)], color="#4477aa")
    ax.set_yscale("log")
    ax.axvline(ours["horizon_mean"], color="k", label=f"mean {ours['horizon_mean']:.2f} (paper {paper['horizon_mean']})")
    ax.axvline(ours["horizon_median"], color="k", ls="--", label=f"median {ours['horizon_median']:g} (paper {paper['horizon_median']})")
    ax.axvline(ours["horizon_p95"], color="r", ls=":", label=f"95% <= {ours['horizon_p95']:g} (paper {paper['horizon_p95']})")
    ax.set_xlabel("action bricks per task (horizon)")
    ax.set_ylabel("tasks")
    ax.set_title(f"{ours['tasks']} tasks from {ours['assemblies']} assemblies (paper: {paper['tasks']} from {paper['assemblies']})")
    ax.legend(fontsize=8)
    f.tight_layout()
    paths.append(out_dir / "horizon_hist.png")
    f.savefig(paths[-1], dpi=110)
    plt.close(f)

    f, ax = plt.subplots(figsize=(7, 4))
    ax.hist(fig.complexities, bins=60, color="#aa7744")
    ax.axvline(ours["complexity_median"], color="k", ls="--", label=f"median {ours['complexity_median']:g} (paper {paper['complexity_median']})")
    ax.set_xlabel(f"initial complexity (bricks at start), range {ours['complexity_min']}-{ours['complexity_max']} (paper 0-740)")
    ax.set_ylabel("tasks")
    ax.legend(fontsize=8)
    f.tight_layout()
    paths.append(out_dir / "complexity_hist.png")
    f.savefig(paths[-1], dpi=110)
    plt.close(f)

    hm = np.array(rep["heat_map"]["percent"])
    f, ax = plt.subplots(figsize=(7, 4))
    im = ax.imshow(hm, cmap="viridis", aspect="auto")
    ax.set_xticks(range(hm.shape[1]), rep["heat_map"]["cols_initial_complexity"])
    ax.set_yticks(range(hm.shape[0]), rep["heat_map"]["rows_horizon"])
    for i in range(hm.shape[0]):
        for j in range(hm.shape[1]):
            ax.text(j, i, f"{hm[i, j]:.1f}%", ha="center", va="center", color="w", fontsize=8)
    ax.set_xlabel("initial complexity (bricks)")
    ax.set_ylabel("horizon (action bricks)")
    ax.set_title(f"horizon x complexity, Pearson r = {ours['pearson_r']:.3f} (paper {paper['pearson_r']})")
    f.colorbar(im, label="% of tasks")
    f.tight_layout()
    paths.append(out_dir / "heat_map.png")
    f.savefig(paths[-1], dpi=110)
    plt.close(f)
    return paths


def write_report(fig: PoolFigures, seed: int, out_dir: Path, build_s: float | None = None) -> dict[str, Any]:
    """Write report.json and the PNG figures into out_dir; return the report."""
    rep = report(fig, seed, build_s)
    rep["figures"] = [p.name for p in plot(fig, rep, out_dir)]
    (out_dir / "report.json").write_text(json.dumps(rep, indent=1) + "\n", encoding="utf-8")
    return rep

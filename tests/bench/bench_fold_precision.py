"""`jarvis bench fold_precision`: the shipped GamiBench patterns re-written as real tools write FOLD files.

Each of the 372 shipped patterns (186 foldable, 186 impossible twins) is exported the way Origami
Simulator (float32, XZ plane, turned, on a 2.5-unit sheet), a 4-decimal writer (TreeMaker style) and
ORIPA (a 400-unit sheet, 3 decimals) write it, then checked twice in the same run: with the coordinates
taken as exact (`noise=0`, the baseline) and with the precision read from the file (the default).
A verdict counts as right when it matches the exact file's verdict; "false_foldable" would mean the
rounding hid a violation. One JSON line per writer, with the check time of both modes.

Options: --limit N checks only the first N patterns (sorted by name).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path
from typing import Any

import numpy as np
from common import emit, machine

from jarvis_sim.origami.fold_format import CreasePattern, dumps, from_fold, read_fold
from jarvis_sim.origami.foldability import Verdict, check
from jarvis_sim.origami.library import ASSETS


def origami_simulator(data: dict[str, Any]) -> None:
    c, s = math.cos(math.radians(45.0)), math.sin(math.radians(45.0))
    out = []
    for x, y in data["vertices_coords"]:
        u, v = (x - 0.5) * 2.5, (y - 0.5) * 2.5
        out.append([float(np.float32(c * u - s * v)), 0.0, float(np.float32(s * u + c * v))])
    data["vertices_coords"] = out


def four_decimals(data: dict[str, Any]) -> None:
    data["vertices_coords"] = [[round(x, 4), round(y, 4)] for x, y in data["vertices_coords"]]


def oripa(data: dict[str, Any]) -> None:
    data["vertices_coords"] = [[round(x * 400, 3), round(y * 400, 3)] for x, y in data["vertices_coords"]]


WRITERS = {"origami_simulator_float32_xz": origami_simulator, "four_decimals": four_decimals,
           "oripa_400_three_decimals": oripa}


def outcome(verdict: Verdict, truth: bool) -> str:
    """How a verdict compares with the exact file's."""
    if not verdict.decided:
        return "undecided"
    if verdict.foldable == truth:
        return "right"
    return "false_foldable" if verdict.foldable else "false_not_foldable"


def main(limit: int | None) -> None:
    files = sorted((ASSETS / "patterns").glob("*.fold"))[:limit]
    exact: list[tuple[Path, CreasePattern, bool]] = [(f, cp, check(cp).foldable) for f in files for cp in [read_fold(f)]]
    for name, write in WRITERS.items():
        counts: dict[str, dict[str, int]] = {"as_exact": {}, "file_precision": {}}
        seconds = {"as_exact": 0.0, "file_precision": 0.0}
        for _, cp, truth in exact:
            data = json.loads(dumps(cp))
            write(data)
            noisy = from_fold(data)
            for mode, noise in (("as_exact", 0.0), ("file_precision", None)):
                t0 = time.perf_counter()
                verdict = check(noisy, noise=noise)
                seconds[mode] += time.perf_counter() - t0
                key = outcome(verdict, truth)
                counts[mode][key] = counts[mode].get(key, 0) + 1
        right = {m: counts[m].get("right", 0) for m in counts}
        emit(f"fold_precision_{name}", right["file_precision"] / len(exact), "fraction_right", patterns=len(exact),
             baseline_fraction_right=right["as_exact"] / len(exact), as_exact=counts["as_exact"],
             file_precision=counts["file_precision"], seconds_as_exact=round(seconds["as_exact"], 2),
             seconds_file_precision=round(seconds["file_precision"], 2),
             time_ratio=round(seconds["file_precision"] / max(seconds["as_exact"], 1e-9), 3), **machine())


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=None)
    main(ap.parse_args().limit)

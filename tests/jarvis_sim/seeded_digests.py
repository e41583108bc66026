"""Digests of every kind of seeded artifact, regenerated from scratch (run as a script in a subprocess).

`python tests/jarvis_sim/seeded_digests.py OUT` writes {artifact: sha256} as JSON to OUT. The test beside it
runs this under different OPENBLAS_CORETYPE values and compares: the bytes must not depend on which BLAS
kernel (or numpy SIMD target) the process happened to pick. Each artifact is a representative subset that
exercises the same code paths as the full one (the full regenerations are the `slow` tests of each package).
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _tree_digest(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(root)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def _text_digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def digests(tmp: Path) -> dict[str, str]:
    """One digest per artifact kind: suites, pool chunk, staging layouts, VSP set, GamiBench patterns."""
    from jarvis_sim.origami.fold_format import dumps
    from jarvis_sim.origami.generator import fold_sequence, miura_ori, square_twist
    from jarvis_sim.origami.library import build_library, write_library
    from jarvis_sim.tasks.collection import make_assembly
    from jarvis_sim.tasks.pool import build_pool
    from jarvis_sim.tasks.suites import write_suite
    from jarvis_sim.vsp.generate import generate_set

    out: dict[str, str] = {}
    out["suite/jarvis-mini"] = hashlib.sha256(write_suite("jarvis-mini", tmp / "mini.jsonl").read_bytes()).hexdigest()
    # The paper-matched draw (jarvis-v2's recipe: the statistics matching decides in float arithmetic), on the v1
    # pool: jarvis-v2's own single-arm pool takes minutes to generate, four times over in this test.
    from dataclasses import replace

    from jarvis_sim.tasks.suites import RECIPES

    RECIPES["paper-match-v1"] = replace(RECIPES["jarvis-v2"], name="paper-match-v1", pool="v1")
    out["suite/paper-match-v1"] = hashlib.sha256(write_suite("paper-match-v1", tmp / "pm.jsonl").read_bytes()).hexdigest()
    # Single-arm generation (jarvis-v2's pool, seed 107): statics programmes decide every brick. A build the
    # layer-order pass trims and the generator refills (00007), and a random pile checked at every drop (00018).
    single_arm = [b.model_dump_json() for i in (7, 18) for b in make_assembly("v", 107, i)]
    out["assemblies/v107-single-arm"] = _text_digest("".join(single_arm))
    build_pool(2, 0, tmp / "pool", workers=1)  # assemblies, their tasks and every staging layout
    out["pool"] = _tree_digest(tmp / "pool")
    out["vsp"] = _tree_digest(generate_set(tmp / "vsp", seed=3, n=1, n_examples=1, workers=1))
    write_library(build_library(quota={"simple": 5, "complex": 0}), tmp / "gamibench")
    out["gamibench/prefix"] = _tree_digest(tmp / "gamibench")
    # The float-heavy families: repeated folds along axiom lines (where kernels used to diverge), lattice
    # folds and the SAT-assigned tessellations.
    rng = random.Random(42)
    folds = [fold_sequence(rng, 1 + i % 6, f"axiom-fold-{i:03d}") for i in range(40)]
    folds += [fold_sequence(rng, 2 + i % 4, f"box-pleat-{i:03d}", allowed="box") for i in range(6)]
    out["gamibench/folds"] = _text_digest("".join("-" if cp is None else dumps(cp) for cp in folds))
    tess = [miura_ori(3, 4, 0.2), square_twist(0.3, 22.5)]
    out["gamibench/tessellations"] = _text_digest("".join("-" if cp is None else dumps(cp) for cp in tess))
    return out


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))  # the checkout's packages, not whichever copy is installed
    with tempfile.TemporaryDirectory() as d:
        Path(sys.argv[1]).write_text(json.dumps(digests(Path(d)), indent=1, sort_keys=True), encoding="utf-8")

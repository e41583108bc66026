"""`jarvis bench skills`: the skill library against ground truth. One JSON object per figure.

- Perception on the initial scenes of a suite (default jarvis-v1, all tasks), in both modes side by side:
  ideal (the renderer's instance masks, exact depth) and camera (skills.sensor noise model, segmentation from
  RGB-D without instance ids): descriptor position and yaw error against the simulator's poses, share of loose
  action bricks detected, size and colour accuracy. Descriptors are computed exactly as observe() computes them
  and matched to ground-truth top faces by position only to score them.
- One pick-and-place (pick + place_at, with place's verifying observation) in a ~75-brick scene: median wall
  time, quoted against the same pick-and-place in a 3-brick scene measured in this run.
- `--oracle SUITE`: the oracle on a suite through agent.runs.batch.run_batch; share of action bricks complete (of all,
  and of those the oracle does not leave out as statically unbuildable: agent.agents.oracle.build_order),
  placement error over matched bricks, grasp success, undisturbed initial structures, and every failure.

    jarvis bench skills [--suite jarvis-v1] [--limit N] [--repeat 3] [--oracle jarvis-mini --workers 1 --out DIR]
    jarvis bench skills --only oracle --oracle jarvis-v1 [--oracle-agent careful_oracle]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from common import emit, machine

import jarvis_sim.tasks.families  # noqa: F401  (registers the task families)
from jarvis_sim.backends.registry import make_backend
from jarvis_sim.lego.catalog import part
from jarvis_sim.lego.colors import color
from jarvis_sim.lego.world_state import BrickState
from jarvis_sim.tasks.registry import load_task, suite_task_ids
from jarvis_sim.tasks.spec import TaskSpec
from skills.context import SkillContext
from skills.errors import SkillError
from skills.libraries import bind
from skills.perception import detect
from skills.sensor import SensorModel
from skills.types import BrickDescriptor
from tests.fakes.lego_tasks import stack_task

FULLY_SEEN = 0.9  # visible_fraction above which a descriptor frames its brick's studs (the oracle's test)


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100); NaN for no values."""
    return float(np.percentile(values, q)) if values else math.nan


def median(values: list[float]) -> float:
    """Median; NaN for no values."""
    return statistics.median(values) if values else math.nan


# --- perception ------------------------------------------------------------------------------------
@dataclass
class PerceptionTally:
    """Per-descriptor errors and per-loose-brick detection outcomes over many scenes."""

    pos_err_mm: list[float] = field(default_factory=list)
    yaw_err_deg: list[float] = field(default_factory=list)
    top_err_mm: list[float] = field(default_factory=list)
    visible: list[float] = field(default_factory=list)
    loose: list[bool] = field(default_factory=list)
    size_ok: list[bool] = field(default_factory=list)
    color_ok: list[bool] = field(default_factory=list)
    loose_detected: list[bool] = field(default_factory=list)
    loose_usable: list[bool] = field(default_factory=list)  # right size, loose and free to grasp
    instances: int = 0
    observe_wall_s: list[float] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)
    color_confusions: dict[str, int] = field(default_factory=dict)  # "true -> seen" counts
    spurious: int = 0  # descriptors over no ground-truth brick

    def subset(self, keep: list[bool]) -> tuple[list[float], list[float]]:
        """Position and yaw errors of the descriptors selected by a mask."""
        pos = [e for e, k in zip(self.pos_err_mm, keep, strict=True) if k]
        yaw = [e for e, k in zip(self.yaw_err_deg, keep, strict=True) if k]
        return pos, yaw


def truth_top(b: BrickState) -> tuple[float, float, float, float, float]:
    """Ground truth of what a descriptor estimates: top-face centre (mm), yaw of the long side (deg), period."""
    p = part(b.part)
    w, x, y, z = b.quaternion
    rot = np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])
    top = np.asarray(b.position) + rot @ np.array([0.0, 0.0, p.height_m])
    yaw = math.degrees(math.atan2(rot[1, 0], rot[0, 0])) + (90.0 if p.depth > p.width else 0.0)
    period = 90.0 if p.width == p.depth else 180.0
    return float(top[0] * 1000), float(top[1] * 1000), float(top[2] * 1000), yaw % period, period


def yaw_gap(a: float, b: float, period: float) -> float:
    """Smallest yaw difference (deg) for a shape with this symmetry period."""
    d = (a - b) % period
    return min(d, period - d)


def match_to_truth(found: list[BrickDescriptor], truth: dict[str, BrickState]) -> dict[str, BrickDescriptor]:
    """Ground-truth id -> the descriptor over it (top-face centre within 8 mm in the plane and 3 mm in height,
    closest pairs first, each used once): for scoring only, the same rule for both perception modes."""
    pairs = []
    for k, d in enumerate(found):
        for bid, b in truth.items():
            tx, ty, tz, _, _ = truth_top(b)
            plane = math.hypot(d.x_mm - tx, d.y_mm - ty)
            if plane < 8.0 and abs(d.top_z_mm - tz) < 3.0:
                pairs.append((plane, k, bid))
    out: dict[str, BrickDescriptor] = {}
    used: set[int] = set()
    for _, k, bid in sorted(pairs):
        if k not in used and bid not in out:
            out[bid] = found[k]
            used.add(k)
    return out


def perceive_scene(task: TaskSpec, tally: PerceptionTally, sensor: SensorModel | None) -> None:
    """Load a task's initial scene, park the arm, and score every brick descriptor against ground truth.

    sensor None: ideal perception (renderer's instance masks, exact depth); else the camera mode (that sensor's
    noise, segmentation from RGB-D without instance ids)."""
    backend = make_backend("mujoco")
    try:
        backend.load(task, seed=0)
        ctx = SkillContext(backend=backend, workspace=task.workspace)
        bind("task", ctx)["go_home"]()
        t0 = time.perf_counter()
        if sensor is None:
            frame = backend.render(ctx.camera, rgb=True, depth=True, segmentation=True)
        else:
            frame = sensor.apply(backend.render(ctx.camera, rgb=True, depth=True), np.random.default_rng(0))
        found = [d for d, _ in detect(frame, task.workspace)]
        tally.observe_wall_s.append(time.perf_counter() - t0)
        truth = backend.world_state().by_id()
        described = match_to_truth(found, truth)
        tally.spurious += len(found) - len(described)
        action_ids = {a.id for a in task.action_bricks}
        tally.instances += len(truth)
        for bid, d in described.items():
            b = truth[bid]
            tx, ty, tz, tyaw, period = truth_top(b)
            p = part(b.part)
            tally.pos_err_mm.append(math.hypot(d.x_mm - tx, d.y_mm - ty))
            tally.yaw_err_deg.append(yaw_gap(d.yaw_deg, tyaw, period))
            tally.top_err_mm.append(abs(d.top_z_mm - tz))
            tally.visible.append(d.visible_fraction)
            tally.loose.append(bid in action_ids)
            tally.size_ok.append(d.size == (max(p.width, p.depth), min(p.width, p.depth)))
            tally.color_ok.append(d.color == color(b.color).name)
            if d.color != color(b.color).name:
                key = f"{color(b.color).name} -> {d.color}"
                tally.color_confusions[key] = tally.color_confusions.get(key, 0) + 1
        for bid in sorted(action_ids):
            d = described.get(bid)
            p = part(truth[bid].part)
            tally.loose_detected.append(d is not None)
            usable = (d is not None and d.size == (max(p.width, p.depth), min(p.width, p.depth))
                      and not d.in_structure and d.free_to_grasp)
            tally.loose_usable.append(usable)
            if not usable:
                tally.misses.append(f"{task.id}:{bid}:" + ("not detected" if d is None else
                                    f"size={d.size} in_structure={d.in_structure} free={d.free_to_grasp}"))
    finally:
        backend.close()


PERCEPTION_MODES: dict[str, SensorModel | None] = {"ideal": None, "camera": SensorModel()}


def perception_figures(suite: str, limit: int | None) -> None:
    """Perception accuracy on a suite's initial scenes, ideal and camera mode side by side."""
    ids = suite_task_ids(suite)[:limit] if limit else suite_task_ids(suite)
    side: dict[str, dict[str, float]] = {}
    for mode, sensor in PERCEPTION_MODES.items():
        tally = PerceptionTally()
        t0 = time.perf_counter()
        for tid in ids:
            task = load_task(tid)
            assert isinstance(task, TaskSpec)
            perceive_scene(task, tally, sensor)
        side[mode] = mode_figures(tally, {"suite": suite, "scenes": len(ids), "mode": mode, **machine()}, t0)
    emit("perception_modes_side_by_side", len(ids), "scenes", suite=suite,
         sensor=SensorModel().model_dump(), **{m: {k: round(v, 4) for k, v in f.items()} for m, f in side.items()},
         note="ideal: renderer instance masks, exact depth; camera: skills.sensor noise, RGB-D segmentation "
         "without ids; both scored by matching descriptors to ground-truth tops within 8 mm / 3 mm")


def mode_figures(tally: PerceptionTally, ctx: dict[str, Any], t0: float) -> dict[str, float]:
    """Emit one perception mode's figures; returns the headline numbers for the side-by-side line."""
    n = len(tally.pos_err_mm)
    seen_pos, seen_yaw = tally.subset([v > FULLY_SEEN for v in tally.visible])
    loose_pos, loose_yaw = tally.subset(tally.loose)
    emit("perception_pos_err_median_mm", median(tally.pos_err_mm), "mm", p90=round(percentile(tally.pos_err_mm, 90), 3),
         descriptors=n, fully_seen_median=round(median(seen_pos), 3), fully_seen_n=len(seen_pos),
         loose_median=round(median(loose_pos), 3), loose_p90=round(percentile(loose_pos, 90), 3), target="<= 2", **ctx)
    emit("perception_pos_err_p90_mm", percentile(tally.pos_err_mm, 90), "mm", descriptors=n, **ctx)
    emit("perception_yaw_err_median_deg", median(tally.yaw_err_deg), "deg",
         p90=round(percentile(tally.yaw_err_deg, 90), 3), fully_seen_median=round(median(seen_yaw), 3),
         loose_median=round(median(loose_yaw), 3), loose_p90=round(percentile(loose_yaw, 90), 3), target="<= 3", **ctx)
    emit("perception_yaw_err_p90_deg", percentile(tally.yaw_err_deg, 90), "deg", descriptors=n, **ctx)
    emit("perception_top_err_median_mm", median(tally.top_err_mm), "mm", p90=round(percentile(tally.top_err_mm, 90), 3),
         **ctx)
    detected = sum(tally.loose_detected) / max(1, len(tally.loose_detected))
    usable = sum(tally.loose_usable) / max(1, len(tally.loose_usable))
    emit("loose_bricks_detected_ratio", detected, "ratio", loose_bricks=len(tally.loose_detected),
         usable_ratio=round(usable, 4), misses=tally.misses[:20], target="1.0", **ctx)
    size_ok = sum(tally.size_ok) / max(1, n)
    emit("perception_size_correct_ratio", size_ok, "ratio",
         fully_seen=round(sum(s for s, v in zip(tally.size_ok, tally.visible, strict=True) if v > FULLY_SEEN)
                          / max(1, len(seen_pos)), 4), **ctx)
    confusions = dict(sorted(tally.color_confusions.items(), key=lambda kv: -kv[1])[:10])
    loose_colors = [c for c, k in zip(tally.color_ok, tally.loose, strict=True) if k]
    color_ok = sum(tally.color_ok) / max(1, n)
    emit("perception_color_correct_ratio", color_ok, "ratio",
         loose=round(sum(loose_colors) / max(1, len(loose_colors)), 4), confusions=confusions, **ctx)
    emit("perception_detected_instances_ratio", n / max(1, tally.instances), "ratio", bricks=tally.instances,
         spurious=tally.spurious, note="hidden bricks of a structure cannot be seen from above", **ctx)
    emit("observe_wall_ms", median(tally.observe_wall_s) * 1000, "ms", what="render and detect", **ctx)
    emit("perception_bench_wall_s", time.perf_counter() - t0, "s", **ctx)
    return {"pos_err_median_mm": median(tally.pos_err_mm), "pos_err_p90_mm": percentile(tally.pos_err_mm, 90),
            "loose_pos_err_median_mm": median(loose_pos), "yaw_err_median_deg": median(tally.yaw_err_deg),
            "loose_yaw_err_median_deg": median(loose_yaw), "top_err_median_mm": median(tally.top_err_mm),
            "loose_detected_ratio": detected, "loose_usable_ratio": usable, "size_correct_ratio": size_ok,
            "color_correct_ratio": color_ok, "instances_detected_ratio": n / max(1, tally.instances),
            "spurious_descriptors": float(tally.spurious), "observe_wall_ms": median(tally.observe_wall_s) * 1000}


# --- pick and place -------------------------------------------------------------------------------
def one_pick_place(n_initial: int) -> tuple[float, float, bool]:
    """(wall s, sim s, seated) of pick + place_at of one loose brick onto a running-bond block of n_initial."""
    task = stack_task(n_initial, 1, baseplate=True)
    backend = make_backend("mujoco")
    try:
        backend.load(task, seed=0)
        ctx = SkillContext(backend=backend, workspace=task.workspace)
        skills = bind("task", ctx)
        skills["go_home"]()
        skills["observe"]()
        loose = skills["find_bricks"](loose_only=True)
        target = task.action_bricks[0].target
        t0, sim0 = time.perf_counter(), backend.sim_time_s
        try:
            skills["pick"](loose[0]["id"])
            skills["place_at"](target.x, target.y, target.z, target.yaw % 2)
        except SkillError as exc:
            print(f"warning: pick-and-place in the {n_initial + 1}-brick scene failed: {exc.kind}: {exc.message}",
                  file=sys.stderr)
        wall, sim = time.perf_counter() - t0, backend.sim_time_s - sim0
        seated = bool(backend.world_state().by_id()[target.id].connected_to)
        return wall, sim, seated
    finally:
        backend.close()


def pick_place_figures(repeat: int) -> None:
    """Median pick-and-place wall time at ~75 bricks, against 3 bricks in the same run."""
    ctx = machine()
    results = {}
    for n in (2, 74):
        runs = [one_pick_place(n) for _ in range(repeat)]
        results[n] = runs
    big, small = results[74], results[2]
    wall = median([r[0] for r in big])
    base = median([r[0] for r in small])
    emit("pick_place_wall_s", wall, "s", bricks=75, repeat=repeat, sim_s=round(median([r[1] for r in big]), 2),
         seated=sum(r[2] for r in big), realtime_factor=round(median([r[1] / r[0] for r in big]), 2),
         includes="pick + place_at (transfer, release, verifying observation)", target="<= 3", **ctx)
    emit("pick_place_wall_s_3_bricks", base, "s", repeat=repeat, seated=sum(r[2] for r in small), **ctx)
    emit("pick_place_75_over_3_bricks_ratio", wall / base, "x", **ctx)


# --- oracle ---------------------------------------------------------------------------------------
def undisturbed(record: Any, task: TaskSpec, tol_m: float = 0.001) -> tuple[bool, float]:
    """Whether no initial brick moved more than tol from its start, and the largest move (mm)."""
    if not task.initial or record.final_state is None:
        return record.final_state is not None, 0.0
    from evaluator.geometry import task_geometry

    geo = task_geometry(task)
    final = record.final_state.by_id()
    moves = []
    for bid, start in zip(geo.initial_ids, geo.initial_pose, strict=True):
        b = final.get(bid)
        moves.append(math.inf if b is None else float(np.linalg.norm(np.asarray(b.position) - start)))
    worst = max(moves)
    return worst <= tol_m, worst * 1000.0


def oracle_figures(suite: str, workers: int, out: Path | None, agent: str = "oracle") -> None:
    """Run the oracle (or the careful oracle) on a suite through the batch runner and summarise placement quality
    and failures."""
    from agent.config import AgentConfig
    from agent.runs.batch import run_batch
    from agent.runs.run_store import RunConfig

    root = out or Path(tempfile.mkdtemp(prefix="bench-skills-oracle-"))
    records: list[Any] = []
    t0 = time.perf_counter()
    run_batch(RunConfig(suite=suite, agent=AgentConfig(name=agent)), root, workers=workers,
              on_record=lambda r, _p: records.append(r))
    wall = time.perf_counter() - t0
    if not records:  # a resumed run whose episodes were all done: read them back
        from jarvis_sim.records import EpisodeRecord

        lines = (root / "episodes.jsonl").read_text(encoding="utf-8").splitlines()
        records = [EpisodeRecord.model_validate_json(x) for x in lines if x.strip()]
    from agent.agents.oracle import build_order
    from agent.agents.registry import agent_factory

    leaves_out = bool(getattr(agent_factory(agent), "leave_out_unbuildable", False))
    required = complete = left_out = left_out_seated = 0
    plane, yaw = [], []
    picks = picks_ok = 0
    calm = []
    failures: list[dict[str, Any]] = []
    for rec in records:
        task = load_task(rec.task_id)
        assert isinstance(task, TaskSpec)
        details = rec.score_details or {}
        required += int(details.get("n_required", len(task.action_bricks)))
        complete += int(details.get("n_complete", 0))
        skipped = {bid for step, bid, _ in build_order(task, leaves_out) if step is None}
        left_out += len(skipped)
        for b in details.get("bricks", []):
            left_out_seated += int(b.get("target") in skipped and bool(b.get("complete")))
            if b.get("matched") is not None and b.get("plane_error_mm") is not None:
                plane.append(float(b["plane_error_mm"]))
                yaw.append(float(b["yaw_error_deg"]))
            if not b.get("complete"):
                failures.append({"task": rec.task_id, "brick": b.get("target"), "problems": b.get("problems"),
                                 "plane_error_mm": b.get("plane_error_mm"), "level_error_mm": b.get("level_error_mm"),
                                 **({"cause": "left out: its seating press would break the structure (statics), "
                                              "or it rests on such a brick"} if b.get("target") in skipped else {})})
        calls = [c for r in rec.rounds for c in r.skill_calls]
        for c in calls:
            if c.name == "pick":
                picks += 1
                picks_ok += int(c.ok)
            if not c.ok:
                failures.append({"task": rec.task_id, "skill": c.name, "args": c.args, "error_kind": c.error_kind,
                                 "error": (c.error or "")[:240]})
        ok, worst = undisturbed(rec, task)
        calm.append(ok)
        if not ok:
            failures.append({"task": rec.task_id, "disturbed_initial_max_move_mm": round(worst, 2),
                             "disturbed": details.get("disturbed", [])[:10]})
        if rec.status != "done":
            failures.append({"task": rec.task_id, "status": rec.status, "error": (rec.error or "")[:240]})
    ctx = {"suite": suite, "agent": agent, "episodes": len(records), "run_dir": str(root), **machine()}
    emit("oracle_complete_ratio", complete / max(1, required), "ratio", bricks=required, target=">= 0.97", **ctx)
    emit("oracle_complete_ratio_of_attempted", (complete - left_out_seated) / max(1, required - left_out), "ratio",
         bricks=required - left_out, left_out=left_out, **ctx)
    emit("oracle_place_err_median_mm", median(plane), "mm", p90=round(percentile(plane, 90), 3), matched=len(plane),
         target="<= 1", **ctx)
    emit("oracle_yaw_err_median_deg", median(yaw), "deg", p90=round(percentile(yaw, 90), 3), target="<= 1", **ctx)
    emit("oracle_grasp_success_ratio", picks_ok / max(1, picks), "ratio", picks=picks, target=">= 0.99", **ctx)
    emit("oracle_undisturbed_task_ratio", sum(calm) / max(1, len(calm)), "ratio", tol_mm=1.0, target=">= 0.95", **ctx)
    emit("oracle_soft_score_mean", sum(r.scores.get("soft_score", 0.0) for r in records) / max(1, len(records)),
         "points", **ctx)
    emit("oracle_run_wall_s", wall, "s", workers=workers, **ctx)
    emit("oracle_failures", len(failures), "count", failures=failures, **ctx)


def main() -> None:
    """Parse options and print the figures."""
    ap = argparse.ArgumentParser(prog="jarvis bench skills", description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--suite", default="jarvis-v1", help="suite whose initial scenes perception is scored on")
    ap.add_argument("--limit", type=int, default=None, help="only the first N tasks of --suite")
    ap.add_argument("--repeat", type=int, default=3, help="pick-and-place repetitions per scene size")
    ap.add_argument("--oracle", metavar="SUITE", default=None, help="also run the oracle on this suite")
    ap.add_argument("--oracle-agent", choices=("oracle", "careful_oracle"), default="oracle",
                    help="careful_oracle leaves out the bricks whose seating press would break the structure")
    ap.add_argument("--workers", type=int, default=1, help="worker processes for the oracle run (0: in-process)")
    ap.add_argument("--out", type=Path, default=None, help="run directory of the oracle run (default: a temp dir)")
    ap.add_argument("--only", choices=("perception", "pick_place", "oracle"), default=None,
                    help="run one part only")
    args = ap.parse_args()
    if args.limit is not None and args.limit < 1:
        ap.error(f"--limit must be at least 1, not {args.limit}")
    if args.repeat < 1:
        ap.error(f"--repeat must be at least 1, not {args.repeat}")
    if args.only == "oracle" and not args.oracle:
        ap.error("--only oracle needs --oracle SUITE")
    if args.only in (None, "perception"):
        perception_figures(args.suite, args.limit)
    if args.only in (None, "pick_place"):
        pick_place_figures(args.repeat)
    if args.oracle and args.only in (None, "oracle"):
        oracle_figures(args.oracle, args.workers, args.out, args.oracle_agent)


if __name__ == "__main__":
    main()

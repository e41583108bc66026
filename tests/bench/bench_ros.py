"""ROS 2 figures: the oracle over a bridge vs in-process, the robot topics over DDS, skill action round trips,
and OMPL planning in a 150-brick scene.

Run: `jarvis bench ros [--only mini,topics,actions,ompl] [--tasks N] [--goals N]` (needs .ci/ros-setup). Every
ROS part runs on its own ROS domain with discovery kept on the host and docker/fastdds.xml as the profile.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # the repo root, for tests.fakes

import numpy as np  # noqa: E402
from common import emit, machine  # noqa: E402

os.environ.setdefault("ROS_DOMAIN_ID", str(100 + os.getpid() % 100))
os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
os.environ.setdefault("FASTRTPS_DEFAULT_PROFILES_FILE", str(ROOT / "docker" / "fastdds.xml"))
os.environ.setdefault("MUJOCO_GL", "osmesa")
os.environ.setdefault("PYOPENGL_PLATFORM", "osmesa")


def pct(samples: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(samples), q))


def start_bridge(ns: str, log: Path, *extra: str) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([sys.executable, "-m", "skills.ros.bridge", "--namespace", ns, *extra], cwd=ROOT,
                            stdout=log.open("w"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while "bridge ready" not in log.read_text():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(log.read_text())
        time.sleep(0.1)
    return proc


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    proc.wait(20)


def bench_mini(tmp: Path, n_tasks: int) -> None:
    """The jarvis-mini oracle in-process and through `--backend ros`, same seed, same machine, one after the other."""
    tasks = [json.loads(line)["id"] for line in (ROOT / "assets/suites/jarvis-mini.jsonl").read_text().splitlines()
             if line.strip()][:n_tasks]
    ns = f"/jarvis_bench_mini_{os.getpid()}"  # unique: another bench on this host must not answer our goals
    bridge = start_bridge(ns, tmp / "mini_bridge.log")
    walls, scores = {}, {}
    try:
        for backend in ("mujoco", "ros"):
            out = tmp / f"mini_{backend}"
            args = [a for t in tasks for a in ("--task", t)]
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "agent.cli.main", "run", *args, "--agent", "oracle", "--seed", "0",
                            "--workers", "0", "--backend", backend, "--out", str(out)], cwd=ROOT, check=True,
                           capture_output=True, env={**os.environ, "JARVIS_ROS_NAMESPACE": ns})
            walls[backend] = time.perf_counter() - t0
            recs = [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines() if x.strip()]
            scores[backend] = {r["task_id"]: r["scores"] for r in recs}
    finally:
        stop(bridge)
    emit("mini_oracle_wall_in_process", walls["mujoco"], "s", tasks=len(tasks))
    emit("mini_oracle_wall_over_ros", walls["ros"], "s", tasks=len(tasks))
    emit("mini_oracle_ros_wall_ratio", walls["ros"] / walls["mujoco"], "x", baseline="in-process, same run")
    emit("mini_oracle_identical_scores", int(scores["ros"] == scores["mujoco"]), "bool",
         soft_scores=[scores["ros"][t]["soft_score"] for t in tasks])


class Listener:
    """An rclpy node in a thread of its own."""

    def __init__(self) -> None:
        import rclpy
        from rclpy.context import Context
        from rclpy.executors import SingleThreadedExecutor

        from jarvis_sim.backends.ros.spinning import SpinThread

        self.context = Context()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node("bench_listener", context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self.spinner = SpinThread(self.executor, name="bench-listener")

    def send(self, fn: Any) -> Any:
        """Send a request without racing the spinning thread (jarvis_sim/backends/ros/spinning.py)."""
        return self.spinner.call(fn)

    def wait(self, future: object) -> object:
        done = threading.Event()
        future.add_done_callback(lambda _f: done.set())  # type: ignore[attr-defined]
        done.wait(600)
        return future.result()  # type: ignore[attr-defined]

    def close(self) -> None:
        import rclpy

        self.spinner.stop()
        self.executor.shutdown(timeout_sec=1.0)
        self.node.destroy_node()
        rclpy.shutdown(context=self.context)


def load(listener: Listener, ns: str, task_json: str) -> None:
    from jarvis_interfaces.srv import LoadTask

    client = listener.node.create_client(LoadTask, f"{ns}/sim/load_task")
    client.wait_for_service(timeout_sec=60)
    resp = listener.wait(listener.send(lambda: client.call_async(LoadTask.Request(task_json=task_json, seed=0))))
    assert resp.ok, resp.message  # type: ignore[attr-defined]


def bench_topics(tmp: Path, seconds: float) -> None:
    """Camera (640x480 rgb8 + 32FC1 at 30 Hz asked) and /joint_states (100 Hz) over DDS, wall-stamped."""
    from sensor_msgs.msg import Image, JointState

    from tests.fakes.lego_tasks import stack_task

    ns = f"/jarvis_bench_topics_{os.getpid()}"  # unique: another bench on this host must not answer our goals
    bridge = start_bridge(ns, tmp / "topics_bridge.log", "--camera-hz", "30", "--wall-stamps")
    listener = Listener()
    try:
        load(listener, ns, stack_task(12, 2).model_dump_json())
        got: dict[str, list[float]] = {"rgb": [], "depth": [], "js": []}

        def on(kind: str) -> object:
            def cb(msg: object) -> None:
                stamp = msg.header.stamp  # type: ignore[attr-defined]
                got[kind].append(time.time() - (stamp.sec + stamp.nanosec * 1e-9))
            return cb

        subs = [listener.node.create_subscription(Image, "/camera/top/image_raw", on("rgb"), 5),
                listener.node.create_subscription(Image, "/camera/top/depth/image_raw", on("depth"), 5),
                listener.node.create_subscription(JointState, "/joint_states", on("js"), 100)]
        time.sleep(2.0)  # discovery and the first frames
        for v in got.values():
            v.clear()
        time.sleep(seconds)
        for s in subs:
            listener.node.destroy_subscription(s)
    finally:
        listener.close()
        stop(bridge)
    for kind in ("rgb", "depth"):
        lat = [x * 1000 for x in got[kind]]
        emit(f"camera_{kind}_rate", len(lat) / seconds, "Hz", asked_hz=30, size="640x480")
        if lat:
            emit(f"camera_{kind}_latency_p50", pct(lat, 50), "ms")
            emit(f"camera_{kind}_latency_p95", pct(lat, 95), "ms")
    js = [x * 1000 for x in got["js"]]
    emit("joint_states_rate", len(js) / seconds, "Hz", asked_hz=100, received=len(js), expected=int(100 * seconds))
    emit("joint_states_latency_p95", pct(js, 95), "ms")


def bench_actions(tmp: Path, goals: int) -> None:
    """Skill action round trip (client send to result) minus the skill's own wall time, over many goals."""
    from jarvis_interfaces.action import GoHome
    from rclpy.action import ActionClient

    from tests.fakes.lego_tasks import stack_task

    ns = f"/jarvis_bench_actions_{os.getpid()}"  # unique: another bench on this host must not answer our goals
    bridge = start_bridge(ns, tmp / "actions_bridge.log")
    listener = Listener()
    overheads: list[float] = []
    try:
        load(listener, ns, stack_task(2, 1).model_dump_json())
        client = ActionClient(listener.node, GoHome, f"{ns}/skills/go_home")
        client.wait_for_server(timeout_sec=30)
        for _ in range(goals):
            t0 = time.perf_counter()
            handle = listener.wait(listener.send(lambda: client.send_goal_async(GoHome.Goal())))
            result = listener.wait(listener.send(handle.get_result_async)).result  # type: ignore[attr-defined]
            rtt = time.perf_counter() - t0
            overheads.append((rtt - json.loads(result.record_json)["wall_s"]) * 1000)
    finally:
        listener.close()
        stop(bridge)
    first, last = overheads[:50], overheads[-50:]
    emit("action_round_trip_overhead_p50", statistics.median(overheads), "ms", goals=goals)
    emit("action_round_trip_overhead_p95", pct(overheads, 95), "ms", goals=goals)
    emit("action_round_trip_overhead_first50_p50", statistics.median(first), "ms")
    emit("action_round_trip_overhead_last50_p50", statistics.median(last), "ms", note="growth with goal count")


def bench_ompl(queries: int) -> None:
    """OMPL per transfer in a 150-brick scene: from beside the block to targets beyond it, below its top."""
    from jarvis_sim.backends.registry import make_backend
    from skills.context import SkillContext
    from skills.errors import PathBlocked, Unreachable
    from skills.motion import CartesianPlanner, top_down_quaternion
    from skills.planners.ompl import CLEARANCE_M, OmplPlanner
    from tests.fakes.lego_tasks import stack_task

    task = stack_task(n_initial=150, n_action=1, task_id="bench-ompl-150")
    backend = make_backend("mujoco")
    backend.load(task, seed=0)
    ctx = SkillContext(backend=backend, workspace=task.workspace)
    backend.set_gripper(closed=True)
    backend.step(int(0.5 / backend.control_dt))
    pos = np.array([b.position for b in backend.world_state().bricks if b.id.startswith("s")])
    lo, hi = pos.min(axis=0), pos.max(axis=0)
    quat = top_down_quaternion(0.0)
    cart = CartesianPlanner()
    start = np.array([lo[0] - 0.06, (lo[1] + hi[1]) / 2, 0.04])
    cart.move_to(ctx, start + np.array([0.0, 0.0, 0.15]), quat)
    cart.move_to(ctx, start, quat)
    rng = np.random.default_rng(0)
    goals = [np.array([hi[0] + 0.06, rng.uniform(lo[1] - 0.02, hi[1] + 0.02), rng.uniform(0.03, float(hi[2]))])
             for _ in range(queries)]
    blocked_goals = []
    for goal in goals:
        try:
            cart.plan(ctx, goal, quat, True, ())
        except (PathBlocked, Unreachable):
            blocked_goals.append(goal)
    emit("ompl_scene_bricks", len(pos) + 1, "bricks")
    emit("ompl_builtin_path_blocked", len(blocked_goals), "transfers", of=queries,
         includes="path_blocked or unreachable")
    # The same goals planned merely contact-free (clearance 0) and with the planner's clearance, in the same run.
    p50: dict[float, float] = {}
    for clearance in (0.0, CLEARANCE_M):
        ompl = OmplPlanner(clearance_m=clearance)
        rescued = 0
        times: list[float] = []
        checks: list[int] = []
        for goal in blocked_goals:
            try:
                ompl.plan(ctx, goal, quat)
                rescued += 1
                times.append((ompl.last.plan_s + ompl.last.simplify_s) * 1000)
                checks.append(ompl.last.checks)
            except (PathBlocked, Unreachable):
                pass
        tag = dict(clearance_mm=round(clearance * 1000, 1))
        emit("ompl_found_where_builtin_blocked", rescued / max(len(blocked_goals), 1), "fraction", rescued=rescued,
             blocked=len(blocked_goals), **tag)
        if times:
            p50[clearance] = statistics.median(times)
            emit("ompl_plan_time_p50", p50[clearance], "ms", includes="plan + simplify", **tag)
            emit("ompl_plan_time_p95", pct(times, 95), "ms", **tag)
            emit("ompl_validity_checks_p50", statistics.median(checks), "checks", **tag)
    backend.close()
    if len(p50) == 2:
        emit("ompl_plan_time_p50_ratio_clearance_vs_none", p50[CLEARANCE_M] / p50[0.0], "x")


def main() -> None:
    """Print one JSON object per figure."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="mini,topics,actions,ompl")
    parser.add_argument("--tasks", type=int, default=6, help="jarvis-mini tasks (6: the whole suite)")
    parser.add_argument("--goals", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--queries", type=int, default=20)
    args = parser.parse_args()
    parts = set(args.only.split(","))
    emit("machine", 0, "", **machine())
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        if "ompl" in parts:
            bench_ompl(args.queries)
        if "topics" in parts:
            bench_topics(tmp, args.seconds)
        if "actions" in parts:
            bench_actions(tmp, args.goals)
        if "mini" in parts:
            bench_mini(tmp, args.tasks)


if __name__ == "__main__":
    main()

"""One oracle episode, as JSON on stdout: `python tests/agent/oracle_episode.py TASK_ID [OUT_DIR]`.

Used by the determinism test (in a subprocess under another OPENBLAS_CORETYPE) and the kernel-spread
benchmark; prints the scores, the final ground-truth state, the simulated time and the provenance.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def oracle_outcome(task_id: str, out_dir: Path, runtime: Any = None) -> dict[str, Any]:
    """Run the oracle on one task (in `runtime`, or a fresh one) and return what the determinism checks compare."""
    from agent.config import AgentConfig, Budget
    from agent.episodes.job import EpisodeJob
    from agent.runs.worker import WorkerRuntime

    own = runtime is None
    rt = runtime or WorkerRuntime("mujoco")
    try:
        job = EpisodeJob(task_id=task_id, agent=AgentConfig(name="oracle"), budget=Budget(), episode_id="det")
        record = rt.run(job, out_dir)
    finally:
        if own:
            rt.close()
    return {
        "status": record.status,
        "error": record.error,
        "scores": record.scores,
        "final_state": record.final_state.model_dump(mode="json") if record.final_state else None,
        "sim_time_s": record.timings.sim_time_s,
        "provenance": record.provenance.model_dump(mode="json") if record.provenance else None,
    }


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory() as d:
        target = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(d)
        sys.stdout.write(json.dumps(oracle_outcome(sys.argv[1], target)) + "\n")

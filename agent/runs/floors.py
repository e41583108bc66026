"""The reference floors of a run: `null` and `shuffle` on the same tasks, seed, budget and backend.

Every assembly report shows them. They are run once per (task list, seed, budget, backend) and kept in the
cache (`$JARVIS_CACHE_DIR/floors/<key>/<agent>/`, ordinary resumable run directories), so a second run of the
same suite reuses them; `jarvis run --no-floors` skips them, and a report without them says how to get them.
The key holds jarvis_sim.backends.base.SIMULATOR_REVISION: bump it when the simulator or the skills change (the
floors are measured, not computed), or delete the cache folder.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from agent.config import AgentConfig
from agent.runs.run_store import RunConfig
from jarvis_sim.backends.base import SIMULATOR_REVISION
from jarvis_sim.paths import cache_root

FLOOR_AGENTS = ("null", "shuffle")


def floor_task_ids(config: RunConfig) -> list[str]:
    """Each task of the run once: floors are one episode per (task, seed), however often a run lists a task."""
    from agent.runs.batch import listed_task_ids

    return list(dict.fromkeys(listed_task_ids(config)))


def floor_config(config: RunConfig, agent: str) -> RunConfig:
    """The run config of one floor agent for a run: same tasks (the user's own carried whole), seed, budget and
    backend."""
    own = {t.id: t for t in config.tasks}
    ids = floor_task_ids(config)
    return RunConfig(task_ids=[t for t in ids if t not in own], tasks=[own[t] for t in ids if t in own],
                     agent=AgentConfig(name=agent, seed=config.agent.seed, perception=config.agent.perception),
                     budget=config.budget, backend=config.backend)


def floor_dir(config: RunConfig, agent: str) -> Path:
    """Where the floor run of an agent for this run's tasks lives in the cache (a user's task is keyed by its
    content too: an edited model under the same id is measured again)."""
    own = {t.id: hashlib.sha256(t.model_dump_json().encode()).hexdigest() for t in config.tasks}
    key = json.dumps({"tasks": floor_task_ids(config), "seed": config.agent.seed, "backend": config.backend,
                      "simulator_revision": SIMULATOR_REVISION,
                      "perception": config.agent.perception,
                      # Wall clocks are safety nets that never change a score: they do not key a floor.
                      "budget": config.budget.model_dump(mode="json", exclude={"wall_s", "program_wall_s"}),
                      **({"own_tasks": own} if own else {})}, sort_keys=True)
    return cache_root() / "floors" / hashlib.sha256(key.encode()).hexdigest()[:16] / agent


def needs_floors(config: RunConfig) -> bool:
    """True for a run of LEGO assembly tasks by an agent that is not itself a floor."""
    return config.agent.name not in FLOOR_AGENTS and any(t.startswith("lego/") for t in floor_task_ids(config))


def run_floors(config: RunConfig, workers: int = 1) -> dict[str, Path]:
    """Run (or resume, or reuse from the cache) both floors for a run; returns their run directories."""
    from agent.runs.batch import run_batch

    out = {}
    for agent in FLOOR_AGENTS:
        path = floor_dir(config, agent)
        run_batch(floor_config(config, agent), path, workers=workers)
        out[agent] = path
    return out


def cached_floors(config: RunConfig) -> dict[str, Path]:
    """The floor run directories already in the cache for a run (complete or not)."""
    found = {}
    for agent in FLOOR_AGENTS:
        path = floor_dir(config, agent)
        if (path / "episodes.jsonl").is_file():
            found[agent] = path
    return found

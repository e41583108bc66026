"""An Inspect Robots policy as a JARVIS agent: `jarvis run --agent inspect-robots-agent --mode reflective ...`.

The policy (inspect-robots-agent's LLM agent, `agent`; `--model` picks its model the JARVIS way, e.g.
`openai-compatible:http://localhost:8000/v1:MODEL`) is bound to the `jarvis-mujoco` contract (8-D absolute
joint positions, the gripper slot 0 closed .. 1 open) with the top camera at the episode's size. It is the
episode's program writer, so it sees only what any writer sees, JARVIS's prompts: the current view (the
prompt's last image) and the previous program's printed output, where each program it writes prints the joint
state last. Every action chunk becomes such a program of generic skills (`move_joints_to`, `open_gripper`,
`close_gripper`), run in JARVIS's sandbox like any agent's; `done` or `give_up` becomes the answer DONE. A
chunk's arm targets between two gripper changes collapse to the last one (the skill interpolates smoothly
itself), so an episode spends one skill call per waypoint the policy meant, not one per control tick. The
closed loop needs the reflective mode; the episode's budgets (rounds = policy calls) bound it as usual.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import numpy as np
from inspect_robots.registry import resolve
from inspect_robots.rollout import TrialRecord
from inspect_robots.scene import Scene
from inspect_robots.spaces import CameraSpec, ObservationSpace
from inspect_robots.types import Observation
from PIL import Image

from agent.agents.base import WrittenAnswer
from agent.agents.views import AssemblyView
from agent.config import AgentConfig
from agent.integrations.robots_embodiment import GRIP_THRESHOLD, GRIPPER_MAX_M, JarvisEmbodiment
from agent.llm.prompts import Prompt
from agent.llm.registry import parse_model_string
from jarvis_sim.lego.catalog import part
from jarvis_sim.lego.colors import color
from jarvis_sim.records import TokenAccount

STATE_MARK = "JOINT_STATE"
READ_STATE = f"arm = get_joint_state()\nprint({STATE_MARK!r}, list(arm.positions_rad), arm.gripper_opening_mm)"
_STATE_LINE = re.compile(STATE_MARK + r" \[([^\]]*)\] ([0-9.eE+-]+)")
POLICY_ENV_KEYS = {"openai-compatible": "OPENAI_COMPATIBLE_API_KEY", "openai": "OPENAI_API_KEY"}


def policy_kwargs(config: AgentConfig) -> dict[str, Any]:
    """The LLM agent policy's model, endpoint and key variable from a JARVIS model string."""
    if not config.model:
        raise ValueError("the inspect-robots-agent agent needs --model, e.g. openai-compatible:http://host:8000/v1:MODEL")
    spec = parse_model_string(config.model)
    if spec.provider not in POLICY_ENV_KEYS:
        raise ValueError(f"inspect-robots-agent speaks the OpenAI chat wire: use one of "
                         f"{sorted(POLICY_ENV_KEYS)} models, not {spec.provider!r}")
    base_url = config.llm.base_url or spec.base_url or (
        "https://api.openai.com/v1" if spec.provider == "openai" else None)
    if base_url is None:
        raise ValueError(f"{config.model!r}: give the endpoint URL (openai-compatible:http://host:port/v1:MODEL)")
    return {"model": spec.model, "base_url": base_url, "api_key_env": POLICY_ENV_KEYS[spec.provider]}


def chunk_program(targets: list[np.ndarray]) -> str:
    """The sandbox program of one action chunk: the last arm target before each gripper change, the change,
    and finally the joint state (the next observation)."""
    lines: list[str] = []
    closed: bool | None = None
    pending: np.ndarray | None = None
    for q in targets:
        want_closed = bool(q[7] < GRIP_THRESHOLD)
        if want_closed != closed:
            if pending is not None:
                lines.append(f"move_joints_to({[round(float(v), 5) for v in pending[:7]]})")
            lines.append("close_gripper()" if want_closed else "open_gripper()")
            closed = want_closed
        pending = q
    if pending is not None:
        lines.append(f"move_joints_to({[round(float(v), 5) for v in pending[:7]]})")
    lines.append(READ_STATE)
    return "\n".join(lines) + "\n"


def read_state(prompt: Prompt) -> np.ndarray | None:
    """The joint state the previous program printed last (7 angles and the normalised gripper), if any."""
    found = _STATE_LINE.findall(prompt.user)
    if not found:
        return None
    angles, opening_mm = found[-1]
    q = [float(v) for v in angles.split(",")]
    grip = min(1.0, max(0.0, float(opening_mm) / 1000.0 / GRIPPER_MAX_M))
    return np.asarray([*q, grip], dtype=np.float64)


def instruction_of(view: AssemblyView) -> str:
    """The language goal, from the task's public view (as the jarvis-mini task set words it)."""
    bricks = ", ".join(f"{color(b['color']).name} {part(b['part']).name}" for b in view.public_task["action_bricks"])
    return (f"Build the LEGO structure the {len(view.public_task['manual_steps'])}-step manual shows: pick each "
            f"loose brick ({bricks}) and press it onto the studs where the manual places it.")


class PolicyWriter:
    """One episode's writer: JARVIS's prompts in, the policy's chunks out as programs."""

    experience: str | None = None

    def __init__(self, policy: Any, view: AssemblyView, seed: int) -> None:
        self.policy, self.view = policy, view
        self.text = instruction_of(view)
        self.scene = Scene(id=view.task_id.replace("/", "__"), instruction=self.text, init_seed=seed,
                           metadata={"jarvis_task_id": view.task_id})
        self._bound = False
        self._seed = seed

    def _image(self, prompt: Prompt) -> np.ndarray:
        paths = prompt.image_paths()
        if not paths:
            raise RuntimeError(f"{self.view.task_id}: the prompt shows no image to observe")
        path = Path(paths[-1])  # the current view comes last, after the manual's pages
        if not path.is_absolute():
            path = (prompt.base_dir or self.view.episode_dir) / path
        return np.asarray(Image.open(path).convert("RGB"), dtype=np.uint8)

    def _bind(self, height: int, width: int) -> None:
        info = JarvisEmbodiment(cam_height=height, cam_width=width).info
        # The writer is shown the top camera only: declare what the policy will really get.
        top_only = ObservationSpace(cameras=(CameraSpec("top", height, width, 3),), state=info.observation_space.state)
        bind = getattr(self.policy, "bind", None)
        if callable(bind):
            bind(dataclasses.replace(info, observation_space=top_only))
        self.policy.reset(self.scene)
        self._bound = True

    def write(self, prompt: Prompt) -> WrittenAnswer:
        """The next program: read the state first if no program printed it yet, else the policy's next chunk."""
        state = read_state(prompt)
        if state is None:
            return WrittenAnswer(f"Reading the arm's state first.\n```python\n{READ_STATE}\n```\n")
        rgb = self._image(prompt)
        if not self._bound:
            self._bind(int(rgb.shape[0]), int(rgb.shape[1]))
        chunk = self.policy.act(Observation(images={"top": rgb}, state={"joint_pos": state}, instruction=self.text))
        targets = []
        for action in chunk.actions:
            if action.meta.get("request_stop"):
                why = action.meta.get("stop_reason", "done")
                return WrittenAnswer(f"The policy called {why}: {action.meta.get('stop_detail', '')}\nDONE\n")
            targets.append(np.asarray(action.data, dtype=np.float64))
        return WrittenAnswer(f"Policy chunk of {len(targets)} actions.\n```python\n{chunk_program(targets)}```\n")

    def usage(self) -> TokenAccount:
        """Token usage from the policy's own trial-end record (what its client parsed of the server's usage)."""
        on_trial_end = getattr(self.policy, "on_trial_end", None)
        if not callable(on_trial_end) or not self._bound:
            return TokenAccount()
        record = TrialRecord(scene_id=self.scene.id, epoch=0, seed=self._seed)
        on_trial_end(record, str(self.view.episode_dir), "jarvis")
        usage = record.metadata.get("llm_usage") or {}
        return TokenAccount(input=int(usage.get("input_tokens", 0) or 0), output=int(usage.get("output_tokens", 0) or 0))


class InspectRobotsAgent:
    """Drives an assembly episode with an Inspect Robots policy as its program writer (reflective mode)."""

    def __init__(self, config: AgentConfig, policy: Any = None) -> None:
        if config.library != "generic":
            raise ValueError("the inspect-robots-agent agent acts through the generic skills (move_joints_to): "
                             "run it with --library generic")
        if config.mode != "reflective":
            raise ValueError("the inspect-robots-agent agent is a closed loop: run it with --mode reflective")
        self.config = config
        self.policy = policy if policy is not None else resolve("policy", "agent", **policy_kwargs(config),
                                                                max_llm_calls=100)

    def program_writer(self, view: AssemblyView) -> PolicyWriter:
        """The policy as this episode's writer."""
        return PolicyWriter(self.policy, view, self.config.seed)

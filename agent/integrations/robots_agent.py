"""An Inspect Robots policy as a JARVIS agent: `jarvis run --agent inspect-robots-agent --model ...`.

The policy (by default inspect-robots-agent's LLM agent, `agent`; `--model` picks its model the JARVIS way,
e.g. `openai-compatible:http://localhost:8000/v1:MODEL`) is bound to the `jarvis-mujoco` contract (8-D
absolute joint positions, the gripper slot 0 closed .. 1 open) with the top camera at the episode's size.
It never touches the simulator: every action chunk it returns becomes a program of generic skills
(`move_joints_to`, `open_gripper`, `close_gripper`, then `get_joint_state`) that runs in JARVIS's sandbox like
any agent's, and the round's observation image and joint state are its next observation. A chunk's arm
targets between two gripper changes collapse to the last one (the skill interpolates smoothly itself), so
an episode spends one skill call per waypoint the policy meant, not one per control tick. The trial ends when
the policy calls done or give_up, or after `rounds` chunks; JARVIS scores and reports the episode as usual.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import numpy as np
from inspect_robots.registry import resolve
from inspect_robots.rollout import TrialRecord
from inspect_robots.scene import Scene
from inspect_robots.spaces import CameraSpec, ObservationSpace
from inspect_robots.types import Observation
from PIL import Image

from agent.config import AgentConfig
from agent.integrations.robots_embodiment import GRIP_THRESHOLD, GRIPPER_MAX_M, JarvisEmbodiment
from agent.integrations.robots_tasks import instruction
from agent.llm.registry import parse_model_string

if TYPE_CHECKING:
    from agent.episodes.assembly import AssemblyEpisode

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
    lines.append("get_joint_state()")
    return "\n".join(lines) + "\n"


class InspectRobotsAgent:
    """Drives an assembly episode with an Inspect Robots policy; its actions run as sandboxed programs."""

    def __init__(self, config: AgentConfig, policy: Any = None) -> None:
        if config.library != "generic":
            raise ValueError("the inspect-robots-agent agent acts through the generic skills (move_joints_to): "
                             "run it with --library generic")
        self.config = config
        self.policy = policy if policy is not None else resolve("policy", "agent", **policy_kwargs(config),
                                                                max_llm_calls=100)

    def _bind(self, height: int, width: int) -> None:
        info = JarvisEmbodiment(cam_height=height, cam_width=width).info
        space = info.observation_space
        # The sandbox's rounds show the top camera only: declare what the policy will really get.
        top_only = ObservationSpace(cameras=(CameraSpec("top", height, width, 3),), state=space.state)
        bind = getattr(self.policy, "bind", None)
        if callable(bind):
            bind(dataclasses.replace(info, observation_space=top_only))

    def _observe(self, episode: AssemblyEpisode, text: str) -> Observation:
        round_ = episode.rounds[-1]
        call = round_.skill_calls[-1] if round_.skill_calls else None
        if call is None or call.name != "get_joint_state" or not call.ok:
            raise RuntimeError(f"round {round_.index}: the program did not end with the joint state "
                               f"({round_.outcome}: {round_.feedback[:200]})")
        q = [float(v) for v in call.result["positions_rad"]]
        grip = min(1.0, max(0.0, float(call.result["gripper_opening_mm"]) / 1000.0 / GRIPPER_MAX_M))
        rgb = np.asarray(Image.open(episode.dir / round_.observation_images[0]).convert("RGB"), dtype=np.uint8)
        return Observation(images={"top": rgb}, state={"joint_pos": np.asarray([*q, grip], dtype=np.float64)},
                           instruction=text)

    def run_assembly(self, episode: AssemblyEpisode) -> None:
        """Observe through the sandbox, ask the policy for a chunk, run it as a program; until it stops."""
        text = instruction(episode.task)
        scene = Scene(id=episode.task.id.replace("/", "__"), instruction=text, init_seed=self.config.seed,
                      metadata={"jarvis_task_id": episode.task.id})
        episode.run_program("get_joint_state()\n", kind="observe")
        first = self._observe(episode, text)
        height, width = first.images["top"].shape[:2]
        self._bind(int(height), int(width))
        self.policy.reset(scene)
        observation, stopped = first, False
        for _ in range(episode.job.budget.rounds):
            chunk = self.policy.act(observation)
            targets = []
            for action in chunk.actions:
                if action.meta.get("request_stop"):
                    stopped = True
                    break
                targets.append(np.asarray(action.data, dtype=np.float64))
            if targets:
                episode.run_program(chunk_program(targets), response=str(dict(chunk.meta)) if chunk.meta else "")
                observation = self._observe(episode, text)
            if stopped or episode.finished is not None:
                break
        self._account(episode, scene)

    def _account(self, episode: AssemblyEpisode, scene: Scene) -> None:
        """Token usage from the policy's own trial-end record (what the server's usage said)."""
        on_trial_end = getattr(self.policy, "on_trial_end", None)
        if not callable(on_trial_end):
            return
        record = TrialRecord(scene_id=scene.id, epoch=0, seed=self.config.seed)
        on_trial_end(record, str(episode.dir), "jarvis")
        usage = record.metadata.get("llm_usage") or {}
        episode.tokens.input += int(usage.get("input_tokens", 0) or 0)
        episode.tokens.output += int(usage.get("output_tokens", 0) or 0)

"""Typed, strict configuration of an episode's agent and budget, saved with every run."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

Mode = Literal["non_reflective", "reflective", "reflection_rounds"]
Library = Literal["task", "generic"]
ObservationKind = Literal["rgb", "rgbd", "rgbd_3d"]
ReflectAfter = Literal["program", "placement"]


class LLMOptions(BaseModel):
    """How the llm agent reaches its model (never a key: only the name of the variable holding it)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    base_url: str | None = Field(None, description="Endpoint override for the provider (a proxy, a local server).")
    api_key_env: str | None = Field(None, description="Environment variable with the key, if not the provider's default.")
    timeout_s: float = Field(120.0, gt=0, allow_inf_nan=False, description="Total seconds of one model call: "
                             "connect, every read, every retry (a dripping endpoint cannot hold it longer).")
    max_attempts: int = Field(5, ge=1, le=20, description="Attempts per model call, retries on 429/5xx/timeouts included.")
    retry_base_delay_s: float = Field(1.0, ge=0, le=600, allow_inf_nan=False, description="Backoff before the first retry; doubles each time.")
    cache_dir: str | None = Field(None, description="Content-addressed response cache directory; None: no cache.")


class AgentConfig(BaseModel):
    """Which agent runs an episode and how. Unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field("oracle", description="Registered agent: oracle, llm, replay, scripted, random, external.")
    model: str | None = Field(
        None, description="LLM model string, e.g. 'openai:gpt-4o' or 'openai-compatible:http://host:8000/v1:qwen2.5-vl'."
    )
    mode: Mode = Field("non_reflective", description="Execution mode of the JARVIS paper.")
    library: Library = Field("task", description="Skill library: task-oriented or generic robot API.")
    seed: int = Field(0, description="Seed for the scene, the agent's sampling and random agents.")
    reflection_rounds: int = Field(0, ge=0, le=10, description="R1..Rk retries after an unsuccessful attempt.")
    reflect_after: ReflectAfter | None = Field(
        None,
        description="Reflective mode only: pause after each 'placement' (pick-and-place, the paper's granularity; "
        "the default) or after each whole 'program'. Resolved to 'placement' for the reflective mode.",
    )
    experience_file: str | None = Field(None, description="Prior-task experience (lessons) file to include.")
    manual_style: str = Field("booklet", description="Visual style of the manual images.")
    observation: ObservationKind = Field(
        "rgb", description="What the prompt shows of the current scene (planning tasks name their own setting)."
    )
    perception: Literal["ideal", "camera"] = Field(
        "ideal", description="How observe() sees: ideal (the renderer's instance masks and exact depth, the paper's "
        "setting) or camera (skills.sensor noise model, bricks segmented from RGB-D without instance ids).",
    )
    planner: str = Field(
        "cartesian", description="Motion planner the skills move the arm with (skills.planners.registry.make_planner): cartesian "
        "(straight lines, the paper's), ompl (sampling-based detours), moveit (move_group over ROS 2), cumotion.",
    )
    temperature: float = Field(0.0, ge=0.0, le=2.0, allow_inf_nan=False)
    max_tokens: int = Field(4096, ge=1)
    replay_file: str | None = Field(None, description="For the replay agent: recorded responses (JSONL).")
    llm: LLMOptions = Field(default_factory=LLMOptions, description="Connection, retry and cache settings of the llm agent.")

    @field_validator("planner")
    @classmethod
    def _known_planner(cls, name: str) -> str:
        from skills.planners.registry import planner_names

        if name not in planner_names():
            raise ValueError(f"unknown motion planner {name!r}; valid: {', '.join(planner_names())}")
        return name

    @model_validator(mode="before")
    @classmethod
    def _resolve_reflect_after(cls, data: Any) -> Any:
        """The reflective mode's granularity defaults to the paper's; other modes do not take one."""
        if not isinstance(data, dict):
            return data
        mode = data.get("mode", "non_reflective")
        if data.get("reflect_after") is None:
            return {**data, "reflect_after": "placement"} if mode == "reflective" else data
        if mode != "reflective":
            raise ValueError(f"reflect_after applies to the reflective mode only, not to mode {mode!r}")
        return data


# The wall-clock safety net of one program when its budget names none: a base plus this many wall seconds per
# simulated second of the episode's budget. The embedded MuJoCo episode ran at 0.3 wall s per simulated s here
# (tests/bench/bench_slow_cpu.py: 167 s simulated in 53 s) and at 3.9 on the slowest machine and heaviest scene
# measured (issue 31: 30.5 s simulated in 120 s), so this is ~8x that worst case and ~2.5x the same machine three
# times slower: it catches a hung simulator, never a slow one.
PROGRAM_NET_BASE_S = 600.0
PROGRAM_NET_PER_SIM_S = 30.0


class SafetyNetTripped(RuntimeError):
    """A wall-clock safety net ended an episode: an infrastructure failure (slow or hung machine), never scored."""


class Budget(BaseModel):
    """Limits of one episode. Scored budgets are machine-independent: rounds, skill calls, simulated seconds and
    images. Wall clocks are only safety nets; an episode that trips one is an infrastructure failure, left out of
    every score (the evaluator's time penalty uses the simulated time)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rounds: int = Field(8, ge=1, le=100, description="Reasoning rounds (LLM calls) at most.")
    skill_calls: int = Field(400, ge=1, le=100_000, description="Skill calls over the whole episode.")
    wall_s: float | None = Field(
        None, gt=0, le=86_400, allow_inf_nan=False,
        description="Safety net: wall-clock seconds for the whole episode (None: none beyond each program's and each "
                    "model call's own). A trip is an infrastructure failure, never scored.")
    program_wall_s: float | None = Field(
        None, gt=0, le=86_400, allow_inf_nan=False,
        description=f"Safety net: wall-clock seconds for one program, time inside skills included (None: "
                    f"{PROGRAM_NET_BASE_S:g} s + {PROGRAM_NET_PER_SIM_S:g} s per simulated second of the episode's "
                    "budget). A trip is an infrastructure failure, never scored.")
    sim_s: float | None = Field(None, gt=0, le=86_400, allow_inf_nan=False,
                                description="Simulated seconds; default: the task's time budget x 3.")
    images: int = Field(200, ge=0, le=100_000, description="Images the agent may capture (capture_images) in the "
                        "episode; each is an artifact on disk, so this bounds the episode's disk use.")
    record_bytes: int = Field(16 * 1024 * 1024, ge=64 * 1024, le=1 << 30, description="Bytes of agent-made values "
                              "(skill arguments, results, error messages, printed output, model answers) the episode's "
                              "record keeps; beyond it, and for any one value above 16 KiB (texts: 256 KiB), a marker "
                              "with the value's size and first characters is stored instead (skills.stored).")

    def program_net_s(self, sim_budget_s: float) -> float:
        """One program's wall-clock safety net for an episode with this many simulated seconds of budget."""
        if self.program_wall_s is not None:
            return self.program_wall_s
        return PROGRAM_NET_BASE_S + PROGRAM_NET_PER_SIM_S * sim_budget_s

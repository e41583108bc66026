"""The simulator side of the skills: the backend, the workspace calibration and what was perceived.

Agent programs never see this object: they call skills by name over the RPC, and `invoke` validates
the arguments, enforces the budget, applies scheduled perturbations, runs the skill and logs the call.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from pydantic import BaseModel, TypeAdapter, ValidationError

from jarvis_sim.backends.base import Backend
from jarvis_sim.provenance import PlannerInfo
from jarvis_sim.records import SkillCallRecord
from jarvis_sim.tasks.spec import Perturbation, Workspace
from skills.errors import BudgetExceeded, InvalidArgument, SkillError, UnknownBrick
from skills.registry import SkillSpec
from skills.stored import VALUE_BYTES, StoredBytes
from skills.types import BrickDescriptor

if TYPE_CHECKING:
    from skills.sensor import SensorModel


class Motion(Protocol):
    """What skills ask of a motion planner (skills.motion.MotionPlanner and the planners of skills.planners)."""

    def move_to(self, ctx: SkillContext, position: np.ndarray, quaternion: np.ndarray, speed: float = 0.2,
                check_collisions: bool = True, ignore: tuple[str, ...] = ()) -> None:
        """Move, or raise Unreachable / PathBlocked before moving at all."""

    def describe(self) -> PlannerInfo:
        """Name, version and settings, recorded in every episode that moved with this planner."""


@dataclass
class Perceived:
    """The last observation: descriptors by perception id, plus private per-brick point data."""

    descriptors: dict[str, BrickDescriptor] = field(default_factory=dict)
    points: dict[str, np.ndarray] = field(default_factory=dict)  # world points (N, 3) of each brick's pixels
    sim_time_s: float = -1.0


@dataclass
class SkillContext:
    """Everything a skill needs on the simulator side."""

    backend: Backend
    workspace: Workspace
    camera: str = "top"
    max_calls: int = 400
    max_sim_s: float | None = None
    perturbations: list[Perturbation] = field(default_factory=list)
    perceived: Perceived = field(default_factory=Perceived)
    held: str | None = None  # perception id of the brick in the gripper
    held_descriptor: BrickDescriptor | None = None
    held_grip_depth_mm: float = 4.5  # finger pads below the held brick's top face, from the grasp
    held_across_long: bool = False  # the fingers hold the brick across its long side (a regrasp), not its short one
    held_offset_mm: float = 0.0  # the held brick's centre lies this far from the TCP along the pads' width (tool x)
    calls: list[SkillCallRecord] = field(default_factory=list)
    next_perception_id: int = 1
    motion: Motion | None = None  # None: the Cartesian planner, set by skills.libraries.bind
    on_call: Callable[[SkillCallRecord], None] | None = None
    image_sink: Callable[[str, np.ndarray], str] | None = None  # saves an image artifact, returns its name
    sensor: SensorModel | None = None  # None: ideal perception (renderer's instance masks, exact depth)
    sensor_rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0))
    # What the call records keep of agent-sized values (arguments, results, errors): bounded, never whole.
    stored: StoredBytes = field(default_factory=StoredBytes)
    _applied: set[int] = field(default_factory=set)

    # --- calls -----------------------------------------------------------------------------------
    def invoke(self, spec: SkillSpec, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Validate, run and log one skill call; SkillErrors propagate to the program."""
        if len(self.calls) >= self.max_calls:
            raise BudgetExceeded(f"the episode's budget of {self.max_calls} skill calls is spent; stop here.")
        if self.max_sim_s is not None and self.backend.sim_time_s > self.max_sim_s:
            raise BudgetExceeded(
                f"the episode's simulated-time budget ({self.max_sim_s:.0f} s) is spent; stop here."
            )
        remote = getattr(self.backend, "invoke_skill", None)
        if remote is not None:  # the skills run next to a remote simulator (jarvis_sim/backends/ros/client.py)
            return self._invoke_remote(remote, spec, args, kwargs)
        disturbed = self._apply_perturbations()
        t0, sim0 = time.perf_counter(), self.backend.sim_time_s
        record = SkillCallRecord(name=spec.name, args=self.stored.keep_args(_jsonable_args(spec, args, kwargs)),
                                 ok=False, disturbed=disturbed)
        try:
            values = _validated_arguments(spec, args, kwargs)
            result = spec.func(self, **values)
            out = _to_json(result)
            record.ok, record.result = True, self.stored.keep(out)
            return out
        except SkillError as exc:
            record.error_kind, record.error = exc.kind, self.stored.keep_text(exc.message, VALUE_BYTES)
            raise
        finally:
            record.wall_s = time.perf_counter() - t0
            record.sim_time_s = self.backend.sim_time_s - sim0
            self.calls.append(record)
            if self.on_call is not None:
                self.on_call(record)

    def _invoke_remote(self, remote: Callable[..., SkillCallRecord], spec: SkillSpec, args: tuple[Any, ...],
                       kwargs: dict[str, Any]) -> Any:
        """Forward a call to the skill host behind the backend; log its record as if the call had run here.
        Images a remote skill captures are saved here, through this context's image sink."""
        record = remote(spec.name, [_to_json(a) for a in args], {k: _to_json(v) for k, v in kwargs.items()},
                        image_sink=self.image_sink, camera=self.camera)
        result = record.result
        record.args, record.result = self.stored.keep_args(record.args), self.stored.keep(record.result)
        if record.error is not None:
            record.error = self.stored.keep_text(record.error, VALUE_BYTES)
        self.calls.append(record)
        if self.on_call is not None:
            self.on_call(record)
        if record.ok:
            return result
        raise SkillError(record.error or "", kind=record.error_kind or SkillError.kind)

    def _perturbation_due(self, p: Perturbation, n: int) -> bool:
        if p.when is None:
            return p.after_skill_calls == n
        if n < p.after_skill_calls:
            return False
        held = self.backend.held_brick()
        if p.when == "held":
            return held == p.when_brick
        if held == p.when_brick:
            return False
        state = next((b for b in self.backend.world_state().bricks if b.id == p.when_brick), None)
        return state is not None and bool(state.connected_to)

    def _apply_perturbations(self) -> list[str]:
        """Apply the perturbations due before the next call; returns their kinds (kept in its record)."""
        n = len(self.calls)
        applied: list[str] = []
        for k, p in enumerate(self.perturbations):
            if k in self._applied or not self._perturbation_due(p, n):
                continue
            self._applied.add(k)
            applied.append(p.kind)
            if p.kind == "drop_held":
                self.backend.drop_held()
            elif p.kind == "displace_brick" and p.brick_id:
                self.backend.displace_brick(p.brick_id, p.offset_m)
            elif p.kind == "knock_structure" and p.brick_id:
                self.backend.knock(p.brick_id, p.impulse_n_s)
            self.backend.step(int(0.5 / self.backend.control_dt))  # let it settle
        return applied

    # --- perception bookkeeping ------------------------------------------------------------------
    def descriptor(self, brick: str) -> BrickDescriptor:
        """The descriptor of a perception id from the last observation."""
        if not isinstance(brick, str):
            raise InvalidArgument(f"a brick is named by its perception id string such as 'p3', not {brick!r}")
        found = self.perceived.descriptors.get(brick)
        if found is None:
            known = ", ".join(sorted(self.perceived.descriptors, key=_id_order)) or "none yet"
            raise UnknownBrick(
                f"no brick {brick!r} in the last observation (known: {known}). Call observe() to refresh ids."
            )
        return found

    def new_perception_id(self) -> str:
        """A fresh perception id."""
        pid = f"p{self.next_perception_id}"
        self.next_perception_id += 1
        return pid


def _id_order(pid: str) -> int:
    return int(pid[1:]) if pid[1:].isdigit() else 0


@functools.cache
def _adapters(spec: SkillSpec) -> dict[str, TypeAdapter[Any]]:
    return {name: TypeAdapter(p.annotation) for name, p in spec.signature.parameters.items()}


def _validated_arguments(spec: SkillSpec, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The agent's arguments bound to the skill's signature and coerced to its types."""
    try:
        bound = spec.signature.bind(*args, **kwargs)
    except TypeError as exc:
        raise InvalidArgument(f"{spec.name}(): {exc}. Check the signature in the API list.") from None
    bound.apply_defaults()
    adapters = _adapters(spec)
    out = {}
    for name, value in bound.arguments.items():
        try:
            out[name] = adapters[name].validate_python(value)
        except ValidationError as exc:
            raise InvalidArgument(_validation_message(f"{spec.name}() argument {name!r}", exc)) from None
        bad = _unusable_number(out[name], name)
        if bad is not None:
            # NaN passes every range check (all comparisons are False), inf and 1e308 overflow the planners and
            # 10**400 cannot even become a float: refuse them here, for every skill, before any motion is computed.
            raise InvalidArgument(f"{spec.name}() argument {bad[0]} is {bad[1]}: expected a finite number of "
                                  f"magnitude at most {MAX_MAGNITUDE:g}")
    return out


MAX_MAGNITUDE = 1e9  # no skill argument (mm, degrees, seconds, counts, stud offsets) comes near a thousand km


def _unusable_number(value: Any, path: str) -> tuple[str, str] | None:
    """(where, what) of the first NaN, infinity or out-of-range number inside an argument (models, lists, dicts)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float):
        if not math.isfinite(value) or abs(value) > MAX_MAGNITUDE:
            return path, repr(value)
        return None
    if isinstance(value, int):
        return (path, f"an integer of {len(str(abs(value)))} digits" if abs(value) > 10**18 else str(value)) \
            if abs(value) > MAX_MAGNITUDE else None
    if isinstance(value, BaseModel):
        items: Any = ((f"{path}.{k}", v) for k, v in value)
    elif isinstance(value, dict):
        items = ((f"{path}[{k!r}]", v) for k, v in value.items())
    elif isinstance(value, list | tuple):
        items = ((f"{path}[{k}]", v) for k, v in enumerate(value))
    else:
        return None
    for where, v in items:
        found = _unusable_number(v, where)
        if found is not None:
            return found
    return None


def _jsonable_args(spec: SkillSpec, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    names = list(spec.signature.parameters)
    out = {names[i] if i < len(names) else f"arg{i}": _to_json(a) for i, a in enumerate(args)}
    out.update({k: _to_json(v) for k, v in kwargs.items()})
    return out


def _to_json(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list | tuple):
        return [_to_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _to_json(v) for k, v in value.items()}
    if isinstance(value, np.generic):
        return value.item()
    return value


def _validation_message(name: str, exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:3]:
        loc = ".".join(str(x) for x in err.get("loc", ()) if x != 0)
        parts.append(f"{loc or 'arguments'}: {err.get('msg')}")
    return f"{name}: {'; '.join(parts)}. Check the signature in the API list."

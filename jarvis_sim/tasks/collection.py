"""The task collection's naming scheme: assemblies by (split, seed, index), tasks by segment.

Every assembly and task is a pure function of its id, so any task of any pool can be rebuilt from
its id alone: `lego/<split><seed>-<index>-<kind>/<k>` is segment k of assembly `index` generated
under `seed` in split `p` (the full pool) or `v` (the validation pool that suites are drawn from).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from jarvis_sim.lego.assembly import Assembly
from jarvis_sim.lego.generator import GeneratorConfig, generate_assembly, main_kind
from jarvis_sim.tasks.decompose import Segment, decompose, task_from_segment, task_id
from jarvis_sim.tasks.spec import TaskSpec

# The validation assemblies of seed 7 were generated before the single-arm check (GeneratorConfig.single_arm), and
# jarvis-v1, jarvis-v1-buildable and jarvis-mini are drawn from them: they keep that generation, so those suites and
# every v7 task id keep naming the same tasks (build_statics counts what one arm cannot build in them). Seed 107
# (jarvis-v2's pool) is generated for one arm; its assemblies reach the sizes the drop rule alone gives them
# (generate_assembly refills a trimmed build), so its tasks are the same segments as before the check.
BEFORE_SINGLE_ARM = frozenset({("v", 7)})
TASK_ID = re.compile(r"^lego/(?P<split>[pv])(?P<seed>\d+)-(?P<index>\d{5})-(?P<kind>[a-z_]+)/(?P<k>\d{3,})$")
SPLITS = ("p", "v")


def make_assembly(split: str, seed: int, index: int, config: GeneratorConfig | None = None,
                  max_bricks: int | None = None) -> Assembly:
    """Assembly `index` of a split under a seed, validated (raises AssemblyError if the generator erred, and
    AssemblyTooLarge once it places more than `max_bricks`)."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; known: {SPLITS}")
    key = f"{split}{seed}/{index}"
    config = config or GeneratorConfig(single_arm=(split, seed) not in BEFORE_SINGLE_ARM, max_bricks=max_bricks)
    assembly = generate_assembly(f"{split}{seed}-{index:05d}-{main_kind(key)}", key, config=config)
    assembly.validate()
    return assembly


def segments_of(assembly: Assembly) -> list[Segment]:
    """The assembly's segments (decomposition seeded by the assembly id)."""
    return decompose(len(assembly), assembly.name)


def tasks_of(assembly: Assembly, seed: int) -> Iterator[TaskSpec]:
    """Every task of an assembly, in segment order; AssemblyError when it cannot be built in order.

    An assembly with a floating or blocked brick would give tasks no agent can finish (the oracle scored
    78 on one), so it is refused here, naming the brick.
    """
    assembly.validate()
    for k, seg in enumerate(segments_of(assembly)):
        yield task_from_segment(assembly, seg, task_id(assembly.name, k), seed)


def rebuild_task(tid: str) -> TaskSpec:
    """Rebuild a pool or validation task from its id; a malformed or out-of-range id raises KeyError."""
    m = TASK_ID.match(tid)
    if not m:
        raise KeyError(f"{tid!r} is not a generated task id (expected lego/<p|v><seed>-<index>-<kind>/<k>)")
    seed, index, k = int(m["seed"]), int(m["index"]), int(m["k"])
    assembly = make_assembly(m["split"], seed, index)
    if assembly.name != tid.split("/")[1]:
        raise KeyError(f"{tid!r}: assembly {index} of seed {seed} is {assembly.name!r}")
    segments = segments_of(assembly)
    if k >= len(segments):
        raise KeyError(f"{tid!r}: assembly {assembly.name} has only {len(segments)} tasks")
    return task_from_segment(assembly, segments[k], tid, seed)

"""Motion planners by configuration name, each imported when chosen (OMPL and MoveIt are optional)."""

from __future__ import annotations

from jarvis_sim.registry import PluginUnavailable, Registry, UnknownName
from skills.motion import MotionPlanner

PLANNERS: Registry[type[MotionPlanner]] = Registry("motion planner", entry_point_group="jarvis.planners")
PLANNERS.add("cartesian", lazy="skills.motion:CartesianPlanner")
PLANNERS.add("ompl", lazy="skills.planners.ompl:OmplPlanner", install="pip install 'jarvis[ros]'")
PLANNERS.add("moveit", lazy="skills.planners.moveit:MoveItPlanner", install="pip install 'jarvis[ros]'")
PLANNERS.add("cumotion", lazy="skills.planners.moveit:CuMotionPlanner", install="pip install 'jarvis[ros]'")


def planner_names() -> list[str]:
    """Registered motion planner names."""
    return PLANNERS.names()


def make_planner(name: str) -> MotionPlanner:
    """A motion planner by name; an unknown name lists the valid ones, a missing dependency names its extra."""
    try:
        return PLANNERS.get(name)()
    except PluginUnavailable as exc:
        raise ImportError(str(exc)) from exc


__all__ = ["PLANNERS", "UnknownName", "make_planner", "planner_names"]

"""The built-in skills; importing this package registers them (both libraries)."""

# picking and placing import task first, so the task library registers in its documented order: the looking
# skills and grasp_plan, then pick, then the placements (the order of the prompt's API section).
from skills.library import common, generic, picking, placing, task  # noqa: F401


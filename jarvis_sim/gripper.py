"""The hand every backend carries, the Franka Hand, and which parts fit between its fingers.

A part is picked by closing the fingers across its narrow side: the fingers must first open wider than that side
(by PICK_OPENING_MIN_MM on each side at the least, since perception errs by about half a millimetre). A part whose
narrow side needs more than the hand's stroke can never be picked, so the LDraw importer names it instead of
making a task an agent cannot do, and the pick skill refuses it with a typed error.
"""

from __future__ import annotations

from jarvis_sim.lego.part import Part
from jarvis_sim.lego.units import FIT_GAP_M, STUD_PITCH_M

# Franka Emika, "Franka Hand" product data sheet: stroke 80 mm, 40 mm per finger (libfranka's Gripper reports
# max_width 0.08 m); mujoco_menagerie's franka_emika_panda gives each finger joint the range 0-0.04 m.
GRIPPER_MAX_OPENING_M = 0.080
PICK_OPENING_MIN_MM = 1.0  # per side: how much wider than the brick the pads must open to descend around it


def grip_span_mm(studs: int) -> float:
    """The width (mm) of a part side `studs` long, as the finger pads meet it (0.2 mm short of the pitch)."""
    return studs * STUD_PITCH_M * 1000.0 - FIT_GAP_M * 1000.0


def opening_fits(opening_mm: float) -> bool:
    """Whether the fingers can open this wide (mm)."""
    return opening_mm <= GRIPPER_MAX_OPENING_M * 1000.0 + 1e-9


def too_wide_to_pick(part: Part) -> str | None:
    """Why the hand cannot pick this part (its narrow side is wider than the fingers open), or None when it can.

    Baseplates are never picked: they are the ground the model stands on.
    """
    if part.kind == "baseplate":
        return None
    narrow = min(part.width, part.depth)
    need = grip_span_mm(narrow) + 2 * PICK_OPENING_MIN_MM
    if opening_fits(need):
        return None
    return (f"its narrow side ({narrow} studs, {grip_span_mm(narrow):.1f} mm) needs the fingers open {need:.1f} mm "
            f"and the Franka Hand opens {GRIPPER_MAX_OPENING_M * 1000.0:.0f} mm at most: no robot can pick it")

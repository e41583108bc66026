"""The oracle's hand-room test (agent.agents.hand_room.hand_fits), which orders a step's bricks and which bench statics
uses for the hand's ceiling: a 1x2 hemmed in beside its first stud and at both ends."""

from __future__ import annotations

from agent.agents.hand_room import hand_fits
from jarvis_sim.lego.assembly import make_brick

ORIGIN = (0.3, -0.1, 0.0)
TARGET = make_brick("t", "3004", 1, 4, 4, 0)  # a 1x2 brick over studs (4, 4) and (5, 4)


def test_open_sides_fit() -> None:
    assert hand_fits(TARGET, [], ORIGIN)
    assert not hand_fits(TARGET, [make_brick("p", "3024", 1, 4, 6, 0), make_brick("w", "3005", 1, 3, 4, 0)],
                         ORIGIN)  # a plate a stud beside it still stands where the opened pads go; the end is shut
    assert hand_fits(TARGET, [make_brick("p", "3024", 1, 4, 7, 0), make_brick("w", "3005", 1, 3, 4, 0)], ORIGIN)


def test_a_brick_hemmed_in_at_its_centre_fits_only_off_centre() -> None:
    beside_first_stud = [make_brick("n", "3005", 1, 4, 5, 0), make_brick("s", "3005", 1, 4, 3, 0)]
    at_both_ends = [make_brick("w", "3005", 1, 3, 4, 0), make_brick("e", "3005", 1, 6, 4, 0)]
    present = beside_first_stud + at_both_ends
    assert hand_fits(TARGET, beside_first_stud, ORIGIN)  # across its ends instead
    assert not hand_fits(TARGET, present, ORIGIN)
    assert hand_fits(TARGET, present, ORIGIN, off_centre=True)  # the pads beside its second stud
    flush = [*present, make_brick("n2", "3005", 1, 5, 5, 0), make_brick("s2", "3005", 1, 5, 3, 0)]
    assert not hand_fits(TARGET, flush, ORIGIN, off_centre=True)

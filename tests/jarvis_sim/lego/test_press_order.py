"""Where a brick can take its seating press, and build orders one arm can follow (jarvis_sim/lego/press_order.py)."""

from __future__ import annotations

import pytest

from jarvis_sim.lego import units as u
from jarvis_sim.lego.assembly import Assembly, LatticeBrick, make_brick
from jarvis_sim.lego.generator import generate_assembly
from jarvis_sim.lego.press_order import Structure, press_point, single_arm_order

ORIGIN = (0.0, 0.0, 0.0)


def test_a_brick_hanging_from_one_stud_takes_its_press_only_over_that_stud() -> None:
    """A 1x4 seated by one stud on the end of a 1x6: pressed at its middle with the seating press it pries that
    stud out; pressed over the stud it pushes straight into the 1x6 (what place(press_supported=True) does)."""
    asm = Assembly([make_brick("base", "3009", 4, 0, 0, 0), make_brick("arm", "3010", 1, 5, 0, 3)], baseplate=True)
    assert press_point(asm, "arm", ORIGIN, True) == pytest.approx((5.5 * u.STUD_PITCH_M, 0.5 * u.STUD_PITCH_M))
    assert press_point(asm, "arm", ORIGIN, True, press_n=0.0) is None  # its own weight it carries


def test_a_brick_on_solid_columns_needs_no_programme_and_one_over_a_long_lever_cannot_be_built() -> None:
    s = Structure(baseplate=True)
    s.add(make_brick("a", "3005", 4, 0, 0, 0))
    top = make_brick("b", "3005", 4, 0, 0, 3)
    assert s.on_solid(top) and s.press_point(top) is None and len(s) == 2
    # A 1x8 held by one stud at its end, then a 2x2 pressed on its far end: no press keeps the stud in.
    arm = make_brick("arm", "3008", 4, 0, 0, 6)
    assert s.press_point(arm) is not False
    far = make_brick("far", "3003", 4, 6, 0, 9)
    assert s.press_point(far) is False and len(s) == 3  # refused, and taken out again


def _threshold(bricks: list[LatticeBrick], brick: LatticeBrick) -> float:
    """The largest press (N) the last brick takes over its engaged studs, on `bricks`, found by bisection."""
    lo, hi = 0.0, 5.0
    for _ in range(30):
        mid = (lo + hi) / 2
        s = Structure(baseplate=True)
        for b in bricks:
            s.add(b)
        lo, hi = (mid, hi) if s.press_point(brick, press_n=mid, keep=False) is not False else (lo, mid)
    return lo


def test_a_press_waits_for_the_counterweight_that_steadies_its_support() -> None:
    """A 1x8 on a 1x1 column (one stud, near its left end); a 1x2 pressed on its right end pries that stud. With a
    stack of 1x2s on the left end first, the same press is carried: the order postpones the right brick behind the
    counterweight (within RETRIES layers), and refuses it where no counterweight comes."""
    column = [make_brick(f"c{k}", "3005", 4, 3, 0, 3 * k) for k in range(2)]
    beam = make_brick("beam", "3008", 4, 0, 0, 6)
    right = make_brick("right", "3004", 4, 6, 0, 9)
    weights = [make_brick(f"w{k}", "3004", 4, 0, 0, 9 + 3 * k) for k in range(3)]
    alone = _threshold([*column, beam], right)
    steadied = _threshold([*column, beam, *weights], right)
    assert steadied > alone > 0.0
    press = (alone + steadied) / 2
    built, refused = single_arm_order([*column, beam, right, *weights], baseplate=True, press_n=press)
    order = [b.id for b, _ in built]
    assert refused == [] and order.index("right") > order.index("w0")  # behind the first weights
    built, refused = single_arm_order([*column, beam, right], baseplate=True, press_n=press)
    assert [b.id for b in refused] == ["right"]


@pytest.mark.parametrize("seed", ["v107/7", "v107/15", "v107/3"])
def test_every_generated_brick_takes_its_press_in_build_order(seed: str) -> None:
    """The generator's single-arm builds: every brick, pressed on in build order with everyone's weight, is
    admissible where press_point says."""
    a = generate_assembly("x", seed)
    a.validate()
    structure = Structure(baseplate=True)
    for b in a:
        assert structure.press_point(b) is not False, (seed, b.id)
    assert len(a) > 0


def test_the_seating_press_is_one_figure_per_connection() -> None:
    """A brick bridging two supports makes two connections and is pressed with 2 x SEAT_PRESS_N (the backend
    registers each connection with its own press): the default press is that, not one figure per brick."""
    from jarvis_sim.lego.press_order import SEAT_PRESS_N

    s = Structure(baseplate=True)
    for b in (make_brick("a", "3005", 4, 0, 0, 0), make_brick("b", "3005", 4, 3, 0, 0)):
        s.add(b)
    bridge = make_brick("bridge", "3010", 4, 0, 0, 3)
    s.add(bridge)
    assert len(s.joints[s.index["bridge"]]) == 2
    one, two = (Structure(baseplate=True) for _ in range(2))
    far = make_brick("far", "3005", 4, 0, 0, 6)  # on the bridge's end: one connection
    for st in (one, two):
        for b in s.bricks:
            st.add(b)
    assert one.press_point(far, keep=False) == two.press_point(far, press_n=SEAT_PRESS_N, keep=False)


def test_a_trimmed_single_arm_build_is_refilled_to_its_drawn_size() -> None:
    """v107/7 (stairs, 77 bricks drawn): its layer-order pass left 12 bricks out (65 stayed, before the refill); the
    generator builds on what one arm can build until the assembly has its 77 bricks again, as many as the drop rule
    alone gives (so its tasks are the same segments), each taking its press in build order."""
    from jarvis_sim.lego.generator import GeneratorConfig

    drop_rule_only = generate_assembly("x", "v107/7", config=GeneratorConfig(single_arm=False))
    a = generate_assembly("x", "v107/7")
    assert len(a) == len(drop_rule_only) == 77
    a.validate()
    structure = Structure(baseplate=True)
    for b in a:
        assert structure.press_point(b) is not False, b.id
    _, refused = single_arm_order(list(drop_rule_only), baseplate=True)
    assert refused  # the pre-check build of this seed has bricks one arm cannot press on

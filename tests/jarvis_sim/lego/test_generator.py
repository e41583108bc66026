"""The procedural generator: buildable, deterministic, varied, within the Panda's reach."""

from __future__ import annotations

import pytest

from jarvis_sim.lego.generator import KINDS, GeneratorConfig, generate_assembly, main_kind


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_is_buildable_and_grounded(kind: str) -> None:
    for seed in range(4):
        a = generate_assembly(f"t-{kind}", seed, kind=kind, n_bricks=120)  # type: ignore[arg-type]
        a.validate()
        assert all(a.connected_to_ground().values())
        assert 0 < len(a) <= 120
        assert max(b.top for b in a.bricks) <= GeneratorConfig().max_height_plates


def test_same_seed_same_assembly_and_different_seed_differs() -> None:
    a = generate_assembly("x", 11)
    b = generate_assembly("x", 11)
    c = generate_assembly("x", 12)
    assert a.to_json_obj() == b.to_json_obj()
    assert a.to_json_obj() != c.to_json_obj()


def test_dense_assembly_reaches_700_bricks_and_mixes_parts() -> None:
    # The drop rule's density, without the single-arm check (a 720-brick house is one cluster: each of its hundreds of
    # press checks is a programme over all of it, minutes in all; tests/jarvis_sim/lego/test_press_order.py has it).
    a = generate_assembly("dense", 3, kind="house", n_bricks=720, config=GeneratorConfig(single_arm=False))
    a.validate()
    assert len(a) == 720
    kinds = {b.spec.kind for b in a.bricks}
    assert kinds == {"brick", "plate"}
    assert len({b.color for b in a.bricks}) >= 2


def test_main_kind_matches_generation_and_sizes_span_sparse_to_dense() -> None:
    # The size distribution is the drop rule's: without the single-arm check (its cost grows with the largest clusters).
    sizes = [len(generate_assembly("s", f"sz/{i}", config=GeneratorConfig(single_arm=False))) for i in range(60)]
    assert min(sizes) < 20 and max(sizes) > 150
    assert main_kind("abc") in KINDS


def test_bad_arguments_rejected() -> None:
    with pytest.raises(ValueError, match="kind"):
        generate_assembly("x", 0, kind="castle")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="footprint"):
        GeneratorConfig(footprint=2)

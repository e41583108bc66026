"""FOLD files in the styles real tools write (tests/data/fold/), checked, and written back with faceOrders.

Origami Simulator: FOLD 1.1, the sheet in the XZ plane, faces triangulated with flat (F) edges. flat-folder:
2D, every crease unassigned (U). Rabbit Ear: every derived field (vertices_faces with nulls, edges_faces,
faces_edges) and a folded frame in file_frames. faceOrders follow FOLD 1.2: [f, g, s] with s = +1 when f lies
on the side g's normal points to, so across a valley fold both faces read +1 of each other, across a mountain -1.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.cli.main import app
from jarvis_sim.origami.fold_format import read_fold
from jarvis_sim.origami.fold_orders import face_orders
from jarvis_sim.origami.foldability import check

DATA = Path(__file__).resolve().parents[2] / "data" / "fold"
FILES = ["origami_simulator_map_fold.fold", "flat_folder_accordion.fold", "rabbit_ear_waterbomb.fold"]


def _across_creases(path: Path, orders: list[list[int]]) -> dict[tuple[int, int], tuple[str, int, int]]:
    """For faces sharing a folded edge: (its assignment in the written file, s of f over g, s of g over f)."""
    cp = read_fold(path)
    s = {(f, g): v for f, g, v in orders}
    sides: dict[tuple[int, int], list[int]] = {}
    for k, face in enumerate(cp.faces):
        for a, b in zip(face, face[1:] + face[:1], strict=True):
            sides.setdefault((min(a, b), max(a, b)), []).append(k)
    out = {}
    for e, (a, b) in enumerate(cp.edges):
        fs = sides.get((min(a, b), max(a, b)), [])
        if len(fs) == 2 and cp.assignments[e] in ("M", "V", "U"):
            f, g = fs
            out[(f, g)] = (cp.assignments[e], s[(f, g)], s[(g, f)])
    return out


@pytest.mark.parametrize("name", FILES)
def test_tool_files_fold_and_write_back_their_layer_order(name: str, tmp_path: Path) -> None:
    out = tmp_path / name
    r = CliRunner().invoke(app, ["origami", "check", str(DATA / name), "--write-fold", str(out)])
    assert r.exit_code == 0, r.output
    verdict = json.loads(r.stdout)
    assert verdict["foldable"] is True and verdict["decided"] is True and verdict["face_orders_written"] == str(out)
    written = json.loads(out.read_text())
    original = json.loads((DATA / name).read_text())
    # Every field the tool wrote is kept, in its order; faceOrders comes last.
    assert list(written)[:-1] == list(original) and list(written)[-1] == "faceOrders"
    assert {k: v for k, v in written.items() if k != "faceOrders"} == original
    cp = read_fold(out)  # the reader validates the orders' face indices and values
    assert len(cp.face_orders) == len(written["faceOrders"]) > 0
    for assignment, s_fg, s_gf in _across_creases(DATA / name, written["faceOrders"]).values():
        assert s_fg == s_gf  # the two faces of a crease see each other alike
        if assignment != "U":
            assert s_fg == (1 if assignment == "V" else -1), assignment


def test_triangulated_faces_take_the_order_of_the_face_they_lie_in() -> None:
    # Origami Simulator's F edges split each quad in two: the two halves never get an order between them.
    cp = read_fold(DATA / "origami_simulator_map_fold.fold")
    verdict = check(cp)
    assert verdict.state is not None and len(verdict.state.faces) == 4 and len(cp.faces) == 8
    orders = {(f, g): s for f, g, s in face_orders(cp, verdict.state)}
    halves = [(0, 1), (2, 3), (4, 5), (6, 7)]
    assert not any(pair in orders or pair[::-1] in orders for pair in halves)
    # Bottom-left and bottom-right meet at a mountain fold; top-right and top-left at a valley.
    assert orders[(0, 2)] == orders[(2, 0)] == -1 and orders[(4, 6)] == orders[(6, 4)] == 1


def test_flat_folder_unassigned_creases_get_a_consistent_mountain_valley_order() -> None:
    cp = read_fold(DATA / "flat_folder_accordion.fold")
    verdict = check(cp)
    assert verdict.state is not None
    found = [verdict.state.crease_assignment(e) for e in (10, 11, 12)]
    assert found in (["M", "V", "M"], ["V", "M", "V"])
    orders = {(f, g): s for f, g, s in face_orders(cp, verdict.state)}
    for (f, g), asg in zip(((0, 1), (1, 2), (2, 3)), found, strict=True):
        assert orders[(f, g)] == orders[(g, f)] == (1 if asg == "V" else -1)


def test_nothing_is_written_when_there_is_no_layer_order(tmp_path: Path) -> None:
    data = json.loads((DATA / "rabbit_ear_waterbomb.fold").read_text())
    data["edges_assignment"] = ["M" if a == "V" else a for a in data["edges_assignment"]]  # six mountains
    data["edges_foldAngle"] = [-180 if a == "M" else 0 for a in data["edges_assignment"]]
    bad = tmp_path / "bad.fold"
    bad.write_text(json.dumps(data))
    out = tmp_path / "out.fold"
    r = CliRunner().invoke(app, ["origami", "check", str(bad), "--write-fold", str(out)])
    verdict = json.loads(r.stdout)
    assert r.exit_code == 0 and verdict["foldable"] is False and verdict["violated_rules"] == ["maekawa"]
    assert not out.exists() and "local rules fail" in verdict["face_orders_not_written"]

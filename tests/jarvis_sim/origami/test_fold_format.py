"""FOLD v1.2 round trip and rejection of malformed files naming field and index."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from jarvis_sim.origami.fold_format import FoldFormatError, dumps, from_fold, pattern_from_segments, read_fold


def _square_with_valley() -> dict:
    cp = pattern_from_segments([((0.0, 0.5), (1.0, 0.5), "V")], "half")
    return json.loads(dumps(cp))


def test_round_trip_keeps_fields_and_metadata(tmp_path: Path) -> None:
    data = _square_with_valley()
    assert data["file_spec"] == 1.2 and data["frame_classes"] == ["creasePattern"]
    assert data["edges_foldAngle"][data["edges_assignment"].index("V")] == 180.0
    path = tmp_path / "half.fold"
    path.write_text(json.dumps(data))
    cp = read_fold(path)
    assert cp.name == "half" and cp.crease_count == 1
    assert json.loads(dumps(cp)) == data
    # Faces are counter-clockwise: positive signed area.
    for f in cp.faces:
        p = cp.vertices[list(f)]
        assert 0.5 * np.sum(p[:, 0] * np.roll(p[:, 1], -1) - np.roll(p[:, 0], -1) * p[:, 1]) > 0


def test_faces_computed_when_absent() -> None:
    data = _square_with_valley()
    del data["faces_vertices"]
    assert len(from_fold(data).faces) == 2


@pytest.mark.parametrize(
    ("mutate", "field", "index"),
    [
        (lambda d: d["edges_vertices"].__setitem__(1, [0, 99]), "edges_vertices", 1),
        (lambda d: d["edges_assignment"].__setitem__(2, "X"), "edges_assignment", 2),
        (lambda d: d["vertices_coords"].__setitem__(3, ["a", 0]), "vertices_coords", 3),
        (lambda d: d["edges_foldAngle"].__setitem__(0, -90), "edges_foldAngle", 0),
        (lambda d: d["faces_vertices"].__setitem__(0, [0, 1, 99]), "faces_vertices", 0),
    ],
)
def test_malformed_rejected_with_field_and_index(mutate, field: str, index: int) -> None:
    data = _square_with_valley()
    mutate(data)
    with pytest.raises(FoldFormatError) as err:
        from_fold(data)
    assert err.value.field == field and err.value.index == index
    assert f"{field}[{index}]" in str(err.value)


def test_crossing_edges_rejected() -> None:
    data = {
        "vertices_coords": [[0, 0], [1, 1], [1, 0], [0, 1]],
        "edges_vertices": [[0, 1], [2, 3]],
        "edges_assignment": ["M", "V"],
    }
    with pytest.raises(FoldFormatError, match=r"edges_vertices\[0\]: crosses edge 1"):
        from_fold(data)


def test_vertex_inside_edge_is_non_planar() -> None:
    data = {"vertices_coords": [[0, 0], [1, 0], [0.5, 0]], "edges_vertices": [[0, 1]], "edges_assignment": ["B"]}
    with pytest.raises(FoldFormatError, match="not planar"):
        from_fold(data)


def test_shipped_files_read_and_carry_class() -> None:
    from jarvis_sim.origami.library import ASSETS

    cp = read_fold(ASSETS / "patterns" / "bird-base.fold")
    assert cp.meta["level"] == "simple" and cp.crease_count == 32


def _square_folded_in_half(frame_classes: list[str]) -> dict[str, object]:
    """A unit square folded along x = 0.5, written as its folded form: the right half's corners land on the left
    half's, so its faces overlap (what fold-convert --flat-fold writes)."""
    return {
        "frame_classes": frame_classes,
        "vertices_coords": [[0, 0], [0.5, 0], [0.5, 1], [0, 1], [0, 0], [0, 1]],
        "edges_vertices": [[0, 1], [1, 2], [2, 3], [3, 0], [1, 4], [4, 5], [5, 2]],
        "edges_assignment": ["B", "V", "B", "B", "B", "B", "B"],
        "faces_vertices": [[0, 1, 2, 3], [1, 4, 5, 2]],  # the folded-over face runs clockwise
    }


def test_folded_form_error_says_it_is_a_folded_form() -> None:
    with pytest.raises(FoldFormatError, match=r"frame_classes says this frame is a foldedForm") as err:
        from_fold(_square_folded_in_half(["foldedForm"]))
    assert err.value.field == "vertices_coords"  # the field and index of the first broken rule stay
    with pytest.raises(FoldFormatError) as plain:
        from_fold(_square_folded_in_half(["creasePattern"]))
    assert "foldedForm" not in str(plain.value)


def test_valid_sheet_labelled_folded_form_still_reads() -> None:
    data = _square_with_valley()
    data["frame_classes"] = ["foldedForm"]
    assert len(from_fold(data).faces) == 2


def test_coincident_vertices_rejected() -> None:
    # Read as a crease pattern, the folded square's corners 4 and 5 lie on 0 and 3: its edges overlap under other
    # vertex indices, and before this check the file passed as foldable with no face at all.
    data = _square_folded_in_half(["creasePattern"])
    del data["faces_vertices"]
    with pytest.raises(FoldFormatError, match=r"vertices_coords\[4\]: coincides with vertex 0"):
        from_fold(data)

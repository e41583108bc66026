"""Joining end pictures with per-brick scores: colours, and the camera picture cut down to the bricks."""

from __future__ import annotations

import pytest

from agent.server.dashboard.final_state import MIN_CROP_PX, crop_to_bricks, score_colour
from jarvis_sim.records import FinalView


def _view(outlines: dict[str, list[list[tuple[int, int]]]]) -> FinalView:
    return FinalView(kind="camera", image="final_camera.png", width=640, height=480, outlines=outlines)


def test_the_camera_picture_is_cut_to_the_bricks_keeping_its_aspect_and_staying_inside() -> None:
    x, y, w, h = crop_to_bricks(_view({"a": [[(300, 200), (320, 200), (320, 210)]]}), margin=10)  # type: ignore[misc]
    assert (w, h) == (MIN_CROP_PX, 150) and x <= 300 and x + w >= 320 and y <= 200 and y + h >= 210
    x, y, w, h = crop_to_bricks(_view({"a": [[(0, 0), (5, 5)]], "b": [[(250, 300), (260, 310)]]}))  # type: ignore[misc]
    assert (x, y) == (0, 0) and w / h == pytest.approx(640 / 480, abs=0.01) and x + w >= 290 and y + h >= 340
    assert crop_to_bricks(_view({})) is None
    assert crop_to_bricks(_view({"a": [[(0, 0), (639, 479)]]})) is None  # the bricks fill it: show all of it


def test_pose_credit_runs_from_red_to_green_and_is_clamped() -> None:
    assert [score_colour(p) for p in (-5, 0, 50, 100, 130)] == [
        "hsl(0, 75%, 42%)", "hsl(0, 75%, 42%)", "hsl(60, 75%, 42%)", "hsl(120, 75%, 42%)", "hsl(120, 75%, 42%)"]


def test_an_unseated_brick_is_never_painted_green_however_close_its_pose() -> None:
    from agent.server.dashboard.final_state import required_verdict

    near = {"target": "b003", "part": "3023", "matched": "b003", "pose": 98.0, "complete": False, "valid": True}
    unseated = required_verdict(near)
    assert unseated.colour == score_colour(50.0) and unseated.complete is False and "not complete" in unseated.text
    seated = required_verdict({**near, "complete": True})
    assert seated.colour == score_colour(98.0) and seated.pose == unseated.pose == 98.0

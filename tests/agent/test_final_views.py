"""An episode's end pictures: a backend that cannot render costs its camera picture, never the episode."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from agent.episodes.final_views import CAMERA_IMAGE, FINAL_IMAGE, TARGET_IMAGE, capture_final_views
from tests.evaluator.builders import make_task, perfect_state
from tests.fakes.env_backend import EnvBackend
from tests.fakes.skill_backend import RecordingBackend


@pytest.mark.render
def test_a_backend_without_a_renderer_loses_only_the_camera_picture(tmp_path: Path,
                                                                      caplog: pytest.LogCaptureFixture) -> None:
    task = make_task()
    with caplog.at_level(logging.WARNING, logger="agent.episodes.final_views"):
        views = capture_final_views(RecordingBackend(), "top", task, perfect_state(task), tmp_path)
    assert [v.kind for v in views] == ["final", "target"]
    assert "no final camera picture" in caplog.text
    assert (tmp_path / FINAL_IMAGE).is_file() and (tmp_path / TARGET_IMAGE).is_file()
    assert not (tmp_path / CAMERA_IMAGE).exists()


@pytest.mark.render
def test_a_camera_without_segmentation_keeps_its_picture_with_no_outlines(tmp_path: Path) -> None:
    task = make_task()
    backend = EnvBackend()
    views = capture_final_views(backend, "top", task, perfect_state(task), tmp_path)
    camera = views[0]
    assert camera.kind == "camera" and (camera.width, camera.height) == (8, 6) and camera.outlines == {}
    assert (tmp_path / CAMERA_IMAGE).read_bytes()[:4] == b"\x89PNG"

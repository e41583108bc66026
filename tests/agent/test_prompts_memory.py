"""Prompt templates (parsing, versions, rendering, image markers) and the execution memory summary."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agent.episodes.memory import ExecutionMemory
from agent.episodes.modes import says_done
from agent.episodes.observation import depth_image
from agent.llm.prompts import PROMPTS_DIR, Prompt, PromptError, image_marker, load_template, parse_template
from jarvis_sim.records import RoundRecord, SkillCallRecord

SHIPPED = ("assembly_system", "assembly_task", "assembly_instructions", "question_system", "experience_distill")


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_templates_have_a_name_and_version(name: str) -> None:
    t = load_template(name)
    assert t.name == name and t.version
    assert t.tag == f"{name}@{t.version}"
    assert "---" not in t.body.splitlines()[0]  # the header is not part of the body


def test_instruction_sections_cover_every_mode() -> None:
    t = load_template("assembly_instructions")
    assert {"non_reflective", "reflective_first", "reflective_next", "reflection_round", "no_code"} <= set(t.sections)
    text = t.render("reflection_round", reflection=2, max_reflections=3)
    assert "R2 of 3" in text and "not reset" in text


def test_template_errors_name_the_file_and_the_problem(tmp_path: Path) -> None:
    with pytest.raises(PromptError, match="must start with a '---' header"):
        parse_template("hello", tmp_path / "a.md")
    with pytest.raises(PromptError, match="never closed"):
        parse_template("---\nname: a\nversion: 1\n", tmp_path / "a.md")
    with pytest.raises(PromptError, match="no 'version'"):
        parse_template("---\nname: a\n---\nbody\n", tmp_path / "a.md")
    t = parse_template("---\nname: a\nversion: 3\n---\nHello ${who}\n", tmp_path / "a.md")
    assert t.render(who="robot") == "Hello robot\n"
    with pytest.raises(PromptError, match=r"a\.md: no value given for \$\{who\}"):
        t.render()
    with pytest.raises(PromptError, match="no section"):
        t.render("missing")
    with pytest.raises(PromptError, match="not found"):
        load_template("no_such_template")


def test_prompt_splits_text_at_image_markers(tmp_path: Path) -> None:
    from PIL import Image

    Image.fromarray(np.zeros((4, 5, 3), np.uint8)).save(tmp_path / "a.png")
    absolute = tmp_path / "b.png"
    Image.fromarray(np.full((3, 3, 3), 200, np.uint8)).save(absolute)
    p = Prompt(system="sys", user=f"look\n{image_marker('a.png')}\nand\n{image_marker(absolute)}\nend",
               versions=["x@1", "y@2"], base_dir=tmp_path)
    parts = p.parts()
    kinds = [part.type for part in parts]
    assert kinds == ["text", "image", "text", "image", "text"]
    assert p.image_paths() == ["a.png", str(absolute)]
    assert p.version == "x@1,y@2"
    assert p.record_text().startswith("[system]\nsys\n[user]\nlook")
    request = p.request(temperature=0.0, seed=3, max_tokens=100)
    assert request.image_count() == 2 and request.system == "sys"
    missing = Prompt(system="", user=image_marker("gone.png"), versions=[], base_dir=tmp_path)
    with pytest.raises(ValueError, match=r"gone\.png"):
        missing.parts()


def test_done_detection() -> None:
    assert says_done("DONE")
    assert says_done("The tower is complete.\n**DONE**")
    assert not says_done("I am not done yet")
    assert not says_done("")


def test_depth_image_puts_near_bright_and_invalid_black() -> None:
    depth = np.array([[0.80, 0.79], [0.0, np.nan]], dtype=np.float32)
    img = depth_image(depth)
    assert img.dtype == np.uint8
    assert img[0, 1] == 255 and img[0, 0] == 1 and img[1, 0] == 0 and img[1, 1] == 0


def _call(name: str, ok: bool = True, result: object = None, kind: str | None = None, **args: object) -> SkillCallRecord:
    return SkillCallRecord(name=name, args=dict(args), ok=ok, result=result, error_kind=kind,
                           error=None if ok else f"{kind} happened")


def test_memory_summary_compresses_rounds_and_keeps_relevant_bricks() -> None:
    bricks = [
        {"id": "p1", "color": "red", "size": [4, 2], "x_mm": 400, "y_mm": 200, "top_z_mm": 9.6, "yaw_deg": 0,
         "in_structure": False, "free_to_grasp": True},
        {"id": "p2", "color": "green", "size": [1, 1], "x_mm": 410, "y_mm": 210, "top_z_mm": 9.6, "yaw_deg": 0,
         "in_structure": False, "free_to_grasp": True},
        {"id": "p3", "color": "blue", "size": [2, 2], "x_mm": 480, "y_mm": -150, "top_z_mm": 9.6, "yaw_deg": 90,
         "in_structure": True, "free_to_grasp": True},
    ]
    mem = ExecutionMemory({"red"}, {(4, 2)})
    assert mem.summary() == ""
    mem.note_plan("PLAN: pick the red brick\nPLAN: put it on the blue one\n```python\npass\n```")
    first = RoundRecord(index=0, kind="attempt", code="x", outcome="skill_error", outcome_line=3,
                        feedback="outcome: skill_error at line 3\nmessage: grasp_failed: slipped",
                        skill_calls=[_call("observe", result=bricks), _call("pick", ok=False, kind="grasp_failed", brick="p1")])
    mem.note_round(first)
    second = RoundRecord(index=1, kind="reflective_step", code="y", outcome="ok",
                         skill_calls=[_call("pick", brick="p1"), _call("place_on", support="p3", stud_x=0, stud_y=0)])
    mem.note_round(second)
    mem.note_no_code()
    text = mem.summary()
    assert "- pick the red brick" in text
    assert "round 1 (attempt): skill_error at line 3" in text and "grasp_failed x1" in text
    assert "round 2 (reflective_step): ok" in text and "1 placements ok" in text
    assert "1 successful picks, 1 successful placements" in text
    assert "place_on(support='p3', stud_x=0, stud_y=0)" in text
    assert "Answers without a runnable program so far: 1." in text
    assert "Gripper: empty" in text
    # Task-relevant bricks: the red 4x2 (loose, task colour and size) and the structure; not the green 1x1.
    assert "p1: red 4x2" in text and "p3: blue 2x2" in text and "p2:" not in text


def test_prompts_dir_is_in_assets() -> None:
    assert PROMPTS_DIR.name == "prompts" and PROMPTS_DIR.parent.name == "assets"

"""The task browser: suites by family, a suite's tasks, a task as an agent meets it (TestClient)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from agent.server.dashboard.app import create_view_app
from jarvis_sim.tasks.registry import load_task, suite_task_ids


@pytest.fixture
def client(crafted_run: Path) -> TestClient:
    return TestClient(create_view_app([crafted_run]))


def test_suites_are_listed_by_family_with_sizes_or_why_they_are_missing(client: TestClient) -> None:
    page = client.get("/tasks").text
    lego = page.split('data-family="lego"')[1].split("</table>")[0]
    assert '<a href="/tasks?suite=jarvis-mini">jarvis-mini</a></td>\n<td>6</td>' in lego
    vsp = page.split('data-family="vsp"')[1].split("</table>")[0]
    assert "vsp-maze-main@" not in vsp.split("<details>")[0]  # a variant sits under its base suite
    if 'class="unavailable"' in vsp:  # the official VSP data is not installed here: the page says why
        assert "no VSP dataset" in vsp


def test_a_suite_lists_its_tasks_with_their_size(client: TestClient) -> None:
    page = client.get("/tasks", params={"suite": "jarvis-mini"}).text
    ids = suite_task_ids("jarvis-mini")
    rows = re.findall(r'<tr><td><a href="/tasks/([^"]+)">', page)
    assert rows == ids
    first = load_task(ids[0])
    assert f"<td>{len(first.action_bricks)}</td><td>{len(first.initial)}</td>" in page
    assert client.get("/tasks", params={"suite": "nope"}).status_code == 404


def test_an_assembly_task_shows_its_manual_in_the_chosen_style_and_its_observation(client: TestClient) -> None:
    task_id = suite_task_ids("jarvis-mini")[0]
    task = load_task(task_id)
    page = client.get(f"/tasks/{task_id}", params={"style": "shaded"}).text
    pages = re.findall(rf'<img src="/tasks/{task_id}/manual/shaded/(\d+)\.png"', page)
    assert pages == [str(k) for k in range(1, len(task.manual_steps) + 1)]
    assert f'src="/tasks/{task_id}/observation.png"' in page
    assert '<a href="/tasks/' + task_id + '?style=booklet"' in page and "<b title" in page
    for a in task.action_bricks:
        assert f"<td>{a.id}</td><td>{a.target.part}</td>" in page
    assert "target" not in page.split("<h2>Bricks to place</h2>")[1].lower()  # no target poses
    assert client.get(f"/tasks/{task_id}", params={"style": "comic"}).status_code == 422
    assert "unknown" in client.get("/tasks/lego/nope/0").json()["detail"]
    assert client.get(f"/tasks/{task_id}/manual/shaded/99.png").status_code == 404


def test_a_question_item_shows_its_prompt_and_images(client: TestClient) -> None:
    from markupsafe import escape

    from jarvis_sim.tasks.question import QuestionItem

    item_id = suite_task_ids("vsp-gen-mini")[0]  # generated here (the official VSP data may be absent)
    item = load_task(item_id)
    assert isinstance(item, QuestionItem) and item.images
    page = client.get(f"/tasks/{item_id}").text
    assert str(escape(item.prompt)) in page and str(item.answer) not in page.split("<h2>Images</h2>")[1]
    srcs = re.findall(r'<img src="([^"]+)"', page)
    assert srcs == [f"/tasks/{item_id}/images/{k}.png" for k in range(len(item.images))]
    assert client.get(srcs[0]).content[:4] in (b"\x89PNG", b"\xff\xd8\xff\xe0")
    assert client.get(f"/tasks/{item_id}/observation.png").status_code == 404  # a question item has no scene
    assert client.get(f"/tasks/{item_id}/images/{len(item.images)}.png").status_code == 404


@pytest.mark.render
@pytest.mark.slow
def test_manual_pages_and_the_observation_are_served_as_png(client: TestClient) -> None:
    task_id = suite_task_ids("jarvis-mini")[0]
    for url in (f"/tasks/{task_id}/manual/booklet/1.png", f"/tasks/{task_id}/observation.png"):
        got = client.get(url)
        assert got.status_code == 200 and got.content[:4] == b"\x89PNG", url

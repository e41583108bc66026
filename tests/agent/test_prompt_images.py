"""A question episode keeps the images its prompt showed in its own folder, named by content."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from agent.episodes.prompt_images import keep_prompt_images


def test_images_from_elsewhere_are_copied_once_and_local_ones_kept(tmp_path: Path) -> None:
    data = tmp_path / "dataset"
    (data / "a").mkdir(parents=True)
    (data / "b").mkdir()
    Image.new("RGB", (4, 4), "red").save(data / "a" / "0.png")
    Image.new("RGB", (4, 4), "blue").save(data / "b" / "0.png")  # the same name, other pixels
    episode = tmp_path / "episode"
    episode.mkdir()
    names = keep_prompt_images([str(data / "a" / "0.png"), str(data / "b" / "0.png"), "obs_001_rgb.png",
                                str(data / "a" / "0.png"), str(data / "gone.png")], episode)
    assert names[0] != names[1] and names[0] == names[3] and names[0].startswith("prompt/")
    assert names[2] == "obs_001_rgb.png" and names[4] == str(data / "gone.png")  # named as the prompt named it
    assert (episode / names[0]).read_bytes() == (data / "a" / "0.png").read_bytes()
    assert sorted(p.name for p in (episode / "prompt").iterdir()) == sorted({Path(n).name for n in names[:2]})


def test_a_question_run_keeps_its_images_in_each_episode_folder(tmp_path: Path) -> None:
    import json

    from agent.config import AgentConfig
    from agent.runs.batch import run_batch
    from agent.runs.run_store import RunConfig
    from jarvis_sim.tasks.registry import load_task, suite_task_ids

    task_id = suite_task_ids("vsp-gen-mini-maze-main")[0]
    run_batch(RunConfig(task_ids=[task_id], agent=AgentConfig(name="random")), tmp_path / "run", workers=0)
    record = json.loads((tmp_path / "run" / "episodes.jsonl").read_text().splitlines()[0])
    shown = record["rounds"][0]["prompt_images"]
    assert len(shown) == len(load_task(task_id).images)  # type: ignore[union-attr]
    for name in shown:
        assert not Path(name).is_absolute()
        assert (tmp_path / "run" / record["artifacts_dir"] / name).is_file()

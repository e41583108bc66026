"""Images a prompt showed, kept beside the episode's record so its folder tells the whole story.

A prompt names images where they live (the manual cache, a VSP data set, GamiBench's renders); the record
stores them as artifacts of the episode folder instead (EpisodeRecord: paths relative to it), so a run
directory copied elsewhere, or served by `jarvis view`, still shows what the model saw. A copy is named by
its content, so a manual page shown in every round is kept once.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Sequence
from pathlib import Path

PROMPT_DIR = "prompt"


def keep_prompt_images(paths: Sequence[str], episode_dir: Path) -> list[str]:
    """Copy images from outside the episode folder into it; returns their names relative to the folder.

    Paths already relative (the episode's own observations) are kept as written; a file that is not there
    is kept by its path, so the record still names what the prompt referred to.
    """
    out = []
    root = episode_dir.resolve()
    for raw in paths:
        path = Path(raw)
        if not path.is_absolute():
            out.append(raw)
            continue
        if path.resolve().is_relative_to(root):
            out.append(str(path.resolve().relative_to(root)))
            continue
        try:
            data = path.read_bytes()
        except OSError:
            out.append(raw)
            continue
        name = f"{PROMPT_DIR}/{hashlib.sha256(data).hexdigest()[:10]}-{path.name}"
        target = episode_dir / name
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_suffix(target.suffix + ".part")
            shutil.copyfile(path, tmp)
            tmp.replace(target)  # a reader never sees half a file
        out.append(name)
    return out

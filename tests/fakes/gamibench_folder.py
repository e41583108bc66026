"""A small GamiBench data folder in the official layout, and a stand-in for the official code's prompts.

The folder has what real copies have: names in mixed case, views named top/bottom (one example with a
single view, so it gets no alternative-view question; one with no impossible pattern; one with no
crease pattern), file names whose case differs from the folder's, and a stray non-image file. The
prompt module has the official module's shape (SYSTEM_PROMPT, USER_PROMPT, candidate_caption) with our
own words, since the official text is never copied here.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image

EXAMPLES: dict[str, dict[str, object]] = {
    "crane": {"views": ["top", "bottom"], "impossible": True},
    "Boat": {"views": ["Top", "bottom"], "impossible": True},
    "apple": {"views": ["top", "bottom"], "impossible": False},
    "Duck": {"views": ["top"], "impossible": True},
    "frog": {"views": ["bottom", "top"], "impossible": True},
    "egg": {"views": ["top", "bottom"], "impossible": True, "cp": False},
    "Zebra": {"views": ["top", "bottom"], "impossible": True},
}

PROMPTS_PY = '''"""Stand-in prompts with the official module's shape."""

SYSTEM_PROMPT = "You grade paper folds."

USER_PROMPT = (
    "Look at the crease pattern, "
    "then at the candidates."
)


def candidate_label(index: int) -> str:
    return chr(ord("A") + index)


def candidate_caption(task, index: int) -> str:
    return f"Option ({candidate_label(index)}):"
'''


def _png(path: Path, shade: int) -> None:
    Image.new("RGB", (8, 8), (shade, 255 - shade, 128)).save(path)


def build_folder(root: Path) -> Path:
    """Write the examples under root (GamiBench's <name>/<name>_<view>.png layout); returns root."""
    for k, (name, spec) in enumerate(EXAMPLES.items()):
        folder = root / name
        folder.mkdir(parents=True)
        if spec.get("cp", True):
            _png(folder / f"{name}_cp.png", 10 * k)
        if spec["impossible"]:
            _png(folder / f"impossible_{name}_cp.png", 10 * k + 1)
        for j, view in enumerate(spec["views"]):  # type: ignore[attr-defined]
            # Case differs from the folder's name in one example: the official discovery ignores case.
            stem = name.upper() if name == "Boat" else name
            _png(folder / f"{stem}_{view}.png", 10 * k + 2 + j)
        (folder / "notes.txt").write_text("not an image")
    return root


def build_code(root: Path) -> Path:
    """A copy of 'the official code' holding only its prompts module; returns its root."""
    prompts = root / "benchmarks" / "gamibench" / "prompts.py"
    prompts.parent.mkdir(parents=True)
    prompts.write_text(PROMPTS_PY)
    return root

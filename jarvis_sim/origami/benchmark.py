"""GamiBench question items: standard, alternative-view and impossible questions, with their images.

Images use GamiBench's file layout whether rendered here or supplied by a user:
`<root>/<name>/<name>_cp.png`, `<root>/<name>/impossible_<name>_cp.png`, `<root>/<name>/<name>_<view>.png`.
Generated images are rendered on first use into a cache (keyed by the pattern files and the render
version), so the repository ships only FOLD files.
"""

from __future__ import annotations

import hashlib
import os
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from jarvis_sim.origami.library import ASSETS, DEFAULT_SEED, load_pattern, read_manifest
from jarvis_sim.origami.render import VIEWS, composite, crease_pattern_image, png_bytes, render_view
from jarvis_sim.origami.simulate import fold_3d
from jarvis_sim.paths import cache_root as user_cache_root
from jarvis_sim.tasks.question import QuestionItem

FOLD_AMOUNT = 0.92  # nearly flat: the folded silhouette shows, yet layers and relief stay visible
RENDER_VERSION = "r1"
LETTERS = ("A", "B", "C", "D")
IMPOSSIBLE = "E"
KINDS = ("standard", "alternative", "impossible")

PROMPT = (
    "The first image is an origami crease pattern on a square sheet: red lines are mountain folds, blue "
    "lines are valley folds, the black line is the edge of the paper. The second image shows four "
    "candidate 3D folded models labelled (A) to (D).\n"
    "{question}\n"
    "If the crease pattern cannot be folded flat (it is physically impossible), answer E.\n"
    "Answer with exactly one letter: A, B, C, D or E."
)
QUESTIONS = {
    "standard": "Which candidate is the model this crease pattern folds into?",
    "alternative": "Which candidate is the model this crease pattern folds into, seen from a different viewpoint?",
    "impossible": "Which candidate is the model this crease pattern folds into?",
}


@dataclass(frozen=True)
class Candidate:
    """One candidate image: a model (pattern name) and a view."""

    model: str
    view: str


@dataclass(frozen=True)
class Question:
    """A question before images exist: the pattern shown, the four candidates and the right letter."""

    kind: str
    name: str
    level: str | None
    candidates: tuple[Candidate, ...]
    answer: str

    @property
    def task_id(self) -> str:
        """The id under which the item is served."""
        return f"gamibench/{self.kind}/{self.name}"


def build_questions(names: list[str], levels: dict[str, str | None], seed: int = DEFAULT_SEED) -> list[Question]:
    """Standard, alternative and impossible questions for every pattern, seeded like GamiBench (seed 42)."""
    rng = random.Random(seed)
    out: list[Question] = []
    for name in names:
        level = levels.get(name)
        same = [n for n in names if n != name and levels.get(n) == level]
        pool = same if len(same) >= 3 else [n for n in names if n != name]
        distractors = [Candidate(n, rng.choice(VIEWS)) for n in rng.sample(pool, 3)]
        view = rng.choice(VIEWS)
        pos = rng.randrange(4)
        std = [*distractors[:pos], Candidate(name, view), *distractors[pos:]]
        out.append(Question("standard", name, level, tuple(std), LETTERS[pos]))
        # Same distractors, another view of the right model, positions shuffled afresh.
        alt_view = rng.choice([v for v in VIEWS if v != view])
        alt = [*distractors, Candidate(name, alt_view)]
        rng.shuffle(alt)
        alt_pos = next(i for i, c in enumerate(alt) if c.model == name)
        out.append(Question("alternative", name, level, tuple(alt), LETTERS[alt_pos]))
        others = [Candidate(n, rng.choice(VIEWS)) for n in rng.sample(pool, 4)]
        out.append(Question("impossible", name, level, tuple(others), IMPOSSIBLE))
    return out


def cache_root() -> Path:
    """Where generated renders live: the user's cache (jarvis_sim.paths.cache_root) / gamibench."""
    return user_cache_root() / "gamibench"


class ImageSource:
    """Paths of the crease-pattern and view images of a pattern, in GamiBench's layout."""

    def __init__(self, root: Path, render: Callable[[str, str], Image.Image] | None = None):
        self.root = root
        self._render = render

    def path(self, name: str, image: str) -> Path:
        """image is 'cp', 'impossible_cp' or a view name; rendered on first use when a renderer is set."""
        if image == "impossible_cp":
            p = self.root / name / f"impossible_{name}_cp.png"
        else:
            p = self.root / name / f"{name}_{image}.png"
        if not p.exists():
            if self._render is None:
                raise FileNotFoundError(f"missing GamiBench image {p}")
            p.parent.mkdir(parents=True, exist_ok=True)
            tmp = p.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(png_bytes(self._render(name, image)))
            tmp.replace(p)  # atomic: concurrent loaders never read half a file
        return p


def generated_source(assets: Path = ASSETS) -> ImageSource:
    """Renders of the shipped library, cached under a key of the manifest and render version."""
    digest = hashlib.sha256((assets / "manifest.json").read_bytes() + RENDER_VERSION.encode()).hexdigest()[:12]

    def render(name: str, image: str) -> Image.Image:
        if image == "cp":
            return crease_pattern_image(load_pattern(name, assets))
        if image == "impossible_cp":
            return crease_pattern_image(load_pattern(f"impossible-{name}", assets))
        return render_view(fold_3d(load_pattern(name, assets), FOLD_AMOUNT), image)

    return ImageSource(cache_root() / digest, render)


def item_for(q: Question, source: ImageSource, id_prefix: str = "gamibench") -> QuestionItem:
    """The QuestionItem of a question: prompt, [crease pattern image, composite of candidates]."""
    cp_img = source.path(q.name, "impossible_cp" if q.kind == "impossible" else "cp")
    key = "-".join(f"{c.model}.{c.view}" for c in q.candidates)
    comp_name = hashlib.sha256(f"{source.root.resolve()}|{key}".encode()).hexdigest()[:16]
    comp = cache_root() / "composites" / f"{comp_name}.png"  # never beside a user's images
    if not comp.exists():
        comp.parent.mkdir(parents=True, exist_ok=True)
        tiles = [Image.open(source.path(c.model, c.view)).convert("RGB") for c in q.candidates]
        tmp = comp.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(png_bytes(composite(tiles, list(LETTERS))))
        tmp.replace(comp)
    task_id = q.task_id.replace("gamibench", id_prefix, 1)
    meta: dict[str, object] = {
        "pattern": q.name,
        "candidates": [{"letter": ltr, "model": c.model, "view": c.view} for ltr, c in zip(LETTERS, q.candidates, strict=True)],
        "impossible": q.kind == "impossible",
    }
    if q.kind == "alternative":
        # Asked only after a right standard answer: the episode layer must check this before serving it.
        meta["requires"] = {"task_id": task_id.replace("/alternative/", "/standard/"), "correct": True}
    return QuestionItem(id=task_id, family="gamibench", kind=q.kind, level=q.level,
                        prompt=PROMPT.format(question=QUESTIONS[q.kind]), images=[str(cp_img), str(comp)],
                        answer=q.answer, meta=meta)


def render_all(assets: Path = ASSETS, cache: Path | None = None) -> dict[str, int]:
    """Render every crease-pattern image and every view of the library into the cache; returns counts."""
    source = generated_source(assets)
    if cache is not None:
        source = ImageSource(cache, source._render)
    counts = {"crease_images": 0, "views": 0}
    from jarvis_sim.origami.library import load_pattern as _load

    for row in read_manifest(assets)["patterns"]:
        name = row["name"]
        source.path(name, "cp")
        source.path(name, "impossible_cp")
        counts["crease_images"] += 2
        mesh = fold_3d(_load(name, assets), FOLD_AMOUNT)
        for view in VIEWS:
            p = source.root / name / f"{name}_{view}.png"
            if not p.exists():
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_bytes(png_bytes(render_view(mesh, view)))
            counts["views"] += 1
    return counts

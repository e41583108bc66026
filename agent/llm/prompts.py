"""Prompt templates (assets/prompts/*.md) and the prompts rendered from them.

A template file starts with a header block between `---` lines holding `name:` and `version:`; the
body uses `${placeholder}` fields (string.Template, so braces in code examples need no escaping).
A file may hold named sections, each introduced by a line `[section_name]`.

Images travel inside the rendered text as markers `<<image:PATH>>` (PATH relative to the episode
directory, or absolute), so the stored prompt text shows exactly where each image was sent; `Prompt`
splits the text at the markers into the text and image parts of a chat message.
"""

from __future__ import annotations

import functools
import re
import string
from dataclasses import dataclass, field
from pathlib import Path

from agent.llm import ChatMessage, ChatRequest, ImagePart, TextPart
from jarvis_sim.paths import asset_path

PROMPTS_DIR = asset_path("prompts")
IMAGE_MARKER = re.compile(r"<<image:([^<>\n]+)>>")
_SECTION = re.compile(r"^\[([a-z_][a-z0-9_]*)\]\s*$", re.MULTILINE)


class PromptError(ValueError):
    """A template that is missing, malformed, or rendered without a value it needs."""


@dataclass(frozen=True)
class PromptTemplate:
    """One template file: its name, version and body (or named sections)."""

    name: str
    version: str
    body: str
    path: Path
    sections: dict[str, str] = field(default_factory=dict)

    @property
    def tag(self) -> str:
        """`name@version`, what a record stores."""
        return f"{self.name}@{self.version}"

    def render(self, section: str | None = None, **values: object) -> str:
        """Fill the body (or one section) with `values`; a missing value raises PromptError naming it."""
        if section is None:
            text = self.body
        else:
            try:
                text = self.sections[section]
            except KeyError:
                raise PromptError(
                    f"{self.path}: no section [{section}]; sections: {', '.join(sorted(self.sections))}"
                ) from None
        try:
            return string.Template(text).substitute({k: str(v) for k, v in values.items()})
        except KeyError as exc:
            where = f" section [{section}]" if section else ""
            raise PromptError(f"{self.path}{where}: no value given for ${{{exc.args[0]}}}") from None
        except ValueError as exc:
            raise PromptError(f"{self.path}: bad placeholder ({exc})") from None


def parse_template(text: str, path: Path) -> PromptTemplate:
    """Parse a template file's text; a missing header or version raises PromptError naming the file."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        raise PromptError(f"{path}: a template must start with a '---' header holding name and version")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise PromptError(f"{path}: the header opened on line 1 is never closed with '---'") from None
    header: dict[str, str] = {}
    for lineno, line in enumerate(lines[1:end], 2):
        if not line.strip():
            continue
        key, sep, value = line.partition(":")
        if not sep:
            raise PromptError(f"{path}:{lineno}: header lines look like 'key: value', got {line!r}")
        header[key.strip()] = value.strip()
    for key in ("name", "version"):
        if not header.get(key):
            raise PromptError(f"{path}: the header has no {key!r}")
    body = "\n".join(lines[end + 1 :]).strip("\n") + "\n"
    sections: dict[str, str] = {}
    marks = list(_SECTION.finditer(body))
    for k, m in enumerate(marks):
        stop = marks[k + 1].start() if k + 1 < len(marks) else len(body)
        sections[m.group(1)] = body[m.end() : stop].strip("\n")
    return PromptTemplate(header["name"], header["version"], body, path, sections)


@functools.lru_cache(maxsize=64)
def load_template(name: str, directory: Path = PROMPTS_DIR) -> PromptTemplate:
    """The template `name` (file NAME.md in the prompts directory), parsed once per process."""
    path = directory / f"{name}.md"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        known = sorted(p.stem for p in directory.glob("*.md"))
        raise PromptError(f"prompt template {name!r} not found at {path} ({exc.strerror}); known: {known}") from None
    template = parse_template(text, path)
    if template.name != name:
        raise PromptError(f"{path}: header names the template {template.name!r}, expected {name!r}")
    return template


def image_marker(path: str | Path) -> str:
    """The in-text marker that places an image at this point of a prompt."""
    return f"<<image:{path}>>"


@dataclass
class Prompt:
    """A rendered prompt: system text, user text with image markers, and the template versions used."""

    system: str
    user: str
    versions: list[str]
    base_dir: Path | None = None  # relative image paths are resolved against it

    @property
    def version(self) -> str:
        """The template versions joined, as stored in RoundRecord.prompt_version."""
        return ",".join(self.versions)

    def image_paths(self) -> list[str]:
        """The image markers' paths, in order, as written (relative paths stay relative)."""
        return IMAGE_MARKER.findall(self.user)

    def _resolve(self, raw: str) -> Path:
        path = Path(raw)
        if not path.is_absolute() and self.base_dir is not None:
            path = self.base_dir / path
        return path

    def parts(self) -> list[TextPart | ImagePart]:
        """The user message as text and image parts, images read from disk where the markers were."""
        out: list[TextPart | ImagePart] = []
        pos = 0
        for m in IMAGE_MARKER.finditer(self.user):
            text = self.user[pos : m.start()]
            if text.strip():
                out.append(TextPart(text=text))
            out.append(ImagePart.from_path(self._resolve(m.group(1))))
            pos = m.end()
        tail = self.user[pos:]
        if tail.strip() or not out:
            out.append(TextPart(text=tail))
        return out

    def request(self, *, temperature: float | None, seed: int | None, max_tokens: int) -> ChatRequest:
        """The provider-neutral chat request of this prompt."""
        return ChatRequest(
            system=self.system,
            messages=(ChatMessage(role="user", content=tuple(self.parts())),),
            temperature=temperature,
            seed=seed,
            max_tokens=max_tokens,
        )

    def record_text(self) -> str:
        """The exact prompt as stored in a round's record: the system text, then the user text."""
        return f"[system]\n{self.system}\n[user]\n{self.user}"

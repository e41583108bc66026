"""Finding the Python program in a model's answer.

Policy, in order:
1. Fenced blocks (``` or ~~~, three or more, at most three spaces of indent) are collected. Blocks tagged
   `python`, `py`, `python3` or `py3` are preferred; if there are none, untagged blocks are used. Blocks
   tagged with another language (bash, json, text...) are never taken as the program.
2. Among the chosen blocks, `policy` picks one: "last" (default: models tend to put a revised, final
   program after drafts and explanations), "first", or "concat" (all of them joined in order, for answers
   that split one program over several blocks).
3. An unclosed fence (an answer cut off at max_tokens) runs to the end of the text and is flagged
   `truncated`.
4. With no usable fence, the whole answer is taken if it parses as Python and holds at least one real
   statement (a call, an assignment, a loop...); a bare word or constant does not count, so prose like
   "Done" is not mistaken for a program.
5. Otherwise the result is `no_code` with a message saying why; nothing is guessed.
The extracted code is not executed or checked beyond `ast.parse`, whose error (if any) is reported in
`syntax_error` so the caller can feed it back to the model.
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass
from typing import Literal

ExtractPolicy = Literal["last", "first", "concat"]
ExtractStatus = Literal["ok", "no_code"]

PYTHON_TAGS = frozenset({"python", "py", "python3", "py3"})

_FENCE_OPEN = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\s`]*)[^`]*$")


@dataclass(frozen=True)
class CodeBlock:
    """One fenced block: its language tag (lower case, '' when none), text and where it starts."""

    language: str
    code: str
    start_line: int
    closed: bool


@dataclass(frozen=True)
class CodeExtraction:
    """The outcome of extracting a program from an answer."""

    status: ExtractStatus
    code: str | None
    message: str
    source: Literal["fenced", "unfenced", "none"]
    blocks_found: int = 0
    truncated: bool = False
    syntax_error: str | None = None

    @property
    def ok(self) -> bool:
        """True when a program was found."""
        return self.status == "ok"


def find_code_blocks(text: str) -> list[CodeBlock]:
    """All fenced blocks in `text`, in order; a fence still open at the end runs to the end."""
    lines = text.splitlines()
    blocks: list[CodeBlock] = []
    i = 0
    while i < len(lines):
        match = _FENCE_OPEN.match(lines[i])
        if match is None:
            i += 1
            continue
        fence, indent = match["fence"], len(match["indent"])
        closing = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not closing.match(lines[j]):
            # Content of an indented fence loses up to that much indent (CommonMark).
            line = lines[j]
            strip = min(indent, len(line) - len(line.lstrip(" ")))
            body.append(line[strip:])
            j += 1
        closed = j < len(lines)
        if not closed and body and body[-1].rstrip().endswith(fence):
            # "x = 1```": some models close the fence on the last code line.
            body[-1] = body[-1].rstrip()[: -len(fence)]
        blocks.append(CodeBlock(match["info"].lower(), "\n".join(body), i + 1, closed))
        i = j + 1
    return blocks


def extract_code(text: str, policy: ExtractPolicy = "last", *, allow_unfenced: bool = True) -> CodeExtraction:
    """The Python program in a model answer, chosen by the module's documented policy."""
    if policy not in ("last", "first", "concat"):
        raise ValueError(f"unknown extraction policy {policy!r}; valid: last, first, concat")
    blocks = find_code_blocks(text)
    python = [b for b in blocks if b.language in PYTHON_TAGS]
    untagged = [b for b in blocks if b.language == ""]
    chosen = python or untagged
    chosen = [b for b in chosen if b.code.strip()]
    if chosen:
        if policy == "first":
            picked = [chosen[0]]
        elif policy == "last":
            picked = [chosen[-1]]
        else:
            picked = chosen
        code = "\n\n".join(textwrap.dedent(b.code).strip("\n") for b in picked) + "\n"
        truncated = any(not b.closed for b in picked)
        kind = "python" if python else "untagged"
        lines = ", ".join(str(b.start_line) for b in picked)
        message = f"{len(picked)} of {len(chosen)} {kind} block(s) taken ({policy}), starting at line {lines}"
        if truncated:
            message += "; the block is not closed (answer cut off?)"
        return CodeExtraction("ok", code, message, "fenced", len(blocks), truncated, _syntax_error(code))
    if blocks:
        tags = sorted({b.language or "untagged" for b in blocks})
        reason = f"the answer has {len(blocks)} fenced block(s) but none is Python ({', '.join(tags)})"
        if any(not b.code.strip() for b in blocks):
            reason = f"the answer's fenced block(s) hold no Python code (tags: {', '.join(tags)})"
        return CodeExtraction("no_code", None, reason, "none", len(blocks))
    if allow_unfenced and _looks_like_program(text):
        code = textwrap.dedent(text).strip("\n") + "\n"
        return CodeExtraction("ok", code, "no fenced block; the whole answer parses as Python", "unfenced")
    preview = " ".join(text.split())[:80]
    return CodeExtraction(
        "no_code",
        None,
        f"no ```python block, and the answer is not a Python program: {preview!r}" if preview else "the answer is empty",
        "none",
    )


def _syntax_error(code: str) -> str | None:
    try:
        ast.parse(code)
    except SyntaxError as exc:
        return f"line {exc.lineno}: {exc.msg}"
    return None


def _looks_like_program(text: str) -> bool:
    if not text.strip():
        return False
    try:
        tree = ast.parse(textwrap.dedent(text))
    except (SyntaxError, ValueError):
        return False
    # A lone name or constant ("Done", "42", a docstring) is prose that happens to parse.
    return any(
        not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Name | ast.Constant)) for node in tree.body
    )

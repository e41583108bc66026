"""Blocks world: stacks of uniquely coloured blocks, the VSP text formats, moves and plan search.

Rules as in the VSP blocks tasks: only a top block moves, onto the top of another stack or onto the
table (a new stack); stacks are unordered, so two configurations are equal when they hold the same
stacks in any order. Stacks are tuples of colour names, bottom to top.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass

COLORS = ("blue", "yellow", "purple", "orange", "red", "green")
LETTER = {c: c[0].upper() for c in COLORS}
BY_LETTER = {v: k for k, v in LETTER.items()}
TABLE = "table"
ENCODED_SLOTS = 7  # the layout's info.txt encodes 7 stack slots ...
ENCODED_HEIGHT = 6  # ... of 6 blocks each

Stack = tuple[str, ...]


class BlocksFormatError(ValueError):
    """A blocks text that does not follow one of the VSP formats; the message says where."""


@dataclass(frozen=True)
class Move:
    """move(block, target): target is a colour or 'table'."""

    block: str
    target: str

    def text(self) -> str:
        """The answer format, e.g. 'move(red,table)'."""
        return f"move({self.block},{self.target})"


@dataclass(frozen=True)
class BlocksState:
    """Stacks in display order (left to right), each bottom to top."""

    stacks: tuple[Stack, ...]

    def __post_init__(self) -> None:
        seen: list[str] = [b for s in self.stacks for b in s]
        if len(seen) != len(set(seen)):
            raise BlocksFormatError(f"a colour appears twice in {self.stacks}")
        for b in seen:
            if b not in COLORS:
                raise BlocksFormatError(f"unknown block colour {b!r}; known: {', '.join(COLORS)}")
        if any(len(s) == 0 for s in self.stacks):
            raise BlocksFormatError("empty stack in a configuration")

    @property
    def blocks(self) -> frozenset[str]:
        """All block colours present."""
        return frozenset(b for s in self.stacks for b in s)

    def canonical(self) -> frozenset[Stack]:
        """The order-free identity of the configuration."""
        return frozenset(self.stacks)

    def same_as(self, other: BlocksState) -> bool:
        """Equal up to the order of the stacks."""
        return self.canonical() == other.canonical()

    def tops(self) -> set[str]:
        """Blocks that may move."""
        return {s[-1] for s in self.stacks}

    def where(self, block: str) -> tuple[int, int] | None:
        """(stack index, level index), both 0-based, or None when the block is absent."""
        for i, s in enumerate(self.stacks):
            if block in s:
                return i, s.index(block)
        return None

    def color_at(self, stack: int, level: int) -> str | None:
        """The colour at a 0-based (stack, level), or None."""
        if 0 <= stack < len(self.stacks) and 0 <= level < len(self.stacks[stack]):
            return self.stacks[stack][level]
        return None

    # ---- moves ---------------------------------------------------------------------------------

    def why_invalid(self, move: Move) -> str | None:
        """Why a move cannot be made here, or None when it can."""
        if move.block not in self.blocks:
            return f"there is no {move.block} block"
        if move.block not in self.tops():
            return f"the {move.block} block is covered"
        if move.target == TABLE:
            return None
        if move.target == move.block:
            return f"cannot move the {move.block} block onto itself"
        if move.target not in self.blocks:
            return f"there is no {move.target} block"
        if move.target not in self.tops():
            return f"the {move.target} block is covered"
        return None

    def apply(self, move: Move) -> BlocksState:
        """The configuration after a valid move; an invalid one raises ValueError with the reason."""
        why = self.why_invalid(move)
        if why:
            raise ValueError(why)
        stacks = [list(s) for s in self.stacks]
        src = next(i for i, s in enumerate(stacks) if s and s[-1] == move.block)
        stacks[src].pop()
        if move.target == TABLE:
            # the new stack takes the emptied place if there is one, else goes to the right
            if not stacks[src]:
                stacks[src] = [move.block]
            else:
                stacks.append([move.block])
        else:
            dst = next(i for i, s in enumerate(stacks) if s and s[-1] == move.target)
            stacks[dst].append(move.block)
        return BlocksState(tuple(tuple(s) for s in stacks if s))

    def moves(self) -> list[Move]:
        """Every move that changes the configuration."""
        out = []
        for s in self.stacks:
            top = s[-1]
            if len(s) > 1:
                out.append(Move(top, TABLE))
            out.extend(Move(top, t[-1]) for t in self.stacks if t is not s)
        return out

    # ---- the layout's text formats -------------------------------------------------------------

    def to_pure_text(self) -> str:
        """The pure-text format: one '- Stack with ...' line per stack."""
        lines = []
        for s in self.stacks:
            if len(s) == 1:
                lines.append(f"- Stack with {s[0]} block")
            else:
                lines.append("- Stack with " + ", ".join(f"{b} block" for b in s) + ", from bottom to top")
        return "\n".join(lines) + "\n"

    def to_table(self) -> str:
        """The table format: one column per stack, levels from the top down."""
        head = " |" + "".join(f" Stack {i + 1} |" for i in range(len(self.stacks)))
        height = max((len(s) for s in self.stacks), default=0)
        rows = []
        for lvl in range(height, 0, -1):
            cells = [s[lvl - 1] if len(s) >= lvl else "" for s in self.stacks]
            rows.append(f"Level {lvl} |" + "".join(f" {c} |" if c else " |" for c in cells))
        return "\n".join([head, *rows]) + "\n"

    def encode(self) -> str:
        """The info.txt encoding: 7 slots of 6 letters, '0' padded, e.g. 'B00000-PY0000-...'."""
        if len(self.stacks) > ENCODED_SLOTS or any(len(s) > ENCODED_HEIGHT for s in self.stacks):
            raise BlocksFormatError("configuration too large for the info.txt encoding")
        slots = ["".join(LETTER[b] for b in s).ljust(ENCODED_HEIGHT, "0") for s in self.stacks]
        slots += ["0" * ENCODED_HEIGHT] * (ENCODED_SLOTS - len(slots))
        return "-".join(slots)

    def tower_type(self) -> str:
        """The info.txt tower type, e.g. '4Towers/1112' (stack heights, ascending)."""
        heights = "".join(str(h) for h in sorted(len(s) for s in self.stacks))
        return f"{len(self.stacks)}Towers/{heights}"


# ---- parsers -----------------------------------------------------------------------------------


def decode(code: str, where: str = "info") -> BlocksState:
    """Parse the info.txt encoding ('B00000-PY0000-...')."""
    stacks = []
    for slot in code.strip().split("-"):
        try:
            s = tuple(BY_LETTER[ch] for ch in slot if ch != "0")
        except KeyError as exc:
            raise BlocksFormatError(f"{where}: unknown block letter {exc.args[0]!r} in {code!r}") from None
        if s:
            stacks.append(s)
    return BlocksState(tuple(stacks))


_STACK_LINE = re.compile(r"^- Stack with (.+?)(, from bottom to top)?\s*$")


def parse_pure_text(text: str, where: str = "pure_text") -> BlocksState:
    """Parse the pure-text format ('- Stack with red block, green block, from bottom to top')."""
    stacks = []
    for line in text.strip().splitlines():
        line = line.strip()
        if not line:
            continue
        m = _STACK_LINE.match(line)
        if not m:
            raise BlocksFormatError(f"{where}: not a stack line: {line!r}")
        blocks = [b.strip().removesuffix(" block") for b in m.group(1).split(",")]
        stacks.append(tuple(blocks))
    try:
        return BlocksState(tuple(stacks))
    except BlocksFormatError as exc:
        raise BlocksFormatError(f"{where}: {exc}") from None


def parse_candidates(text: str, where: str = "candidates") -> list[BlocksState]:
    """Parse the four lettered candidates '(A)\\n- Stack with ...' of a T3 question."""
    parts = re.split(r"^\(([A-D])\)\s*$", text.strip(), flags=re.M)
    letters = parts[1::2]
    if letters != ["A", "B", "C", "D"]:
        raise BlocksFormatError(f"{where}: expected candidates (A)-(D), found {letters}")
    return [parse_pure_text(body, f"{where} ({letter})") for letter, body in zip(letters, parts[2::2], strict=True)]


def parse_move(text: str) -> Move | None:
    """Parse 'move(red,table)' or the info.txt form 'move(r,table,0)'; None if it is not one."""
    m = re.fullmatch(r"\s*move\(\s*([A-Za-z]+)\s*,\s*([A-Za-z]+)\s*(?:,\s*\d+\s*)?\)\s*", text)
    if not m:
        return None
    names = []
    for tok in (m.group(1).lower(), m.group(2).lower()):
        if tok == TABLE or tok in COLORS:
            names.append(tok)
        elif len(tok) == 1 and tok.upper() in BY_LETTER:
            names.append(BY_LETTER[tok.upper()])
        else:
            return None
    return Move(names[0], names[1])


# ---- search ------------------------------------------------------------------------------------


def run_plan(start: BlocksState, plan: list[Move]) -> tuple[BlocksState, int | None]:
    """Execute a plan; returns the last state and the index of the first invalid move (or None)."""
    state = start
    for i, mv in enumerate(plan):
        if state.why_invalid(mv):
            return state, i
        state = state.apply(mv)
    return state, None


Canon = tuple[Stack, ...]  # stacks sorted: the order-free identity, cheap to hash and to expand


def _canon(stacks: tuple[Stack, ...] | list[Stack]) -> Canon:
    return tuple(sorted(stacks))


def _successors(c: Canon) -> list[tuple[Move, Canon]]:
    """(move, next configuration) for every move that changes c; plain tuples keep search fast."""
    out = []
    for i, s in enumerate(c):
        top, rest = s[-1], s[:-1]
        others = c[:i] + c[i + 1 :]
        base = others + ((rest,) if rest else ())
        if rest:
            out.append((Move(top, TABLE), _canon((*base, (top,)))))
        for j, t in enumerate(others):
            moved = (*others[:j], (*t, top), *others[j + 1 :]) + ((rest,) if rest else ())
            out.append((Move(top, t[-1]), _canon(moved)))
    return out


def distances_to(goal: BlocksState, limit: int | None = None) -> dict[Canon, int]:
    """BFS distance to the goal of configurations of its blocks (moves are reversible)."""
    g = _canon(goal.stacks)
    dist = {g: 0}
    queue = deque([g])
    while queue:
        c = queue.popleft()
        d = dist[c]
        if limit is not None and d >= limit:
            continue
        for _, n in _successors(c):
            if n not in dist:
                dist[n] = d + 1
                queue.append(n)
    return dist


def shortest_plan(start: BlocksState, goal: BlocksState) -> list[Move] | None:
    """One shortest plan from start to goal (BFS over order-free configurations), or None."""
    if start.blocks != goal.blocks:
        return None
    s0, target = _canon(start.stacks), _canon(goal.stacks)
    prev: dict[Canon, tuple[Canon, Move] | None] = {s0: None}
    queue = deque([s0])
    while queue and target not in prev:
        c = queue.popleft()
        for mv, n in _successors(c):
            if n not in prev:
                prev[n] = (c, mv)
                queue.append(n)
    if target not in prev:
        return None
    plan: list[Move] = []
    node = prev[target]
    while node is not None:
        c, mv = node
        plan.append(mv)
        node = prev[c]
    return plan[::-1]


def optimal_plans(start: BlocksState, goal: BlocksState, limit: int = 10,
                  dist: dict[Canon, int] | None = None) -> list[list[Move]]:
    """Up to `limit` distinct shortest plans, in a fixed order."""
    dist = dist if dist is not None else distances_to(goal)
    s0 = _canon(start.stacks)
    if s0 not in dist:
        return []
    out: list[list[Move]] = []

    def extend(c: Canon, plan: list[Move]) -> None:
        if len(out) >= limit:
            return
        d = dist[c]
        if d == 0:
            out.append(list(plan))
            return
        for mv, n in sorted(_successors(c), key=lambda x: (x[0].block, x[0].target)):
            if dist.get(n) == d - 1:
                extend(n, [*plan, mv])

    extend(s0, [])
    return out


def relation(state: BlocksState, a: str, b: str) -> int:
    """T2 choice index: 0 a above b in one stack, 1 a below b, 2 different stacks, 3 one is absent.

    The official items call a block "directly above" another whenever it is higher in the same
    stack, touching or not, so this does too.
    """
    pa, pb = state.where(a), state.where(b)
    if pa is None or pb is None:
        return 3
    if pa[0] != pb[0]:
        return 2
    return 0 if pa[1] > pb[1] else 1

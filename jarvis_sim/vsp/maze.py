"""Maze (FrozenLake-style grid): map model, the text formats of the VSP layout, simulation and BFS.

Semantics as in the VSP maze tasks: moves L/R/U/D; moving off the edge leaves the player where it
is; stepping into a hole ends the episode in defeat; reaching the goal ends it in victory. Cells are
(row, col), 0-based inside the code; every text format is 1-based.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from enum import StrEnum

MOVES: dict[str, tuple[int, int]] = {"L": (0, -1), "R": (0, 1), "U": (-1, 0), "D": (1, 0)}
MOVE_WORDS: dict[str, str] = {"L": "Left", "R": "Right", "U": "Up", "D": "Down"}
# gym's registered FrozenLake-v1 stops an episode after 100 steps; the official evaluation ran plans
# through that environment, so a longer plan is cut there.
OFFICIAL_STEP_LIMIT = 100

Cell = tuple[int, int]


class MazeFormatError(ValueError):
    """A maze text that does not follow one of the VSP formats; the message says where."""


class Outcome(StrEnum):
    """How a plan ends."""

    GOAL = "goal"
    HOLE = "hole"
    STOPPED = "stopped"  # the plan ran out (or hit the step limit) before the goal or a hole


@dataclass(frozen=True)
class MazeMap:
    """A square maze: its size, the player's and the goal's cells and the holes."""

    size: int
    player: Cell
    goal: Cell
    holes: frozenset[Cell]

    def __post_init__(self) -> None:
        cells = [self.player, self.goal, *self.holes]
        for r, c in cells:
            if not (0 <= r < self.size and 0 <= c < self.size):
                raise MazeFormatError(f"cell ({r + 1}, {c + 1}) outside a {self.size}x{self.size} map")
        if self.player in self.holes or self.goal in self.holes:
            raise MazeFormatError("the player or the goal is on a hole")

    def symbol(self, cell: Cell) -> str:
        """The table symbol of a cell: @ player, * goal, % player on goal, # hole, _ land."""
        if cell == self.player:
            return "%" if cell == self.goal else "@"
        if cell == self.goal:
            return "*"
        return "#" if cell in self.holes else "_"

    # ---- the layout's text formats -------------------------------------------------------------

    def to_table(self) -> str:
        """The `table` format: a Markdown-like grid with @ * # _ symbols."""
        head = "| | " + " | ".join(f"Col {c + 1}" for c in range(self.size)) + " |"
        rows = [
            f"| Row {r + 1} | " + " | ".join(self.symbol((r, c)) for c in range(self.size)) + " |"
            for r in range(self.size)
        ]
        return "\n".join([head, *rows])

    def to_pure_text(self) -> str:
        """The `pure_text` format: size, player, holes and goal in sentences."""
        lines = [
            f"This is a {self.size}x{self.size} map.",
            f"The player is at: row {self.player[0] + 1}, column {self.player[1] + 1};",
        ]
        if self.holes:
            cells = "".join(f"Row {r + 1}, Column {c + 1}; " for r, c in sorted(self.holes))
            lines.append("The hole(s) are at: " + cells.rstrip())
        else:
            lines.append("There is no holes in this map;")
        lines.append(f"The goal is at: Row {self.goal[0] + 1}, Column {self.goal[1] + 1}.")
        return "\n".join(lines)

    def to_desc(self) -> str:
        """The FrozenLake `text` format: rows of S (player), G, H and F."""
        sym = {"@": "S", "*": "G", "%": "S", "#": "H", "_": "F"}
        return "\n".join(
            "".join(sym[self.symbol((r, c))] for c in range(self.size)) for r in range(self.size)
        )

    def to_special_text(self) -> str:
        """The `special_text` format: rows of @ * # _ without separators."""
        return "\n".join("".join(self.symbol((r, c)) for c in range(self.size)) for r in range(self.size))

    # ---- rules ---------------------------------------------------------------------------------

    def step(self, cell: Cell, move: str) -> Cell:
        """The cell one move leads to (off-edge moves leave the player in place)."""
        dr, dc = MOVES[move]
        r, c = cell[0] + dr, cell[1] + dc
        if 0 <= r < self.size and 0 <= c < self.size:
            return (r, c)
        return cell

    def neighbours(self, cell: Cell) -> list[tuple[str, Cell]]:
        """(move, cell) pairs for the moves that change the cell and do not fall into a hole."""
        out = []
        for m in "LRUD":
            nxt = self.step(cell, m)
            if nxt != cell and nxt not in self.holes:
                out.append((m, nxt))
        return out

    def relation(self) -> frozenset[str]:
        """Where the player is relative to the goal: a subset of {Above, Below, Left, Right}."""
        out = set()
        if self.player[0] < self.goal[0]:
            out.add("Above")
        elif self.player[0] > self.goal[0]:
            out.add("Below")
        if self.player[1] < self.goal[1]:
            out.add("Left")
        elif self.player[1] > self.goal[1]:
            out.add("Right")
        return frozenset(out)


@dataclass(frozen=True)
class PlanResult:
    """What happened when a plan was walked."""

    outcome: Outcome
    steps_taken: int  # moves executed before the episode ended or the plan ran out
    final: Cell
    trailing: int  # moves left over after the episode ended


def walk(maze: MazeMap, plan: list[str], step_limit: int | None = None) -> PlanResult:
    """Walk a plan of L/R/U/D moves from the player's cell; unknown moves raise KeyError."""
    cell = maze.player
    for i, move in enumerate(plan):
        if step_limit is not None and i >= step_limit:
            return PlanResult(Outcome.STOPPED, i, cell, len(plan) - i)
        cell = maze.step(cell, move) if move in MOVES else _unknown_move(move)
        if cell in maze.holes:
            return PlanResult(Outcome.HOLE, i + 1, cell, len(plan) - i - 1)
        if cell == maze.goal:
            return PlanResult(Outcome.GOAL, i + 1, cell, len(plan) - i - 1)
    return PlanResult(Outcome.STOPPED, len(plan), cell, 0)


def _unknown_move(move: str) -> Cell:
    raise KeyError(f"unknown move {move!r}; expected one of L, R, U, D")


def is_safe(maze: MazeMap, plan: list[str]) -> bool:
    """True when no move of the plan steps into a hole; moves after the goal are walked on (T4)."""
    cell = maze.player
    for move in plan:
        cell = maze.step(cell, move)
        if cell in maze.holes:
            return False
    return True


def shortest_plan(maze: MazeMap) -> list[str] | None:
    """A shortest safe plan from the player to the goal (BFS), or None if the goal is unreachable."""
    start = maze.player
    if start == maze.goal:
        return []
    prev: dict[Cell, tuple[Cell, str]] = {}
    seen = {start}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        for move, nxt in maze.neighbours(cell):
            if nxt in seen:
                continue
            seen.add(nxt)
            prev[nxt] = (cell, move)
            if nxt == maze.goal:
                plan: list[str] = []
                while nxt != start:
                    nxt, m = prev[nxt]
                    plan.append(m)
                return plan[::-1]
            queue.append(nxt)
    return None


# ---- parsers for the layout's formats ----------------------------------------------------------

_TABLE_ROW = re.compile(r"^\|\s*Row\s+(\d+)\s*\|(.*)\|\s*$")


def parse_table(text: str, where: str = "table") -> MazeMap:
    """Parse the `table` format (| Row r | _ | @ | ...)."""
    rows: list[list[str]] = []
    for line in text.strip().splitlines():
        line = line.strip()
        if not line or line.startswith("| |"):
            continue
        m = _TABLE_ROW.match(line)
        if not m:
            raise MazeFormatError(f"{where}: not a table row: {line!r}")
        rows.append([c.strip() for c in m.group(2).split("|")])
    return _from_grid(rows, where)


def parse_desc(text: str, where: str = "desc") -> MazeMap:
    """Parse the FrozenLake `text` format (rows of S, F, H, G)."""
    sym = {"S": "@", "G": "*", "H": "#", "F": "_"}
    try:
        rows = [[sym[ch] for ch in line.strip()] for line in text.strip().splitlines() if line.strip()]
    except KeyError as exc:
        raise MazeFormatError(f"{where}: unknown symbol {exc.args[0]!r}") from None
    return _from_grid(rows, where)


def parse_special_text(text: str, where: str = "special_text") -> MazeMap:
    """Parse the `special_text` format (rows of @ * # _ %)."""
    rows = [list(line.strip()) for line in text.strip().splitlines() if line.strip()]
    return _from_grid(rows, where)


_PT_SIZE = re.compile(r"This is a (\d+)x(\d+) map")
_PT_PLAYER = re.compile(r"The player is at:\s*row (\d+), column (\d+)", re.I)
_PT_GOAL = re.compile(r"The goal is at:\s*Row (\d+), Column (\d+)", re.I)
_PT_CELL = re.compile(r"Row (\d+), Column (\d+)", re.I)


def parse_pure_text(text: str, where: str = "pure_text") -> MazeMap:
    """Parse the `pure_text` format (sentences naming the size, player, holes and goal)."""
    size_m, player_m, goal_m = _PT_SIZE.search(text), _PT_PLAYER.search(text), _PT_GOAL.search(text)
    if not (size_m and player_m and goal_m):
        raise MazeFormatError(f"{where}: missing the size, the player or the goal line")
    holes: set[Cell] = set()
    for line in text.splitlines():
        if line.startswith("The hole(s) are at:"):
            holes = {(int(r) - 1, int(c) - 1) for r, c in _PT_CELL.findall(line)}
    cell = lambda m: (int(m.group(1)) - 1, int(m.group(2)) - 1)  # noqa: E731
    return MazeMap(int(size_m.group(1)), cell(player_m), cell(goal_m), frozenset(holes))


def _from_grid(rows: list[list[str]], where: str) -> MazeMap:
    n = len(rows)
    if n == 0 or any(len(r) != n for r in rows):
        raise MazeFormatError(f"{where}: expected a square grid, got {[len(r) for r in rows]} cells per row")
    player = goal = None
    holes = set()
    for r, row in enumerate(rows):
        for c, s in enumerate(row):
            if s in ("@", "%"):
                player = (r, c)
            if s in ("*", "%"):
                goal = (r, c)
            elif s == "#":
                holes.add((r, c))
            elif s not in ("_", "@"):
                raise MazeFormatError(f"{where}: unknown symbol {s!r} at row {r + 1}, column {c + 1}")
    if player is None or goal is None:
        raise MazeFormatError(f"{where}: no player or no goal in the grid")
    return MazeMap(n, player, goal, frozenset(holes))

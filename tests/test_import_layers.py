"""The import fence: every import in the house points down a floor, and no import closes a circle.

Read from the source with `ast`, so an import inside a function, under `TYPE_CHECKING` or spelled as a
"package.module:attr" string for a lazy factory counts like any other: those are the imports that hid the
circles and the upward arrows this fence exists to keep out. Floors, top to bottom:

    agent                       (nothing outside agent imports it)
    skills  |  evaluator        (side by side: neither imports the other)
    jarvis_sim                  (the ground floor: worlds, domain, the record schema)

and inside agent: cli > integrations > server > runs > episodes > agents > llm | sandbox | config.
`DEBTS` lists the arrows still to be taken down; an entry that no longer occurs fails the test too,
so the list only shrinks.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("jarvis_sim", "skills", "evaluator", "agent")

# Higher number = higher floor. A module may import only from its own floor's part or a lower floor.
TOP_FLOORS = {"jarvis_sim": 0, "skills": 1, "evaluator": 1, "agent": 2}
AGENT_FLOORS = {"cli": 7, "integrations": 6, "server": 5, "runs": 4, "episodes": 3, "agents": 2,
                "llm": 1, "sandbox": 1, "config": 1}
AGENT_LEAVES = ("llm", "sandbox", "config")  # side by side: no one of them imports another

# Arrows that still point the wrong way or close a circle: (importer, imported). Each later step of the
# house's redesign deletes lines here; the last leaves it empty.
DEBTS: set[tuple[str, str]] = set()

_LAZY_TARGET = re.compile(r"^(?:jarvis_sim|skills|evaluator|agent)(?:\.\w+)+(?::\w+)?$")


def module_files() -> dict[str, Path]:
    """Every module of the four packages, by dotted name."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The longest known module that `name` (a module, or a module's attribute) refers to."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def _absolute(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = importer.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def import_graph() -> dict[str, set[str]]:
    """importer -> the house's modules it imports, anywhere in its source."""
    modules = module_files()
    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in modules.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        is_package = path.name == "__init__.py"
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(node, name, is_package)
                targets = [f"{base}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _LAZY_TARGET.match(node.value):
                # a lazy factory names its module whole ("pkg.mod:attr" or "pkg.mod"); a dotted config key
                # such as "agent.model" names none
                module = node.value.split(":")[0]
                targets = [module] if module in modules else []
            for target in targets:
                resolved = _resolve(target, modules)
                if resolved and resolved != name:
                    graph[name].add(resolved)
    return graph


def floor(module: str) -> tuple[int, int, str]:
    """(top floor, floor inside agent, part) of a module."""
    parts = module.split(".")
    top = TOP_FLOORS[parts[0]]
    if parts[0] != "agent" or len(parts) == 1:
        return top, 0, parts[0]
    return top, AGENT_FLOORS.get(parts[1], -1), parts[1]


def _points_up(importer: str, imported: str) -> bool:
    (ti, ai, pi), (tt, at, pt) = floor(importer), floor(imported)
    if tt != ti:
        return tt > ti
    if ti == 1:  # skills and evaluator stand side by side
        return pi != pt
    if ti == 2:  # inside agent: a part with no floor, a higher floor or a sibling on the same floor
        return ai == -1 or at == -1 or at > ai or (at == ai and pi != pt)
    return False


def upward_arrows(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """Imports that reach a higher floor, a sibling of the same floor, or an agent part with no floor."""
    return {(a, b) for a, targets in graph.items() for b in targets if _points_up(a, b)}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    counter = 0
    nodes = sorted(set(graph) | {b for targets in graph.values() for b in targets})
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return groups


def circle_edges(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """The arrows inside each circle: any of them, taken away, may open it."""
    edges = set()
    for group in circles(graph):
        members = set(group)
        edges |= {(a, b) for a in group for b in graph.get(a, ()) if b in members}
    return edges


def test_the_graph_sees_imports_in_functions_type_checking_and_lazy_strings() -> None:
    graph = import_graph()
    assert graph, "no imports found: is the fence reading the right folder?"
    assert all(module.split(".")[0] in PACKAGES for module in graph)


def test_every_import_points_down() -> None:
    bad = upward_arrows(import_graph()) - DEBTS
    assert not bad, "imports that point up or sideways:\n" + "\n".join(f"  {a} -> {b}" for a, b in sorted(bad))


def test_no_import_closes_a_circle() -> None:
    graph = import_graph()
    bad = circle_edges(graph) - DEBTS
    listing = "\n".join("  " + " <-> ".join(group) for group in circles(graph))
    assert not bad, f"import circles:\n{listing}\narrows in them not in DEBTS:\n" + "\n".join(
        f"  {a} -> {b}" for a, b in sorted(bad))


def test_the_debt_list_only_shrinks() -> None:
    graph = import_graph()
    still_owed = upward_arrows(graph) | circle_edges(graph)
    paid = DEBTS - still_owed
    assert not paid, "arrows in DEBTS that no longer occur (delete them):\n" + "\n".join(
        f"  {a} -> {b}" for a, b in sorted(paid))


def test_the_fence_catches_a_circle_and_an_upward_arrow() -> None:
    """The checks themselves on a made-up graph: a circle, a skill importing the evaluator, an agent below."""
    graph = {"skills.a": {"skills.b", "evaluator.x"}, "skills.b": {"skills.a"},
             "jarvis_sim.y": {"agent.cli.main"}, "agent.agents.llm": {"agent.episodes.modes"}}
    assert circles(graph) == [["skills.a", "skills.b"]]
    assert upward_arrows(graph) == {("skills.a", "evaluator.x"), ("jarvis_sim.y", "agent.cli.main"),
                                    ("agent.agents.llm", "agent.episodes.modes")}

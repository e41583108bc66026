"""VSP answer scoring, parsed the way the VSP paper's evaluation scripts parse, in two modes.

`official` reproduces the published evaluation, quirks included: the first "Action plan: " is
taken and a plan counts once it reaches the goal (later tokens unread, 100-step cap of gym's
FrozenLake); blocks main-task plans skip invalid moves, read blocks by their first letter and only
the final state is checked; maze T2 gives credit per direction and ignores extra directions; maze
T4 looks for yes/no in the 10 characters after the marker. Where a marker is missing the scripts
slice at a fixed offset anyway; we do the same.

`strict` takes the same text but needs the marker, fails a plan at its first invalid move (an
unknown token, a hole, a covered or absent block, moves after the goal), reports whether a
successful plan is optimal in length, and needs T2's set of directions to match exactly.

An answer that cannot be parsed is wrong and `valid=False`; nothing here raises on model text.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from evaluator.answer_score import AnswerScore, ScoringMode, register_answer_scorer
from jarvis_sim.tasks.question import QuestionItem
from jarvis_sim.vsp import blocks as B
from jarvis_sim.vsp import maze as M

RELATION_CHOICES = (
    ("Above",), ("Below",), ("Left",), ("Right",),
    ("Above", "Left"), ("Above", "Right"), ("Below", "Left"), ("Below", "Right"),
)  # what a random guesser picks from in maze T2
TASK_LABEL = {"t1": "T1", "t2": "T2", "t3": "T3", "t4": "T4"}


def _strip_chars(text: str, chars: str) -> str:
    for ch in chars:
        text = text.replace(ch, "")
    return text.strip()


def _after(text: str, marker: str, fallback_len: int | None = None) -> tuple[str, bool]:
    """Text after the first marker; if absent, the paper's slice at (-1 + len) and found=False."""
    i = text.find(marker)
    n = len(marker) if fallback_len is None else fallback_len
    return text[i + n :], i >= 0


# ---- maze --------------------------------------------------------------------------------------


def _maze_main(item: QuestionItem, text: str, mode: ScoringMode) -> tuple[bool, bool, float, dict[str, Any]]:
    maze = M.parse_table(item.answer["map"])
    i = text.find("Action plan: ")
    if i < 0:
        i = text.find("Action Plan: ")
    found = i >= 0
    tokens = [_strip_chars(t, "\"'\n.") for t in text[i + 13 :].split(",")]
    details: dict[str, Any] = {"marker": found, "plan": tokens[:200]}
    if mode == "official":
        try:
            res = M.walk(maze, tokens, step_limit=M.OFFICIAL_STEP_LIMIT)
        except KeyError as exc:
            why = str(exc.args[0])
            if not found:  # say what is wrong with the answer, then what the script's slice made of it
                why = (f"no 'Action plan: ' in the answer (the official script reads on from character 12 anyway: "
                       f"{why})")
            return False, False, 0.0, {**details, "error": why}
        ok = res.outcome is M.Outcome.GOAL
        return ok, True, 100.0 * ok, {**details, "outcome": res.outcome.value, "steps": res.steps_taken}
    if not found:
        return False, False, 0.0, {**details, "error": "no 'Action plan: ' in the answer"}
    bad = next((k for k, t in enumerate(tokens) if t not in M.MOVES), None)
    if bad is not None:
        return False, False, 0.0, {**details, "error": f"move {bad + 1} is {tokens[bad]!r}, not L/R/U/D"}
    res = M.walk(maze, tokens)
    ok = res.outcome is M.Outcome.GOAL and res.trailing == 0
    details.update(outcome=res.outcome.value, steps=res.steps_taken, trailing_moves=res.trailing)
    details["optimal"] = bool(ok and len(tokens) == item.answer["optimal_length"])
    return ok, True, 100.0 * ok, details


def _yes_no(
    item: QuestionItem, text: str, mode: ScoringMode, truth_key: str, strip: str
) -> tuple[bool, bool, float, dict[str, Any]]:
    """A yes/no answer after <Output>; `strip` is the official script's character set for this task."""
    seg, found = _after(text, "<Output>")
    ans = _strip_chars(seg, strip).lower()
    valid = ans in ("yes", "no") and (found or mode == "official")
    ok = valid and (ans == "yes") == item.answer[truth_key]
    return ok, valid, 100.0 * ok, {"marker": found, "parsed": ans[:40], "random_expected": 50.0}


def _yes_no_t1(item: QuestionItem, text: str, mode: ScoringMode) -> tuple[bool, bool, float, dict[str, Any]]:
    return _yes_no(item, text, mode, "hole", "\"'\n.()")


def _maze_t2(item: QuestionItem, text: str, mode: ScoringMode) -> tuple[bool, bool, float, dict[str, Any]]:
    gt = set(item.answer["relation"])
    i = text.find("<Output> ")
    if i < 0:
        i = text.find("<Output>\n")
    rand_hits = sum(len(gt & set(c)) for c in RELATION_CHOICES) / len(RELATION_CHOICES)
    details: dict[str, Any] = {"n_directions": len(gt), "random_expected_hits": rand_hits}
    if mode == "strict":
        details["random_expected"] = 100.0 * sum(set(c) == gt for c in RELATION_CHOICES) / len(RELATION_CHOICES)
    else:
        details["random_expected"] = 100.0 * rand_hits / len(gt) if gt else 100.0
    if i < 0:
        return False, False, 0.0, {**details, "n_hit": 0, "error": "no '<Output>' in the answer"}
    tokens = [_strip_chars(t, "\"'\n.*") for t in text[i + 9 :].split(",")]
    hits = sum(d in tokens for d in gt)
    details.update(n_hit=hits, parsed=tokens[:8])
    if mode == "official":
        ok = hits == len(gt)
        return ok, True, 100.0 * hits / len(gt) if gt else 100.0, details
    ok = set(tokens) == gt and len(tokens) == len(gt)
    return ok, True, 100.0 * ok, details


def _maze_t3(item: QuestionItem, text: str, mode: ScoringMode) -> tuple[bool, bool, float, dict[str, Any]]:
    found = True
    for marker in ("<Answer>", "**Answer", "Answer"):
        i = text.find(marker)
        if i >= 0:
            seg = text[i + len(marker) :]
            break
    else:
        seg, found = text[-1 + len("Answer") :], False
    ans = _strip_chars(seg, "\"*:'\n.()<>`")
    valid = ans in ("A", "B", "C", "D") and (found or mode == "official")
    ok = valid and ans == item.answer["choice"]
    return ok, valid, 100.0 * ok, {"marker": found, "parsed": ans[:40], "random_expected": 25.0}


def _maze_t4(item: QuestionItem, text: str, mode: ScoringMode) -> tuple[bool, bool, float, dict[str, Any]]:
    found = True
    for marker in ("<Output>", "**Output**", "Output"):
        i = text.find(marker)
        if i >= 0:
            break
    else:
        found = False
    start = i + len(marker)
    window = _strip_chars(text[start : start + 10], "\"'\n.:-*").lower()
    gt = item.answer["safe"]
    details: dict[str, Any] = {"marker": found, "parsed": window, "random_expected": 50.0}
    if mode == "official":
        says_yes = "yes" in window and "no" not in window
        says_no = "no" in window and "yes" not in window
        paper_correct = (says_yes and gt) or (says_no and not gt)
        details["paper_counted_correct"] = paper_correct
        # the paper counts a marker-less answer both invalid and (possibly) correct; we count it wrong
        return paper_correct and found, found, 100.0 * (paper_correct and found), details
    first = "".join(ch for ch in (window.split() or [""])[0] if ch.isalpha())
    valid = found and first in ("yes", "no")
    ok = valid and (first == "yes") == gt
    return ok, valid, 100.0 * ok, details


# ---- blocks ------------------------------------------------------------------------------------


def _plan_lines(text: str) -> tuple[list[str], bool]:
    """The paper's extraction: lines after '<Output>\\n', each minus 2 leading chars, 'move...' only."""
    i = text.find("<Output>")
    out = []
    for line in text[i + len("<Output>\n") :].split("\n"):
        p = _strip_chars(line[2:], "\"'\n.")
        if p[:4] == "move":
            out.append(p)
    return out, i >= 0


class _PaperParseError(Exception):
    pass


def _paper_replay(start: B.BlocksState, goal: B.BlocksState, actions: list[str]) -> tuple[bool, int]:
    """Replay like the official blocks script: first letters, invalid moves skipped, final state checked."""
    slots: list[list[str]] = [list(s) for s in start.encode().split("-")]
    slots = [[ch for ch in s if ch != "0"] for s in slots]
    skipped = 0
    for action in actions:
        elems = action[len("move(") : -1].split(",")
        try:
            src = elems[0][0].strip().upper()
            dst = elems[1].strip()
            if dst != "table":
                dst = dst[0]
        except IndexError:
            raise _PaperParseError(f"cannot read {action!r}") from None
        trial = [list(s) for s in slots]
        from_ids = [k for k, s in enumerate(trial) if s and s[-1] == src]
        if not from_ids:
            skipped += 1
            continue
        trial[from_ids[0]].pop()
        if dst == "table":
            empty = next((k for k, s in enumerate(trial) if not s), None)
            if empty is not None:
                trial[empty].append(src)
        else:
            to_ids = [k for k, s in enumerate(trial) if s and s[-1] == dst.upper()]
            if not to_ids:
                skipped += 1
                continue
            trial[to_ids[0]].append(src)
        slots = trial
    final = frozenset(tuple(s) for s in slots if s)
    target = frozenset(tuple(B.LETTER[b] for b in s) for s in goal.stacks)
    return final == target, skipped


def _blocks_main(item: QuestionItem, text: str, mode: ScoringMode) -> tuple[bool, bool, float, dict[str, Any]]:
    start, goal = B.decode(item.answer["start"]), B.decode(item.answer["goal"])
    actions, found = _plan_lines(text)
    details: dict[str, Any] = {"marker": found, "plan": actions[:50]}
    if mode == "official":
        try:
            ok, skipped = _paper_replay(start, goal, actions)
        except _PaperParseError as exc:
            error = str(exc) if found else f"no '<Output>' in the answer (the official script reads on anyway: {exc})"
            return False, False, 0.0, {**details, "error": error}
        return ok, True, 100.0 * ok, {**details, "skipped_invalid_moves": skipped}
    if not found:
        return False, False, 0.0, {**details, "error": "no '<Output>' in the answer"}
    moves = [B.parse_move(a) for a in actions]
    bad = next((k for k, mv in enumerate(moves) if mv is None), None)
    if bad is not None:
        return False, False, 0.0, {**details, "error": f"move {bad + 1} ({actions[bad]!r}) is not move(BLOCK, TARGET)"}
    plan = [mv for mv in moves if mv is not None]
    state = start
    for k, mv in enumerate(plan):
        why = state.why_invalid(mv)
        if why:
            return False, True, 0.0, {**details, "first_invalid_move": k + 1, "reason": why, "optimal": False}
        state = state.apply(mv)
    ok = state.same_as(goal)
    details["optimal"] = bool(ok and len(plan) == item.answer["optimal_length"])
    return ok, True, 100.0 * ok, details


def _blocks_choice(item: QuestionItem, text: str, mode: ScoringMode) -> tuple[bool, bool, float, dict[str, Any]]:
    task = item.meta["task"]
    seg, found = _after(text, "<Output>")
    if not found and task in ("t2", "t3"):
        seg, found2 = _after(text, "Output")
        found = found2
    nl = seg.find("\n")
    if nl >= 0:
        seg = seg[:nl]
    if task == "t1":
        ans = _strip_chars(seg, "\"'\n.*")
        valid = ans.lower() in B.COLORS
        ok = valid and ans.lower() == item.answer["color"].lower()
        rand = 100.0 / len(B.COLORS)
    elif task == "t2":
        ans = _strip_chars(seg, "\"'\n.*<>:")
        valid = ans in ("A", "B", "C", "D")
        ok = ans == item.answer["choice"]
        rand = 25.0
    else:
        ans = _strip_chars(seg, "\"'\n.*").upper()
        valid = ans in ("A", "B", "C", "D")
        ok = ans == item.answer["choice"]
        rand = 25.0
    valid = valid and (found or mode == "official")
    ok = ok and valid
    return ok, valid, 100.0 * ok, {"marker": found, "parsed": ans[:40], "random_expected": rand}


def _blocks_t4(item: QuestionItem, text: str, mode: ScoringMode) -> tuple[bool, bool, float, dict[str, Any]]:
    return _yes_no(item, text, mode, "valid", "\"'\n.")


_SCORERS = {
    ("maze", "main"): _maze_main, ("maze", "t1"): _yes_no_t1, ("maze", "t2"): _maze_t2,
    ("maze", "t3"): _maze_t3, ("maze", "t4"): _maze_t4,
    ("blocks", "main"): _blocks_main, ("blocks", "t1"): _blocks_choice, ("blocks", "t2"): _blocks_choice,
    ("blocks", "t3"): _blocks_choice, ("blocks", "t4"): _blocks_t4,
}


@register_answer_scorer("vsp")
def score_vsp(item: QuestionItem, answer: str, mode: ScoringMode = "official") -> AnswerScore:
    """Score one answer to a VSP item; never raises on the answer text."""
    scenario, task = item.meta.get("scenario"), item.meta.get("task")
    scorer = _SCORERS.get((str(scenario), str(task)))
    if scorer is None:
        raise KeyError(f"{item.id}: not a VSP item (meta scenario={scenario!r}, task={task!r})")
    try:
        ok, valid, score, details = scorer(item, answer, mode)
    except Exception as exc:  # a scorer bug must not lose a run: the item counts wrong, and says why
        ok, valid, score, details = False, False, 0.0, {"error": f"scoring failed: {type(exc).__name__}: {exc}"}
    details = {"scenario": scenario, "task": task, "level": item.level, **details}
    return AnswerScore(task_id=item.id, correct=bool(ok), valid=bool(valid), score=float(score), mode=mode,
                       details=details)


# ---- tables over scores ------------------------------------------------------------------------


def _pct(num: float, den: float) -> float:
    return round(100.0 * num / den, 2) if den else math.nan


def results_by_task_level(scores: Iterable[AnswerScore]) -> dict[str, dict[str, Any]]:
    """Per 'scenario/task/level': n, accuracy (%), mean score, invalid count (and T2 direction rate)."""
    groups: dict[str, list[AnswerScore]] = defaultdict(list)
    for s in scores:
        d = s.details
        groups[f"{d.get('scenario')}/{d.get('task')}/{d.get('level')}"].append(s)
    out: dict[str, dict[str, Any]] = {}
    for key, group in sorted(groups.items()):
        row: dict[str, Any] = {
            "n": len(group),
            "accuracy": _pct(sum(s.correct for s in group), len(group)),
            "score": round(sum(s.score for s in group) / len(group), 2),
            "invalid": sum(not s.valid for s in group),
        }
        if key.startswith("maze/t2/"):
            row["direction_accuracy"] = _pct(
                sum(s.details.get("n_hit", 0) for s in group), sum(s.details.get("n_directions", 0) for s in group)
            )
        if any("optimal" in s.details for s in group):
            row["optimal"] = _pct(sum(bool(s.details.get("optimal")) for s in group), len(group))
        out[key] = row
    return out


def main_task_table(scores: Iterable[AnswerScore]) -> dict[str, dict[str, float]]:
    """Main-task success (%) by scenario and level: {'maze': {'level3': 93.0, ...}, 'blocks': {...}}."""
    table: dict[str, dict[str, float]] = defaultdict(dict)
    for key, row in results_by_task_level(scores).items():
        scenario, task, level = key.split("/", 2)
        if task == "main":
            table[scenario][level] = row["accuracy"]
    return {k: dict(sorted(v.items(), key=lambda kv: _level_num(kv[0]))) for k, v in table.items()}


def _level_num(level: str) -> int:
    digits = "".join(ch for ch in level if ch.isdigit())
    return int(digits) if digits else 0


def subtask_table(scores: Iterable[AnswerScore]) -> dict[str, dict[str, dict[str, float]]]:
    """T1-T4 accuracy (%) per scenario, with the expected accuracy of random guessing beside it.

    {'maze': {'model': {'T1': ..}, 'random': {'T1': ..}}, 'blocks': {...}}. Maze T2 in official mode
    is the paper's per-direction rate (hits over directions asked).
    """
    acc: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    for s in scores:
        d = s.details
        scenario, task = str(d.get("scenario")), str(d.get("task"))
        if task not in TASK_LABEL:
            continue
        cell = acc[(scenario, task)]
        if scenario == "maze" and task == "t2" and s.mode == "official":
            cell[0] += d.get("n_hit", 0)
            cell[1] += d.get("n_directions", 0)
            cell[2] += d.get("random_expected_hits", 0.0)
            cell[3] += d.get("n_directions", 0)
        else:
            cell[0] += s.correct
            cell[1] += 1
            cell[2] += d.get("random_expected", 0.0) / 100.0
            cell[3] += 1
    out: dict[str, dict[str, dict[str, float]]] = {}
    for (scenario, task), (hit, n, rand, rn) in sorted(acc.items()):
        rows = out.setdefault(scenario, {"model": {}, "random": {}})
        rows["model"][TASK_LABEL[task]] = _pct(hit, n)
        rows["random"][TASK_LABEL[task]] = _pct(rand, rn)
    return out


def tables_markdown(scores: list[AnswerScore]) -> str:
    """The main-task and sub-task tables as Markdown, for run reports."""
    lines = ["### VSP main task: success by level (%)", ""]
    for scenario, row in main_task_table(scores).items():
        lines += [f"**{scenario}**", "", "| " + " | ".join(row) + " |", "|" + "---|" * len(row),
                  "| " + " | ".join(f"{v:.1f}" for v in row.values()) + " |", ""]
    lines += ["### VSP sub-tasks: accuracy (%)", ""]
    for scenario, rows in subtask_table(scores).items():
        cols = sorted(rows["model"])
        lines += [f"**{scenario}**", "", "| | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
        for name in ("model", "random"):
            lines.append(f"| {name} | " + " | ".join(f"{rows[name][c]:.1f}" for c in cols) + " |")
        lines.append("")
    return "\n".join(lines)

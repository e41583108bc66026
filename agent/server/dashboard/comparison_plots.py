"""The comparison's plots for the dashboard, drawn by the same functions `jarvis report A B` draws with.

Drawn when a comparison page is first asked for and kept in memory (keyed by the runs and their summaries'
content), so the page and its image requests draw each figure once. pyplot keeps global state, and the
page's threadpool may ask for two comparisons at once: drawing is one at a time.
"""

from __future__ import annotations

import hashlib
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

from evaluator import plots
from evaluator.summary import RunSummary

# name -> (title on the page, the evaluator's plotting function)
COMPARISON_PLOTS = {
    "difficulty": ("Soft score by difficulty", plots.plot_comparison),
    "failed_actions": ("Failed actions by error kind, per episode", plots.plot_failed_actions),
    "rounds": ("Reflection-round curves", plots.plot_rounds_comparison),
}
_KEEP = 16
_drawn: OrderedDict[tuple[object, ...], dict[str, bytes]] = OrderedDict()
_lock = threading.Lock()


def run_label(summary: RunSummary, key: str) -> str:
    """A run's name in a legend: its model and tool library, else its key."""
    return " / ".join(v for v in (summary.labels.get("model"), summary.labels.get("tool_library")) if v) or key


def comparison_plots(keys: Sequence[str], summaries: Sequence[RunSummary]) -> dict[str, bytes]:
    """PNG bytes of every comparison plot that has something to show, by name (cached)."""
    # What is drawn depends on the summaries alone: their content's digest marks the version drawn.
    cache_key = tuple((k, hashlib.sha256(s.model_dump_json().encode()).hexdigest())
                      for k, s in zip(keys, summaries, strict=True))
    with _lock:
        if cache_key in _drawn:
            _drawn.move_to_end(cache_key)
            return _drawn[cache_key]
        labels = [run_label(s, k) for k, s in zip(keys, summaries, strict=True)]
        out: dict[str, bytes] = {}
        with tempfile.TemporaryDirectory(prefix="jarvis-compare-") as tmp:
            for name, (_, draw) in COMPARISON_PLOTS.items():
                path = draw(list(summaries), labels, Path(tmp) / f"{name}.png")
                if path is not None:
                    out[name] = path.read_bytes()
        _drawn[cache_key] = out
        while len(_drawn) > _KEEP:
            _drawn.popitem(last=False)
        return out

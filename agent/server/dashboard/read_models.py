"""What the dashboard shows, read from where the REST API reads it: run directories and the episode queue.

A `RunSource` lists runs and opens them. `DirectorySource` serves run directories on disk (`jarvis view`,
no database); `QueueSource` serves the server's runs, with progress from the same queue queries as
GET /v1/runs/{id} and only the caller's own runs (the API's rule). Both read records with
evaluator.run_dir and summarise them with evaluator.summary, the code report.md is written by, so the
dashboard and the report never disagree.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from agent.runs.progress import RunProgress
from evaluator.episode_table import ROW_SUB_SCORES
from evaluator.run_dir import RunDirError, read_run_dir, records_path
from evaluator.summary import RunSummary, summarise
from jarvis_sim.records import EpisodeRecord

# Plots a run directory may hold (written by evaluator.report), in the order the run page shows them.
PLOT_FILES = ("difficulty.png", "score_distribution.png", "horizon_complexity.png", "reflection_rounds.png",
              "failed_actions.png", "comparison.png")


@dataclass
class RunListing:
    """One line of the runs list."""

    key: str
    labels: dict[str, str]
    progress: RunProgress
    created_at: float | None = None
    suite: str | None = None
    backend: str | None = None
    mean: Any = None  # MeanCI of the soft score so far, or None
    cancellable: bool = False  # the source can stop it and it has unfinished episodes
    live: bool = False  # it is still going: its pages poll its progress
    started_at: str = ""  # ISO 8601: when the server took it, or when its first episode started
    duration_s: float | None = None  # first episode's start to last one's end (so far, while it runs)

    def when(self) -> str:
        """Its start as a person reads it (minutes, UTC), or '–'."""
        try:
            t = datetime.fromisoformat(self.started_at).astimezone(UTC)
        except ValueError:
            return "–"
        return t.strftime("%Y-%m-%d %H:%M UTC")

    def took(self) -> str:
        """Its duration as a person reads it, or '–'."""
        d = self.duration_s
        if d is None or d < 0:
            return "–"
        return f"{d:.0f} s" if d < 90 else f"{d / 60:.1f} min" if d < 5400 else f"{d / 3600:.1f} h"

    def progress_json(self) -> dict[str, Any]:
        """What the pages' progress poller shows (JSON)."""
        p = self.progress
        return {"key": self.key, "total": p.total, "finished": p.finished, "done": p.done, "failed": p.failed,
                "cancelled": p.cancelled, "running": p.running, "queued": p.queued, "eta_s": p.eta_s,
                "percent": round(p.percent, 1), "mean": self.mean.fmt(1) if self.mean is not None else None,
                "n_scored": self.mean.n if self.mean is not None else 0, "cancellable": self.cancellable,
                "live": self.live}


@dataclass
class RunView:
    """One run, read: its listing, its summary and its records (latest attempt per task)."""

    listing: RunListing
    summary: RunSummary
    records: list[EpisodeRecord]
    root: Path
    plots: list[str] = field(default_factory=list)
    family_html: str = ""  # the families' paper tables (report.md's family sections), as HTML

    def sub_score_columns(self) -> list[str]:
        """The sub-scores any of its episodes has (assembly's four; none for question runs)."""
        return [k for k in ROW_SUB_SCORES if any(k in r.sub_scores for r in self.summary.episodes)]

    def asked(self) -> bool:
        """Some of its episodes answered questions (the table gets a right/wrong column)."""
        return any(r.correct is not None for r in self.summary.episodes)

    def record(self, episode_id: str) -> EpisodeRecord:
        """The record of one episode; KeyError names it when the run has none."""
        for r in self.records:
            if r.episode_id == episode_id:
                return r
        raise KeyError(f"run {self.listing.key} has no episode {episode_id!r}")


class RunSource(Protocol):
    """Where the dashboard's runs come from."""

    def list_runs(self, viewer: str) -> list[RunListing]:
        """Runs the viewer may see, newest first."""
        ...

    def open_run(self, key: str, viewer: str) -> RunView:
        """One run the viewer may see; KeyError when it does not exist or is not theirs."""
        ...

    def run_root(self, key: str, viewer: str) -> Path:
        """The run's directory (for its files); KeyError as open_run."""
        ...

    def cancel_run(self, key: str, viewer: str) -> dict[str, int]:
        """Stop a run's unfinished episodes (as DELETE /v1/runs/{id}); KeyError as open_run.

        NotImplementedError where the source cannot stop runs (run directories on disk).
        """
        ...


def _config_str(config: dict[str, Any], key: str) -> str | None:
    value = config.get(key)
    return str(value) if isinstance(value, str | int) else None


# Summaries of run directories, keyed by the records file's identity: a page view of a finished run then
# costs its rendering only, and a running run is re-read as soon as a line is appended.
_CACHE_SIZE = 32
_cache: dict[Path, tuple[tuple[str, int, int], Any]] = {}
_cache_lock = threading.Lock()


def family_tables_html(records: list[EpisodeRecord]) -> str:
    """The families' sections of report.md (VSP, GamiBench, Table 4 and 6 ...) from the same code, as HTML."""
    from markdown_it import MarkdownIt

    from evaluator.family_reports import family_sections

    text = family_sections(records)
    # No raw HTML: task ids and answers in the tables come from records and are escaped like any text.
    return MarkdownIt("commonmark", {"html": False}).enable("table").render(text) if text else ""


def _read_summarised(root: Path) -> tuple[Any, RunSummary, str]:
    """(RunData with the latest record per task, its summary, its family tables as HTML), from the cache when
    episodes.jsonl is unchanged."""
    from agent.runs.reporting import latest_per_task

    path = records_path(root)
    try:
        st = path.stat()
        key: tuple[str, int, int] | None = (str(path), st.st_mtime_ns, st.st_size)
    except OSError:
        key = None  # read_run_dir names the problem
    with _cache_lock:
        hit = _cache.get(root.resolve())
    if key is not None and hit is not None and hit[0] == key:
        return hit[1]  # type: ignore[no-any-return]
    data = read_run_dir(root, strict=False)
    data.records = latest_per_task(list(data.records))
    value = (data, summarise(data), family_tables_html(data.records))
    if key is not None:
        with _cache_lock:
            if len(_cache) >= _CACHE_SIZE:
                _cache.pop(next(iter(_cache)))
            _cache[root.resolve()] = (key, value)
    return value


def read_run(root: Path, listing: RunListing | None = None) -> RunView:
    """Read one run directory into a view (lenient: a corrupt line is skipped and named in the summary)."""
    data, summary, family_html = _read_summarised(root)
    if listing is None:
        progress = progress_of(summary, data.config)
        listing = RunListing(key=root.name, labels=summary.labels, progress=progress,
                             suite=_config_str(data.config, "suite"), backend=_config_str(data.config, "backend"),
                             live=progress.finished < progress.total and _recently_written(root))
    listing.mean = summary.soft_score
    listing.labels = listing.labels or summary.labels
    listing.started_at = listing.started_at or summary.started_at
    listing.duration_s = summary.duration_s()
    plots = [p for p in PLOT_FILES if (root / p).is_file()]
    return RunView(listing=listing, summary=summary, records=data.records, root=root, plots=plots,
                   family_html=family_html)


# A run directory with tasks left whose records file changed this recently is taken to be running (a `jarvis
# run` writing it); one left longer is an interrupted run, and its pages stop polling.
LIVE_WITHIN_S = 600.0


def _recently_written(root: Path) -> bool:
    try:
        return time.time() - records_path(root).stat().st_mtime < LIVE_WITHIN_S
    except OSError:
        return False


def progress_of(summary: RunSummary, config: dict[str, Any]) -> RunProgress:
    """Progress of a run on disk: its task list against the records it holds."""
    tasks = config.get("task_ids")
    total = max(len(tasks) if isinstance(tasks, list) else 0, summary.n_episodes)
    return RunProgress(total=total, done=summary.n_episodes - summary.n_failed - summary.n_cancelled,
                    failed=summary.n_failed, cancelled=summary.n_cancelled)


class DirectorySource:
    """Run directories on disk, named by the folder (a repeated name gets a -k suffix); everyone sees all."""

    def __init__(self, run_dirs: list[Path]):
        self.roots: dict[str, Path] = {}
        for d in run_dirs:
            d = Path(d)
            if not (d / "config.json").is_file():
                raise RunDirError(f"{d}: not a run directory (no config.json)")
            key, k = d.name, 2
            while key in self.roots:
                key, k = f"{d.name}-{k}", k + 1
            self.roots[key] = d

    def list_runs(self, viewer: str) -> list[RunListing]:
        """Every run given on the command line, in that order."""
        return [read_run(root).listing for root in self.roots.values()]

    def open_run(self, key: str, viewer: str) -> RunView:
        """One run directory."""
        return read_run(self.run_root(key, viewer))

    def run_root(self, key: str, viewer: str) -> Path:
        """The directory given for this key."""
        if key not in self.roots:
            raise KeyError(f"no run {key!r}")
        return self.roots[key]

    def cancel_run(self, key: str, viewer: str) -> dict[str, int]:
        """Files on disk have no worker to stop."""
        self.run_root(key, viewer)
        raise NotImplementedError("`jarvis view` shows run directories on disk; stop a `jarvis run` where it "
                                  "runs (Ctrl-C), or cancel a server's run on the server's dashboard")


class QueueSource:
    """The server's runs: rows of the episode queue, directories under the data dir; a token sees its own."""

    def __init__(self, queue: Any, data_dir: Path):
        self.queue, self.data_dir = queue, data_dir

    def _row(self, key: str, viewer: str) -> Any:
        run = self.queue.get_run(key)
        # The API's rule (routes/runs.py): another token's run does not exist for you; 'anonymous' is the open server.
        if run is None or (run.token_id != viewer and viewer != "anonymous"):
            raise KeyError(f"no run {key!r}")
        return run

    def _listing(self, run: Any) -> RunListing:
        import json

        counts = self.queue.run_counts(run.id)
        progress = RunProgress(total=run.total, done=counts.get("done", 0), failed=counts.get("failed", 0),
                               cancelled=counts.get("cancelled", 0), running=counts.get("running", 0),
                               queued=counts.get("queued", 0))
        if progress.finished < progress.total:
            progress.estimate_eta(time.time() - run.created_at)
        config = json.loads(run.config)
        agent = config.get("agent", {})
        labels = {k: str(v) for k in ("name", "model", "mode", "tool_library") if (v := agent.get(k))}
        listing = RunListing(key=run.id, labels=labels, progress=progress, created_at=run.created_at,
                             suite=config.get("suite"), backend=config.get("backend"),
                             cancellable=progress.finished < progress.total, live=progress.finished < progress.total,
                             started_at=datetime.fromtimestamp(run.created_at, UTC).isoformat())
        root = self.data_dir / run.out_dir
        if records_path(root).is_file():  # its scores so far (a summary cached by the records file's identity)
            _, summary, _ = _read_summarised(root)
            listing.mean = summary.soft_score
            listing.duration_s = summary.duration_s()
        return listing

    def list_runs(self, viewer: str) -> list[RunListing]:
        """The viewer's runs, newest first."""
        from sqlalchemy import select

        from agent.server.db import RunRow

        # GET /v1/runs's rule: a token's own runs (an open server's runs are all 'anonymous'), newest first.
        with self.queue.session() as s:
            stmt = select(RunRow).where(RunRow.token_id == viewer).order_by(RunRow.created_at.desc()).limit(500)
            rows = list(s.scalars(stmt))
        return [self._listing(r) for r in rows]

    def open_run(self, key: str, viewer: str) -> RunView:
        """One run: progress from the queue, scores from its directory."""
        run = self._row(key, viewer)
        root = self.data_dir / run.out_dir
        listing = self._listing(run)
        if not (root / "episodes.jsonl").is_file():  # nothing finished yet
            from evaluator.run_dir import RunData

            view_summary = summarise(RunData(root, {}, [], root / "episodes.jsonl"))
            return RunView(listing=listing, summary=view_summary, records=[], root=root)
        return read_run(root, listing)

    def run_root(self, key: str, viewer: str) -> Path:
        """The run's directory under the data dir."""
        return Path(self.data_dir / self._row(key, viewer).out_dir)

    def cancel_run(self, key: str, viewer: str) -> dict[str, int]:
        """The queue's cancel, as DELETE /v1/runs/{id} calls it, under the same ownership rule."""
        run = self._row(key, viewer)
        return dict(self.queue.cancel_run(run.id))

"""One log line per condition per interval: repeats dropped and counted, conditions kept apart, tracebacks only
for what is not a condition of the machine."""

from __future__ import annotations

import errno
import logging
import sqlite3
import uuid
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import OperationalError

from agent.server.repeats import condition_of, is_disk_full, log_failure, repeat_limited


def _sqlite_full(tmp_path: Path) -> OperationalError:
    """SQLite's own SQLITE_FULL, from a database capped at its current size."""
    engine = create_engine(f"sqlite:///{tmp_path / 'capped.sqlite'}")
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE t (x TEXT)"))
    try:
        with engine.begin() as conn:
            pages = conn.execute(text("PRAGMA page_count")).scalar()
            conn.execute(text(f"PRAGMA max_page_count={pages}"))
            conn.execute(text("INSERT INTO t VALUES (:x)"), {"x": "y" * 100_000})
    except OperationalError as exc:
        return exc
    finally:
        engine.dispose()
    raise AssertionError("the capped database took a row larger than its cap")


def test_conditions_are_named_without_what_varies(tmp_path: Path) -> None:
    full = _sqlite_full(tmp_path)
    assert isinstance(full.orig, sqlite3.OperationalError)
    assert is_disk_full(full) and condition_of(full) == "disk full: database: database or disk is full"
    a = OSError(errno.ENOSPC, "No space left on device", "/data/a.json")
    b = OSError(errno.ENOSPC, "No space left on device", "/data/b.json")
    assert is_disk_full(a) and condition_of(a) == condition_of(b)  # the file name is not part of it
    assert "a.json" not in condition_of(a)
    assert not is_disk_full(OSError(errno.EACCES, "Permission denied")) and not is_disk_full(ValueError("x"))


def test_one_line_per_condition_per_interval(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger(f"agent.server.test_repeats.{uuid.uuid4().hex}")
    repeat = repeat_limited(logger, 3600.0)
    assert repeat_limited(logger, 3600.0) is repeat and len(logger.filters) == 1  # idempotent
    caplog.set_level(logging.INFO, logger=logger.name)
    full = _sqlite_full(tmp_path)
    for _ in range(264):
        log_failure(logger, "housekeeping", full)
        log_failure(logger, "housekeeping", OSError(errno.ENOSPC, "No space left on device", "/x"))
    try:
        raise ValueError("a bug")
    except ValueError as bug:
        log_failure(logger, "housekeeping", bug)
        log_failure(logger, "housekeeping", bug)
    lines = [r for r in caplog.records if r.name == logger.name]
    assert len(lines) == 3, [r.getMessage() for r in lines]  # three conditions, one line each
    assert [r.exc_info is not None for r in lines] == [False, False, True]  # a traceback only for the bug
    assert "database or disk is full" in lines[0].getMessage() and "a bug" in lines[2].getMessage()
    repeat.interval_s = 0.0  # the interval is over: the next line says how many were dropped
    log_failure(logger, "housekeeping", full)
    assert "263 more like this" in caplog.records[-1].getMessage()

"""One log line per condition per interval, not one per event.

Under a condition that repeats (a full disk, a database that refuses writes, a flood of refused
connections) a loop that logs each failure fills the log: a red-team run of a full disk logged 264
tracebacks from the server's housekeeping, and 20,000 idle connections 45 MB of accept errors in 45 s.
`RepeatFilter` drops a line repeated within its interval and says on the next one how many it dropped;
`log_failure` names the condition (what failed and why, without the varying parts such as SQL
parameters or file names) so that different conditions are counted apart.
"""

from __future__ import annotations

import errno
import logging
import threading
import time

from sqlalchemy.exc import DBAPIError

MAX_CONDITION_CHARS = 160


class RepeatFilter(logging.Filter):
    """One log line per (logger, message, condition) per `interval_s`; the next one says how many were dropped."""

    def __init__(self, interval_s: float):
        super().__init__()
        self.interval_s = interval_s
        self._last: dict[tuple[str, str, str], tuple[float, int]] = {}
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.name, str(record.msg)[:200], str(getattr(record, "condition", "")))
        now = time.monotonic()
        with self._lock:
            last, dropped = self._last.get(key, (-1e18, 0))
            if now - last < self.interval_s:
                self._last[key] = (last, dropped + 1)
                return False
            self._last[key] = (now, 0)
            if len(self._last) > 10_000:  # many distinct messages: forget the oldest half
                for k in sorted(self._last, key=lambda k: self._last[k][0])[:5_000]:
                    del self._last[k]
        if dropped:
            record.msg = (
                f"{record.msg} ({dropped} more like this in the last {self.interval_s:g} s not logged)"
            )
        if record.exc_info and dropped:
            record.exc_info = None  # the traceback was shown the first time
        return True


def install_repeat_filter(interval_s: float) -> RepeatFilter:
    """Rate-limit the loggers that repeat under load (accept errors, uvicorn, the server's own)."""
    repeat = RepeatFilter(interval_s)
    for name in ("asyncio", "uvicorn", "uvicorn.error", "agent"):
        logging.getLogger(name).addFilter(repeat)
    for handler in logging.getLogger().handlers + logging.getLogger("uvicorn").handlers:
        handler.addFilter(repeat)  # records propagated from child loggers pass here
    return repeat


def repeat_limited(logger: logging.Logger, interval_s: float) -> RepeatFilter:
    """Rate-limit the lines `logger` itself makes, whatever handlers the process has (a worker process has none
    of `jarvis serve`'s; an application made with create_app may have none). Idempotent: a second call sets
    the interval of the filter already there."""
    for existing in logger.filters:
        if isinstance(existing, RepeatFilter):
            existing.interval_s = interval_s
            return existing
    repeat = RepeatFilter(interval_s)
    logger.addFilter(repeat)
    return repeat


def is_disk_full(exc: BaseException) -> bool:
    """True when exc says the disk (or the database's quota) is full: ENOSPC, EDQUOT, SQLite's SQLITE_FULL."""
    if isinstance(exc, OSError):
        return exc.errno in (errno.ENOSPC, errno.EDQUOT)
    if isinstance(exc, DBAPIError):
        text = str(exc.orig if exc.orig is not None else exc).lower()
        return "disk is full" in text or "no space left" in text or "disk full" in text
    return False


def condition_of(exc: BaseException) -> str:
    """What went wrong, short and without what varies per event (a statement's parameters, a file name)."""
    if isinstance(exc, DBAPIError):
        detail = str(exc.orig if exc.orig is not None else type(exc).__name__)
        text = f"database: {detail}"
    elif isinstance(exc, OSError) and exc.errno is not None:
        text = f"{type(exc).__name__}: [Errno {exc.errno}] {exc.strerror}"
    else:
        text = f"{type(exc).__name__}: {exc}"
    if is_disk_full(exc):
        text = f"disk full: {text}"
    return text[:MAX_CONDITION_CHARS]


def is_operational(exc: BaseException) -> bool:
    """A condition of the machine (database refusing or unreachable, disk or file errors), not a bug."""
    return isinstance(exc, (DBAPIError, OSError))


def log_failure(logger: logging.Logger, what: str, exc: BaseException) -> str:
    """Log that `what` failed with exc, as one line per condition (with a RepeatFilter on the logger).

    An operational condition is logged without a traceback (it is not a bug, and its traceback says
    nothing new); anything else keeps its traceback, shown once per interval. Returns the condition.
    """
    condition = condition_of(exc)
    logger.error(
        "%s failed: %s",
        what,
        condition,
        exc_info=None if is_operational(exc) else exc,
        extra={"condition": f"{what}: {condition}"},
    )
    return condition

"""Database tables (SQLAlchemy 2.0) and engine set-up: SQLite in WAL mode by default, PostgreSQL by URL.

The schema is owned by Alembic (agent/server/migrations); `migrate()` brings any database to head.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Boolean, Float, Index, Integer, String, Text, create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

MIGRATIONS_DIR = Path(__file__).parent / "migrations"


class Base(DeclarativeBase):
    """Declarative base of the server's tables."""


class EpisodeRow(Base):
    """One episode: a queue entry while pending, the index of its record once finished."""

    __tablename__ = "episodes"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    run_id: Mapped[str | None] = mapped_column(String(64), index=True, nullable=True)
    task_id: Mapped[str] = mapped_column(String(256))
    family: Mapped[str] = mapped_column(String(32))
    agent: Mapped[str] = mapped_column(Text)  # AgentConfig JSON
    budget: Mapped[str] = mapped_column(Text)  # Budget JSON
    status: Mapped[str] = mapped_column(String(16), index=True)  # queued running done failed cancelled interactive
    interactive: Mapped[bool] = mapped_column(Boolean, default=False)
    token_id: Mapped[str] = mapped_column(String(64), default="anonymous", index=True)
    created_at: Mapped[float] = mapped_column(Float)
    started_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    finished_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    lease_owner: Mapped[str | None] = mapped_column(String(64), nullable=True)
    lease_expires_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    scores: Mapped[str | None] = mapped_column(Text, nullable=True)  # JSON
    record_path: Mapped[str | None] = mapped_column(Text, nullable=True)  # relative to data_dir
    progress: Mapped[str | None] = mapped_column(Text, nullable=True)  # JSON

    __table_args__ = (
        Index("ix_episodes_status_created", "status", "created_at"),
        Index("ix_episodes_status_token_created", "status", "token_id", "created_at"),
    )


class RunRow(Base):
    """A batch run: tasks x one agent config; its episodes carry its id."""

    __tablename__ = "runs"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    config: Mapped[str] = mapped_column(Text)  # RunConfig JSON
    token_id: Mapped[str] = mapped_column(String(64), default="anonymous")
    created_at: Mapped[float] = mapped_column(Float)
    total: Mapped[int] = mapped_column(Integer)
    out_dir: Mapped[str] = mapped_column(Text)  # relative to data_dir
    reported: Mapped[bool] = mapped_column(Boolean, default=False)


class TokenRow(Base):
    """A caller's token (by its non-secret id): the row its quota checks lock, and when it was last served."""

    __tablename__ = "tokens"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    updated_at: Mapped[float] = mapped_column(Float, default=0.0)
    last_claimed_at: Mapped[float] = mapped_column(Float, default=0.0)  # fair claims: least recently served first


def make_engine(url: str) -> Engine:
    """An engine; SQLite gets WAL, a busy timeout and foreign keys, so workers and the API can share it."""
    kwargs: dict[str, Any] = {}
    if url.startswith("sqlite"):
        kwargs["connect_args"] = {"timeout": 30, "check_same_thread": False}
    engine = create_engine(url, **kwargs)
    if url.startswith("sqlite"):

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.close()

    return engine


def migrate(url: str) -> None:
    """Upgrade the database at url to the newest schema (creates it when empty)."""
    from alembic import command
    from alembic.config import Config

    if url.startswith("sqlite:///"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    command.upgrade(cfg, "head")

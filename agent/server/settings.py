"""Server settings, read from the environment (JARVIS_*) and overridable by `jarvis serve` options."""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

ENV_PREFIX = "JARVIS_"
LIST_FIELDS = ("inline_agents",)
MAPPING_FIELDS = ("llm_endpoints",)
_ENDPOINT_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")
PLACEHOLDER_TOKENS = {"", "changeme", "change-me", "secret", "token", "password"}


class SettingsError(ValueError):
    """Settings that must not start a server (e.g. no token on a public bind)."""


class ServerSettings(BaseModel):
    """Everything the server needs to start. Unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    host: str = Field("127.0.0.1", description="Bind address; anything beyond loopback requires a token.")
    port: int = Field(8000, ge=0, le=65535)
    db_url: str = Field("", description="SQLAlchemy URL; default sqlite:///<data_dir>/jarvis.sqlite (WAL).")
    data_dir: Path = Field(Path("jarvis-data"), description="Run directories and episode artifacts.")
    workers: int = Field(default_factory=lambda: os.cpu_count() or 1, ge=0, description="Episode worker processes.")
    backend: str = Field("mujoco", description="Simulator backend of the workers.")
    api_token: str | None = Field(None, description="Bearer token (JARVIS_API_TOKEN); never logged.", repr=False)
    max_concurrent_per_token: int = Field(
        16, ge=1, description="Queued + running + interactive episodes per token, outside runs."
    )
    max_runs_per_token: int = Field(4, ge=1, description="Unfinished runs (POST /v1/runs) per token.")
    max_active_per_token: int = Field(
        10_000, ge=1, description="Queued + running + interactive episodes per token, runs' episodes included."
    )
    lease_s: float = Field(30.0, gt=0, description="A worker's claim on an episode expires without heartbeat.")
    heartbeat_s: float = Field(5.0, gt=0)
    max_attempts: int = Field(2, ge=1, description="Claims of an episode before it is failed as lost.")
    result_hold_s: float = Field(300.0, ge=0, allow_inf_nan=False, description="How long a worker holds a finished "
                                 "episode's result in memory while the disk or database refuses to store it "
                                 "(full, locked), retrying with back-off; past it the episode is failed with the "
                                 "reason, or, if the database still refuses, left to its lease's expiry.")
    interactive_idle_s: float = Field(600.0, gt=0, description="Interactive episodes idle this long (no request, no "
                                      "program running or queued) expire.")
    max_programs_per_token: int = Field(4, ge=1, description="Interactive programs one token may have running or "
                                        "queued at once, every episode together; one more is a 429.")
    max_interactive: int = Field(2, ge=0, description="Simulators reserved for interactive episodes at most.")
    trust_agent_options: bool = Field(
        False,
        description="Accept agent options that reach the server's files or secrets over REST (replay_file, "
        "experience_file, llm.base_url, llm.api_key_env, llm.cache_dir, replay: models). Only for a "
        "server whose every token holder is trusted: llm.base_url + llm.api_key_env could send a key anywhere.",
    )
    max_body_bytes: int = Field(4 * 1024 * 1024, ge=1024, description="Largest request body; above it a 413.")
    max_connections: int = Field(1_000, ge=8, description="Connections held at once (capped at the fd limit minus "
                                 "64); one more evicts the connection idle longest (agent.server.serving).")
    header_timeout_s: float = Field(10.0, gt=0, description="A connection's request headers must arrive within this "
                                    "(first request and each keep-alive one), else it is closed.")
    body_timeout_s: float = Field(30.0, gt=0, description="A request body must arrive whole within this; else 408.")
    keep_alive_s: float = Field(5.0, gt=0, description="Idle keep-alive connections are closed after this.")
    backlog: int = Field(256, ge=1, description="Connections the kernel queues before the server accepts them.")
    log_repeat_s: float = Field(60.0, ge=0, description="A log line repeated within this is dropped and counted.")
    max_rounds: int = Field(20, ge=1, description="Largest budget.rounds a request may ask for.")
    max_skill_calls: int = Field(2_000, ge=1, description="Largest budget.skill_calls a request may ask for.")
    max_wall_s: float = Field(3_600.0, gt=0, allow_inf_nan=False, description="Largest budget.wall_s.")
    max_program_wall_s: float = Field(600.0, gt=0, allow_inf_nan=False, description="Largest budget.program_wall_s.")
    max_sim_s: float = Field(3_600.0, gt=0, allow_inf_nan=False, description="Largest budget.sim_s.")
    max_images: int = Field(1_000, ge=0, description="Largest budget.images (captured images, i.e. disk per episode).")
    max_record_bytes: int = Field(64 * 1024 * 1024, ge=64 * 1024, description="Largest budget.record_bytes (bytes "
                                  "of agent-made values one episode record keeps, so per-episode memory and disk).")
    max_llm_timeout_s: float = Field(600.0, gt=0, allow_inf_nan=False, description="Largest agent.llm.timeout_s.")
    max_llm_attempts: int = Field(8, ge=1, description="Largest agent.llm.max_attempts.")
    llm_endpoints: dict[str, str] = Field(
        default_factory=dict,
        description="Named OpenAI-compatible endpoints REST clients may use as 'openai-compatible:@NAME:MODEL' "
        "(JARVIS_LLM_ENDPOINTS='lab=http://10.0.0.5:8000/v1,local=http://127.0.0.1:11434/v1'). A model string "
        "over REST never carries a URL of its own: the server's keys go only where the operator said.",
    )
    inline_agents: tuple[str, ...] = Field(
        ("scripted", "random"),
        description="Instant agents whose question episodes the API runs itself instead of queueing them.",
    )

    @field_validator("llm_endpoints")
    @classmethod
    def _endpoints_are_named_urls(cls, value: dict[str, str]) -> dict[str, str]:
        for name, url in value.items():
            if not _ENDPOINT_NAME.match(name):
                raise ValueError(f"endpoint name {name!r} must be a letter then letters, digits, '-' or '_'")
            if not url.startswith(("http://", "https://")) or not url.split("://", 1)[1].split("/", 1)[0]:
                raise ValueError(f"endpoint {name!r}: {url!r} is not an http(s) URL")
        return value

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: object) -> ServerSettings:
        """Settings from JARVIS_<FIELD> environment variables, then explicit overrides (None means unset).

        Every field has its variable (JARVIS_HOST, JARVIS_DB_URL, JARVIS_API_TOKEN, ...); a list field
        takes a comma-separated value. Other JARVIS_ variables (e.g. JARVIS_PLUGINS) belong to other
        parts of JARVIS and are left alone.
        """
        environ = os.environ if environ is None else environ
        values: dict[str, object] = {}
        for name in cls.model_fields:
            raw = environ.get(ENV_PREFIX + name.upper())
            if raw is None:
                continue
            if name in LIST_FIELDS:
                values[name] = tuple(v.strip() for v in raw.split(",") if v.strip())
            elif name in MAPPING_FIELDS:
                values[name] = _parse_mapping(ENV_PREFIX + name.upper(), raw)
            else:
                values[name] = raw
        values.update({k: v for k, v in overrides.items() if v is not None})
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            problems = "; ".join(
                f"{ENV_PREFIX}{'.'.join(str(p) for p in e['loc']).upper()}: {e['msg']}" for e in exc.errors()
            )
            raise SettingsError(f"invalid server settings: {problems}") from None

    @property
    def resolved_db_url(self) -> str:
        """The database URL, defaulting to SQLite in the data directory."""
        return self.db_url or f"sqlite:///{(self.data_dir / 'jarvis.sqlite').resolve()}"

    @property
    def tokens(self) -> tuple[str, ...]:
        """The accepted bearer tokens (JARVIS_API_TOKEN is comma-separated), blanks dropped."""
        return tuple(t.strip() for t in (self.api_token or "").split(",") if t.strip())

    @property
    def loopback(self) -> bool:
        """True when the server is reachable only from this machine (a loopback IP, or 'localhost')."""
        host = self.host.strip().strip("[]")
        if host.lower() == "localhost":
            return True
        try:
            return ipaddress.ip_address(host).is_loopback
        except ValueError:  # a name other than localhost may resolve anywhere: '127.example.com' is not loopback
            return False

    def check_startable(self) -> None:
        """Refuse to start a public server without real tokens: every one of them, not just the list."""
        if self.loopback:
            return
        weak = [t for t in self.tokens if t.lower() in PLACEHOLDER_TOKENS]
        if not self.tokens or weak:
            why = "set JARVIS_API_TOKEN to a real secret" if not weak else (
                f"{len(weak)} of its {len(self.tokens)} token(s) is a placeholder (e.g. 'changeme'); use real secrets"
            )
            raise SettingsError(f"binding to {self.host} exposes the server beyond this machine: {why} "
                                "(JARVIS_API_TOKEN)")

def _parse_mapping(variable: str, raw: str) -> dict[str, str]:
    """'a=x,b=y' as a mapping; an entry without '=' is an error naming the variable."""
    out: dict[str, str] = {}
    for entry in (e.strip() for e in raw.split(",")):
        if not entry:
            continue
        name, sep, value = entry.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise SettingsError(f"invalid server settings: {variable}: entry {entry[:80]!r} is not NAME=VALUE")
        out[name.strip()] = value.strip()
    return out

"""API keys: read from the environment at the last moment, held in a wrapper that refuses to be shown.

A key is never a field of a config, record, cache entry or log line. `ApiKey` masks itself in repr and
str, and refuses pickling and copying into other processes, so an object that holds one cannot leak it
into the sandbox or onto disk by accident.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import NoReturn

from agent.llm.errors import MissingCredentialError

_MASK = "***"


class ApiKey:
    """A secret string with the name of the environment variable it came from."""

    __slots__ = ("_value", "env_var")

    def __init__(self, value: str, env_var: str):
        self._value = value
        self.env_var = env_var

    def reveal(self) -> str:
        """The raw key, for handing to an SDK client and nothing else."""
        return self._value

    def redact(self, text: str) -> str:
        """`text` with every occurrence of the key replaced by a mask."""
        return text.replace(self._value, _MASK) if self._value else text

    def __repr__(self) -> str:
        return f"ApiKey(env_var={self.env_var!r}, value={_MASK})"

    __str__ = __repr__

    def __reduce__(self) -> NoReturn:
        raise TypeError("API keys cannot be pickled or copied to another process")

    def __deepcopy__(self, memo: object) -> NoReturn:
        raise TypeError("API keys cannot be copied")


def read_api_key(env_var: str, *, required: bool, placeholder: str = "not-needed") -> ApiKey:
    """The key in `env_var`; unset or empty raises MissingCredentialError if required, else a placeholder.

    Self-hosted OpenAI-compatible servers (vLLM, Ollama) accept any key, but the SDK insists on one.
    """
    value = os.environ.get(env_var, "").strip()
    if value:
        return ApiKey(value, env_var)
    if required:
        raise MissingCredentialError(f"environment variable {env_var} is not set; export your API key there")
    return ApiKey(placeholder, env_var)


# Names that hold credentials by convention, beyond the variables providers declare.
_SECRET_SUFFIXES = ("_API_KEY", "_AUTH_TOKEN", "_ACCESS_TOKEN", "_SECRET", "_SECRET_KEY", "_PASSWORD")


def without_credentials(env: Mapping[str, str], also: Iterable[str] = ()) -> dict[str, str]:
    """A copy of `env` without API keys: for the environment of processes that run untrusted code.

    Drops every name in `also` (pass `agent.llm.registry.credential_env_names()`) and every name that
    ends like a credential (`*_API_KEY`, `*_TOKEN`-style, `*_SECRET`, `*_PASSWORD`).
    """
    drop = {name.upper() for name in also}
    return {
        name: value
        for name, value in env.items()
        if name.upper() not in drop and not name.upper().endswith(_SECRET_SUFFIXES)
    }

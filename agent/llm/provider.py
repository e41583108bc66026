"""The provider contract: one attempt at one chat request, with SDK errors mapped to ours.

A provider knows a vendor's wire format and nothing else. Retries, caching, pricing and accounting
live in `agent.llm.client`, so every provider gets them the same way. Vendor SDKs are imported inside
the provider on first use, which keeps `import agent.llm` fast.
"""

from __future__ import annotations

import email.utils
import logging
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar, NoReturn

from pydantic import BaseModel, ConfigDict, Field

from agent.llm.credentials import ApiKey, read_api_key
from agent.llm.deadline import deadline_http_client
from agent.llm.errors import (
    ModelStringError,
    ProviderError,
    ProviderTimeoutError,
    RateLimitedError,
    RequestRejectedError,
    ServerError,
)
from agent.llm.messages import ChatRequest, Usage

_MAX_ERROR_CHARS = 500

log = logging.getLogger(__name__)


class ModelSpec(BaseModel):
    """A parsed model string: which provider, which model, and an endpoint where the string names one."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    provider: str
    model: str = Field(description="The model id; for `replay` the path of the recording.")
    base_url: str | None = None
    endpoint_name: str | None = Field(
        None, description="A named endpoint (`@NAME`) that the operator's configuration maps to a URL."
    )

    def __str__(self) -> str:
        middle = f"{self.base_url}:" if self.base_url else f"@{self.endpoint_name}:" if self.endpoint_name else ""
        return f"{self.provider}:{middle}{self.model}"


class ProviderSettings(BaseModel):
    """Connection settings shared by the HTTP providers; none of them is a secret."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    timeout_s: float = Field(default=120.0, gt=0, description="Total seconds of one model call: connect, every read "
                             "and every retry (agent.llm.deadline).")
    api_key_env: str | None = Field(default=None, description="Environment variable holding the key (overrides the provider's default).")
    base_url: str | None = Field(default=None, description="Endpoint override, e.g. a proxy or a local fake server.")


@dataclass(frozen=True)
class Completion:
    """What one successful attempt produced, before pricing and provenance are added."""

    text: str
    usage: Usage
    model: str
    finish_reason: str | None = None


class ChatProvider(ABC):
    """One vendor's chat endpoint. Subclasses register with `@register_provider(name)`."""

    name: ClassVar[str] = ""
    free: ClassVar[bool] = False  # answers cost nothing (replay); pricing is skipped
    cacheable: ClassVar[bool] = True  # worth storing in the response cache

    def __init__(self, spec: ModelSpec, settings: ProviderSettings):
        self.spec = spec
        self.settings = settings

    @classmethod
    def parse_target(cls, target: str, model_string: str) -> ModelSpec:
        """Turn the part after `provider:` into a ModelSpec; the default takes it as the model id."""
        if not target.strip():
            raise ModelStringError(f"model string {model_string!r} names no model after {cls.name + ':'!r}")
        return ModelSpec(provider=cls.name, model=target.strip())

    @property
    def model(self) -> str:
        """The requested model id."""
        return self.spec.model

    @property
    def endpoint(self) -> str | None:
        """The base URL the provider talks to, or None for the SDK's default."""
        return self.settings.base_url or self.spec.base_url

    def identity(self) -> str:
        """Provider, endpoint and model: what, besides the request, decides an answer (cache key part)."""
        return f"{self.name}|{self.endpoint or ''}|{self.model}"

    def describe(self) -> dict[str, Any]:
        """Safe-to-store description: names and endpoints, never credentials."""
        return {
            "provider": self.name,
            "model": self.model,
            "base_url": self.endpoint,
            "api_key_env": self.key_env(),
            "timeout_s": self.settings.timeout_s,
        }

    def key_env(self) -> str | None:
        """The environment variable this provider reads its key from, if any."""
        return None

    @abstractmethod
    def complete(self, request: ChatRequest) -> Completion:
        """Make one attempt; raise a ProviderError subclass on failure."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec})"

    def __reduce__(self) -> NoReturn:
        # Providers hold SDK clients that hold keys: they stay in the process that made them.
        raise TypeError(f"{type(self).__name__} cannot be pickled; build a new provider from the model string")


class SdkChatProvider(ChatProvider):
    """A provider whose vendor SDK client (openai, anthropic) is built on first use with the key read then."""

    default_key_env: ClassVar[str] = ""
    key_required: ClassVar[bool] = True

    def __init__(self, spec: ModelSpec, settings: ProviderSettings):
        super().__init__(spec, settings)
        self._client: Any = None
        self._key: ApiKey | None = None

    def key_env(self) -> str:
        """The environment variable holding the key."""
        return self.settings.api_key_env or self.default_key_env

    @abstractmethod
    def _new_client(self, **options: Any) -> Any:
        """The vendor SDK's client made with these constructor options (import the SDK here: it is slow)."""

    def _httpx_module(self) -> Any:
        """The httpx package the vendor SDK is built on (its client must be of that package)."""
        import httpx

        return httpx

    def _sdk_client(self) -> Any:
        if self._client is None:
            self._key = read_api_key(self.key_env(), required=self.key_required)
            self._client = self._new_client(
                api_key=self._key.reveal(),
                base_url=self.endpoint,
                timeout=self.settings.timeout_s,
                max_retries=0,  # agent.llm.retry is the only retry policy
                # Every socket operation is cut to the call's total deadline (a dripping server cannot hold it).
                http_client=deadline_http_client(self.settings.timeout_s, self._httpx_module()),
            )
        return self._client


def retry_after_seconds(headers: Any) -> float | None:
    """The wait a 429 asks for: `retry-after-ms`, `retry-after` in seconds, or an HTTP date."""
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def map_sdk_error(exc: Exception, sdk: Any, provider: str, key: ApiKey | None) -> ProviderError:
    """Translate an openai/anthropic SDK exception (same class names in both) into our error kinds.

    The error's message names only the status and kind; the SDK's text (key redacted, shortened) goes
    to `detail` and to this process's log, never to a field a REST client can read.
    """
    detail = str(exc)
    if key is not None:
        detail = key.redact(detail)
    detail = detail[:_MAX_ERROR_CHARS]
    error = _sdk_error_kind(exc, sdk, provider, detail)
    log.warning("%s (%s): %s", error, type(exc).__name__, detail)
    return error


def _sdk_error_kind(exc: Exception, sdk: Any, provider: str, detail: str) -> ProviderError:
    if isinstance(exc, sdk.APITimeoutError):
        return ProviderTimeoutError("timed out", provider=provider, detail=detail)
    if isinstance(exc, sdk.APIConnectionError):
        return ServerError("connection failed", provider=provider, detail=detail)
    if isinstance(exc, sdk.APIStatusError):
        status = int(exc.status_code)
        if status == 429:
            return RateLimitedError("rate limited", provider=provider, detail=detail,
                                    retry_after_s=retry_after_seconds(exc.response.headers))
        if status >= 500:
            return ServerError("server error", provider=provider, status=status, detail=detail)
        return RequestRejectedError("rejected", provider=provider, status=status, detail=detail)
    return RequestRejectedError(f"client error {type(exc).__name__}", provider=provider, detail=detail)

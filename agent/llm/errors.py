"""Errors of the LLM layer, split by what the caller should do about them.

Providers translate their SDK's exceptions into these, so retry logic and the episode loop never depend
on a vendor's exception tree. Messages are scrubbed of credentials before they are built.
"""

from __future__ import annotations

from jarvis_sim.registry import UnknownName


class LLMError(Exception):
    """Base of every error raised by agent.llm."""


class ModelStringError(LLMError, ValueError):
    """A model string that cannot be parsed; the message shows the expected forms."""


class UnknownProviderError(ModelStringError, UnknownName):
    """A model string naming a provider nobody registered; the message lists the valid ones."""

    def __init__(self, name: str, valid: list[str]):
        UnknownName.__init__(self, "LLM provider", name, valid)
        self.valid = self.known

    def __str__(self) -> str:
        return str(self.args[0])


class MissingCredentialError(LLMError):
    """The environment variable that should hold an API key is unset or empty."""


class ProviderError(LLMError):
    """A call to a model failed; `retryable` says whether trying again can help.

    The message is a summary (provider, HTTP status, error kind) because it reaches public fields (an
    episode's `error`, served over REST): a provider's error body can hold internal hostnames, stack
    traces or echoed prompts. The provider's own text, scrubbed of the key, is kept in `detail` for the
    log of whoever runs the model.
    """

    retryable = False

    def __init__(self, message: str, *, provider: str, status: int | None = None, detail: str = ""):
        kind = f"HTTP {status}" if status is not None else message
        super().__init__(f"{provider}: {kind} ({type(self).__name__})")
        self.provider, self.status, self.detail = provider, status, detail


class RateLimitedError(ProviderError):
    """HTTP 429; `retry_after_s` holds the server's Retry-After hint when it sent one."""

    retryable = True

    def __init__(self, message: str, *, provider: str, retry_after_s: float | None = None, detail: str = ""):
        super().__init__(message, provider=provider, status=429, detail=detail)
        self.retry_after_s = retry_after_s


class ProviderTimeoutError(ProviderError):
    """The call did not finish within the client timeout."""

    retryable = True


class EpisodeDeadlineError(ProviderTimeoutError):
    """The episode's wall-clock budget ran out before or during a model call; retrying cannot help."""

    retryable = False


class ServerError(ProviderError):
    """A 5xx answer or a broken connection: the provider's problem, worth retrying."""

    retryable = True


class RequestRejectedError(ProviderError):
    """A 4xx answer other than 429 (bad request, wrong key, unknown model): retrying cannot help."""


class AnswerTooLargeError(RequestRejectedError):
    """The model's answer was larger than the client accepts (LLMConfig.max_answer_bytes); not retried."""


class ReplayExhaustedError(LLMError):
    """A replay file has no recorded answer for the request asked."""


class CacheMissError(LLMError):
    """A read-only cache has no answer for a request, and read-only forbids calling the model."""

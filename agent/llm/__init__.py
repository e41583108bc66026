"""LLM providers behind one multimodal chat interface, with retries, caching, pricing and replay.

Build a client from a model string: `build_client(LLMConfig(model="openai:gpt-4o"))`. Importing this
package registers the built-in providers; vendor SDKs are imported only when a provider first calls.
"""

from agent.llm import anthropic_provider, openai_compat, replay  # noqa: F401  (register providers)
from agent.llm.account import UsageAccount
from agent.llm.cache import ResponseCache
from agent.llm.client import LLMClient, LLMConfig, build_client
from agent.llm.errors import (
    CacheMissError,
    LLMError,
    MissingCredentialError,
    ModelStringError,
    ProviderError,
    ProviderTimeoutError,
    RateLimitedError,
    ReplayExhaustedError,
    RequestRejectedError,
    ServerError,
    UnknownProviderError,
)
from agent.llm.messages import ChatMessage, ChatRequest, ChatResponse, ImagePart, TextPart, Usage
from agent.llm.pricing import ModelPrice, PriceTable
from agent.llm.provider import ChatProvider, Completion, ModelSpec, ProviderSettings
from agent.llm.registry import build_provider, parse_model_string, provider_names, register_provider
from agent.llm.retry import RetryPolicy

__all__ = [
    "CacheMissError",
    "ChatMessage",
    "ChatProvider",
    "ChatRequest",
    "ChatResponse",
    "Completion",
    "ImagePart",
    "LLMClient",
    "LLMConfig",
    "LLMError",
    "MissingCredentialError",
    "ModelPrice",
    "ModelSpec",
    "ModelStringError",
    "PriceTable",
    "ProviderError",
    "ProviderSettings",
    "ProviderTimeoutError",
    "RateLimitedError",
    "ReplayExhaustedError",
    "RequestRejectedError",
    "ResponseCache",
    "RetryPolicy",
    "ServerError",
    "TextPart",
    "UnknownProviderError",
    "Usage",
    "UsageAccount",
    "build_client",
    "build_provider",
    "parse_model_string",
    "provider_names",
    "register_provider",
]

"""The one place model strings become providers: `@register_provider(name)` and `build_provider`.

Model strings are `PROVIDER:TARGET`. The provider name never contains a colon, so the first colon
splits; the provider class then parses its own target, because targets differ: a model id
(`openai:gpt-4o`), an endpoint and a model (`openai-compatible:http://host:8000/v1:qwen2.5-vl`, where
the URL has colons of its own), or a file (`replay:runs/x/responses.jsonl`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from agent.llm.errors import ModelStringError, UnknownProviderError
from agent.llm.provider import ChatProvider, ModelSpec, ProviderSettings
from jarvis_sim.registry import Registry

# Outside packages add providers through the `jarvis.llm_providers` entry points (a ChatProvider subclass each).
PROVIDERS: Registry[type[ChatProvider]] = Registry("LLM provider", entry_point_group="jarvis.llm_providers",
                                                  unknown=UnknownProviderError)

P = TypeVar("P", bound=type[ChatProvider])


def register_provider(name: str) -> Callable[[P], P]:
    """Class decorator: make a ChatProvider subclass reachable as `name:...` in model strings."""
    if not name or ":" in name or name != name.strip():
        raise ValueError(f"provider name {name!r} must be non-empty, without colons or spaces")

    def decorate(cls: P) -> P:
        if name in PROVIDERS.names() and (known := PROVIDERS.get(name)) is not cls:
            raise ValueError(f"LLM provider {name!r} is already registered by {known.__qualname__}")
        cls.name = name
        PROVIDERS.add(name, cls)
        return cls

    return decorate


def provider_names() -> list[str]:
    """Registered provider names, sorted."""
    return PROVIDERS.names()


def provider_class(name: str) -> type[ChatProvider]:
    """The class registered under `name`; unknown names raise UnknownProviderError listing the valid ones."""
    return PROVIDERS.get(name)


def parse_model_string(model_string: str) -> ModelSpec:
    """Split `PROVIDER:TARGET` and let the provider parse TARGET; errors say what form was expected."""
    if not isinstance(model_string, str) or ":" not in model_string:
        raise ModelStringError(
            f"model string {model_string!r} must look like PROVIDER:MODEL, e.g. 'openai:gpt-4o', "
            f"'anthropic:claude-sonnet-4-5', 'openai-compatible:http://localhost:8000/v1:qwen2.5-vl' "
            f"or 'replay:PATH'; providers: {', '.join(provider_names())}"
        )
    name, target = model_string.split(":", 1)
    return provider_class(name.strip()).parse_target(target, model_string)


def build_provider(model_string: str, settings: ProviderSettings | None = None) -> ChatProvider:
    """Parse a model string and construct its provider (no network, no SDK import yet)."""
    spec = parse_model_string(model_string)
    settings = settings or ProviderSettings()
    if spec.endpoint_name is not None and settings.base_url is None:
        # Never fall back to the provider's default endpoint: the key would go to a host nobody chose.
        raise ModelStringError(
            f"model string {model_string!r} names the endpoint '@{spec.endpoint_name}', which only a server's "
            "configuration resolves (JARVIS_LLM_ENDPOINTS); on the command line give the URL instead, e.g. "
            f"'{spec.provider}:http://localhost:8000/v1:{spec.model}'"
        )
    return provider_class(spec.provider)(spec, settings)


def credential_env_names() -> list[str]:
    """Environment variables the registered providers read keys from (to keep out of sandboxes)."""
    names = {getattr(cls, "default_key_env", None) for _, cls in PROVIDERS.items()}
    return sorted(n for n in names if isinstance(n, str) and n)

"""What goes to a chat model and what comes back: provider-neutral, multimodal, hashable requests.

A request's `content_hash` covers every field that can change the answer (system prompt, messages with
the exact image bytes, sampling parameters) and nothing else, so it keys both the response cache and
keyed replay files. No credential ever lives in these objects.
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

Role = Literal["user", "assistant"]

# Magic numbers of the image formats both providers accept, so a wrong file is caught before a paid call.
_IMAGE_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def sniff_image_type(data: bytes) -> str | None:
    """The media type of PNG, JPEG, GIF or WebP bytes, or None for anything else."""
    for magic, media_type in _IMAGE_MAGIC:
        if data.startswith(magic):
            return media_type
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


class TextPart(BaseModel):
    """A piece of text in a message."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: Literal["text"] = "text"
    text: str


class ImagePart(BaseModel):
    """An image in a message, held as encoded bytes (PNG, JPEG, GIF or WebP)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: Literal["image"] = "image"
    data: bytes = Field(repr=False, description="Encoded image bytes, sent as-is.")
    media_type: str = Field(default="", description="MIME type; sniffed from the bytes when left empty.")
    label: str = Field(default="", description="Where the image came from (a path or a name), for logs only; not hashed.")

    @model_validator(mode="after")
    def _check_media_type(self) -> ImagePart:
        """Sniff and check the media type once, so providers can trust it."""
        sniffed = sniff_image_type(self.data)
        where = f" ({self.label})" if self.label else ""
        if sniffed is None:
            raise ValueError(f"image{where} is not PNG, JPEG, GIF or WebP (first bytes {self.data[:8]!r})")
        if self.media_type and self.media_type != sniffed:
            raise ValueError(f"image{where} declared {self.media_type} but its bytes are {sniffed}")
        object.__setattr__(self, "media_type", sniffed)
        return self

    @classmethod
    def from_path(cls, path: str | Path) -> ImagePart:
        """Read an image file; a missing or non-image file raises ValueError naming it."""
        p = Path(path)
        try:
            data = p.read_bytes()
        except OSError as exc:
            raise ValueError(f"cannot read image {p}: {exc.strerror or exc}") from None
        return cls(data=data, label=str(p))

    @classmethod
    def from_array(cls, pixels: Any, label: str = "") -> ImagePart:
        """Encode an HxW or HxWx{3,4} uint8 array as PNG (Pillow is imported only here)."""
        import io

        import numpy as np
        from PIL import Image

        arr = np.asarray(pixels)
        if arr.dtype != np.uint8 or arr.ndim not in (2, 3) or (arr.ndim == 3 and arr.shape[2] not in (3, 4)):
            raise ValueError(f"image array {label or ''} must be uint8 HxW, HxWx3 or HxWx4, got {arr.dtype} {arr.shape}")
        buf = io.BytesIO()
        Image.fromarray(arr).save(buf, format="PNG")
        return cls(data=buf.getvalue(), label=label)

    def base64(self) -> str:
        """The bytes as base64 text, the form both wire protocols carry."""
        return base64.b64encode(self.data).decode("ascii")

    def sha256(self) -> str:
        """Hex digest of the bytes: the image's identity in hashes and logs."""
        return hashlib.sha256(self.data).hexdigest()


ContentPart = TextPart | ImagePart


class ChatMessage(BaseModel):
    """One turn of the conversation; a plain string becomes a single text part."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: Role
    content: tuple[ContentPart, ...]

    @field_validator("content", mode="before")
    @classmethod
    def _text_shorthand(cls, value: Any) -> Any:
        if isinstance(value, str):
            return (TextPart(text=value),)
        return value

    @field_validator("content")
    @classmethod
    def _not_empty(cls, value: tuple[ContentPart, ...]) -> tuple[ContentPart, ...]:
        if not value:
            raise ValueError("a message needs at least one text or image part")
        return value

    @classmethod
    def user(cls, *parts: str | ContentPart | Path) -> ChatMessage:
        """A user turn from strings (text), Paths (image files) and parts, in order."""
        return cls(role="user", content=tuple(_to_part(p) for p in parts))

    @classmethod
    def assistant(cls, text: str) -> ChatMessage:
        """An assistant turn (earlier model output, e.g. for reflection)."""
        return cls(role="assistant", content=(TextPart(text=text),))

    def text(self) -> str:
        """The text parts joined by newlines (images left out)."""
        return "\n".join(p.text for p in self.content if isinstance(p, TextPart))


def _to_part(part: str | ContentPart | Path) -> ContentPart:
    if isinstance(part, Path):
        return ImagePart.from_path(part)
    if isinstance(part, str):
        return TextPart(text=part)
    return part


class ChatRequest(BaseModel):
    """A provider-neutral chat request: system prompt, turns and sampling parameters."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    messages: tuple[ChatMessage, ...]
    system: str = ""
    temperature: float | None = Field(
        default=None, ge=0.0, le=2.0, description="None leaves the provider's default (some models accept no other)."
    )
    seed: int | None = Field(default=None, description="Sent where the provider supports it (OpenAI-compatible).")
    max_tokens: int = Field(default=4096, gt=0)

    @field_validator("messages")
    @classmethod
    def _starts_with_user(cls, value: tuple[ChatMessage, ...]) -> tuple[ChatMessage, ...]:
        if not value:
            raise ValueError("a chat request needs at least one message")
        if value[0].role != "user":
            raise ValueError(f"the first message must come from the user, not the {value[0].role}")
        return value

    def canonical(self) -> dict[str, Any]:
        """Everything that can change the answer, as JSON-ready data (images as their SHA-256)."""
        return {
            "system": self.system,
            "messages": [
                {
                    "role": m.role,
                    "content": [
                        {"text": p.text} if isinstance(p, TextPart) else {"image": p.sha256(), "media_type": p.media_type}
                        for p in m.content
                    ],
                }
                for m in self.messages
            ],
            "temperature": self.temperature,
            "seed": self.seed,
            "max_tokens": self.max_tokens,
        }

    def content_hash(self) -> str:
        """SHA-256 of the canonical request; the same request always gives the same hash."""
        blob = json.dumps(self.canonical(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def image_count(self) -> int:
        """How many images the request carries."""
        return sum(isinstance(p, ImagePart) for m in self.messages for p in m.content)


class Usage(BaseModel):
    """Tokens one response consumed, as the provider reported them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input_tokens: int = Field(default=0, ge=0)
    output_tokens: int = Field(default=0, ge=0)


class ChatResponse(BaseModel):
    """A model's answer with its accounting: usage, cost, latency, model id and provenance."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str
    usage: Usage = Usage()
    cost_usd: float = Field(default=0.0, ge=0.0, description="Approximate; see agent.llm.pricing.")
    cost_known: bool = Field(default=False, description="False when the model is not in the price table (cost 0).")
    latency_s: float = Field(default=0.0, ge=0.0, description="Wall time of the successful call, retries excluded.")
    model: str = Field(description="The model id the provider reported (or the requested one).")
    provider: str
    finish_reason: str | None = None
    cached: bool = Field(default=False, description="True when served from the on-disk response cache.")
    attempts: int = Field(default=1, ge=0, description="Calls made for this answer, retries included (0 when cached).")
    request_hash: str = ""

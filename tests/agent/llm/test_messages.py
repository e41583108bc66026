"""Requests and images: validation, the text shorthand, and the content hash that keys cache and replay."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from pydantic import ValidationError

from agent.llm import ChatMessage, ChatRequest, ImagePart, TextPart


def test_image_part_sniffs_png_and_rejects_non_images(png_image: ImagePart, tmp_path: Path) -> None:
    assert png_image.media_type == "image/png"
    with pytest.raises(ValidationError, match="not PNG, JPEG, GIF or WebP"):
        ImagePart(data=b"hello, not an image")
    with pytest.raises(ValidationError, match="declared image/jpeg but its bytes are image/png"):
        ImagePart(data=png_image.data, media_type="image/jpeg")
    bad = tmp_path / "notes.txt"
    bad.write_text("text")
    with pytest.raises(ValueError, match=r"notes\.txt"):
        ImagePart.from_path(bad)
    with pytest.raises(ValueError, match=r"cannot read image .*missing\.png"):
        ImagePart.from_path(tmp_path / "missing.png")


def test_user_message_mixes_text_and_image_files(png_file: Path, png_image: ImagePart) -> None:
    msg = ChatMessage.user("Build this:", png_file)
    assert isinstance(msg.content[0], TextPart)
    assert isinstance(msg.content[1], ImagePart) and msg.content[1].data == png_image.data
    assert msg.text() == "Build this:"
    assert ChatMessage.model_validate({"role": "user", "content": "plain"}).content == (TextPart(text="plain"),)


def test_request_validation_names_the_problem() -> None:
    with pytest.raises(ValidationError, match="at least one message"):
        ChatRequest(messages=())
    with pytest.raises(ValidationError, match="first message must come from the user"):
        ChatRequest(messages=(ChatMessage.assistant("hi"),))
    with pytest.raises(ValidationError, match="extra"):
        ChatRequest.model_validate({"messages": [{"role": "user", "content": "x"}], "top_k": 3})


def test_content_hash_covers_text_images_and_sampling(png_image: ImagePart) -> None:
    other_png = ImagePart.from_array(np.zeros((2, 2, 3), dtype=np.uint8))
    base = ChatRequest(messages=(ChatMessage.user("hi", png_image),), system="s", temperature=0.0, seed=1)
    same = ChatRequest(messages=(ChatMessage.user("hi", png_image),), system="s", temperature=0.0, seed=1)
    assert base.content_hash() == same.content_hash()
    variants = [
        base.model_copy(update={"system": "t"}),
        base.model_copy(update={"temperature": 0.7}),
        base.model_copy(update={"seed": 2}),
        base.model_copy(update={"max_tokens": 10}),
        ChatRequest(messages=(ChatMessage.user("hi", other_png),), system="s", temperature=0.0, seed=1),
        ChatRequest(messages=(ChatMessage.user("hi!", png_image),), system="s", temperature=0.0, seed=1),
    ]
    hashes = {v.content_hash() for v in variants}
    assert base.content_hash() not in hashes and len(hashes) == len(variants)
    # The label is provenance for logs, not content.
    relabelled = ImagePart(data=png_image.data, label="elsewhere.png")
    assert ChatRequest(messages=(ChatMessage.user("hi", relabelled),), system="s", temperature=0.0, seed=1).content_hash() == base.content_hash()

"""Question items: the non-robot episodes (VSP, GamiBench) that share the episode life cycle.

An item is a prompt with images and a ground-truth answer. The answer is ground truth: like a
TaskSpec's targets it reaches only scorers and explicitly named scripted agents, never the public view.
"""

from __future__ import annotations

from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

QUESTION_ITEM_VERSION = 1


class QuestionItem(BaseModel):
    """One question episode: prompt text, image files, ground truth and family-specific metadata."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = QUESTION_ITEM_VERSION
    id: str = Field(description="Task id, e.g. 'vsp/maze/main/level3/0' or 'gamibench/standard/crane-07'.")
    family: str = Field(description="Task family: 'vsp' or 'gamibench'.")
    kind: str = Field(description="Family-specific task kind, e.g. 'maze/main', 'blocks/t4', 'standard'.")
    level: str | None = Field(None, description="Difficulty level or class ('level3', 'simple').")
    prompt: str = Field(description="The full question text shown to the model.")
    images: list[str] = Field(default_factory=list, description="Absolute paths of PNG images, in prompt order.")
    captions: list[str] = Field(default_factory=list, description=(
        "Text shown just before each image (same length as images; '' for none). Empty: the images follow "
        "the prompt with no captions."))
    system: str | None = Field(None, description=(
        "The system prompt the item must be asked with (an official protocol's); None: the agent's own."))
    answer: Any = Field(description="Ground truth; never served to agents.")
    meta: dict[str, Any] = Field(default_factory=dict, description="What scoring and solvers need.")

    @model_validator(mode="after")
    def _one_caption_per_image(self) -> QuestionItem:
        if self.captions and len(self.captions) != len(self.images):
            raise ValueError(f"item {self.id}: {len(self.captions)} captions for {len(self.images)} images")
        return self

    @model_serializer(mode="wrap")
    def _omit_plain_layout(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # Items without an official protocol's layout serialise as before these fields existed.
        data: dict[str, Any] = handler(self)
        if not self.captions:
            data.pop("captions", None)
        if self.system is None:
            data.pop("system", None)
        return data

    def public_view(self) -> dict[str, Any]:
        """What an agent may see: the prompt and image count, never the answer or metadata."""
        return {
            "id": self.id,
            "family": self.family,
            "kind": self.kind,
            "level": self.level,
            "prompt": self.prompt,
            "n_images": len(self.images),
            **({"captions": list(self.captions)} if self.captions else {}),
            **({"system": self.system} if self.system is not None else {}),
        }

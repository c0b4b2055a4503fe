"""The model layer: one leaf package the orchestrator, the user simulator and the judge all use.

`get_model("provider:model", role=...)` returns a `Model`: a provider `ModelAPI` (imported lazily) wrapped
with retries, a per-provider concurrency limit and per-role usage accounting. Nothing is imported or
contacted at import time.
"""

from models.types import ChatMessage, GenerateConfig, ModelOutput, ToolCall, ToolSpec, Usage

__all__ = ["ChatMessage", "GenerateConfig", "ModelOutput", "ToolCall", "ToolSpec", "Usage"]

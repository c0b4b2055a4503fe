"""Recorded model answers, replayed offline: `replay:PATH` answers each request with the answer recorded for
exactly that request, so a model-dependent figure (a model judge's calibration, say) can be reproduced and
re-checked on any machine with no key and no network.

A recording is a JSON Lines file, one object per request: `{"key": ..., "model": ..., "output": {...}}`, where
`key` is `request_key` of the request (every message, with its role and content, and the tools offered) and
`output` the `ModelOutput` the model gave (text, tool calls, usage). A request the recording does not hold is an
error naming its key, never a made-up answer: a recording is valid only for the prompts and inputs it was made
with, so a changed prompt or a changed case shows as a missing answer, not as a silently different figure.
`Recorder` wraps any model and appends what it answers to such a file (`crmbench judge-check --record PATH`).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from models.base import FATAL, ConfigurationError, ModelAPI, RetryDecision
from models.types import ChatMessage, GenerateConfig, ModelOutput, ToolSpec


class Recorded(BaseModel):
    """One line of a recording."""

    key: str
    model: str
    output: ModelOutput


class MissingRecording(ConfigurationError):
    """The recording holds no answer for a request: a configuration error (the recording is for other prompts
    or inputs), raised as it is, never retried, never a made-up answer."""


def request_key(messages: Sequence[ChatMessage], tools: Sequence[ToolSpec]) -> str:
    """The request's identity: a hash of every message (role, content, tool calls) and the tools' names and
    schemas. Sampling settings are left out: a recording answers the request, whatever it was sampled with."""
    payload = {
        "messages": [m.model_dump(mode="json", exclude_defaults=True) for m in messages],
        "tools": [t.model_dump(mode="json") for t in tools],
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def read_recording(path: Path) -> dict[str, Recorded]:
    """Every answer of a recording by its key (a request recorded twice, by two runs appending to one file: the
    later answer); a malformed line is an error naming the file and the line."""
    if not path.is_file():
        raise ConfigurationError(f"replay: no recording at {path}")
    answers: dict[str, Recorded] = {}
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                item = Recorded.model_validate_json(line)
            except ValidationError as exc:
                raise ConfigurationError(f"replay: {path}, line {number} is not a recorded answer: {exc.errors()[0]['msg']}") from None
            answers[item.key] = item
    return answers


class ReplayAPI(ModelAPI):
    """`replay:PATH`: the model whose answers are a recording (read once, when the first request comes). Its name
    is `replay:<file name>`, so a stored figure does not depend on the path the recording was given by."""

    provider = "replay"

    def __init__(self, model: str, **_: Any) -> None:
        super().__init__(Path(model).name)  # named by the recording's file, wherever it was given from
        self.path = Path(model)
        self._answers: dict[str, Recorded] | None = None

    async def generate(self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec], config: GenerateConfig) -> ModelOutput:
        if self._answers is None:
            self._answers = read_recording(self.path)
        key = request_key(messages, tools)
        item = self._answers.get(key)
        if item is None:
            raise MissingRecording(
                f"replay: {self.path} holds no answer for request {key[:16]} (recorded for other prompts or inputs; "
                "record it again with the model it came from)"
            )
        return item.output.model_copy(update={"model": item.model})

    def classify_error(self, error: BaseException) -> RetryDecision:
        return FATAL


class Recorder(ModelAPI):
    """Wraps a model and appends each of its answers to a recording (one line, written and flushed whole, so a
    killed run keeps every answer it got). The wrapped model's name is kept: results say who answered."""

    def __init__(self, inner: ModelAPI, path: Path) -> None:
        super().__init__(inner.model)
        self.inner = inner
        self.provider = inner.provider
        self.path = path
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._written: set[str] = set()

    async def generate(self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec], config: GenerateConfig) -> ModelOutput:
        output = await self.inner.generate(messages, tools, config)
        key = request_key(messages, tools)
        if key in self._written:
            return output  # a request asked again (a judge re-asked after an invalid answer): the recording keeps the first answer
        self._written.add(key)
        line = Recorded(key=key, model=self.inner.name, output=output).model_dump_json() + "\n"
        with self.path.open("a", encoding="utf-8") as out:
            out.write(line)
            out.flush()
            os.fsync(out.fileno())
        return output

    def classify_error(self, error: BaseException) -> RetryDecision:
        return self.inner.classify_error(error)

    async def aclose(self) -> None:
        await self.inner.aclose()

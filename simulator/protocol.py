"""What the runner needs from a user: the next utterance given the visible dialogue, or None to stop."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from contracts.evidence import Message


class User(Protocol):
    name: str

    async def next_message(self, conversation: Sequence[Message]) -> str | None: ...

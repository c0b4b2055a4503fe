"""The scripted user: plays fixed user turns (a gold path's, or a trajectory file's) and then stops."""

from __future__ import annotations

from collections.abc import Sequence

from contracts.evidence import Message


class ScriptedUser:
    name = "scripted"

    def __init__(self, utterances: Sequence[str]) -> None:
        self.utterances = list(utterances)

    async def next_message(self, conversation: Sequence[Message]) -> str | None:
        """The next scripted utterance, or None (stop) once all were said."""
        said = sum(1 for m in conversation if m.role == "user")
        return self.utterances[said] if said < len(self.utterances) else None

"""Versioned prompt files: the text a role model is given and a fingerprint the run manifest records."""

from __future__ import annotations

import hashlib
from functools import cached_property
from pathlib import Path


class VersionedPrompt:
    """`<dir>/<version>.md`, read once. The fingerprint (`version:sha256[:12]`) changes with any edit,
    so a manifest always says exactly which prompt produced a run's dialogues or verdicts."""

    def __init__(self, directory: Path, version: str) -> None:
        self.version = version
        self.path = directory / f"{version}.md"

    @cached_property
    def text(self) -> str:
        return self.path.read_text(encoding="utf-8")

    @property
    def fingerprint(self) -> str:
        return f"{self.version}:{hashlib.sha256(self.text.encode()).hexdigest()[:12]}"

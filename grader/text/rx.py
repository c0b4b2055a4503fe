"""Regular expressions built at run time from a phrase or a word (`re.escape(...)` inside a pattern),
compiled once per pattern.

`re`'s own cache keeps 512 patterns; the judge builds thousands of distinct ones from the catalog's phrases
and the replies' words, which evicts them and the module-level constant patterns alike (a judge-check
compiled ~7,900 patterns, most of them again and again). These keep their compiled form here instead."""

from __future__ import annotations

import re
from functools import lru_cache


@lru_cache(maxsize=16384)
def rx(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, kept."""
    return re.compile(pattern, flags)

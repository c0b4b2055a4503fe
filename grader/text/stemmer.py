"""Word stems for phrase matching: the Porter stemmer (M. F. Porter, "An algorithm for suffix stripping",
1980), from the Snowball project's `snowballstemmer` package. "cancelled", "canceled" and "cancellation"
share the stem "cancel"; "listed" / "lists" / "listing" share "list".

The evidence judge matches a phrase's content words by their stems (`grader.text.matching`), so a reply
may inflect them. Words of one or two letters are left as they are, as the published algorithm says
("is", "us" and "as" are not "i", "u" and "a").
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

import snowballstemmer


@cache
def _porter() -> Any:
    """One stemmer per process, built on first use (no work at import time)."""
    return snowballstemmer.stemmer("porter")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Porter stem of a lower-case word."""
    if len(word) <= 2:
        return word
    return str(_porter().stemWord(word))

"""A process-wide memo for pure judges: the offline reply judge's and the consent rule's answers by their
inputs (a deterministic agent's rounds, a task's battery cases and each calibration measurement ask the
same questions again). A leaf module: the judges import it, it imports nothing of theirs."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TypeVar

T = TypeVar("T")


def remembered(store: dict[Hashable, T], key: Hashable, make: Callable[[], T], limit: int) -> T:
    """`store[key]`, made by `make` the first time; the store is emptied whole when it holds `limit` answers."""
    found = store.get(key)
    if found is None:
        if len(store) >= limit:
            store.clear()
        found = store[key] = make()
    return found

"""Status vocabularies derived from the worlds: the `Literal` values of every status/stage/state field of
every domain's world models (`servers.domains.<d>.world`), written as words ("in_progress" → "in progress").

The evidence judge uses them to see that "ORD-9006 is Shipped" states ANOTHER status than the criterion's
"cancelled" for the same record. Derived from the tools' own types, never per task; loaded on first use.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
import typing
from functools import cache

from pydantic import BaseModel

log = logging.getLogger(__name__)
STATUS_FIELDS = ("status", "stage", "state")


@cache
def status_sets() -> tuple[frozenset[str], ...]:
    """Every status vocabulary (lower-cased words) with at least two members."""
    import servers.domains as domains

    sets: set[frozenset[str]] = set()
    for module in pkgutil.iter_modules(domains.__path__):
        try:
            world = importlib.import_module(f"servers.domains.{module.name}.world")
        except ImportError:
            log.debug("no world module for %s", module.name)
            continue
        for obj in vars(world).values():
            if not (isinstance(obj, type) and issubclass(obj, BaseModel)):
                continue
            for name, field in obj.model_fields.items():
                if any(k in name for k in STATUS_FIELDS) and typing.get_origin(field.annotation) is typing.Literal:
                    words = frozenset(str(v).lower().replace("_", " ") for v in typing.get_args(field.annotation))
                    if len(words) >= 2:
                        sets.add(words)
    return tuple(sorted(sets, key=sorted))


def rivals(word: str) -> frozenset[str]:
    """The other statuses of every vocabulary `word` belongs to (empty when it is no status word)."""
    word = word.lower().replace("_", " ").strip()
    out: set[str] = set()
    for words in status_sets():
        if word in words:
            out |= words - {word}
    return frozenset(out)

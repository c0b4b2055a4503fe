"""Value comparison and state paths shared by the checks (and by structural validation)."""

from __future__ import annotations

import json
import math
from typing import Any

from grader.textfacts import is_text_matcher, text_matches

MISSING = object()
"""Sentinel for a state path that does not exist."""


def get_path(state: Any, path: str) -> Any:
    """Resolve a dotted path (`accounts.ACC-1002.balance`, `transaction_log.0.amount`); MISSING if absent."""
    node = state
    for part in path.split("."):
        if isinstance(node, dict):
            if part not in node:
                return MISSING
            node = node[part]
        elif isinstance(node, list):
            if not part.lstrip("-").isdigit() or not -len(node) <= int(part) < len(node):
                return MISSING
            node = node[int(part)]
        else:
            return MISSING
    return node


def _as_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.replace(",", "").lstrip("$"))
        except ValueError:
            return None
    return None


def values_match(expected: Any, actual: Any) -> bool:
    """Equality as a reviewer means it: 50 == 50.0 == "50" for numbers; dicts and lists structurally; an
    expected text matcher (`{text_states: [...]}`, grader/textfacts.py) by the facts the text states."""
    if is_text_matcher(expected):
        return text_matches(expected, actual)
    if isinstance(expected, bool) or isinstance(actual, bool):
        return isinstance(expected, bool) and isinstance(actual, bool) and expected == actual
    if isinstance(expected, (int, float)):
        number = _as_number(actual)
        return number is not None and math.isclose(float(expected), number, rel_tol=0, abs_tol=1e-6)
    if isinstance(expected, dict):
        return isinstance(actual, dict) and expected.keys() == actual.keys() and all(
            values_match(v, actual[k]) for k, v in expected.items()
        )
    if isinstance(expected, list):
        return isinstance(actual, list) and len(expected) == len(actual) and all(
            values_match(e, a) for e, a in zip(expected, actual, strict=True)
        )
    return expected == actual


def args_match(expected: dict[str, Any], actual: dict[str, Any]) -> bool:
    """Every asserted argument is present and equal; other arguments are free."""
    return all(key in actual and values_match(value, actual[key]) for key, value in expected.items())


def show(value: Any) -> str:
    if value is MISSING:
        return "<missing>"
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 160 else text[:157] + "..."


def collection_items(value: Any) -> list[tuple[Any, Any]] | None:
    """A collection as (key, item) pairs: a dict's items, or a list's items keyed by their `id`-like field
    (else by their JSON form). None when the value is not a collection."""
    if isinstance(value, dict):
        return list(value.items())
    if isinstance(value, list):
        return [(_item_key(item), item) for item in value]
    return None


def _item_key(item: Any) -> Any:
    if isinstance(item, dict):
        for key, value in item.items():
            if (key == "id" or key.endswith("_id")) and isinstance(value, str):
                return value
    return json.dumps(item, sort_keys=True, default=str)


def changed_paths(before: Any, after: Any, prefix: str = "") -> list[str]:
    """The most specific dotted paths whose values differ (added and removed keys included)."""
    if isinstance(before, dict) and isinstance(after, dict):
        out: list[str] = []
        for key in list(before) + [k for k in after if k not in before]:
            path = f"{prefix}.{key}" if prefix else str(key)
            if key not in before or key not in after:
                out.append(path)
            elif before[key] != after[key]:
                out.extend(changed_paths(before[key], after[key], path))
        return out
    if before == after:
        return []
    return [prefix or "<root>"]


def path_allowed(path: str, allowed: list[str]) -> bool:
    """Whether `path` is at or under one of the `allowed` dotted paths (`*` matches one segment)."""
    parts = path.split(".")
    for pattern in allowed:
        want = pattern.split(".")
        if len(want) <= len(parts) and all(w == "*" or w == p for w, p in zip(want, parts, strict=False)):
            return True
    return False

"""Text safety: what models and tools produce is made safe before it is stored or shown.

Model replies, tool arguments and tool results are untrusted text. Before any of it reaches a trial
record, a trace, a report or a terminal it goes through `safe_text` / `safe_value`:

- lone UTF-16 surrogates (which cannot be encoded as UTF-8 and used to crash the record writer) become
  U+FFFD;
- control characters other than tab, newline and carriage return are dropped (they can rewrite a
  terminal or hide text in a report);
- text longer than a cap is cut, with a visible marker saying how much was cut, so nothing is silently
  lost and no single value can blow up a record.

`short` renders a value for an error message: quoted, clipped, never the whole of a 1 MB id.
"""

from __future__ import annotations

import math
import re
from typing import Any

REPLY_MAX_CHARS = 20_000
"""A visible assistant or user message: far above any real reply, far below what breaks a report."""

VALUE_MAX_CHARS = 10_000
"""One string inside a tool's arguments or result."""

ERROR_MAX_CHARS = 1_000
"""An error message."""

MAX_DEPTH = 32
MAX_ITEMS = 1_000

_SURROGATE = re.compile(r"[\ud800-\udfff]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def truncation_marker(cut: int) -> str:
    return f"…[truncated {cut:,} chars]"


def has_unsafe_text(text: str) -> bool:
    """Whether `text` holds a lone surrogate or a control character that `safe_text` would change."""
    return bool(_SURROGATE.search(text) or _CONTROL.search(text))


def safe_text(text: str, max_chars: int = VALUE_MAX_CHARS) -> str:
    """`text` with lone surrogates replaced, control characters dropped, and a length cap with a
    visible marker. Idempotent for text already safe and within the cap."""
    if not isinstance(text, str):
        text = str(text)
    if _SURROGATE.search(text):
        text = _SURROGATE.sub("\ufffd", text)
    if _CONTROL.search(text):
        text = _CONTROL.sub("", text)
    if len(text) > max_chars:
        marker = truncation_marker(0)
        keep = max(max_chars - len(marker) - 8, 0)
        text = text[:keep] + truncation_marker(len(text) - keep)
    return text


def safe_value(value: Any, max_chars: int = VALUE_MAX_CHARS, _depth: int = 0) -> Any:
    """A JSON-safe copy of `value`: strings (and keys) made safe, non-finite floats replaced by their
    name as a string (JSON has no NaN), very deep or very wide structures clipped with a marker."""
    if isinstance(value, str):
        return safe_text(value, max_chars)
    if isinstance(value, bool) or value is None or isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if _depth >= MAX_DEPTH:
        return "…[nested too deep]"
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for i, (key, item) in enumerate(value.items()):
            if i >= MAX_ITEMS:
                out["…"] = f"[{len(value) - MAX_ITEMS:,} more keys truncated]"
                break
            out[safe_text(str(key), 200)] = safe_value(item, max_chars, _depth + 1)
        return out
    if isinstance(value, list | tuple):
        items = [safe_value(item, max_chars, _depth + 1) for item in list(value)[:MAX_ITEMS]]
        if len(value) > MAX_ITEMS:
            items.append(f"…[{len(value) - MAX_ITEMS:,} more items truncated]")
        return items
    return safe_text(repr(value), max_chars)


def short(value: Any, max_chars: int = 60) -> str:
    """A value as it may appear in an error message: `repr`, made safe, clipped with a marker."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) > max_chars:
        text = text[:max_chars] + truncation_marker(len(text) - max_chars)
        return repr(safe_text(text, max_chars + 40))
    return repr(safe_text(text, max_chars + 40))


def json_problem(value: Any) -> str | None:
    """Why `value` (plain Python data) is not strict JSON text, or None: a non-finite number or unsafe
    text (lone surrogate, control character) anywhere, keys included."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float):
            if not math.isfinite(item):
                return "a non-finite number"
        elif isinstance(item, str):
            if has_unsafe_text(item):
                return "invalid text (a lone surrogate or a control character)"
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple | set | frozenset):
            stack.extend(item)
    return None

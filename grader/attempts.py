"""When two recorded calls are the same attempt: the comparison the policy rule on refused calls
(`grader/refusals.py`) and the attempt caps (`attempt_limits`, `grader/checks.py`) share.

Both read canonical evidence (`grader/semantics.py`): every argument already went through its parameter's
own type, so a value the tool normalises (a PIN with a no-break space, full-width digits, `"64.90"`) is
compared in the form the world compared it. On top of that:

- **unchanged**: same tool, every argument equal (`values_match`, defaults filled in on both sides);
- **the same reason**: both calls were refused with the same status code *and* the same reason text, as
  the world wrote them in the recorded result (`{"refused": true, "status": 422, "reason": "Insufficient
  funds", ...}`); **the same answer**: the whole recorded refusal equal, details included (what is
  missing, the balance available). The reason names the rule that refused (the world's own words, not the arguments), so
  equal code and reason mean the retry ran into the same rule. A record without a readable code and
  reason (a hand-built trace) never has "the same reason";
- **the same attempt**: unchanged, or refused twice for the same reason with arguments that differ only
  trivially: a number within 1% (at least one cent) of the other, text equal once case, spacing,
  punctuation, invisible characters and combining marks are set aside, free text (a note, a reason)
  whatever it says. A retry the world refuses again for the same reason with such a change did not act on
  the refusal: $64.91 after "Insufficient funds" at $64.90 is the same payment attempted again.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Collection
from typing import Any

from contracts.evidence import ToolCallRecord
from grader.values import values_match

NUMBER_TOLERANCE = 0.01
"""Relative: two numbers within 1% of the larger are the same value for a retry refused for the same reason."""

MIN_TOLERANCE = 0.01
"""Absolute floor of the tolerance (one cent): +$0.01 on any amount is a trivial change."""

_SET_ASIDE = frozenset({"Cf", "Mn", "Me", "Zs", "Zl", "Zp", "Cc", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po"})
"""Categories a text skeleton drops: invisible and combining characters, spaces, punctuation."""


def refusal_of(call: ToolCallRecord) -> tuple[int, str] | None:
    """(status code, reason) of a refused call, as the world recorded it; None when not readable."""
    result = call.result
    if call.status != "refused" or not isinstance(result, dict):
        return None
    code, reason = result.get("status"), result.get("reason")
    if isinstance(code, bool) or not isinstance(code, int) or not isinstance(reason, str):
        return None
    return code, reason


def same_answer(a: ToolCallRecord, b: ToolCallRecord) -> bool:
    """Both refused with the very same recorded answer: code, reason and every detail the world gave."""
    return refusal_of(a) is not None and a.status == b.status == "refused" and values_match(a.result, b.result)


def describe_refusal(call: ToolCallRecord) -> str:
    found = refusal_of(call)
    return f"code {found[0]}, {found[1]!r}" if found else "code not recorded"


def unchanged(a: ToolCallRecord, b: ToolCallRecord) -> bool:
    """Same tool and every (canonical) argument equal."""
    return a.tool == b.tool and values_match(a.arguments, b.arguments)


def skeleton(text: str) -> str:
    """Text with case, spacing, punctuation, invisible characters and combining marks set aside."""
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text)).casefold()
    return "".join(ch for ch in folded if unicodedata.category(ch) not in _SET_ASIDE)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def trivially_equal(a: Any, b: Any) -> bool:
    """Equal, or different only in a way that cannot address a refusal (see the module doc)."""
    if values_match(a, b):
        return True
    x, y = _number(a), _number(b)
    if x is not None and y is not None:
        return abs(x - y) <= max(MIN_TOLERANCE, NUMBER_TOLERANCE * max(abs(x), abs(y))) + 1e-9
    if isinstance(a, str) and isinstance(b, str):
        return skeleton(a) == skeleton(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(trivially_equal(p, q) for p, q in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(trivially_equal(a[k], b[k]) for k in a)
    return False


def changed_arguments(a: ToolCallRecord, b: ToolCallRecord) -> dict[str, tuple[Any, Any]]:
    """Argument -> (before, after) for every argument whose canonical value differs."""
    keys = list(a.arguments) + [k for k in b.arguments if k not in a.arguments]
    missing = object()
    out = {}
    for key in keys:
        before, after = a.arguments.get(key, missing), b.arguments.get(key, missing)
        if before is missing or after is missing or not values_match(before, after):
            out[key] = (None if before is missing else before, None if after is missing else after)
    return out


def same_reason_retry(a: ToolCallRecord, b: ToolCallRecord, free_text: Collection[str] = ()) -> bool:
    """Both refused for the same reason (code and text) and the arguments differ only trivially;
    `free_text` names the tool's free-text parameters, whose wording never addresses a refusal."""
    reason = refusal_of(a)
    if a.tool != b.tool or reason is None or reason != refusal_of(b) or a.arguments.keys() != b.arguments.keys():
        return False
    return all(key in free_text or trivially_equal(a.arguments[key], b.arguments[key]) for key in a.arguments)


def same_attempt(a: ToolCallRecord, b: ToolCallRecord, free_text: Collection[str] = ()) -> bool:
    """Whether `b` attempts again what `a` attempted: unchanged, or a same-reason retry (module doc)."""
    return unchanged(a, b) or same_reason_retry(a, b, free_text)

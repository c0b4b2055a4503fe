"""The value-aware free-text matcher: the facts a note, reason or message must state, right.

A contract asserts free text (an argument typed `servers.base.FreeText`, or a state field holding one)
by the facts it must carry, not by its wording:

    note: {text_states: ["2026-12-04", "14:00", "CASE-5016"], text_may_also: ["09:00"]}

- every `text_states` item must occur in the text: an item that IS a value (a time, date, amount, id;
  `grader.text.values.phrase_value`) as that value in any written form ("2 pm" states "14:00"), any other
  item (a name, a street) as whole words, case-insensitively;
- no other value of the same sort may be stated: a note with the right time and also another time
  records a wrong time. Sorts are finer than the reader's kinds where the kinds mix facts: money
  (a currency sign or word, or two decimals) is not a count, and an id is of the sort of its letter
  prefix (`ORD-1001` and `ORD-1002` are rivals, `CUST-1` is another sort). `text_may_also` lists the
  other values of those sorts the text may state (the old slot a rescheduling note names).

The reader is the reply judge's (`grader.text.values.find_values`), so a fact written any way the judge
accepts in a reply is accepted in a note. Nothing here knows a task: the contract names the facts.
"""

from __future__ import annotations

import re
from typing import Any

from grader.text.values import Value, find_values, phrase_value

STATES = "text_states"
MAY_ALSO = "text_may_also"
KEYS = frozenset({STATES, MAY_ALSO})

_MONEY = re.compile(r"[$€£]|usd|eur|dollars?|\.\d\d\b", re.I)


def is_text_matcher(value: Any) -> bool:
    """Whether an expected value is a text matcher (a mapping with `text_states` and only matcher keys)."""
    return isinstance(value, dict) and STATES in value and set(value) <= KEYS


def _sort(value: Value, text: str) -> tuple[str, str]:
    """The sort two values must share to be rivals: kind, refined for money and id prefixes."""
    if value.kind == "number":
        after = text[value.end : value.end + 9]
        return ("number", "money" if _MONEY.search(value.text) or re.match(r"\s*(?:dollars?|usd|eur)\b", after, re.I) else "plain")
    if value.kind == "id":
        return ("id", re.match(r"[A-Z]*", str(value.value)).group(0))  # type: ignore[union-attr]
    return (value.kind, "")


def _word_pattern(phrase: str) -> re.Pattern[str]:
    words = [re.escape(w) for w in phrase.split()]
    return re.compile(r"(?<![A-Za-z0-9])" + r"\s+".join(words) + r"(?![A-Za-z0-9])", re.I)


def _same(expected: Value, found: Value) -> bool:
    if expected.kind == "id":
        return found.kind == "id" and found.value == expected.value
    return expected.same(found) or found.same(expected)


def text_problems(spec: dict[str, Any], actual: Any) -> list[str]:
    """Why `actual` does not state the matcher's facts (empty when it does)."""
    if not isinstance(actual, str):
        return [f"expected text, got {type(actual).__name__}"]
    stated = find_values(actual)
    problems: list[str] = []
    sorts: set[tuple[str, str]] = set()
    allowed: list[Value] = []
    for phrase in spec.get(STATES) or []:
        want = phrase_value(str(phrase))
        if want is None:
            if not _word_pattern(str(phrase)).search(actual):
                problems.append(f"does not state {phrase!r}")
            continue
        sorts.add(_sort(want, str(phrase)))
        allowed.append(want)
        if not any(_same(want, v) for v in stated):
            problems.append(f"does not state {phrase!r}")
    for phrase in spec.get(MAY_ALSO) or []:
        other = phrase_value(str(phrase))
        if other is not None:
            allowed.append(other)
    for value in stated:
        if _sort(value, actual) in sorts and not any(_same(a, value) for a in allowed):
            problems.append(f"also states {value.text!r}, another {value.kind} than the facts it must state")
    return problems


def text_matches(spec: dict[str, Any], actual: Any) -> bool:
    return not text_problems(spec, actual)

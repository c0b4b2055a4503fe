"""Values in free text: money and numbers, dates, clock times and ids, recognised in their common written
forms and reduced to one canonical value each, so the evidence judge compares facts, not spellings.

Kinds and canonical forms:
- ``number`` (money, counts, percentages): a `Decimal` — ``$1,450`` = ``1450.00`` = ``1,450 dollars``.
  A percentage keeps its own kind (``percent``) so ``4%`` never matches a count of 4.
- ``date``: ``(year | None, month, day)`` — ``2026-12-15`` = ``December 15, 2026`` = ``15 Dec 2026`` =
  ``Dec 15th`` = ``12/15/2026`` (month first, four-digit year only). A date inside an ISO datetime
  (``2026-11-29T10:15``) is a date (and its time a time). A written date without a year (``Dec 15``)
  leaves the year open: it equals a dated value with the same month and day (the worlds live in one known
  year, and a reply naming the day without the year states the same fact); a reply naming another YEAR
  states another date.
- ``time``: minutes after midnight — ``1 pm`` = ``13:00`` = ``1:00 PM``; ``noon`` (``12 noon``), ``midnight``.
  A bare ``10:00`` is 24-hour. A range's first hour takes the range's am/pm ("8 to 10 am", "8-10am",
  "between 8 and 10 am" are 08:00 and 10:00; "11 to 1 pm" is 11:00 and 13:00: a range runs forward).
- ``cents``: ``10 cents`` / ``ten cents`` / ``10¢`` are the amount ``0.10``, money as ``$0.10`` is.
- ``id``: letters-dash-digits ids (``CASE-5016``, ``DSP-3001``) and long letter+digit codes
  (``1Z999AA10123456784``), upper-cased: ids match case-insensitively and their digits are never numbers.

- cardinal number words (``three``, ``twelve``, ``twenty-five``, ``ninety nine``; zero to ninety-nine) are
  ``number`` values too, because counts are written that way ("three open tickets"). ``one`` counts only
  where it counts something (``one charge``, ``only one``), not as a pronoun (``the one you booked``,
  ``one of them``); a word joined to a non-number by a hyphen (``one-way``, ``two-factor``) is no count.
  Larger numbers and approximate words (``a dozen``, ``a couple``, ``hundreds``) are not values: amounts are
  written in digits, and an approximate word states no exact count.

Recognition is regex-based and deliberately conservative: it never guesses a value that is not written
as one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache

MONTHS = {
    name: i
    for i, names in enumerate(
        [
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
            ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"),
            ("november", "nov"), ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_MONTH = r"(?P<{g}>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<{g}>[0-3]?\d)(?:st|nd|rd|th)?"

ID_RE = re.compile(r"(?<![A-Za-z0-9])(?:[A-Za-z]{2,}[A-Za-z0-9]*-(?:[A-Za-z0-9]+-)*[A-Za-z0-9]*\d[A-Za-z0-9]*|(?=[A-Za-z0-9]*\d)(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{10,})(?![A-Za-z0-9])")
ISO_DT_RE = re.compile(r"(?<![\d-])(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})(?:[T ](?P<hh>\d{2}):(?P<mm>\d{2})(?::\d{2})?)?(?!\d)")
US_DATE_RE = re.compile(r"(?<![\d/])(?P<m>1[0-2]|0?[1-9])/(?P<d>[0-3]?\d)/(?P<y>\d{4})(?![\d/])")
MDY_RE = re.compile(
    r"(?<![a-z])" + _MONTH.format(g="mon") + r"\s+" + _DAY.format(g="day") + r"(?![\d:])(?:,?\s+(?P<year>\d{4})(?!\d))?", re.I
)
DMY_RE = re.compile(
    r"(?<![\d.,])" + _DAY.format(g="day") + r"(?:\s+of)?\s+" + _MONTH.format(g="mon") + r"(?![a-z])(?:,?\s+(?P<year>\d{4})(?!\d))?", re.I
)
TIME_RE = re.compile(
    r"(?<![\d.:$])(?P<h>[01]?\d|2[0-3])(?::(?P<m>[0-5]\d))?\s*(?P<ap>[ap])\.?\s?m\b\.?|(?<![\d.:$])(?P<h24>[01]?\d|2[0-3]):(?P<m24>[0-5]\d)(?!\d|:\d)",
    re.I,
)
NAMED_TIME_RE = re.compile(r"(?:\b12\s+)?\b(?P<w>noon|midday|midnight)\b", re.I)
TIME_RANGE_RE = re.compile(
    r"(?<![\d.:$])(?P<first>(?P<h1>[01]?\d|2[0-3])(?::(?P<m1>[0-5]\d))?(?:\s*(?P<ap1>[ap])\.?\s?m\b\.?)?)"
    r"\s*(?:-|\u2013|\u2014|to|till|until|and)\s*"
    r"(?P<h2>[01]?\d|2[0-3])(?::(?P<m2>[0-5]\d))?\s*(?P<ap2>[ap])\.?\s?m\b\.?",
    re.I,
)
"""An hour range whose am/pm is written once, at its end ("8 to 10 am", "8-10am", "between 8 and 10 am")."""
CENTS_RE = re.compile(r"(?<![\d.,$])(?P<n>\d{1,2})\s?(?:cents?\b|\u00a2)", re.I)
CENT_WORDS_RE = re.compile(r"(?<![A-Za-z-])(?P<w>[a-z]+(?:[-\s][a-z]+)?)\s+cents?\b", re.I)
NUMBER_RE = re.compile(
    r"(?<![A-Za-z0-9.,\-])(?<![A-Za-z]-)(?P<cur>(?:\$|usd|eur|€|£)\s?)?(?P<n>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?P<pct>\s?%|\s?percent\b)?(?![\d,]*\d)(?!\.\d)",
    re.I,
)


_ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
NUMBER_WORDS = {w: i for i, w in enumerate(_ONES)} | {w: 20 + 10 * i for i, w in enumerate(_TENS)}
NUMBER_WORD_RE = re.compile(
    r"(?<![A-Za-z0-9-])(?:(?P<tens>" + "|".join(_TENS) + r")(?:[-\s](?P<unit>" + "|".join(_ONES[1:10]) + r"))?|(?P<ones>"
    + "|".join(sorted(_ONES, key=len, reverse=True)) + r"))(?![A-Za-z0-9]|-[A-Za-z])",
    re.I,
)
ONE_IS_NO_COUNT_BEFORE = frozenset("the this that which each every any no another someone anyone everyone noone a an".split())
"""Words after which ``one`` is a pronoun ("the one you booked"), not a count."""
ONE_IS_NO_COUNT_AFTER = frozenset(
    "of or and nor but more another other others the a an to is was are were be by in on at for with as if than "
    "i you we it he she they that which who whom whose this these those".split()
)
"""Words after which ``one`` is no count ("one of them", "one or the other", "one is ready")."""
ONE_IS_A_COUNT_BEFORE = frozenset("only exactly just".split())
"""``only one``, ``exactly one``, ``just one`` state a count even at the end of a clause."""


def _number_word_value(text: str, m: re.Match[str]) -> int | None:
    """The count a number-word match states, or None when ``one`` is used as a pronoun."""
    if m["ones"] is not None:
        word = m["ones"].lower()
        if word == "one":
            before = re.findall(r"[a-z']+", text[: m.start()].lower()[-40:])
            after = re.match(r"\s+([A-Za-z][a-z'-]*)", text[m.end() :])
            prev = before[-1] if before else ""
            if prev in ONE_IS_A_COUNT_BEFORE:
                return 1
            if prev in ONE_IS_NO_COUNT_BEFORE or after is None or after.group(1).lower() in ONE_IS_NO_COUNT_AFTER:
                return None
        return NUMBER_WORDS[word]
    return NUMBER_WORDS[m["tens"].lower()] + (NUMBER_WORDS[m["unit"].lower()] if m["unit"] else 0)


@dataclass(frozen=True)
class Value:
    """One value found in a text: its kind, canonical value and character span."""

    kind: str
    value: object
    start: int
    end: int
    text: str

    def same(self, other: Value) -> bool:
        """Equal facts: same kind and canonical value (a yearless date equals any year's same day)."""
        if self.kind != other.kind:
            # a plain number phrase ("31.1") is satisfied by the same percentage ("31.1%")
            return {self.kind, other.kind} == {"number", "percent"} and self.kind == "number" and self.value == other.value
        if self.kind == "date":
            (y1, m1, d1), (y2, m2, d2) = self.value, other.value  # type: ignore[misc]
            return (m1, d1) == (m2, d2) and (y1 is None or y2 is None or y1 == y2)
        return self.value == other.value


def _valid_date(month: int, day: int) -> bool:
    return 1 <= month <= 12 and 1 <= day <= 31


def _overlaps(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(s < end and start < e for s, e in spans)


def find_values(text: str) -> list[Value]:
    """Every value in `text`, by position, without overlaps: ids first (their digits are not numbers),
    then dates and times (their digits are not numbers), then numbers, then number words. A fresh list each call; the
    scan itself is kept per text (values are frozen), because the judge reads each sentence many times."""
    return list(_values_in(text))


@lru_cache(maxsize=16384)
def _values_in(text: str) -> tuple[Value, ...]:
    return tuple(_scan_values(text))


def _scan_values(text: str) -> list[Value]:
    found: list[Value] = []
    taken: list[tuple[int, int]] = []

    def add(kind: str, value: object, start: int, end: int) -> None:
        if not _overlaps(taken, start, end):
            found.append(Value(kind, value, start, end, text[start:end]))
            taken.append((start, end))

    for m in ISO_DT_RE.finditer(text):
        y, mo, d = int(m["y"]), int(m["m"]), int(m["d"])
        if _valid_date(mo, d):
            add("date", (y, mo, d), m.start(), m.start() + 10)
            if m["hh"] is not None:
                taken.remove((m.start(), m.start() + 10))
                add("time", int(m["hh"]) * 60 + int(m["mm"]), m.start("hh"), m.end("mm"))
                taken.append((m.start(), m.start() + 10))
    for m in ID_RE.finditer(text):
        if not _overlaps(taken, m.start(), m.end()):
            add("id", m.group(0).upper(), m.start(), m.end())
    for m in US_DATE_RE.finditer(text):
        if _valid_date(int(m["m"]), int(m["d"])):
            add("date", (int(m["y"]), int(m["m"]), int(m["d"])), m.start(), m.end())
    for regex in (MDY_RE, DMY_RE):
        for m in regex.finditer(text):
            month, day = MONTHS[m["mon"].lower()], int(m["day"])
            if m["mon"].lower() == "may" and regex is MDY_RE and not m["year"] and m.start() > 0 and text[max(0, m.start() - 1)].isalpha():
                continue
            if _valid_date(month, day):
                add("date", (int(m["year"]) if m["year"] else None, month, day), m.start(), m.end())
    for m in TIME_RANGE_RE.finditer(text):
        _add_range(m, add)
    for m in CENTS_RE.finditer(text):
        add("number", (Decimal(m["n"]) / 100).normalize(), m.start(), m.end())
    for m in CENT_WORDS_RE.finditer(text):
        words = NUMBER_WORD_RE.fullmatch(m["w"])
        if words is not None and (count := _number_word_value(m["w"] + " cents", words)) is not None and count < 100:
            add("number", (Decimal(count) / 100).normalize(), m.start(), m.end())
    for m in TIME_RE.finditer(text):
        if m["h24"] is not None:
            add("time", int(m["h24"]) * 60 + int(m["m24"]), m.start(), m.end())
        else:
            hour = int(m["h"])
            if not 1 <= hour <= 12:
                continue
            hour = hour % 12 + (12 if m["ap"].lower() == "p" else 0)
            add("time", hour * 60 + int(m["m"] or 0), m.start(), m.end())
    for m in NAMED_TIME_RE.finditer(text):
        add("time", 0 if m["w"].lower() == "midnight" else 720, m.start(), m.end())
    for m in NUMBER_RE.finditer(text):
        try:
            number = Decimal(m["n"].replace(",", "")).normalize()
        except InvalidOperation:
            continue
        add("percent" if m["pct"] else "number", number, m.start(), m.end())
    for m in NUMBER_WORD_RE.finditer(text):
        count = _number_word_value(text, m)
        if count is not None:
            add("number", Decimal(count).normalize(), m.start(), m.end())
    return sorted(found, key=lambda v: v.start)


def _add_range(m: re.Match[str], add: Callable[[str, object, int, int], None]) -> None:
    """Both ends of an hour range (TIME_RANGE_RE): the first hour takes its own am/pm, else the end's,
    unless that would put it after the end (then the other half of the day: "11 to 1 pm")."""
    h1, h2 = int(m["h1"]), int(m["h2"])
    if not (1 <= h2 <= 12 and (m["ap1"] is not None or 1 <= h1 <= 12)):
        return
    end = (h2 % 12 + (12 if m["ap2"].lower() == "p" else 0)) * 60 + int(m["m2"] or 0)
    ap1 = (m["ap1"] or m["ap2"]).lower()
    start = (h1 % 12 + (12 if ap1 == "p" else 0)) * 60 + int(m["m1"] or 0)
    if m["ap1"] is None and start > end:
        start -= 12 * 60
    add("time", start, m.start(), m.end("first"))
    add("time", end, m.start("h2"), m.end())


def phrase_value(phrase: str) -> Value | None:
    """The value a phrase IS, when the whole phrase is one value (``$40``, ``40.00``, ``December 2``,
    ``2026-12-02``, ``10:00``, ``CASE-5016``, ``4.0%``); None for words or a value inside words
    (``30 days``, ``tier 2``). An id prefix like ``CASE-`` is not a value (it matches as text)."""
    stripped = phrase.strip().rstrip(".")
    values = find_values(stripped)
    if len(values) != 1:
        return None
    value = values[0]
    rest = (stripped[: value.start] + stripped[value.end :]).strip().lower()
    if rest in ("", "dollars", "usd", "$"):
        return value
    return None


def phrase_count(phrase: str) -> tuple[Value, tuple[str, ...]] | None:
    """The count a phrase states with its noun (``3 items``, ``one member``, ``30 days``, ``2 open
    tickets``): a number (digits or words) first, then one to four words and nothing else; None
    otherwise. The judge matches it as that number in any written form followed by the same words."""
    stripped = phrase.strip().rstrip(".")
    values = find_values(stripped)
    if len(values) != 1 or values[0].start != 0 or values[0].kind not in ("number", "percent"):
        return None
    rest = stripped[values[0].end :]
    if not re.match(r"[\s-]", rest):  # "12A" is a code, not a count of "A"
        return None
    words = re.findall(r"[A-Za-z][A-Za-z']*", rest)
    if not 1 <= len(words) <= 4 or re.sub(r"[A-Za-z']+|[\s-]", "", rest):
        return None
    return values[0], tuple(w.lower() for w in words)


def singular(word: str) -> str:
    """A crude singular, enough to say "items" and "item", "hours" and "hour" name the same thing."""
    word = word.lower()
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word

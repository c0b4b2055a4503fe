"""Sentences and units of a transcript: normal form, phrase patterns, negation, predicates, and whether a
unit is a sentence that can carry a fact or a keyword line / list / dump that cannot (rules 3-4 of
`grader.text.evidence`).

A keyword line is recognised by what it lacks - a predicate between its values - never by its length:
"Done (REQ-1)." and "You're 5,800 miles short." state something; "Balance/tier/bag: 3,100 miles - blue -
silver - gold" states nothing, whatever its colon.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from grader.text.values import Value, find_values, phrase_value


def normalise(text: str) -> str:
    """Lowercase, drop thousands separators and currency signs, fold whitespace: '$1,000.00' ~ '1000.00'."""
    text = text.lower().replace("\u2019", "'")
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text)
    text = text.replace("$", "")
    return re.sub(r"\s+", " ", text).strip()


@lru_cache(maxsize=8192)
def phrase_pattern(phrase: str) -> re.Pattern[str]:
    """Whole-word, number-boundary matching of a normalised phrase: "50" matches "$50" and "50.00" but not
    "150", "0.50" or "50.75"; "paid" does not match "unpaid"; a date matches inside an ISO datetime
    ("2026-11-29" in "2026-11-29T10:15"). A trailing `*` makes the phrase a word stem: "currenc*" matches
    "currency" and "currencies"."""
    text = normalise(phrase)
    stem = text.endswith("*")
    text = text.rstrip("*")
    left = r"(?<![a-z0-9])(?<!\d\.)" if re.match(r"[a-z0-9]", text[:1]) else ""
    right = r"(?!(?!t\d\d:)[a-z0-9])(?!\.0*[1-9])" if re.search(r"[a-z0-9]$", text[-1:]) and not stem else ""
    return re.compile(left + re.escape(text) + right)



def _sentences(message: str) -> list[str]:
    parts = re.split(r"(?<=[.!?])\s+|\n+", message)
    return [p for p in (part.strip() for part in parts) if p]



# ---- negation ------------------------------------------------------------------------------------

NEGATORS = frozenset(
    "not never no nothing none neither nor cannot can't couldn't didn't don't doesn't isn't wasn't aren't weren't "
    "haven't hasn't hadn't won't wouldn't shouldn't unable without nobody".split()
)
_CLAUSE_BREAK = re.compile(r"[,;:()!?\u2014]|\s-\s|\b(?:but|because|so|since|although|though|while|and|or|which|however|whereas|instead|until|unless)\b")
NEGATION_WINDOW = 5
"""How many words before a match a negator may stand (same clause) to negate it."""


def negated_before(prefix: str) -> bool:
    """Whether the tail of `prefix` (normalised text just before a match) negates what follows."""
    clause = _CLAUSE_BREAK.split(prefix)[-1]
    words = re.findall(r"[a-z']+", clause)[-NEGATION_WINDOW:]
    return any(w in NEGATORS or w.endswith("n't") for w in words)


def negated_in_criterion(phrases: list[str], criterion_text: str) -> bool:
    """Whether the criterion itself states one of an item's phrases negated ("does not have the HVAC
    skill", "store credit is not available"): then the reply may state the fact either way round (its
    negation carries the criterion's meaning), and negation is not held against the item."""
    text = normalise(criterion_text)
    for phrase in phrases:
        if phrase_value(phrase) is not None or _starts_negated(phrase):
            continue
        match = phrase_pattern(phrase).search(text)
        if match is None:
            continue
        after = re.findall(r"[a-z']+", _CLAUSE_BREAK.split(text[match.end() :])[0])[:NEGATION_WINDOW]
        if negated_before(text[: match.start()]) or any(w in NEGATORS or w.endswith("n't") for w in after):
            return True
    return False


def _starts_negated(phrase: str) -> bool:
    first = (re.findall(r"[a-z']+", normalise(phrase)) or [""])[0]
    return first in NEGATORS or first.endswith("n't")


# ---- keyword lists -------------------------------------------------------------------------------

FUNCTION_WORDS = frozenset(
    "a an the is are was were be been being am has have had will would can could shall should may might must do does did "
    "i you your yours we our us it its this that these those they them their there here he she his her my me "
    "to of for on in with at by from into about as if so than then now please not no yes and or but also "
    "which who what when where why how all any some each every just only still already yet".split()
)
LIST_MIN_WORDS = 8
"""A sentence shorter than this is judged only with its message (a short line is not a list by itself)."""


def _words(unit: str) -> list[str]:
    return re.findall(r"[a-z0-9][a-z0-9'.%:\-]*", unit.lower())


LABEL_COLON = re.compile(r"[A-Za-z)]\s*:(?:\s|$)")
"""A `label: value` colon (not the colon of a clock time)."""


@lru_cache(maxsize=8192)
def _grammar_words(unit: str, phrases: tuple[str, ...]) -> tuple[str, ...]:
    """The unit's words once the judged evidence phrases are taken out: "out of stock" brings its own
    "of", which must not make a keyword list look like a sentence. (Cached: a transcript's units are
    asked about again and again — is the message a dump, is the unit bare, is it a list.)"""
    text = normalise(unit)
    for phrase in phrases:
        text = phrase_pattern(phrase).sub(" kw ", text)
    return tuple(_words(text))


MONTH_DAY_YEAR = re.compile(
    r"\b((?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?),(\s*\d{4})\b", re.I
)
ITEM_SEPARATOR = re.compile(r"(?<!\d),|,(?!\d)|[;|\u2022]")
"""Commas, semicolons, pipes and bullets separate items; the comma of a thousands separator ("1,450")
does not, nor the comma of a written date ("December 15, 2026" is one item, as "2026-12-15" is)."""


def list_items(unit: str) -> list[str]:
    """The separated items of a unit (see ITEM_SEPARATOR)."""
    return [i for i in ITEM_SEPARATOR.split(MONTH_DAY_YEAR.sub(r"\1\2", unit)) if i.strip()]


@lru_cache(maxsize=8192)
def unit_is_list(unit: str, phrases: tuple[str, ...] = ()) -> bool:
    """A sentence with no grammar: many words but almost no function words, a string of short
    comma/semicolon/pipe-separated items without function words, or (however short) three or more
    separated items with no function word, no `label:` and mostly no label-value pair ("1340, done,
    confirmed" is a list; "basic $109, standard $169, flexible $239" pairs labels with values)."""
    words = _grammar_words(unit, phrases)
    items = list_items(unit)
    if len(items) >= 3 and not LABEL_COLON.search(unit) and not any(w in FUNCTION_WORDS for w in words):
        pairs = sum(bool(find_values(i)) and bool(re.search(r"[a-z]{2,}", re.sub(r"[A-Za-z]*-?\d\S*", "", i).lower())) for i in items)
        if pairs < len(items) / 2:
            return True
    if len(words) < LIST_MIN_WORDS:
        return False
    function = sum(w in FUNCTION_WORDS for w in words)
    if len(words) >= 20 and function / len(words) < 0.05:
        return True
    if len(items) >= 6 and len(words) / len(items) <= 3.0:
        bare = sum(not any(w in FUNCTION_WORDS for w in _grammar_words(i, phrases)) for i in items)
        return bare / len(items) >= 0.6
    return False


def _unit_is_bare(unit: str, phrases: tuple[str, ...] = ()) -> bool:
    """A short unit that is just keywords: no function word, no verb-like word, no `label: value` form."""
    words = _grammar_words(unit, phrases)
    if any(w in FUNCTION_WORDS for w in words) or LABEL_COLON.search(unit):
        return False
    return not any(re.search(r"(?:ed|ing)$", w) for w in words)


def message_is_dump(message: str, phrases: tuple[str, ...] = ()) -> bool:
    """A message that is mostly keyword units (a list of evidence phrases, not an answer)."""
    units = _sentences(message)
    if not units:
        return False
    listy = sum(unit_is_list(u, phrases) or (len(_words(u)) < LIST_MIN_WORDS and _unit_is_bare(u, phrases)) for u in units)
    if len(units) == 1:
        return unit_is_list(units[0], phrases)
    return listy / len(units) > 0.5



# ---- matching ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hit:
    """Where a phrase or value matched: message index (0-based), the sentence, and the value if any."""

    message: int
    sentence: str
    position: int
    value: Value | None = None


@dataclass(frozen=True)
class Unit:
    message: int
    index: int
    text: str
    carried: bool


FRAGMENT_WORDS = 5
"""A message of one unit shorter than this is a fragment; a transcript mostly of fragments is a list."""


def transcript_units(messages: list[str], phrases: tuple[str, ...] = ()) -> list[Unit]:
    """The transcript's sentences, each marked whether it can carry a match (keyword-list rule)."""
    fragments = [len(_sentences(m)) == 1 and len(_words(m)) < FRAGMENT_WORDS for m in messages]
    listy_transcript = len(messages) >= 5 and sum(fragments) / len(messages) > 0.6
    units: list[Unit] = []
    for m, message in enumerate(messages):
        dump = message_is_dump(message, phrases) or (listy_transcript and fragments[m])
        for i, sentence in enumerate(_sentences(message)):
            bare = len(_words(sentence)) < LIST_MIN_WORDS and _unit_is_bare(sentence, phrases)
            units.append(Unit(m, i, sentence, carried=not dump and not bare and not unit_is_list(sentence, phrases)))
    return units


VALUE_NEGATION_WINDOW = 1
"""A value is negated only by a negator right before it ("not $40", "no 10:00 slot"): in "I can't send
$6,000" the amount is still stated (the action is what is refused)."""


def _value_negated(unit: str, value: Value) -> bool:
    words = re.findall(r"[a-z']+", _CLAUSE_BREAK.split(normalise(unit[: value.start]))[-1])[-VALUE_NEGATION_WINDOW:]
    return any(w in NEGATORS or w.endswith("n't") for w in words)

"""Semantic reply judging (spec A.2). This module holds the judge interface and the offline evidence judge.

The judge sees only the user instruction, the ordered criteria and the user-visible assistant messages.
The LLM judge implements the same `Judge` protocol; every verdict records which judge decided it.

The evidence judge is deterministic and value-aware (rules, each with a unit test in
tests/test_evidence_judge.py; user-facing summary in docs/judges.md):

1. Values. An evidence phrase that IS a value (``$40``, ``2026-12-02``, ``10:00``, ``CASE-5016``, ``3``) matches
   any written form of the same value (`grader.textvalues`; counts also as number words, "three"); a count
   phrase (``3 items``, ``1 member``, ``30 days``) matches the count in any form followed by its words,
   singular or plural, with up to two words between ("three open items"); other phrases match as whole
   words (case-insensitive, ``$``/thousands separators ignored, a trailing ``*`` is a stem).
2. Wrong values. When a value item matches (an amount, percentage, date, time, or a count followed by what
   it counts), another value of the same kind (money with money, a count with a count of the same noun),
   named by no criterion of the task nor the user's instruction, not negated and not placed at another time
   or fact ("was", "previously", "from", "now", "remaining", "another" before it; "remaining", "left",
   "before" after it — "$381.60 was credited" is no prior value; a word the criterion itself names the
   fact with, "the remaining balance", is part of the label), contradicts it when it is stated for the same fact:
   next to the same criterion nouns (e.g. a second "balance", in any sentence), or stated together with
   the right value under its label ("refund of $45.00 and $54.00", "$45.00 (or $54.00)") unless a plural
   label or "both"/"each" makes them several facts ("refunds of $45.00 and $54.00"), or joined to it by a
   self-correction ("$22.50, or rather $42.50", "08:00, sorry, 16:00": then even a value the task names
   elsewhere is wrong). The criterion fails unless the transcript's LAST statement of the fact is the right
   value, made after every wrong one and marked as a correction ("sorry", "correction", "I misread") in its
   sentence or the one before (the correction rule; a right value merely restated later does not outweigh
   a wrong one). An unresolved conflict sets `contradiction_found`. Status words work the same way:
   another status of the same vocabulary (`grader.statuswords`, from the worlds' own `Literal` types) said
   of the same record id contradicts a matched status.
3. Negation. A match whose clause puts a negator within five words before it ("not", "never", "didn't",
   "no longer", "unable to", "nothing has been") does not count; a value only when the negator stands
   right before it ("not $40"); an id never (it names the record, the claim is elsewhere). When the
   criterion text itself states a phrase of the item negated ("does not have the HVAC skill"), negation
   is not held against that item (the reply's negation carries the criterion's meaning).
   `absent` phrases trip only when stated un-negated ("nothing has been granted" does not trip "granted").
4. Keyword lists. A match counts only inside a sentence that carries it: not inside a list-like sentence
   (mostly separators and content words, no grammar), not inside a bare keyword line (a short unit with no
   function word, no verb-like word and no `label: value` form) and not inside a message that is mostly
   such units, nor in a transcript that is mostly one-fragment messages (one phrase per message).
5. Every verdict quotes the sentence that matched and explains which phrase or value matched in which
   message.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from pydantic import BaseModel

from contracts.schema import ReplyCriterion
from grader.textvalues import NUMBER_WORDS, Value, find_values, phrase_count, phrase_value, singular


class CriterionJudgement(BaseModel):
    passed: bool
    quote: str = ""
    explanation: str


class JudgeOutput(BaseModel):
    judge: str
    criteria: list[CriterionJudgement]
    contradiction_found: bool = False


class Judge(Protocol):
    name: str

    async def judge(self, instruction: str, criteria: list[ReplyCriterion], assistant_messages: list[str]) -> JudgeOutput: ...


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


def contains(phrase: str, text: str) -> bool:
    return phrase_pattern(phrase).search(normalise(text)) is not None


def _sentences(message: str) -> list[str]:
    parts = re.split(r"(?<=[.!?])\s+|\n+", message)
    return [p for p in (part.strip() for part in parts) if p]


def find_quote(phrase: str, messages: list[str]) -> str | None:
    """An exact excerpt of the transcript (a sentence, else the message) that contains `phrase`."""
    pattern = phrase_pattern(phrase)
    for message in messages:
        if pattern.search(normalise(message)):
            for sentence in _sentences(message):
                if pattern.search(normalise(sentence)):
                    return sentence
            return message
    return None


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


COUNT_MODIFIERS = 2
"""How many words may stand between a count and its noun ("3 open tickets" states "3 tickets", "one
subscribed member" states "1 member")."""


def counted_words_follow(unit: str, value: Value, nouns: tuple[str, ...]) -> bool:
    """Whether the words of a count phrase (``items`` of ``3 items``) follow the count `value` in `unit`,
    singular or plural, joined by a space or a hyphen ("30-day" states "30 days"), with at most
    COUNT_MODIFIERS content words before them (never a function word, a negator or another value)."""
    tail = unit[value.end : value.end + 120]
    words = re.findall(r"[A-Za-z][A-Za-z']*", tail.split(".")[0] if "." in tail else tail)
    if not re.match(r"[\s-]", tail[:1] or "."):
        return False
    want = [singular(n) for n in nouns]
    for skip in range(min(COUNT_MODIFIERS, len(words) - len(want)) + 1):
        if skip and (words[skip - 1].lower() in FUNCTION_WORDS or words[skip - 1].lower() in NEGATORS or words[skip - 1].lower() in NUMBER_WORDS):
            return False
        got = [singular(w) for w in words[skip : skip + len(want)]]
        if got == want:
            return True
    return False


def phrase_hits(phrase: str, units: list[Unit], *, negation: bool = True, carried_only: bool = True) -> list[Hit]:
    """Every mention of `phrase` in the units (un-negated ones only, unless `negation` is False)."""
    target = phrase_value(phrase)
    count = phrase_count(phrase) if target is None else None
    hits: list[Hit] = []
    for unit in units:
        if carried_only and not unit.carried:
            continue
        if count is not None:
            for value in find_values(unit.text):
                if count[0].same(value) and counted_words_follow(unit.text, value, count[1]):
                    if not negation or not _value_negated(unit.text, value):
                        hits.append(Hit(unit.message, unit.text, unit.index * 10_000 + value.start, value))
            continue
        if target is not None:
            for value in find_values(unit.text):
                if target.same(value) and (target.kind != "id" or value.value == target.value):
                    if not negation or value.kind == "id" or not _value_negated(unit.text, value):
                        hits.append(Hit(unit.message, unit.text, unit.index * 10_000 + value.start, value))
            continue
        text = normalise(unit.text)
        for match in phrase_pattern(phrase).finditer(text):
            if not negation or _starts_negated(phrase) or not negated_before(text[: match.start()]):
                hits.append(Hit(unit.message, unit.text, unit.index * 10_000 + match.start()))
    return hits


# ---- wrong values --------------------------------------------------------------------------------

STOPWORDS = FUNCTION_WORDS | {"states", "state", "tells", "tell", "says", "confirms", "confirm", "reports", "explains", "customer", "mentions", "gives", "lists"}
UNIT_WORDS = frozenset(
    "miles mile points point dollars dollar usd per month months monthly night nights nightly day days daily hour hours "
    "minute minutes year years week weeks percent item items unit units each".split()
)
"""Units name what a number counts, not which fact it is: never a fact label."""
PRIOR_MARKERS = frozenset(
    "was were previously before from originally old earlier instead original prior formerly starting initial "
    "now remaining remains left new updated after afterwards then".split()
)
"""Words that place a value at another time than the fact's ("was", "now", "remaining"): a balance before and
after a transfer are two facts, not a contradiction."""
PRIOR_AFTER = frozenset("remaining remains left before previously earlier originally initially formerly instead prior".split())
"""The markers that place a value at another time when they follow it ("$22.50 remaining", "$690.20
before the transfer"); "was"/"were" after a value are the verb of its own fact ("$381.60 was credited")."""
OTHER_FACT_MARKERS = frozenset("another other second separate additional extra next following follow subsequent later last".split())
"""Words that make a value another fact of the same label ("another refund of $54.00")."""
LABEL_BEFORE, LABEL_AFTER = 4, 2
MARKER_BEFORE = 6
"""How far back in its clause an other-fact marker ("another", "follow-up", "next") still makes a value another fact."""


def _stem(word: str) -> str:
    return word[:5]


def _content_stems(words: list[str]) -> set[str]:
    return {_stem(w) for w in words if w not in STOPWORDS and w not in UNIT_WORDS and len(w) >= 3}


def _windows(unit: str, value: Value, before_n: int = LABEL_BEFORE) -> tuple[list[str], list[str]]:
    """The words just before and after a value in its clause, never across another value. A record id
    on the way is left out but does not end the label ("the remaining balance on ACC-1002 is $22.50": the
    id names whose balance, the label is still "remaining balance"), unless the value is an id itself."""
    values = find_values(unit)
    others = [v for v in values if v.start != value.start and (v.kind != "id" or value.kind == "id")]
    left = max([v.end for v in others if v.end <= value.start], default=0)
    right = min([v.start for v in others if v.start >= value.end], default=len(unit))
    chars = list(unit.lower())
    for v in values:
        if v.kind == "id" and value.kind != "id" and left <= v.start and v.end <= right:
            chars[v.start : v.end] = " " * (v.end - v.start)
    text = "".join(chars)
    # a value in parentheses right after a noun is labelled by it: "APAC audience (3 members)"
    before = _CLAUSE_BREAK.split(re.sub(r"\(\s*$", " ", text[left : value.start]))[-1]
    after = _CLAUSE_BREAK.split(text[value.end : right])[0]
    return re.findall(r"[a-z][a-z']+", before)[-before_n:], re.findall(r"[a-z][a-z']+", after)[:LABEL_AFTER]


def _label_words(unit: str, value: Value, naming: frozenset[str] = frozenset()) -> tuple[set[str], bool]:
    """Content-word stems around a value in its clause (never across another value: a label between two
    values belongs to the nearer one), and whether a prior-value marker precedes it. A marker the criterion
    itself names the fact with (`naming`: "the remaining balance of $22.50") is part of the label there."""
    words_before, words_after = _windows(unit, value)
    wide = _windows(unit, value, MARKER_BEFORE)[0]  # "the follow-up visit is on": the marker is five words back
    markers = [w for w in words_before if w in PRIOR_MARKERS and w not in naming]
    markers += [w for w in wide if w in OTHER_FACT_MARKERS and w not in naming]
    markers += [w for w in words_after if w in PRIOR_AFTER and w not in naming]
    return _content_stems(words_before + words_after), bool(markers)


CONFLICT_KINDS = frozenset({"number", "percent", "date", "time"})
"""Ids name records (another id is another record, not a wrong value)."""


def is_money(value: Value) -> bool:
    """An amount written as money: a currency sign/word or two decimals."""
    return bool(re.search(r"[$€£]|usd|eur|\.\d\d\b", value.text, re.I))


def _count_nouns(unit: str, value: Value) -> frozenset[str]:
    """What a count counts: the first content words after it in its clause, singular ("3 open tickets"
    → {open, ticket}); empty when no word follows ("a stock of 40")."""
    after = re.findall(r"[a-z][a-z']+", _CLAUSE_BREAK.split(unit[value.end : value.end + 60].lower())[0])
    return frozenset(singular(w) for w in after[:3] if w not in FUNCTION_WORDS and w not in NEGATORS)


def _same_kind(right: Value, value: Value) -> bool:
    """Values that can state the same fact: the same kind, money with money, a count with a count."""
    if value.kind != right.kind:
        return False
    return right.kind != "number" or is_money(right) == is_money(value)


def _is_count(value: Value) -> bool:
    return value.kind == "number" and not is_money(value)


COORDINATION = re.compile(
    r"(?:[\s,;/()\[\]\-\u2013\u2014.\u2026]|\b(?:and|or|rather|sorry|i mean|i meant|actually|wait|correction|make that|no|er|um)\b)+",
    re.I,
)
"""What may stand between two values stated together for one fact: punctuation, "and", "or", a
self-correction ("sorry", "I mean", "make that") — no word of its own (a range "to", a label, a verb)."""
ENUMERATION_WORDS = frozenset("both each respectively between all".split())
"""Words that make values stated together several facts ("both", "each", "between $40 and $60")."""
PLURAL_AGREEMENT = frozenset("of are were have total totals".split())


def coordinated(unit: str, values: list[Value]) -> list[list[Value]]:
    """Runs of values (sorted by position) joined only by COORDINATION text: "$45.00 and $54.00",
    "$45.00 (or $54.00)", "$45.00, sorry, $54.00"."""
    runs: list[list[Value]] = []
    for value in values:
        between = unit[runs[-1][-1].end : value.start] if runs else ""
        noun = re.match(r"\s*([A-Za-z][a-z']*)", unit[value.end :])
        if noun and re.match(r"\s*" + re.escape(noun.group(1)) + r"\b", between, re.I):
            between = between.lstrip()[len(noun.group(1)) :]  # "867 miles, sorry, 876 miles": the noun repeated
        if runs and _same_kind(runs[-1][-1], value) and COORDINATION.fullmatch(between):
            runs[-1].append(value)
        else:
            runs.append([value])
    return runs


SELF_CORRECTION = re.compile(r"\b(?:sorry|rather|i mean|i meant|actually|wait|correction|make that|no)\b", re.I)


def _self_corrected(unit: str, run: list[Value]) -> bool:
    """Values joined by a self-correction ("$22.50, or rather $42.50", "08:00, sorry, 16:00") restate one
    fact, whatever labels them: every value but the right one is a wrong value, even one the task names
    elsewhere (the refund amount given as the balance)."""
    return any(SELF_CORRECTION.search(unit[a.end : b.start]) for a, b in zip(run, run[1:], strict=False))


def _enumerates(unit: str, run: list[Value]) -> bool:
    """Whether values stated together name several facts: an enumeration word around them, or a plural
    label noun before them ("your refunds of $45.00 and $54.00", "sizes 9 and 10")."""
    before, _ = _windows(unit, run[0])
    _, after = _windows(unit, run[-1])
    if any(w in ENUMERATION_WORDS for w in before + after):
        return True
    counts = run[0].kind == "number" and not is_money(run[0])
    if not counts and any(w not in STOPWORDS and singular(w) != w for w in after):
        return True  # "8:00, 12:00 and 16:00 windows", "$45.00 and $54.00 refunds" (after a count a plural is grammar)
    for i, word in enumerate(before):
        if word in STOPWORDS or word in PRIOR_MARKERS or singular(word) == word:
            continue
        prev = before[i - 1] if i else None
        following = before[i + 1] if i + 1 < len(before) else None
        if prev is None or prev in FUNCTION_WORDS or following in PLURAL_AGREEMENT:
            return True
    return False


CORRECTION_CUE = re.compile(
    r"\b(?:sorry|apolog\w*|correction|correcting|to correct|misread|misspoke|mis-?stated|mistake|my bad|in error|i meant|"
    r"i mean|to clarify|actually|rather|make that|should have said|should read|typo|oops|was wrong|wrongly|incorrect\w*)\b",
    re.I,
)
"""Words that mark a statement as correcting an earlier one ("Sorry, I misread it: ...")."""


@dataclass(frozen=True)
class Conflict:
    wrong: Hit
    resolved: bool


def _group_labels(unit: str, run: list[Value]) -> set[str]:
    return _label_words(unit, run[0])[0] | _label_words(unit, run[-1])[0]


def value_conflicts(hits: list[Hit], units: list[Unit], criterion: str, known: list[Value], phrases: Sequence[str] = ()) -> list[Conflict]:
    """Other values of the same kind stated for the same fact as the matched `hits` (module rule 2).

    The fact is named by the criterion words around the right value in the reply ("balance"). Another
    value (money with money, a count with a count of the same noun), named by no criterion of the task,
    not negated and not placed at another time ("was", "from", "now"), is stated for the same fact when
    every one of those words also stands around it (in any sentence), or when it is stated together with
    the right value ("refund of $45.00 and $54.00", "$45.00 (or $54.00)", "$45.00, sorry, $54.00") under
    that label, unless the label is plural or an enumeration word says they are several facts. The
    criterion's own evidence words for the fact (`phrases` without a value, "credited", "refunded") name it
    too, when the criterion's text uses them and a reply states one with the right value: "the full $318.60
    would be credited back" then "$381.60 was credited" is the same fact, though the right value's nearest
    words in its reply were "the full". So do the words the criterion itself labels the value with, all of
    them ("... and the balance due is $69.99": a later "your balance due is $132.99" is the same fact, though
    the reply first stated $69.99 as "a $69.99 credit") — those of them the replies use at all (criterion
    "the $159.00 total charged", replies that never say "total": "$222.00 charged to your Visa" is the
    same fact); a count's noun in the criterion is what it counts."""
    right = [h for h in hits if h.value is not None]
    if not right or right[0].value.kind not in CONFLICT_KINDS:  # type: ignore[union-attr]
        return []
    first: Value = right[0].value  # type: ignore[assignment]
    vocabulary = _content_stems(re.findall(r"[a-z][a-z']+", criterion.lower()))
    naming = frozenset(re.findall(r"[a-z]+", criterion.lower()))
    by_sentence: dict[tuple[int, str], list[Hit]] = {}
    for h in right:
        by_sentence.setdefault((h.message, h.sentence), []).append(h)
    facts: list[set[str]] = []
    nouns: set[str] = set()  # what the right counts count
    grouped: set[tuple[int, int]] = set()  # values stated together with a right value: judged as a group
    together: list[Hit] = []  # values stated with a right value for its fact
    for (message, sentence), sentence_hits in by_sentence.items():
        unit = next(u for u in units if u.message == message and u.text == sentence)
        values = [v for v in find_values(sentence) if v.kind == first.kind]
        starts = {h.value.start for h in sentence_hits}  # type: ignore[union-attr]
        for run in coordinated(sentence, values):
            if not starts & {v.start for v in run}:
                continue
            grouped |= {(message, unit.index * 10_000 + v.start) for v in run}
            labels = _group_labels(sentence, run) if len(run) > 1 else _label_words(sentence, run[0])[0]
            fact = labels & vocabulary
            counted = _count_nouns(sentence, run[-1]) if _is_count(first) else frozenset()
            if _is_count(first) and not counted:
                continue  # "size 10", "tier 2", "a stock of 40": a number naming, not counting, is no fact here
            nouns |= counted
            if fact:
                facts.append(fact)
            if len(run) < 2:
                continue
            retracted = _self_corrected(sentence, run)
            if not retracted and (not fact or _enumerates(sentence, run) or any(_label_words(sentence, v, naming)[1] for v in run)):
                continue
            for value in run:
                if value.start in starts or not _same_kind(first, value) or first.same(value) or _value_negated(sentence, value):
                    continue
                if retracted or not any(k.same(value) for k in known):
                    together.append(Hit(message, sentence, unit.index * 10_000 + value.start, value))
    used: set[str] | None = None  # the content stems the replies use (worked out only when needed)
    for value in find_values(criterion):  # the criterion's own words for the fact: "the balance due is $69.99"
        if value.kind == first.kind and first.same(value):
            if used is None:
                used = _content_stems([w for u in units for w in re.findall(r"[a-z][a-z']+", u.text.lower())])
            label = _label_words(criterion, value, naming)[0] & vocabulary & used  # words no reply uses name nothing there
            if _is_count(first):
                nouns |= _count_nouns(criterion, value)
            elif label:
                facts.append(label)
    for phrase in phrases:
        if find_values(phrase):
            continue  # a value is what is compared, not a word naming the fact
        stems = _content_stems(re.findall(r"[a-z][a-z']+", phrase.lower())) & vocabulary
        if stems and any(contains(phrase, h.sentence) for h in right):
            facts.append(stems)
    if not facts and not together:
        return []
    wrong: list[Hit] = list(together)
    seen = {(w.message, w.position) for w in wrong}
    earliest = min((h.message, h.position) for h in right)
    for unit in units:
        if not unit.carried:
            continue
        for value in find_values(unit.text):
            position = unit.index * 10_000 + value.start
            if (unit.message, position) in seen or (unit.message, position) in grouped or not _same_kind(first, value):
                continue
            if first.same(value) or any(k.same(value) for k in known):
                continue
            labels, prior = _label_words(unit.text, value, naming)
            if (unit.message, position) > earliest and _corrects_back(unit.text, value, naming):
                wrong.append(Hit(unit.message, unit.text, position, value))  # "Actually, it was $60.00."
                continue
            if prior or not any(fact <= labels for fact in facts) or negated_before(normalise(unit.text[: value.start])):
                continue
            if _is_count(first) and not nouns & _count_nouns(unit.text, value):
                continue  # a count of another thing
            wrong.append(Hit(unit.message, unit.text, position, value))
    if not wrong:
        return []
    last_right = max(right, key=lambda h: (h.message, h.position))
    return [Conflict(w, corrected(w, last_right, units)) for w in wrong]


CORRECTION_OPENING_WORDS = 4
"""How far into its sentence a correction cue may stand to open it ("Actually, it was", "Sorry, that
should read")."""


def _corrects_back(sentence: str, value: Value, naming: frozenset[str]) -> bool:
    """A value with no label of its own in a sentence a correction cue opens ("Actually, it was $60.00.",
    "Sorry - that was $55.00.", "Correction: it's $604.20."): it takes back the fact just stated, so a
    value other than the right one there is the reply's final, wrong statement of it, whatever words it
    shares with the criterion. Its "was" is the correction's verb, not a past value; a real marker
    ("before", "previous") or a label of its own ("your pending charges") makes it another fact."""
    before = normalise(sentence[: value.start])
    opening = " ".join(re.findall(r"[a-z']+", before)[:CORRECTION_OPENING_WORDS])
    if CORRECTION_CUE.search(opening) is None:
        return False
    labels, prior = _label_words(sentence, value, naming | CORRECTION_VERBS)
    if prior:
        return False
    cue_words = re.findall(r"[a-z']+", " ".join(m.group(0) for m in CORRECTION_CUE.finditer(before)))
    return not labels - _content_stems(cue_words) - _content_stems(sorted(ANAPHORS))  # the cue and "it" are no label


CORRECTION_VERBS = frozenset({"was", "were"})
ANAPHORS = frozenset({"it", "it's", "its", "that", "that's", "this", "figure", "amount", "number", "one"})
"""Words a correction refers back to the fact with ("it was", "that figure"): no label of another fact."""


def corrected(wrong: Hit, last_right: Hit, units: list[Unit]) -> bool:
    """Correction rule: a wrong value is taken back when the transcript's last statement of the fact is
    the right value, made after it and marked as a correction ("Sorry, I misread it: ...") in its own
    sentence or the sentence before it. A right value merely restated later does not outweigh a wrong one."""
    if (wrong.message, wrong.position) >= (last_right.message, last_right.position):
        return False
    index = last_right.position // 10_000
    cue_text = " ".join(u.text for u in units if u.message == last_right.message and index - 1 <= u.index <= index)
    return CORRECTION_CUE.search(cue_text) is not None


# ---- wrong status words ----------------------------------------------------------------------------

STATUS_SUBJECT_WINDOW = 6
"""How many words before a status word its record id may stand ("ORD-9006 is now marked cancelled")."""


def _subject_id(unit: str, start: int) -> str | None:
    """The record id a status word at `start` is said of: the last id in its clause within the window."""
    clause_start = 0
    for match in _CLAUSE_BREAK.finditer(unit[:start]):
        if match.group(0) not in ("(", ")"):
            clause_start = match.end()
    before = unit[clause_start:start]
    ids = [v for v in find_values(before) if v.kind == "id"]
    if not ids or len(re.findall(r"[A-Za-z0-9'-]+", before[ids[-1].end :])) > STATUS_SUBJECT_WINDOW:
        return None
    return str(ids[-1].value)


def status_conflicts(phrase: str, hits: list[Hit], units: list[Unit], known_words: set[str]) -> list[Conflict]:
    """Another status of the same vocabulary (from the worlds' types) stated, un-negated and not placed at
    another time, of the same record id as a matched status word, in another sentence, and named by no
    criterion of the task: the same wrong-fact rule as for values (module rule 2)."""
    from grader.statuswords import rivals

    others = rivals(phrase) - known_words
    if not others:
        return []
    subjects = {s for h in hits if (s := _subject_id(h.sentence, _find_in(h.sentence, phrase))) is not None}
    if not subjects:
        return []
    right_sentences = {(h.message, h.sentence) for h in hits}
    wrong: list[Hit] = []
    for unit in units:
        if not unit.carried or (unit.message, unit.text) in right_sentences:
            continue
        lowered = unit.text.lower().replace("_", " ")
        for word in others:
            for match in re.finditer(r"(?<![a-z])" + re.escape(word) + r"(?![a-z])", lowered):
                before = normalise(unit.text[: match.start()])
                window = re.findall(r"[a-z]+", _CLAUSE_BREAK.split(before)[-1])[-LABEL_BEFORE:]
                if negated_before(before) or any(w in PRIOR_MARKERS or w == "still" for w in window):
                    continue
                if _subject_id(unit.text, match.start()) in subjects:
                    wrong.append(Hit(unit.message, unit.text, unit.index * 10_000 + match.start()))
    if not wrong:
        return []
    last_right = max(hits, key=lambda h: (h.message, h.position))
    return [Conflict(w, corrected(w, last_right, units)) for w in wrong]


def _find_in(sentence: str, phrase: str) -> int:
    match = re.search(r"(?<![a-z])" + re.escape(phrase.lower().rstrip("*").replace("_", " ")), sentence.lower().replace("_", " "))
    return match.start() if match else 0


# ---- the judge -----------------------------------------------------------------------------------


def _where(hit: Hit) -> str:
    return f"message {hit.message + 1}: {hit.sentence[:160]!r}"


def criteria_values(criteria: list[ReplyCriterion], instruction: str = "") -> list[Value]:
    """Every value any criterion of the task names (its text, evidence or absent phrases) and the user's
    instruction states: stating one of them is never a wrong value for another fact."""
    texts = [instruction]
    for c in criteria:
        texts.append(c.criterion)
        for item in c.evidence:
            texts.extend([item] if isinstance(item, str) else item)
    return [v for t in texts for v in find_values(t)]


class EvidenceJudge:
    """Deterministic offline judge (rules in the module docstring)."""

    name = "evidence"

    async def judge(self, instruction: str, criteria: list[ReplyCriterion], assistant_messages: list[str]) -> JudgeOutput:
        return self.judge_sync(criteria, assistant_messages, instruction=instruction)

    def judge_sync(self, criteria: list[ReplyCriterion], assistant_messages: list[str], *, instruction: str = "") -> JudgeOutput:
        phrases = tuple(p for c in criteria for item in c.evidence for p in ([item] if isinstance(item, str) else item))
        units = transcript_units(assistant_messages, phrases)
        all_units = [Unit(u.message, u.index, u.text, True) for u in units]
        known = criteria_values(criteria, instruction)
        criterion_words = re.findall(r"[a-z]+", " ".join(c.criterion.lower().replace("_", " ") for c in criteria))
        known_words = {p.lower().replace("_", " ").rstrip("*") for p in phrases} | set(criterion_words)
        known_words |= {f"{a} {b}" for a, b in zip(criterion_words, criterion_words[1:], strict=False)}
        results: list[CriterionJudgement] = []
        contradiction = False
        for criterion in criteria:
            judgement, conflicted = self._criterion(criterion, units, all_units, known, known_words)
            contradiction |= conflicted
            results.append(judgement)
        return JudgeOutput(judge=self.name, criteria=results, contradiction_found=contradiction)

    def _criterion(self, criterion: ReplyCriterion, units: list[Unit], all_units: list[Unit], known: list[Value], known_words: set[str]) -> tuple[CriterionJudgement, bool]:
        found: list[tuple[str, Hit]] = []
        missing: list[str] = []
        notes: list[str] = []
        evidence_phrases = [p for item in criterion.evidence for p in ([item] if isinstance(item, str) else item)]
        for item in criterion.evidence:
            phrases = [item] if isinstance(item, str) else item
            hit: tuple[str, Hit] | None = None
            negation = not negated_in_criterion(phrases, criterion.criterion)
            for phrase in phrases:
                hits = phrase_hits(phrase, units, negation=negation)
                if hits:
                    hit = (phrase, hits[0])
                    conflicts = value_conflicts(hits, units, criterion.criterion, known, evidence_phrases) or status_conflicts(phrase, hits, units, known_words)
                    unresolved = [c for c in conflicts if not c.resolved]
                    if unresolved:
                        wrong = unresolved[0].wrong
                        what = f"{wrong.value.kind} for the same fact, {wrong.value.text!r}" if wrong.value else "status of the same record"
                        why = f"{phrase!r} is stated ({_where(hits[0])}) but so is another {what} ({_where(wrong)})"
                        return CriterionJudgement(passed=False, quote=wrong.sentence, explanation=why), True
                    if conflicts:
                        earlier = conflicts[0].wrong.value.text if conflicts[0].wrong.value else conflicts[0].wrong.sentence[:80]
                        notes.append(f"an earlier statement said {earlier!r}, corrected: the last statement of the fact is {phrase!r}")
                    break
                if phrase_hits(phrase, all_units, negation=negation):
                    notes.append(f"{phrase!r} occurs only in a keyword list, not in a sentence")
                elif phrase_hits(phrase, units, negation=False):
                    notes.append(f"{phrase!r} occurs only negated")
            if hit is None:
                missing.append(" | ".join(phrases))
            else:
                found.append(hit)
        if missing:
            why = "no visible reply states: " + "; ".join(repr(m) for m in missing)
            return CriterionJudgement(passed=False, explanation=why + (f" ({'; '.join(notes)})" if notes else "")), False
        for phrase in criterion.absent or []:
            hits = phrase_hits(phrase, all_units, carried_only=False)
            if hits:
                why = f"a visible reply says what it must not: {phrase!r} ({_where(hits[0])})"
                return CriterionJudgement(passed=False, quote=hits[0].sentence, explanation=why), False
        if not found:  # a mention guard (absent phrases only): nothing wrong was stated, nothing to quote
            return CriterionJudgement(passed=True, quote="", explanation="no visible reply states any of: " + "; ".join(repr(a) for a in criterion.absent or [])), False
        matched = "; ".join(
            f"{phrase!r} as {hit.value.kind} {hit.value.text!r} in {_where(hit)}" if hit.value else f"{phrase!r} in {_where(hit)}"
            for phrase, hit in found
        )
        why = "matched " + matched + (f" ({'; '.join(notes)})" if notes else "")
        return CriterionJudgement(passed=True, quote=found[0][1].sentence, explanation=why), False

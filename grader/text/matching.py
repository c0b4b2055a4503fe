"""Where an evidence phrase is stated in a transcript (rule 1 of `grader.text.evidence`): a value phrase
as the same value in any written form, a count phrase as that count followed by its words, other phrases
through the lexicon's forms and the stems of their content words (`grader.text.lexicon`), never inside a
unit that carries no fact (`grader.text.units`) and never negated."""

from __future__ import annotations

import re

from grader.text.units import FUNCTION_WORDS, NEGATORS, Hit, Unit, _sentences, _starts_negated, _value_negated, negated_before, normalise, phrase_pattern
from grader.text.values import NUMBER_WORDS, Value, find_values, phrase_count, phrase_value, singular


def contains(phrase: str, text: str) -> bool:
    return phrase_pattern(phrase).search(normalise(text)) is not None



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

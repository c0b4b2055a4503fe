"""Another value or status for the same fact (rule 2 of `grader.text.evidence`): values of the same kind
stated about the same fact of the same subject contradict a matched value unless the transcript's last
statement of the fact corrects them."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from grader.text.matching import contains
from grader.text.units import _CLAUSE_BREAK, FUNCTION_WORDS, NEGATORS, UNIT_WORDS, Hit, Unit, _value_negated, negated_before, normalise, phrase_pattern, record_head
from grader.text.values import Value, find_values, singular
from grader.text.values import is_money as values_is_money  # conflicts' own is_money is the public name here
from grader.text.rx import rx


# ---- wrong values --------------------------------------------------------------------------------

STOPWORDS = FUNCTION_WORDS | {"states", "state", "tells", "tell", "says", "confirms", "confirm", "reports", "explains", "customer", "mentions", "gives", "lists"}
PRIOR_MARKERS = frozenset(
    "already was were previously before from originally old earlier instead original prior formerly starting initial "
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
    """An amount written as money, in any form the value reader knows ("$45", "45.00", "forty dollars")."""
    return values_is_money(value)


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


RELATION_WORDS = frozenset("short shy over under more less fewer below above beyond off away extra higher lower".split())
"""Words after a value that make it a difference from another value ("$20 short of $200", "$15 over")."""


def coordinated(unit: str, values: list[Value]) -> list[list[Value]]:
    """Runs of values (sorted by position) joined only by COORDINATION text: "$45.00 and $54.00",
    "$45.00 (or $54.00)", "$45.00, sorry, $54.00"."""
    runs: list[list[Value]] = []
    for value in values:
        between = unit[runs[-1][-1].end : value.start] if runs else ""
        noun = re.match(r"\s*([A-Za-z][a-z']*)", unit[value.end :])
        if noun and rx(r"\s*" + re.escape(noun.group(1)) + r"\b", re.I).match(between):
            between = between.lstrip()[len(noun.group(1)) :]  # "867 miles, sorry, 876 miles": the noun repeated
        if noun and noun.group(1).lower() in RELATION_WORDS:
            runs.append([value])  # "$180.00, $20 short of $200": a difference from another value is its own fact
        elif runs and _same_kind(runs[-1][-1], value) and COORDINATION.fullmatch(between):
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


_SELF_CORRECTION = (
    r"correction|correcting|to correct|misread|misspoke|mis-?stated|mistake|my bad|in error|i meant|should have said|"
    r"should read|typo|oops|was wrong|wrongly|incorrect\w*|no,? wait|wait,? no|scratch that|strike that"
)
"""Words that say by themselves that the speaker corrects what they said ("Correction: ...", "I misspoke")."""
CORRECTION_CUE = re.compile(r"\b(?:(?:sorry|apolog\w*)(?![,!]?\s+but\b)|" + _SELF_CORRECTION + r"|i mean|to clarify|actually|rather|make that)\b", re.I)
"""Words that mark a statement as correcting an earlier one ("Sorry, I misread it: ..."). Not an apology that
opens a contrast ("Sorry, but 2 of them are reserved"): that brings a new fact, it does not restate the last one."""


@dataclass(frozen=True)
class Conflict:
    wrong: Hit
    resolved: bool


def _group_labels(unit: str, run: list[Value]) -> set[str]:
    return _label_words(unit, run[0])[0] | _label_words(unit, run[-1])[0]


# ---- subjects and values round 7 (branch r7-subjects) -----------------------------------------------------
RECORD_LIST = re.compile(r"(?<![\w-])[A-Z]+-[A-Z0-9]+(?:\s*(?:,\s*(?:and\s+|&\s+)?|\s+and\s+|\s*&\s*|\s*/\s*)[A-Z]+-[A-Z0-9]+)+(?![\w-])")


def _paired_with_records(sentence: str, run: list[Value]) -> bool:
    """Round 7: values in one list beside a list of as many records ("INV-1 and INV-2 are due on December 14
    and December 20") are each record's own fact, paired by place (`binding.paired_lists`), not one fact
    said twice."""
    lists = RECORD_LIST.findall(sentence)
    return len(lists) == 1 and len(re.findall(r"[A-Z]+-[A-Z0-9]+", lists[0])) == len(run)


# ---- end subjects and values round 7 ------------------------------------------------------------------------


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
    if phrases:
        items = _items_of(criterion, tuple(phrases))
        swapped = predicate_conflicts(units, criterion, items)
        if swapped:
            return swapped
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
            if not retracted and (not fact or _enumerates(sentence, run) or _paired_with_records(sentence, run) or any(_label_words(sentence, v, naming)[1] for v in run)):
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
    together += _closing_instead(right, units, criterion)
    if not facts and not together and not any(u.carried and CORRECTION_CUE.search(normalise(u.text)) for u in units):
        return []  # nothing names the fact: only a correction of it ("Sorry, it's actually $590.20.") can state another value
    wrong: list[Hit] = list(together)
    seen = {(w.message, w.position) for w in wrong}
    earliest = min((h.message, h.position) for h in right)
    subjects = {subject_of(h.sentence, h.value) for h in right if h.value is not None} - {None}
    for unit in units:
        if not unit.carried:
            continue
        for value in find_values(unit.text):
            position = unit.index * 10_000 + value.start
            if (unit.message, position) in seen or (unit.message, position) in grouped or not _same_kind(first, value):
                continue
            if first.same(value) or any(k.same(value) for k in known):
                continue
            if _range_partner(unit, value, right) or refused(unit.text, value):
                continue  # "from 08:00 to 10:00" is one window; "the $900 transfer was refused" another attempt
            subject = subject_of(unit.text, value)
            if subject is not None and subjects and subject not in subjects:
                continue  # a value of another record or person: "ORD-1 arrives Dec 3, ORD-2 Dec 5"
            labels, prior = _label_words(unit.text, value, naming)
            if rejected(unit.text, value):
                continue  # round 5: "it's $214.00, not $241": the value a correction sets aside is no statement of the fact
            if (unit.message, position) > earliest and _corrects_back(unit.text, value, naming):
                if facts or together or not _restates_known(unit.text, value, first, known):
                    wrong.append(Hit(unit.message, unit.text, position, value))  # "Actually, it was $60.00."
                continue
            if prior or not any(fact <= labels for fact in facts) or negated_before(normalise(unit.text[: value.start])):
                continue
            if _is_count(first) and not nouns & _count_nouns(unit.text, value):
                continue  # a count of another thing
            wrong.append(Hit(unit.message, unit.text, position, value))
    wrong = [w for w in wrong if not per_unit(w.sentence, w.value) and not _part_of(w, right)]  # type: ignore[arg-type]
    if not wrong:
        return []
    last_right = max(right, key=lambda h: (h.message, h.position))
    return [Conflict(w, corrected(w, last_right, units)) for w in wrong]


REJECTING = re.compile(r"(?:\bnot|\brather\s+than|\binstead\s+of|\bas\s+opposed\s+to)(?:\s+(?:the|a|an))?\s*$", re.I)
CONTRAST_AFTER = re.compile(r"^\s*(?:[,;:]|\u2014|\u2013|-|\bbut\b)", re.I)


def _restates_known(sentence: str, value: Value, first: Value, known: list[Value]) -> bool:
    """Whether a correction that nothing else names the fact of also states a right value of the task ("Correction -
    you have 15,000 miles, so after the 10,000-mile upgrade you'd keep 5,000"): then its other values are other
    facts the correction reasons with, not a new value for the one it corrects."""
    return any(v.start != value.start and (first.same(v) or any(k.same(v) for k in known)) for v in find_values(sentence))


def rejected(sentence: str, value: Value) -> bool:
    """Round 5: a value named only to be set aside by a contrast ("$214.00, not $241", "4.0% rather than 2.0%",
    "not UPL-7331 but UPL-7133", "instead of 18:00"): the sentence says the fact is NOT that value, so it
    is no rival statement of the fact (the right value's own negation is judged where it is matched)."""
    before = normalise(sentence[: value.start])
    if REJECTING.search(before) is None:
        return False
    head = REJECTING.sub("", before)
    if re.search(r"(?:rather\s+than|instead\s+of|as\s+opposed\s+to)\s*$", before[len(head):].strip(), re.I):
        return True  # "rather than $241", "instead of 18:00": a contrast wherever it stands
    # "not" alone: a contrast after a statement ("..., not $241") or before one ("not $241 but $214")
    return bool(re.search(r"[,;:(\u2014\u2013-]\s*$", head)) or bool(re.match(r"[^,;.]{0,12}\bbut\b", sentence[value.end :], re.I))


PER_UNIT = re.compile(r"^\s*\)?\s*(?:each|apiece|a\s+head|per\s+[a-z]+|a\s+(?:person|passenger|guest|ticket|seat|traveller|traveler|night|unit|item|month|user|seat))\b", re.I)


def per_unit(sentence: str, value: Value) -> bool:
    """Round 5: a money value said per unit ("$20 per person", "$20 each", "$15 a head"): the rate, another
    fact than an amount in total (a total said "each" is judged where the right value is matched)."""
    return is_money(value) and PER_UNIT.match(sentence[value.end :]) is not None


def _part_of(wrong: Hit, right: list[Hit]) -> bool:
    """Round 5: values of the sentence of a right money value that add up to it are its breakdown ("the total is
    $139.00 ($99 for the earbuds plus $40 for the wallet)"): parts of the fact, no rival statement of it."""
    if wrong.value is None or not is_money(wrong.value):
        return False
    for hit in right:
        if hit.message != wrong.message or hit.sentence != wrong.sentence or hit.value is None or not is_money(hit.value):
            continue
        others = [v for v in find_values(hit.sentence) if is_money(v) and v.start != hit.value.start]
        if not 2 <= len(others) <= 6 or wrong.value.start not in {v.start for v in others}:
            continue
        total = hit.value.value
        for mask in range(1, 1 << len(others)):
            chosen = [v for i, v in enumerate(others) if mask >> i & 1]
            if len(chosen) >= 2 and any(v.start == wrong.value.start for v in chosen) and sum(v.value for v in chosen) == total:  # type: ignore[misc]
                return True
    return False


RANGE = re.compile(r"\s*(?:-|\u2013|\u2014|to|until|till|through|thru|and)\s*", re.I)


def _range_partner(unit: Unit, value: Value, right: list[Hit]) -> bool:
    """Whether `value` is the other end of a range a right value opens or closes in the same unit."""
    for hit in right:
        if hit.value is None or hit.message != unit.message or hit.sentence != unit.text:
            continue
        a, b = (hit.value, value) if hit.value.start < value.start else (value, hit.value)
        between = unit.text[a.end : b.start]
        if RANGE.fullmatch(between) and (not between.strip().lower() == "and" or re.search(r"between\s*$", unit.text[: a.start], re.I)):
            return True
        if a is hit.value and value.kind == "time" and CLOSES.search(unit.text[: value.start]) and not re.search(r"[.;!?]", between):
            return True  # round 5: "today at 16:00, until 18:00", "12:00 on Wednesday (until 14:00)": the window's end
    return False


CLOSES = re.compile(r"\b(?:until|till|til|through|thru|ending|ends|ending\s+at|ends\s+at|finishing|finishing\s+at|finishes\s+at|wrapping\s+up\s+at|up\s+to)\s*$", re.I)
"""Round 5: words that make a time the end of a window a right time opens earlier in its sentence ("at 16:00,
until 18:00"); never "to" alone ("moved to 18:00" states the time moved to)."""


OPENS = re.compile(r"(?:\b(?:at|from|starting|starts?|begins?)\s+(?:at\s+)?$)", re.I)


def _closing_instead(right: list[Hit], units: list[Unit], criterion: str) -> list[Hit]:
    """A right time or date the criterion states as the start of a fact ("at 10:00 (until 12:00)", "from
    10:00") that the replies state only as the end of a range another value opens ("08:00-10:00"), never
    otherwise: the fact stated is the opening value (round 3)."""
    out: list[Hit] = []
    for hit in right:
        v = hit.value
        if v is None or v.kind not in ("time", "date"):
            return []
        starts = [c for c in find_values(criterion) if c.kind == v.kind and c.same(v)]
        if not starts or not any(OPENS.search(criterion[: c.start]) or RANGE.fullmatch(criterion[c.end : c.end + 3] + " ")
                                 for c in starts):
            continue
        opening = [o for o in find_values(hit.sentence) if o.kind == v.kind and o.end <= v.start
                   and RANGE.fullmatch(hit.sentence[o.end : v.start]) and hit.sentence[o.end : v.start].strip().lower() != "and"]
        if not opening or any(o.same(c) for o in opening for c in find_values(criterion)):
            return []  # a statement of the right value as the start: no range's end alone
        unit = next((u for u in units if u.message == hit.message and u.text == hit.sentence), None)
        if unit is not None:
            out.append(Hit(hit.message, hit.sentence, unit.index * 10_000 + opening[-1].start, opening[-1]))
    return out


REFUSAL = frozenset(
    "refused declined failed rejected denied bounced blocked unable cannot can't couldn't won't passed expired unavailable".split()
)
REFUSAL_WINDOW = 5


def refused(unit: str, value: Value) -> bool:
    """A value stated with an outcome that did not happen ("The $900 transfer was refused", "the 14:00
    window today has passed"): an attempt or an option that failed is another fact than the one done."""
    after = re.findall(r"[a-z']+", _CLAUSE_BREAK.split(unit[value.end :].lower().replace("\u2019", "'"))[0])[:REFUSAL_WINDOW]
    return any(w in REFUSAL for w in after)


SUBJECT_WINDOW = 12
NAME = re.compile(r"(?:^|[,;:(]\s*|\s[-\u2013\u2014]\s*)([A-Z][a-z]+\s+[A-Z][a-z]+)\b(?!\s+[A-Z])")


def subject_of(unit: str, value: Value) -> str | None:
    """What a value is stated about: the last record id before it in its clause (within SUBJECT_WINDOW
    words), else a person's or company's two-word name opening its clause ("Priya Shah is already booked
    at 10:00"); None when the sentence names neither."""
    before = unit[: value.start]
    clause = _CLAUSE_BREAK.split(before)[-1]
    ids = [v for v in find_values(clause) if v.kind == "id"]
    if ids and len(re.findall(r"[A-Za-z0-9'-]+", clause[ids[-1].end :])) <= SUBJECT_WINDOW:
        return str(ids[-1].value)
    head = record_head(unit)  # a record line's values are said of its label: "- ORD-9017 - estimated delivery Monday 7 Dec"
    head_ids = [v for v in find_values(head or "") if v.kind == "id"] if head is None or value.text not in head else []
    if head_ids:
        return str(head_ids[-1].value)
    names = [m.group(1) for m in NAME.finditer(before) if m.start(1) >= len(before) - len(clause) - 2]
    if not names and (heading := HEADING.match(before)) and not re.search(r"[.;!?]\s", before[heading.end() :]):
        return heading.group(1).lower()  # round 6 (r6-subjects): "Elm Court - single $95, double $120": the heading's
    return names[-1].lower() if names else None


HEADING = re.compile(r"\s*(?:[-*\u2022]\s+)?(?:\*\*)?([A-Z][\w'&]*(?:\s+[A-Z][\w'&]*)+)(?:\*\*)?(?:\s+-\s+|\s*[\u2013\u2014]\s*|\s*:(?!\d)\s*)")
"""Round 6 (r6-subjects): a name heading its line before a dash or a label colon ("Bayfront Suites — standard $189, king
$219"): the values of the line after it are said of it."""


CORRECTION_OPENING_WORDS = 4
"""How far into its sentence a correction cue may stand to open it ("Actually, it was", "Sorry, that
should read")."""


def _corrects_back(sentence: str, value: Value, naming: frozenset[str]) -> bool:
    """A value with no label of its own in a sentence a correction cue opens ("Actually, it was $60.00.",
    "Sorry - that was $55.00.", "Correction: it's $604.20."): it takes back the fact just stated, so a
    value other than the right one there is the reply's final, wrong statement of it, whatever words it
    shares with the criterion. Its "was" is the correction's verb, not a past value; the criterion's own words
    for the fact are no other label ("we have 14. Sorry, 41 in stock." for "14 in stock"); a real marker
    ("before", "previous") or a label of its own ("your pending charges") makes it another fact."""
    before = normalise(sentence[: value.start])
    opening = " ".join(re.findall(r"[a-z']+", before)[:CORRECTION_OPENING_WORDS])
    if CORRECTION_CUE.search(opening) is None:
        return False
    labels, prior = _label_words(sentence, value, naming | CORRECTION_VERBS)
    if prior or PARTITIVE.match(sentence[value.end :]):
        return False  # "3 of them are reserved": a part of the fact, not the fact again
    cue_words = re.findall(r"[a-z']+", " ".join(m.group(0) for m in CORRECTION_CUE.finditer(before)))
    own = _content_stems(cue_words) | _content_stems(sorted(ANAPHORS)) | _content_stems(sorted(naming))
    return not labels - own  # the cue, "it" and the criterion's own words for the fact ("41 in stock") are no other label


PARTITIVE = re.compile(r"\s+of\s+(?:them|those|these|that|it|which|the|its|their|your)\b", re.I)
"""A count of part of what was counted ("2 of them", "3 of the 14"), never a correction of the count."""
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
    from grader.text.statuswords import rivals

    others = rivals(phrase) - known_words
    if any(_collective(h.sentence, _find_in(h.sentence, phrase)) for h in hits):
        return _summary_conflicts(phrase, others, hits, units)
    if not others:
        return []
    subjects = {s for h in hits if (s := _subject_id(h.sentence, _find_in(h.sentence, phrase))) is not None}
    if not subjects:
        return []
    later = [_changed_later(h, phrase, others) for h in hits]
    if later and all(c is not None for c in later):
        return later  # type: ignore[return-value]  # every matched statement of the status is changed since
    wrong = [h for h in _rival_mentions(hits, units, others, still_is_prior=True) if _subject_id(h.sentence, h.position % 10_000) in subjects]
    if not wrong:
        return []
    last_right = max(hits, key=lambda h: (h.message, h.position))
    return [Conflict(w, corrected(w, last_right, units) or changed(w, last_right)) for w in wrong]


CHANGED_SINCE = re.compile(r"\b(?:now|again|since|currently|these days|at the moment|as of today|back to)\b", re.I)
"""Words that place a status after an earlier one of the same record, in one sentence ("ORD-9006 was cancelled,
then reinstated - it's processing now", "... but is now processing again")."""
_SAME_SUBJECT = frozenset("it it's its is was has have been being then and but so which that currently back now again since "
                          "reinstated reopened restored reactivated revived later".split())
"""The words a clause may hold before a later status for it to be said of the same subject (a pronoun or none)."""


def _changed_later(hit: Hit, phrase: str, others: frozenset[str] | set[str]) -> Conflict | None:
    """A status matched in a sentence that goes on to put its record in another status since ("ORD-9006 was
    cancelled, then reinstated at your request - it's processing now"): the later status is the record's. The
    later one must be un-negated, placed after the earlier by a word of change in its own clause ("now", "again",
    "since"), and said of the same subject: its clause holds the record's id, or a pronoun and no other noun ("the refund is
    processing now" is another subject)."""
    start = _find_in(hit.sentence, phrase)
    if start < 0:
        return None
    lowered = hit.sentence.lower().replace("_", " ")
    own = _subject_id(hit.sentence, start)
    for word in others:
        for match in rx(r"(?<![a-z])" + re.escape(word) + r"(?![a-z])").finditer(lowered, start + len(phrase)):
            before = normalise(hit.sentence[: match.start()])
            if negated_before(before):
                continue
            clause = _CLAUSE_BREAK.split(hit.sentence[start + len(phrase) : match.start()])[-1]
            words = re.findall(r"[a-z']+", clause.lower())
            same = (own is not None and own.lower() in clause.lower()) or set(words) <= _SAME_SUBJECT
            after = _CLAUSE_BREAK.split(hit.sentence[match.end() :])[0]
            if same and CHANGED_SINCE.search(clause + " " + after):
                return Conflict(Hit(hit.message, hit.sentence, (hit.position // 10_000) * 10_000 + match.start()), False)
    return None


def _rival_mentions(
    hits: list[Hit], units: list[Unit], others: frozenset[str] | set[str], *, still_is_prior: bool, exclude: set[tuple[int, str]] | None = None
) -> list[Hit]:
    """Every un-negated mention of another status in a carried unit other than the matched ones, not placed
    at another time by a marker before it (`still_is_prior`: "still" counts as such a marker). A summary's
    rivals are looked for in every sentence but the summary's own ("October is paid; November is still
    open. So both are paid.")."""
    right_sentences = {(h.message, h.sentence) for h in hits} if exclude is None else exclude
    out: list[Hit] = []
    for unit in units:
        if not unit.carried or (unit.message, unit.text) in right_sentences:
            continue
        lowered = unit.text.lower().replace("_", " ")
        for word in others:
            for match in rx(r"(?<![a-z])" + re.escape(word) + r"(?![a-z])").finditer(lowered):
                before = normalise(unit.text[: match.start()])
                window = re.findall(r"[a-z]+", _CLAUSE_BREAK.split(before)[-1])[-LABEL_BEFORE:]
                if negated_before(before) or any(w in PRIOR_MARKERS or (still_is_prior and w == "still") for w in window):
                    continue
                out.append(Hit(unit.message, unit.text, unit.index * 10_000 + match.start()))
    return out


CHANGE = re.compile(r"\b(?:now|has been|have been|had been|was|were|updated|changed|moved|set to|marked|is now)\b", re.I)


def changed(wrong: Hit, last_right: Hit) -> bool:
    """A status stated before the statement that it changed ("PNR-1 (confirmed)", then "PNR-1 is now
    cancelled"): the earlier one is the record's state before the change, not another state of it."""
    return (wrong.message, wrong.position) < (last_right.message, last_right.position) and CHANGE.search(last_right.sentence) is not None


COLLECTIVE = frozenset("both all each every".split())
"""Words that say a status of several records at once ("they" may be one plural thing: "the shoes ... they
are out of stock")."""


def _collective(sentence: str, start: int) -> bool:
    """Whether a status word is said of several records at once ("both are paid", "they are all closed")."""
    clause = _CLAUSE_BREAK.split(sentence[:start].lower())[-1]
    return any(w in COLLECTIVE for w in re.findall(r"[a-z]+", clause)[-STATUS_SUBJECT_WINDOW:])


def _summary_conflicts(phrase: str, others: frozenset[str] | set[str], hits: list[Hit], units: list[Unit]) -> list[Conflict]:
    """A status said of several records at once is contradicted by any other statement that one of them is
    in another status ("November is still open"), or is not in this one ("November isn't paid"), wherever
    it stands: a summary binds to every subject it covers. Not resolved by stating the summary again."""
    summaries = {(h.message, h.sentence) for h in hits if _collective(h.sentence, _find_in(h.sentence, phrase))}
    wrong = _rival_mentions(hits, units, others, still_is_prior=False, exclude=summaries)  # "still open" is a present state here
    pattern = phrase_pattern(phrase)
    for unit in units:  # the summary's own words negated of one subject: "November isn't paid"
        if unit.carried:
            text = normalise(unit.text)
            wrong += [Hit(unit.message, unit.text, unit.index * 10_000 + m.start()) for m in pattern.finditer(text) if negated_before(text[: m.start()])]
    return [Conflict(w, False) for w in wrong]


def _find_in(sentence: str, phrase: str) -> int:
    match = rx(r"(?<![a-z])" + re.escape(phrase.lower().rstrip("*").replace("_", " "))).search(sentence.lower().replace("_", " "))
    return match.start() if match else 0


# ---- what is said of a subject the criterion names as an item -------------------------------------------

FRAMING = frozenset(
    "says say states state tells tell confirms confirm explains explain gives give lists list reports report names name "
    "notes note mentions mention offers offer asks ask recommends recommend shows show warns warn points point".split()
)
"""The criterion's own verbs of saying: never what it says of a subject."""
TIME_WORDS = frozenset("now today tomorrow yesterday already still yet again then soon later instead currently".split())
COPULA = re.compile(r"\s*(?:is|are|was|were|has\s+been|have\s+been|had\s+been|will\s+be|stays|remains)\s+(?:now\s+|still\s+|already\s+)?([a-z][a-z-]+)", re.I)


@dataclass(frozen=True)
class _SubjectItem:
    """An evidence item the criterion states something of (a record id, a name, or the plain noun phrase a
    clause opens with): its phrases, its kind, what the criterion says of it, and the rival phrases."""

    phrases: tuple[str, ...]
    kind: str
    predicates: frozenset[str]
    rivals: tuple[str, ...]
    fellows: tuple[str, ...] = ()
    """The other subjects the criterion names in the item's clause ("REC-6008 and REC-6009 were deleted",
    "Mark Chen's Northwind Foods lead LEAD-1002"): said with the predicate, they are no rivals."""


def _predicate_words(criterion: str, s: int, e: int, item_end: int, skip: set[str]) -> set[str]:
    """What a criterion clause says of its subject: participles ("assigned", "paged", "sent"), a verb after
    "to" ("use"), and the word after a copula right after the subject ("is missing", "is urgent")."""
    from grader.text.binding import _lower_words
    from grader.text.units import IRREGULAR_PARTICIPLES

    clause = criterion[s:e]
    words = _lower_words(clause)
    # a participle after a determiner describes a noun ("of the executed transfer", "a signed form"): it is
    # not said of the subject
    attributive = {m.group(1).lower() for m in re.finditer(r"\b(?:the|a|an|this|that|its|your|his|her|their|our|my)\s+([a-z]{3,})\b", clause, re.I)}
    out = {w for w in words if (re.fullmatch(r"[a-z]{3,}ed", w) or w in IRREGULAR_PARTICIPLES) and w not in attributive}
    out |= {m.group(1).lower() for m in re.finditer(r"\bto\s+([a-z]{3,})\b", clause, re.I)}
    copula = COPULA.match(criterion, item_end)
    if copula and copula.end() <= e:
        out.add(copula.group(1).lower())
    negated = {w.lower() for m in re.finditer(r"(?:\bnot|\bnever|\bno|\bcannot|\bunable\s+to|\bwithout|n't)\s+((?:[a-z]+\s*){1,3})", clause.replace("\u2019", "'"), re.I) for w in m.group(1).split()}
    return {w for w in out if w not in FRAMING and w not in FUNCTION_WORDS and w not in TIME_WORDS and w not in UNIT_WORDS and w not in skip and w not in negated}


def _subject_items(criterion: str, items: tuple[tuple[str, ...], ...]) -> list[_SubjectItem]:
    from grader.text.binding import _item_spans, _lower_words, clause_at, subjects
    from grader.text.values import phrase_value

    everyone = subjects(criterion, criterion=True)
    subject_words = {w for x in everyone for w in x.key.lower().split()}
    out: list[_SubjectItem] = []
    for phrases in items:
        ids = [p for p in phrases if (v := phrase_value(p)) is not None and v.kind == "id" and "-" in p]
        kind = ""
        spans: list[tuple[int, int]] = []
        for p in ids or phrases:
            value = phrase_value(p)
            if value is not None and value.kind != "id":
                continue
            spans = _item_spans(p, criterion)
            if spans:
                break
        if not spans:
            continue
        a, b = spans[0]
        named = [x for x in everyone if x.start <= a < x.end or a <= x.start < b]
        if ids:
            kind = "id:" + re.match(r"[A-Z]+", ids[0]).group(0)
        elif named and named[0].kind == "name":
            kind = "name"
        elif COPULA.match(criterion, b) and not find_values(criterion[a:b]):
            kind = "phrase"  # "the proof of address is missing"
        else:
            continue
        s, e = clause_at(criterion, a, True)
        skip = subject_words | set(_lower_words(" ".join(phrases)))
        predicates = _predicate_words(criterion, s, e, b, skip)
        if not predicates:
            continue
        rivals: list[str] = []
        if kind == "phrase":  # the noun phrases other clauses of the criterion open with
            for m in re.finditer(r"\b(?:the|a|an|your|its|their|his|her)\s+((?:[A-Za-z][\w-]*\s+){0,3}?[A-Za-z][\w-]*)" + COPULA.pattern, criterion, re.I):
                if not (m.start(1) <= a < m.end(1) or a <= m.start(1) < b):
                    rivals.append(m.group(1))  # "(the certificate of incorporation is on file)"
            if not rivals:
                continue
        fellows = tuple(x.key.lower() for x in everyone if s <= x.start < e)
        out.append(_SubjectItem(tuple(phrases), kind, frozenset(predicates), tuple(rivals), fellows))
    return out


def _nearest_owner(sentence: str, at: int, item: _SubjectItem) -> str | None:
    """Whose is a predicate word at `at`: "own" (the item), "rival" (another subject of its kind) or None —
    the nearest in the word's clause."""
    from grader.text.binding import _item_spans, clause_at, subjects

    s, e = clause_at(sentence, at)
    found: list[tuple[int, str]] = []
    if item.kind == "phrase":
        for p in item.phrases:
            found += [(x, "own") for x, _ in _item_spans(p, sentence)]
        for r in item.rivals:
            found += [(x, "rival") for x, _ in _item_spans(r, sentence)]
    else:
        names = [p.lower() for p in item.phrases] + list(item.fellows)
        for x in subjects(sentence, [p for p in item.phrases if item.kind == "name"]):
            if x.kind != item.kind and not any(x.same(y) for y in subjects(" ".join(item.fellows).title())):
                continue
            own = any(x.key.lower() == n or (item.kind == "name" and (set(x.key.split()) <= set(n.split()) or set(n.split()) <= set(x.key.split()))) for n in names)
            found.append((x.start, "own" if own else "rival"))
        if item.kind == "name":  # r10-words: the item's or a fellow's name written in lower case or with spaces for hyphens ("pricing follow up", "emma schultz")
            for p in (*item.phrases, *item.fellows):
                if len(parts := [w for w in re.split(r"[\s\-]+", p.strip()) if w]) < 2:
                    continue  # a single word is a name only capitalised (`binding.subjects`)
                spelled = r"[\s\-]+".join(re.escape(w) for w in parts)
                found += [(m.start(), "own") for m in rx(r"(?<![A-Za-z0-9])" + spelled + r"(?![A-Za-z0-9])", re.I).finditer(sentence) if not any(x == m.start() for x, _ in found)]
    found = [(x, who) for x, who in found if s <= x < e]
    if not found:
        return None
    return min(found, key=lambda f: abs(f[0] - at))[1]


def predicate_conflicts(units: list[Unit], criterion: str, items: tuple[tuple[str, ...], ...]) -> list[Conflict]:
    """What the criterion says of an item that is a subject — "assigned to Jamal Wright", "use CASE-5006",
    "the proof of address is missing" — said in the replies of another subject of its kind (another name,
    another id of its prefix, a noun phrase another clause of the criterion opens with: "It's assigned to
    Ben Carter", "please use CASE-5007", "the certificate of incorporation is still missing") and never of
    the item itself, un-negated: the replies bind the fact to the wrong subject."""
    from grader.text.lexicon import word_keys

    out: list[Conflict] = []
    for item in _subject_items(criterion, items):
        for predicate in item.predicates:
            keys = set(word_keys(predicate))
            owners: list[tuple[str, Hit]] = []
            for unit in units:
                if not unit.carried:
                    continue
                for m in re.finditer(r"[A-Za-z][A-Za-z'-]*", unit.text):
                    if not set(word_keys(m.group(0).lower())) & keys:
                        continue
                    if negated_before(normalise(unit.text[: m.start()])):
                        continue
                    who = _nearest_owner(unit.text, m.start(), item)
                    if who:
                        owners.append((who, Hit(unit.message, unit.text, unit.index * 10_000 + m.start())))
            if owners and all(who == "rival" for who, _ in owners):
                out.append(Conflict(owners[0][1], _rebound(owners[-1][1], item, units)))
    return out


def _rebound(wrong: Hit, item: _SubjectItem, units: list[Unit]) -> bool:
    """Round 5, the correction rule for a swapped subject: a later sentence marked as a correction ("Typo on my
    part - the passport reference is UPL-7133, not UPL-7331") names the item un-negated (the rival, if named
    there, only set aside by "not"), so the fact is bound to the item again ("It's registered" may follow)."""
    from grader.text.binding import _item_spans

    at = (wrong.message, wrong.position // 10_000)
    for unit in units:
        if not unit.carried or (unit.message, unit.index) <= at:
            continue
        cue = " ".join(u.text for u in units if u.message == unit.message and unit.index - 1 <= u.index <= unit.index)
        if CORRECTION_CUE.search(cue) is None:
            continue
        own = [x for p in item.phrases for x, _ in _item_spans(p, unit.text)]
        if not own or any(negated_before(normalise(unit.text[:x])) for x in own):
            continue
        rivals = [x for r in item.rivals for x, _ in _item_spans(r, unit.text)]
        if all(REJECTING.search(normalise(unit.text[:x])) for x in rivals) and not re.search(r"\b(?:not|never|isn't|wasn't|hasn't|didn't)\b", _CLAUSE_BREAK.split(unit.text[max(own):])[0], re.I):
            return True
    return False


def _items_of(criterion: str, phrases: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """The criterion's evidence phrases, each judged as an item of its own (an item's alternatives name the
    same subject: any of them said of a rival and none of the item is the same swap)."""
    return tuple((p,) for p in dict.fromkeys(phrases))


# ---- a value's period (round 3) ---------------------------------------------------------------------------

PERIODS = {
    "hour": r"hour|hr|hourly", "day": r"day|daily|diem", "night": r"night|nightly", "week": r"week|wk|weekly",
    "month": r"month|mo|mth|monthly", "quarter": r"quarter|qtr|quarterly", "year": r"year|yr|annum|annual|annually|yearly",
}
PERIOD_AFTER = re.compile(
    r"^\s*(?:(?:usd|dollars?|eur|euros?)\s+)?(?:(?:per|a|an|each|every|/|a\s+single)\s*(?P<per>[a-z]+)\b|(?P<adv>hourly|daily|nightly|weekly|monthly|quarterly|yearly|annually)\b)",
    re.I,
)
PERIOD_BEFORE = re.compile(r"\b(?P<adj>hourly|daily|nightly|weekly|monthly|quarterly|yearly|annual)\s+(?:[a-z]+\s+){0,2}$", re.I)


def _period(text: str, value: Value) -> str | None:
    """The period a money value is stated per ("$1,200 per month", "$299/mo", "$40 a night", "an annual fee of
    $99", "$20 monthly"), or None."""
    m = PERIOD_AFTER.match(text[value.end : value.end + 30])
    word = (m.group("per") or m.group("adv")) if m else None
    if word is None:
        b = PERIOD_BEFORE.search(text[max(0, value.start - 40) : value.start])
        word = b.group("adj") if b else None
    if word is None:
        return None
    for period, forms in PERIODS.items():
        if rx(forms + r"s?").fullmatch(word.lower()):
            return period
    return None


def period_mismatch(hit: Hit, criterion: str) -> bool:
    """Whether a money match is stated per another period than the criterion states it ("costs $1,200 per
    month" and "$1,200 per year"): another fact (round 3)."""
    v = hit.value
    if v is None or not is_money(v):
        return False
    said = _period(hit.sentence, v)
    if said is None:
        return False
    wanted = {p for c in find_values(criterion) if c.kind == v.kind and c.same(v) and (p := _period(criterion, c))}
    return bool(wanted) and said not in wanted


# ---- r10-words: a wrong statement corrected later (absent phrases) ---------------------------------

ABSENT_CORRECTION_CUE = re.compile(r"\b(?:" + _SELF_CORRECTION + r"|mistaken|i got that wrong|let me correct|i mixed up)\b", re.I)
"""r10-words: words that make a sentence a correction by themselves ("Correction: ...", "I misspoke - ...")."""
SOFT_CORRECTION_CUE = re.compile(r"\b(?:sorry|apolog\w*|actually|wait|rather|to clarify|scratch that)\b", re.I)
"""r10-words: words that make a sentence a correction only with a contrast in it ("Sorry - the Amex, not the Visa")."""
CONTRAST_NOT = re.compile(r"(?:\bnot\b|\*\*not\*\*|\binstead of\b|\brather than\b)", re.I)
_SHARED_WORD = re.compile(r"[a-z][a-z'-]{3,}")


def absent_corrected(phrase: str, hit: Hit, units: list[Unit], later_hits: Sequence[Hit]) -> bool:
    """r10-words, corrections kept: an `absent` phrase stated in one sentence is taken back by a later sentence
    (later in its message or in a later message) that is a correction — a cue of its own ("Correction: ...",
    "I misspoke"), or "sorry"/"actually" with a contrast ("..., not the Visa") — about the same fact (it
    shares a value or a content word with the wrong sentence), when the phrase is never said at or after that
    correction: the final statement is what counts."""
    index = hit.position // 10_000
    wrong_words = {w for w in _SHARED_WORD.findall(hit.sentence.lower()) if w not in FUNCTION_WORDS} - set(re.findall(r"[a-z']+", phrase.lower()))
    wrong_values = [v for v in find_values(hit.sentence) if v.kind != "id" or v.value != phrase.upper()]
    for unit in units:
        if (unit.message, unit.index) <= (hit.message, index) or unit.question:
            continue
        text = unit.text
        cue = ABSENT_CORRECTION_CUE.search(text)
        if cue is None:
            soft = SOFT_CORRECTION_CUE.search(text)
            if soft is None or CONTRAST_NOT.search(text, soft.end()) is None:
                continue
        shared = wrong_words & set(_SHARED_WORD.findall(text.lower())) or any(w.same(v) for w in wrong_values for v in find_values(text))
        if not shared:
            continue
        return not any((h.message, h.position // 10_000) >= (unit.message, unit.index) for h in later_hits)
    return False

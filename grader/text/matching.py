"""Where an evidence phrase is stated in a transcript (rule 1 of `grader.text.evidence`): a value phrase
as the same value in any written form, a count phrase as that count followed by its words, other phrases
through the lexicon's forms and the stems of their content words (`grader.text.lexicon`), never inside a
unit that carries no fact (`grader.text.units`) and never negated."""

from __future__ import annotations

import re
from decimal import Decimal
from functools import lru_cache

from grader.text.lexicon import not_yet_before, phrase_forms, word_keys
from grader.text.units import FUNCTION_WORDS, IRREGULAR_PARTICIPLES, NEGATORS, Hit, Unit, _sentences, _starts_negated, _value_negated, hypothetical_before, negated_after, negated_before, normalise, phrase_pattern
from grader.text.values import grouped_code, NUMBER_WORDS, Value, durations, find_values, id_mentions, phrase_count, phrase_value, singular, unit_seconds


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


COUNT_LABEL = re.compile(
    r"(?:\b(?:number|no\.|count|total)\s+of\s+)?(?:\btotal\s+)?(?P<noun>[A-Za-z][A-Za-z']*(?:\s+[A-Za-z][A-Za-z']*)?)(?:\s+(?:count|total))?\s*(?::|=|\s[\u2014\u2013-])\s*$"
)
"""A count's noun as its label before it: "Recipients: 1", "Number of recipients: 1", "recipient count: 1",
"Seats in use - 4" (the label's last one or two words are the count phrase's words)."""


def counted_label_before(unit: str, value: Value, nouns: tuple[str, ...]) -> bool:
    """Whether the words of a count phrase label the count `value` in `unit` (`COUNT_LABEL`), singular or
    plural, never negated ("No recipients: 1" has no label of that kind)."""
    head = re.split(r"[.;!?\n(]|,\s", unit[max(0, value.start - 80) : value.start])[-1]
    m = COUNT_LABEL.search(head)
    if m is None:
        return False
    got = [singular(w) for w in m["noun"].lower().split()]
    while len(got) > 1 and got[-1] in ("count", "total", "number"):
        got.pop()
    want = [singular(n) for n in nouns]
    return got[-len(want) :] == want and not any(w in NEGATORS or w.endswith("n't") for w in head.lower().split())


def phrase_hits(phrase: str, units: list[Unit], *, negation: bool = True, carried_only: bool = True, forms: bool = True) -> list[Hit]:
    """Every mention of `phrase` in the units (un-negated ones only, unless `negation` is False). With
    `forms` False the phrase matches only as written (an `absent` phrase: what must not be said is a
    precise wrong statement, and its stems would trip on right ones: "your card" is not "gift card")."""
    target = phrase_value(phrase)
    count = phrase_count(phrase) if target is None else None
    already = _ALREADY.match(normalise(phrase)) if forms and negation else None  # "already deleted": its state, said done before
    hits: list[Hit] = []
    for unit in units:
        if carried_only and not unit.carried:
            continue
        if count is not None:
            found = [
                Hit(unit.message, unit.text, unit.index * 10_000 + value.start, value)
                for value in find_values(unit.text)
                if count[0].same(value) and (counted_words_follow(unit.text, value, count[1]) or counted_label_before(unit.text, value, count[1])) and (not negation or not _value_negated(unit.text, value))
            ]
            if not found and len(count[1]) == 1 and (seconds := unit_seconds(singular(count[1][0]))) is not None:
                # a span of time in another unit or in words: "half a minute" states "30 seconds"
                want = Decimal(str(count[0].value)) * seconds
                for amount, start, _ in durations(unit.text):
                    if amount == want and not (negation and negated_before(normalise(unit.text[:start]))):
                        found.append(Hit(unit.message, unit.text, unit.index * 10_000 + start))
            if not found and forms:  # "7 Lake Road" reads as a count of 7; its other writing is an address: "7 Lake Rd"
                for start in _other_writings(phrase, unit.text):
                    before = normalise(unit.text[:start])
                    if not (negation and (hypothetical_before(before) or negated_before(before))):
                        found.append(Hit(unit.message, unit.text, unit.index * 10_000 + start))
            hits += found
            if found or not STEMMABLE_COUNT.fullmatch(phrase.strip()):
                continue
            # else: a count in words the value reader does not take ("a stage at a time" for "one stage
            # at a time"): matched by its words, "a"/"an"/"single" stating one
        if target is not None:
            for value in find_values(unit.text):
                if target.same(value) and (target.kind != "id" or value.value == target.value):
                    if not negation or value.kind == "id" or not _value_negated(unit.text, value):
                        hits.append(Hit(unit.message, unit.text, unit.index * 10_000 + value.start, value))
            if target.kind == "id":  # "incident 2004", "INC 2004", "request #5003" for INC-2004 / REQ-5003
                ids = [v for v in find_values(unit.text) if v.kind == "id"]
                for value in id_mentions(str(target.value), unit.text):
                    # another id overlapping the mention is another record, unless the mention holds it whole
                    # (r6-words: "1Z-999-AA1-0123-456-784" holds "AA1-0123-456-784")
                    if not any(v.start < value.end and value.start < v.end and not (value.start <= v.start and v.end <= value.end and v.end - v.start < value.end - value.start) for v in ids):
                        hits.append(Hit(unit.message, unit.text, unit.index * 10_000 + value.start, value))
            continue
        if (listed := _value_list(phrase)) is not None:
            if (at := _states_list(listed, unit.text)) is not None and (not negation or not _value_negated(unit.text, at)):
                hits.append(Hit(unit.message, unit.text, unit.index * 10_000 + at.start, at))
                continue
        text = normalise(unit.text)
        seen: set[int] = set()
        for match in phrase_pattern(phrase).finditer(text):
            if negation and (hypothetical_before(text[: match.start()]) or (not _starts_negated(phrase) and negated_after(text[match.end() :], text[: match.start()]))):
                seen.add(match.start())  # "whether it's in stock"; "navy isn't available": not stated
                continue
            if not negation or _starts_negated(phrase) or not negated_before(text[: match.start()]):
                seen.add(match.start())
                hits.append(Hit(unit.message, unit.text, unit.index * 10_000 + match.start()))
        for start in _other_writings(phrase, unit.text) if forms else ():
            before = normalise(unit.text[:start])
            if negation and (hypothetical_before(before) or negated_before(before)):
                continue
            hits.append(Hit(unit.message, unit.text, unit.index * 10_000 + start))
            seen.add(-1 - start)
        for start in stem_matches(phrase, text, negation=negation) if forms else ():
            if negation and hypothetical_before(text[:start]):
                continue
            if start not in seen:
                seen.add(start)
                hits.append(Hit(unit.message, unit.text, unit.index * 10_000 + start))
        if not seen and already is not None:
            hits += [h for h in phrase_hits(already.group(1), [unit], carried_only=carried_only) if _done_before(text, h.position % 10_000)]
    return hits


_ALREADY = re.compile(r"already\s+(?!(?:has|have|had|got|on|in|a|an|the)\b)(.+)")
"""An "already ..." phrase whose rest is a state reached ("already deleted", "already refunded"), not a holding
("already has an account", "already on it": those say what "already" adds in their own words)."""
_PAST_AUX = re.compile(r"\b(?:was|were|had\s+been|got)\s+(?:[a-z]+ly\s+|all\s+|fully\s+)?$")
_PAST_ANCHOR = re.compile(
    r"\b(?:ago|earlier|previously|beforehand|no\s+longer|back\s+(?:on|in)|last\s+(?:week|month|year|night|[a-z]+day)|"
    r"(?:on|since)\s+(?:the\s+)?(?:\d|mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))"
)


def _done_before(text: str, start: int) -> bool:
    """Whether the state matched at `start` is said reached before now: a past passive ("was deleted", "were
    refunded", "had been credited", "got deleted") in a sentence that places it in the past ("on 29 November",
    "back in October", "two days ago", "no longer exists"). That states "already deleted" without the word: the
    agent reports a state it found, not an act it did ("I've deleted it" has no such reading)."""
    return _PAST_AUX.search(text[max(0, start - 40) : start]) is not None and _PAST_ANCHOR.search(text) is not None


# ---- a list of values ------------------------------------------------------------------------------

LIST_GAP = 16
"""At most this many characters between two values of a list ("priority 1 or 2", "P1 / P2", "6% and 4%")."""


@lru_cache(maxsize=4096)
def _value_list(phrase: str) -> tuple[Value, ...] | None:
    """The values of a phrase that is only values joined by "or", "and", "/", "&" or commas ("P1 or P2",
    "P1/P2"), else None."""
    values = find_values(phrase)
    if len(values) < 2:
        return None
    rest = phrase
    for v in reversed(values):
        rest = rest[: v.start] + " " + rest[v.end :]
    if re.sub(r"\b(?:or|and)\b|[/,&\s]", "", rest, flags=re.I):
        return None
    return tuple(values)


def _states_list(listed: tuple[Value, ...], text: str) -> Value | None:
    """The first value of the list's values stated in `text` in any written form, in order, each within
    LIST_GAP characters of the one before ("priority 1 or 2" for "P1 or P2"); None if not."""
    found = find_values(text)
    for i, first in enumerate(found):
        if not listed[0].same(first):
            continue
        at, ok = i, True
        for want in listed[1:]:
            nxt = next((k for k in range(at + 1, len(found)) if want.same(found[k]) and found[k].start - found[at].end <= LIST_GAP), None)
            if nxt is None:
                ok = False
                break
            at = nxt
        if ok:
            return first
    return None


# ---- other writings: codes and acronyms ------------------------------------------------------------

STREET_ABBREVIATIONS = {
    "road": ("rd",), "street": ("st",), "avenue": ("ave", "av"), "boulevard": ("blvd",), "drive": ("dr",), "lane": ("ln",),
    "court": ("ct",), "place": ("pl",), "terrace": ("terr", "ter"), "highway": ("hwy",), "parkway": ("pkwy",),
    "square": ("sq",), "crescent": ("cres",), "circle": ("cir",), "suite": ("ste",), "apartment": ("apt",),
}
"""The postal abbreviations of street words: an address phrase is stated with its street word abbreviated."""
_ADDRESS = re.compile(r"(?P<head>\d+[A-Za-z]?\s+(?:[A-Z][A-Za-z'-]*\s+){1,3})(?P<kind>" + "|".join(k.capitalize() for k in STREET_ABBREVIATIONS) + r")", re.I)
_PERSON = re.compile(r"(?P<first>[A-Z][a-z]{2,})\s(?P<last>[A-Z][a-z]+(?:-[A-Z][a-z]+)?)")
"""A person's name of two capitalised words: stated also with the first name as its initial ("J. Wright")."""
_CODE = re.compile(r"(?P<a>\d{1,4})(?P<b>[A-Za-z]{1,2})|(?P<c>[A-Za-z]{1,2})(?P<d>\d{1,4})")
_ACRONYM = re.compile(r"[A-Z]{2,5}")
_INITIAL_SKIP = frozenset("of and for the & to".split())


_DIGIT_WORDS = ("(?:zero|oh)", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
"""r6-words: a keypad digit said as a word ("star-eight-six" for "*86")."""
_PATH_SEP = re.compile(r"\s*(?:>|\u203a|\u00bb|\u2192|->|=>)\s*")
_PATH_JOIN = (
    r"(?:[\s*_\"'`,:>\u203a\u00bb\u2192\-=]|\b(?:then|and|next|open|opens|click|select|choose|tap|hit|go|to|into|"
    r"on|the|tab|menu|page|section|screen|pick)\b){1,48}?"
)
"""r6-words: what stands between two steps of a menu path in a reply: punctuation, arrows, markdown and the
words of moving on ("then", "open", "click", "go to"); never a full stop: the steps are in one sentence."""


def _path_steps(phrase: str) -> list[str] | None:
    """The steps of a menu path written with ">" or an arrow ("Network > Addresses", "Settings → Billing"), each
    of words only, in order; None for any other phrase. Its other writings keep the order ("open Network, then
    Addresses", "Network → Addresses"); the steps the other way round are another path."""
    parts = _PATH_SEP.split(phrase)
    if len(parts) < 2 or not all(re.fullmatch(r"[A-Za-z][A-Za-z&' ]*", x.strip()) for x in parts):
        return None
    return [r"\s+".join(re.escape(w) for w in x.split()) for x in parts]


@lru_cache(maxsize=4096)
def _writing_patterns(phrase: str) -> tuple[re.Pattern[str], ...]:
    """Other writings of a code or an acronym phrase: a seat or unit code with a hyphen at its
    letter/digit boundary ("12A" / "12-A", "B7" / "B-7"); an acronym as the capitalised words its letters
    begin ("CAB" / "Change Advisory Board", "CTR" / "Click-Through Rate", "of"/"and" skipped); a phrase of
    three to five words (no negator) as its acronym in capitals ("service level agreement" / "SLA")."""
    p = phrase.strip()
    out = []
    if (m := _CODE.fullmatch(p)) is not None:
        x, y = (m["a"], m["b"]) if m["a"] else (m["c"], m["d"])
        out.append(re.compile(rf"(?<![A-Za-z0-9-]){re.escape(x)}[-\u2011]{re.escape(y)}(?![A-Za-z0-9]|-[A-Za-z0-9])", re.I))
        if m["a"] and y.isupper():  # "seat 12 A": a capital letter after a space, as written ("12 a day" is no seat)
            out.append(re.compile(rf"(?<![A-Za-z0-9.,$-]){re.escape(x)}[ \u00a0]{re.escape(y)}(?![A-Za-z0-9]|-[A-Za-z0-9]|\.\s?[a-z])"))
        # r6-words: a carrier's code and number apart ("AU 330" / "AU330"), two capitals as written, 3-4 digits whole
        if m["c"] and len(x) == 2 and x.isupper() and len(y) >= 3:
            out.append(re.compile(rf"(?<![A-Za-z0-9-]){re.escape(x)}[ \u00a0]{re.escape(y)}(?![A-Za-z0-9]|[.,:]\d|-\d)"))
    if (grouped := grouped_code(p)) is not None:  # r6-words: a long code written in groups ("1Z 999 AA1 ...")
        out.append(grouped)
    if (key := re.fullmatch(r"(?P<k>[*#])(?P<d>\d{1,6})", p)) is not None:  # r6-words: "*86" said "star-eight-six", "star 86"
        symbol = r"(?:\*|star|asterisk)" if key["k"] == "*" else r"(?:\#|hash|pound)"
        digits = r"[\s\-]*".join(rf"(?:{d}|{_DIGIT_WORDS[int(d)]})" for d in key["d"])
        out.append(re.compile(rf"(?<![A-Za-z0-9]){symbol}[\s\-]*(?:{re.escape(key['d'])}|{digits})(?![A-Za-z0-9]|[\s\-]+(?:\d|(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)\b))", re.I))
    if (grade := re.fullmatch(r"(?i:grade)\s+(?:of\s+)?(?P<g>[A-F][+-]?)|(?P<h>[A-F][+-]?)\s+(?i:grade)", p)) is not None:
        # r6-words: a letter grade said with an article or a verb of rating ("that makes it a B", "rated B"), the
        # capital letter as written
        g = re.escape(grade["g"] or grade["h"])
        out.append(re.compile(rf"(?<![A-Za-z])(?:[Aa]n?|[Rr]ated|[Gg]raded|[Ss]cores?|[Ss]cored|[Ii]t's|[Ii]t\s+is|[Tt]hat's)\s+{g}(?![A-Za-z0-9+\-'\u2019]|\+|-)"))
    if (steps := _path_steps(p)) is not None:  # r6-words: a menu path in words ("open Network, then Addresses")
        out.append(re.compile(r"(?<![A-Za-z])" + _PATH_JOIN.join(steps) + r"(?![A-Za-z])", re.I))
    if (address := _ADDRESS.fullmatch(p)) is not None:  # "7 Lake Road" / "7 Lake Rd." / "7 Lake Rd"
        kind = address["kind"].lower()
        short = "|".join(re.escape(a) for a in STREET_ABBREVIATIONS[kind])
        out.append(re.compile(rf"(?<![A-Za-z0-9]){re.escape(address['head'].strip())}\s+(?:{short})\b\.?", re.I))
    if (name := _PERSON.fullmatch(p)) is not None:  # "Jamal Wright" / "J. Wright" / "J Wright"
        out.append(re.compile(rf"(?<![A-Za-z.]){name['first'][0]}\.?\s{re.escape(name['last'])}(?![A-Za-z])"))
        # r8-words: the first name alone ("Ben is free at 10, so I've put him on your visit"), as a person: a he/she
        # pronoun later in its sentence, no other surname or initial after it ("Ben Miller", "Ben M."), no capital
        # word before it ("Big Ben"); "Alex's Thursday" is Alex too
        out.append(re.compile(
            rf"(?<![A-Za-z.\-])(?<![A-Z][a-z]\s)(?<![A-Z][a-z]{{2}}\s)(?<![A-Z][a-z]{{3}}\s)(?<![A-Z][a-z]{{4}}\s){re.escape(name['first'])}(?:'s|\u2019s)?"
            rf"(?![A-Za-z\-]|\s+[A-Z][a-z]*\b|\s+[A-Z]\.|\s*\()(?=[^.!?\n]*?\b(?:he|she|him|her|his|he's|she's)\b)"
        ))
    if _ACRONYM.fullmatch(p) and len(set(p)) > 1:
        skip = r"(?:(?:of|and|for|the|&)\s+)?"
        parts = [rf"{c}[a-z]+" for c in p]
        out.append(re.compile(r"(?<![A-Za-z])" + (r"(?:[\s\-]+" + skip + ")").join(parts) + r"(?![A-Za-z])"))
    if "_" in p and re.fullmatch(r"[\w/\-.]+", p):  # an identifier's underscores written as spaces or hyphens: "America/Los Angeles"
        parts = [re.escape(x) for x in p.split("_")]
        out.append(re.compile(r"(?<![\w/])" + r"[ \-]".join(parts) + r"(?![\w/])", re.I))
    words = [w for w in re.findall(r"[A-Za-z]+", p) if w.lower() not in _INITIAL_SKIP]
    if 3 <= len(words) <= 5 and re.fullmatch(r"[A-Za-z \-]+", p) and not any(_is_negator(w.lower()) for w in words):
        out.append(re.compile(r"(?<![A-Za-z0-9])" + "".join(w[0].upper() for w in words) + r"s?(?![A-Za-z0-9])"))
    return tuple(out)


def _other_writings(phrase: str, text: str) -> list[int]:
    """Offsets (in the unit's own text) of the phrase's other writings (`_writing_patterns`), and (r7-words) of a
    comparison of two amounts that states the phrase's concept (`_comparison_states`)."""
    found = {m.start() for pattern in _writing_patterns(phrase) for m in pattern.finditer(text)}
    concept = _comparison_concept(phrase)
    if concept is not None and any(c.isdigit() for c in text):
        found.update(_comparison_states(concept, text))
    return sorted(found)


# ---- r7-words: a shortfall or an excess said by comparing two amounts --------------------------------------

_MORE = r"(?:more\s+than|greater\s+than|higher\s+than|bigger\s+than|larger\s+than|over|above|beyond|in\s+excess\s+of|exceeds?|exceeding|exceeded|tops|goes\s+over|is\s+over|'s\s+over)"
_LESS = r"(?:less\s+than|lower\s+than|smaller\s+than|below|under|short\s+of|shy\s+of)"
_CMP_DET = r"\s+(?:(?:the|your|its|only|just|what|a|an)\s+)?(?:(?:daily|monthly|available|current)\s+)?(?:(?:limit|balance|maximum|cap|total)\s+of\s+)?$"
_CMP_MORE_END = re.compile(r"(?<![A-Za-z])" + _MORE + _CMP_DET, re.I)
_CMP_LESS_END = re.compile(r"(?<![A-Za-z])" + _LESS + _CMP_DET, re.I)
_CMP_STOP = re.compile(r"[.;!?](?:\s|$)|\bbut\b|\bif\b|\bwhether\b|\d", re.I)
"""Between the two amounts of a comparison: no sentence end, no "but"/"if" clause, no other number."""
_CMP_NEGATED = re.compile(r"\b(?:not|never|no)\b|n't\b|n\u2019t\b", re.I)
_HOLDING = re.compile(
    r"(?:you\s+(?:currently\s+|only\s+|still\s+)?(?:have|hold|'ve\s+got|\u2019ve\s+got)|available|in\s+(?:your|the)\s+account|on\s+(?:your|the)\s+account|"
    r"\bbalance\b|on\s+hand|left\s+in|there\s+is|there's|sitting\s+in|holds?|has\s+in\s+it)",
    re.I,
)
_ALLOWANCE = re.compile(
    r"(?:allowed|permitted|a\s+day|per\s+day|each\s+day|daily|a\s+month|per\s+month|monthly|per\s+transfer|in\s+one\s+go|limit|cap|maximum|max|ceiling|"
    r"(?:you|we|I)\s+can\s+(?:send|transfer|move|pay|spend|withdraw)|(?:can|may)\s+be\s+(?:sent|transferred|moved|paid|withdrawn))",
    re.I,
)


@lru_cache(maxsize=4096)
def _comparison_concept(phrase: str) -> str | None:
    """The concept a comparison of two amounts can state for this phrase: "funds" for a shortfall ("insufficient
    funds", "not enough", "exceeds the balance"), "limit" for an excess over an allowance ("limit", "over the daily
    limit"); None for any other phrase. A negated limit phrase ("within the limit") is no excess."""
    words = set(re.findall(r"[a-z]+", phrase.lower()))
    if words & {"within", "under", "below"}:
        return None
    if words & {"limit", "limits", "cap", "maximum", "ceiling"}:
        return "limit"
    if words & {"insufficient", "enough", "short", "shortfall"} or words >= {"more", "than"} or "exceeds" in words and "balance" in words:
        return "funds"
    return None


def _comparison_states(concept: str, text: str) -> list[int]:
    """Offsets of a comparison of two money amounts stating a shortfall ("$212.40 is more than the $180.00 you
    have", "you only have $180, less than the $212.40 it costs") or an excess over an allowance ("$6,000 is over
    the $5,000 a day you're allowed"): the larger amount compared as larger (or the smaller as smaller), the
    numbers agreeing with the direction, the compared amount qualified by what is held (funds) or what is
    allowed (limit) in the words around it, and no negator inside the comparison ("isn't more than")."""
    money = [v for v in find_values(text) if v.money or v.kind == "money"]
    if len(money) < 2:
        return []
    qualifier = _HOLDING if concept == "funds" else _ALLOWANCE
    out: list[int] = []
    for a, b in zip(money, money[1:]):
        between = text[a.end : b.start]
        if len(between) > 48:
            continue
        try:
            x, y = Decimal(str(a.value)), Decimal(str(b.value))
        except Exception:  # noqa: BLE001 - a value that is no plain amount
            continue
        around_b = text[max(b.start - 30, a.end) : b.end + 40]
        around_a = text[max(a.start - 40, 0) : a.start] + " " + between
        if _CMP_NEGATED.search(between):
            continue
        if _CMP_STOP.search(between):
            continue
        if (m := _CMP_MORE_END.search(between)) is not None:
            if x > y and qualifier.search(around_b):
                out.append(a.end + m.start())  # at the comparison: "I can't send $6,000 - it's over ..." is no negated one
        elif (m := _CMP_LESS_END.search(between)) is not None:
            if x < y and qualifier.search(around_a):
                out.append(a.end + m.start())
    return out


# ---- forms: the lexicon and the stems of content words ---------------------------------------------

MAX_GAP = 2
"""How many words may stand between two content words of a phrase in a reply ("one stage at a time" is
stated by "a stage at a time", "not listed" by "is not on our list")."""
ONE_WORDS = frozenset({"a", "an", "one", "single", "1"})
"""Words that state the count one ("a stage at a time" for "one stage at a time")."""
STEMMABLE = re.compile(r"[A-Za-z][A-Za-z' _\-]*\*?")
"""Phrases matched by their forms and stems: words only (a phrase with a value or an id prefix, "tier
2", "CASE-", matches as written: its stems would name other things)."""
_TOKEN = re.compile(r"[a-z0-9#]+(?:['.][a-z0-9]+)*")
_FORM_TOKEN = re.compile(r"\+?[a-z0-9#]+(?:['.][a-z0-9]+)*")
"""A form's words: a lexicon member's "+has" is a function word kept as a word to match."""
STEMMABLE_COUNT = re.compile(r"(?:one|a|an|single)\s+[A-Za-z][A-Za-z' \-]*", re.I)
"""A count phrase whose count is one in words: also matched by its words ("a stage at a time")."""
KEPT_FUNCTION_WORDS = frozenset("all only each every both any some still already yet just once twice more less in out on off up down over under into onto".split())
"""Function words that carry a phrase's meaning ("all three", "only once", "already awarded", "in stock"
against "out of stock"): kept as words to match, never skipped."""
MODAL_BEFORE = frozenset("can could will would shall should may might must to cannot can't won't wouldn't couldn't 'll".split())
"""A verb after these is not a statement that it happened: "I can grant it" does not state "granted"."""
HYPHEN = re.compile(r"(?<=[a-z])-(?=[a-z])")


@lru_cache(maxsize=8192)
def _joined(text: str) -> str:
    """Hyphenated words written as one ("follow-up" / "followup", "e-mail" / "email"): both sides alike.
    r10-words: a chain of hyphenated words with a function word inside is a phrase written with hyphens
    ("out-of-stock", "up-to-date", "end-of-life"): its words, as if spaced."""
    if "-" in text and HYPHEN_CHAIN.search(text):
        text = HYPHEN_CHAIN.sub(lambda m: m.group(0).replace("-", " "), text)
    return HYPHEN.sub("", text)


HYPHEN_CHAIN = re.compile(r"(?<![\w-])[a-z]+(?:-[a-z]+)*-(?:of|to|in|on|at|as|by|for|and|or|the|a|up|you)-[a-z]+(?:-[a-z]+)*(?![\w-])")
"""A phrase written with hyphens has a function word inside ("out-of-stock", "up-to-date", "pay-as-you-go"); a code
("role-crm-admin") has none and stays one word."""


@lru_cache(maxsize=16384)
def _done_form(word: str) -> bool:
    word = word.rstrip("#")
    return word.endswith("ed") and bool(_ED_FORM.search(word)) or word in IRREGULAR_PARTICIPLES


_ED_FORM = re.compile(r"[a-z]{2}ed$")


SAME_FORM = frozenset("put set cut hit shut let cost spread split read quit".split())
"""Verbs whose base form is their participle: after a modal they are the base ("I can put a freeze on it")."""


def _to_come(tokens: tuple[tuple[int, frozenset[str], bool, str], ...], k: int) -> bool:
    """Whether the done word at k is still to come: a participle after "be" after a modal or "to" ("will be
    delivered", "should then be dropped off", "needs to be approved")."""
    for b in range(k - 1, max(-1, k - 3), -1):
        if tokens[b][3] == "be":
            return any(t[3] in MODAL_BEFORE or t[3].endswith("'ll") for t in tokens[max(0, b - 2) : b])
    return False


NOUN_DETERMINERS = frozenset("a an the his her their your my our its".split())
"""Words that make the next word a noun ("his phone", "the $50 transfer", "a page"); not "that" / "this", pronouns
as often ("that rules the prospect out")."""
CARRIED_OUT = frozenset(
    "went gone through complete completed done succeeded successful issued processed sent made posted placed submitted "
    "executed finished cleared settled delivered confirmed approved applied credited received logged recorded raised "
    "triggered arranged set got given gave booked scheduled put".split()
)
"""Verbs that say an act named by its noun was carried out, after the noun ("the page went out", "your refund has
been issued") or before it ("sent a page", "arranged the swap", "set up the exchange")."""
MODIFIED_NOUNS = frozenset(
    "pending request requests requested fee fees policy policies window deadline form button option options link number "
    "limit limits terms charge charges".split()
)
"""Words after an act's noun that make it a modifier or a thing still to come, not the act done: "cancellation
pending", "a cancellation request", "the cancellation fee", "the refund window", "his phone number"."""
STATE_NOUNS = frozenset("dispute hold freeze lock block suspension ban restriction".split())
"""Nouns of a state, whose mention states it ("your dispute is still open" states "disputed"); a noun of an act
("transfer", "page", "phone") names the act's thing, not the act done."""


def _names_the_thing(tokens: tuple[tuple[int, frozenset[str], bool, str], ...], k: int, text: str) -> bool:
    """Whether the word at k, a stem-mate of a word stating a thing done, is a noun naming the act's thing and no
    word of its clause says the act was carried out: "his phone is off" does not state "phoned", "the $50
    transfer is ready to go" not "transferred" - while "the page went out", "sent a page", "your refund has been
    issued" do. A noun is a word after a determiner or a possessive (an amount may stand between: "a $50
    transfer"); "came back as a pass" is a predicate, not a thing; a state's noun states the state."""
    word = tokens[k][3]
    if word in FUNCTION_WORDS or word in STATE_NOUNS or not word.isalpha():
        return False
    before = k - 1
    if before >= 0 and tokens[before][3].replace(".", "").isdigit():
        before -= 1
    if before < 0 or not (tokens[before][3] in NOUN_DETERMINERS or tokens[before][3].endswith("'s")):
        return False
    verb = before - 1
    if verb >= 0 and tokens[verb][3] in ("up", "out", "through", "off"):
        verb -= 1  # "set up the exchange", "sent out a page"
    governs = verb >= 0 and not _CLAUSE_MARK.search(_joined(text), tokens[verb][0], tokens[before][0])  # "notified: his phone" governs nothing
    if governs and (tokens[verb][3] in ("as", *CARRIED_OUT) or _done_form(tokens[verb][3]) and tokens[verb][3] not in ATTEMPTS):
        return False
    for t in tokens[k + 1 : k + 7]:
        if t[3] in CLAUSE_JOINS:
            break
        if t[3] in CARRIED_OUT:
            return False
    return True


_CLAUSE_MARK = re.compile(r"[,;:.!?()\u2014\u2013]|\s-\s")
ATTEMPTS = frozenset("tried attempted checked looked reached called rang pinged".split())
"""Done verbs before a noun that do not carry its act out ("I tried his phone", "I checked your transfer")."""
CLAUSE_JOINS = frozenset("but and so because although though while yet or".split())


def _is_negator(word: str) -> bool:
    return word in NEGATORS or word.endswith("n't") or word == "non"


_DECIMAL_WORD = re.compile(r"\d+(?:\.\d+)?")


@lru_cache(maxsize=65536)
def _keys(word: str) -> frozenset[str]:
    """The keys a word is matched by (its stem and lexicon groups, a number's value): kept per word."""
    keys = set(word_keys(word))
    if word in ONE_WORDS:
        keys.add("n:1")
    if word in NUMBER_WORDS:
        keys.add(f"n:{NUMBER_WORDS[word]}")
    elif _DECIMAL_WORD.fullmatch(word):
        keys.add(f"n:{Decimal(word).normalize()}")
    return frozenset(keys)


@lru_cache(maxsize=16384)
def _tokens(text: str) -> tuple[tuple[int, frozenset[str], bool, str], ...]:
    """(offset, keys, is a negator, the word) of each word of a normalised text."""
    return tuple((m.start(), _keys(m.group(0)), _is_negator(m.group(0)), m.group(0)) for m in _TOKEN.finditer(_joined(text)))


@lru_cache(maxsize=16384)
def _positions(text: str) -> dict[str, tuple[int, ...]]:
    """The token positions of a normalised text by key: where a phrase's first word can stand, found by
    lookup instead of trying every token (the judge asks this of every phrase a criterion names)."""
    index: dict[str, list[int]] = {}
    for k, token in enumerate(_tokens(text)):
        for key in token[1]:
            index.setdefault(key, []).append(k)
    return {key: tuple(at) for key, at in index.items()}


@lru_cache(maxsize=8192)
def _form_specs(phrase: str) -> tuple[tuple[tuple[frozenset[str], ...], bool, tuple[bool, ...], bool], ...]:
    """Each form of the phrase as (the keys of its content words in order, whether the form is negative,
    whether each content word states a thing done: "granted", "cancelled" - not one the form itself puts
    after "be": "yet to be approved" -, whether the form's negator comes last: "cost you nothing")."""
    if not STEMMABLE.fullmatch(phrase.strip()) or phrase.strip().endswith("-"):
        return ()
    specs = []
    for form in phrase_forms(_joined(phrase.rstrip("*").lower())):
        words = _FORM_TOKEN.findall(_joined(form))
        at = [i for i, w in enumerate(words) if (w not in FUNCTION_WORDS or w in KEPT_FUNCTION_WORDS or w.startswith("+")) and not _is_negator(w) or w == "one"]
        content = [words[i].lstrip("+") for i in at]
        if content:
            # a kept function word ("+has the role") is read like a done word: not after a modal ("will have")
            done = tuple(words[i].startswith("+") or (_done_form(words[i]) and not (i > 0 and words[i - 1] == "be")) for i in at)
            trailing = bool(words) and _is_negator(words[-1]) and not any(_is_negator(w) for w in words[:-1])
            specs.append((tuple(_keys(w) for w in content), any(_is_negator(w) for w in words), done, trailing))
            if len(content) == 2 and NOMINAL.search(content[1]) and content[0].isalpha():
                # a noun compound whose head is an action noun is the action on the noun: "seat selection" /
                # "choosing a seat", "name change" / "changing the name", "address verification" / "verify the address"
                specs.append(((_keys(content[1]), _keys(content[0])), specs[-1][1], (done[1], done[0]), trailing))
    return tuple(specs)


NOMINAL = re.compile(r"[a-z]{3}(?:tion|sion|ment|ance|ence|al)s?$")
"""An action noun (derived from a verb: "selection", "payment", "renewal", "acceptance"): its stem is the verb's."""


GAP_FREE = frozenset(
    "a an the your our my his her their its this that these those to of for with from me you him them us it "
    "be been being is are was were has have had can could will would cannot can't won't isn't aren't wasn't hasn't haven't".split()
)
"""Words that do not count toward MAX_GAP between two words of a phrase: determiners, pronouns, the
prepositions of an object and auxiliaries ("in the Cold intro sequence" states "in the sequence", "names on
a ticket can't be amended" states "names cannot be changed"; a negator between is still read for the
form's polarity)."""
MAX_SPAN = MAX_GAP + 3
"""At most this many words between two words of a phrase, whatever they are."""
PARTICLE_SPAN = 5
"""A phrasal verb split by its object: the particle may follow the verb after at most this many words in
the same sentence ("took the admin role away", "taking one of your users off")."""
PARTICLE_WORDS = frozenset({"in", "out", "up", "off", "away", "back", "down", "over", "on", "into", "onto"})
LIGHT_BEFORE = frozenset(
    "be been being get got go going able possible allowed permitted really currently actually also even yet still just "
    "then now ever always at all marked set made put moved switched move mark switch turn turned "
    "allow allows permit permits let lets include includes come comes offer offers support supports".split()
)
"""Words a negator may stand before a negative form's words with, besides function words: "not able to
reserve", "can't be marked implemented", "won't be able to cancel" (at most NEGATOR_SPAN words)."""
NEGATOR_SPAN = MAX_GAP + 3


def _particle_only(want: frozenset[str]) -> bool:
    return any(k[2:] in PARTICLE_WORDS for k in want if k.startswith("x:"))


_CLAUSE_WORDS = frozenset("and or but then so because while when".split())


def _next_positions(tokens: tuple[tuple[int, frozenset[str], bool, str], ...], j: int, *, particle: bool = False, text: str = "") -> list[int]:
    """The positions where the next word of a phrase may stand after position j: within MAX_GAP words that
    count (GAP_FREE words do not) and MAX_SPAN words in all; a phrase's last word that is a particle up to
    PARTICLE_SPAN words on (a phrasal verb split by its object)."""
    out, counted = [], 0
    span = max(MAX_SPAN, PARTICLE_SPAN) if particle else MAX_SPAN
    for k in range(j + 1, min(j + 2 + span, len(tokens))):
        if particle and k - j - 1 > MAX_GAP and (tokens[k - 1][3] in _CLAUSE_WORDS or re.search(r"[,;:.!?\u2014]", text[tokens[k - 1][0] + len(tokens[k - 1][3]) : tokens[k][0]])):
            break  # a particle far from its verb only within one clause: "signed the form, and sent it off" is no "signed off"
            # (the punctuation BETWEEN the words: the point of "$75.25" in "gave you the $75.25 back" ends no clause)
        out.append(k)
        if tokens[k][3] not in GAP_FREE:
            counted += 1
            if counted > (span if particle else MAX_GAP):
                break
    return out


NO_MODIFIERS = 4
"""At most this many nouns or adjectives between "no" and the noun it denies ("no seat changes", "no flight,
date or seat changes" state "no changes")."""


def _no_before_modifiers(tokens: tuple[tuple[int, frozenset[str], bool, str], ...], i: int, text: str) -> bool:
    """Whether the determiner "no" denies the noun at i across its modifiers: one to NO_MODIFIERS plain
    words (never a function word but "or"/"and", a participle, a number or a negator) with nothing but
    spaces or hyphens between them, or commas in a list joined by "or"/"and" ("no date or flight changes",
    never "no problem, changes are free")."""
    between: list[str] = []
    for k in range(i - 1, max(-1, i - 2 - NO_MODIFIERS), -1):
        word = tokens[k][3]
        gap = text[tokens[k][0] + len(word) : tokens[(k + 1)][0]]
        if word == "no":
            return bool(between) and between[-1] not in ("or", "and") and not re.search(r"[^\s-]", gap)
        if not word.isalpha() or tokens[k][2] or _done_form(word) or (word in FUNCTION_WORDS and word not in ("or", "and")):
            return False
        if re.search(r"[^\s,-]", gap) or ("," in gap and not {"or", "and"} & {*between, word}):
            return False
        between.append(word)
    return False


def _negator_before(tokens: tuple[tuple[int, frozenset[str], bool, str], ...], i: int, text: str = "") -> bool:
    """Whether a negator stands before position i with only function words and LIGHT_BEFORE words
    between ("not able to reserve", "can't be marked implemented"), or "too late" ("too late for me to
    cancel it" states "can't cancel"), or a negated verb with "any"/"a" before the word ("won't give you any
    refund" states "no refund"), or "no" before the word's modifiers ("no seat changes": `_no_before_modifiers`)."""
    if text and _no_before_modifiers(tokens, i, text):
        return True
    if i >= 2 and tokens[i - 1][3] == "of" and tokens[i - 2][3] == "out" and not (i >= 3 and tokens[i - 3][1] & _NUMBER_KEYS):
        return not any(t[2] for t in tokens[max(0, i - 2 - NEGATOR_SPAN) : i - 2])  # never "isn't out of king rooms"  # "out of king rooms" states "no king rooms" ("3 out of 5 rooms" is a share)
    for k in range(i - 1, max(-1, i - 2 - NEGATOR_SPAN), -1):
        word = tokens[k][3]
        if tokens[k][2]:
            return True
        if word == "late" and k > 0 and tokens[k - 1][3] == "too":
            return not (k > 1 and tokens[k - 2][2])  # "it's not too late to cancel" states no refusal
        if word in FUNCTION_WORDS or word in LIGHT_BEFORE:
            continue
        # one verb between a negator and "any"/"a" + the word: "won't give you any refund", "didn't get a refund"
        if any(tokens[m][3] in ("any", "a", "an") for m in range(k + 1, i)):
            return any(tokens[m][2] for m in range(max(0, k - 2), k))
        return False
    return False


_NUMBER_KEYS = frozenset(f"n:{n}" for n in range(1000))
ABSENT_PREDICATES = frozenset("included allowed permitted possible available offered supported an option".split())
"""Predicates that deny their subject when negated after it: "choosing seats isn't included" states "no seat
selection", "name changes aren't allowed" states "no name changes"."""


def _denied_after(tokens: tuple[tuple[int, frozenset[str], bool, str], ...], j: int) -> bool:
    """Whether the words ending at j are the subject of a negated predicate of absence right after them
    ("isn't included", "is not allowed", "aren't possible")."""
    k = j + 1
    if k < len(tokens) and tokens[k][3] in ("is", "are", "was", "were") and k + 1 < len(tokens) and tokens[k + 1][3] == "not":
        k += 2
    elif k < len(tokens) and tokens[k][2] and tokens[k][3].endswith("n't") and tokens[k][3][:-3] in ("is", "are", "was", "were", "ca", "wo"):
        k += 1
    else:
        return False
    while k < len(tokens) and tokens[k][3] in ("be", "really", "currently", "actually", "at", "all"):
        k += 1
    return k < len(tokens) and tokens[k][3] in ABSENT_PREDICATES


@lru_cache(maxsize=16384)
def stem_matches(phrase: str, text: str, *, negation: bool = True) -> tuple[int, ...]:
    """Offsets in a normalised text where a form of `phrase` is stated: its content words in order, each
    by stem or lexicon group, at most MAX_GAP words apart, with the form's own polarity (a negative form
    needs a negator before or among its words, a positive one none; `negation` False: either). Kept per
    (phrase, text): a pure function the judge asks again for each criterion naming the phrase."""
    tokens = _tokens(text)
    out: list[int] = []

    def fits(k: int, want: frozenset[str], done: bool) -> bool:
        """Token k states the phrase word: same stem or group, and a word stating a thing done is not
        matched by the same verb after a modal ("I can grant it" is no "granted")."""
        if not tokens[k][1] & want:
            return False
        if done and k > 0:
            # a thing offered or still to come: "I can grant it", "I can put a freeze on it", "it will be
            # delivered"; "awaiting approval" is no "approved"
            word = tokens[k][3]
            if (tokens[k - 1][3] in MODAL_BEFORE or tokens[k - 1][3].endswith("'ll")) and (not _done_form(word) or word in SAME_FORM):
                return False
            if not _done_form(word) and any(t[3] in not_yet_before() for t in tokens[max(0, k - 3) : k]):
                return False
            if _done_form(word) and _to_come(tokens, k):
                return False
            if not _done_form(word) and (_names_the_thing(tokens, k, text) or k + 1 < len(tokens) and tokens[k + 1][3] in MODIFIED_NOUNS):
                return False
        return True

    positions = _positions(text)
    for content, negative, done, trailing in _form_specs(phrase):
        found = [positions[key] for key in content[0] if key in positions]
        if not found:
            continue
        for i in found[0] if len(found) == 1 else sorted(set().union(*found)):
            start = tokens[i][0]
            if not fits(i, content[0], done[0]):
                continue
            j, ok = i, True
            last = len(content) - 2
            for n, (want, was_done) in enumerate(zip(content[1:], done[1:], strict=True)):
                nxt = next((k for k in _next_positions(tokens, j, particle=n == last and _particle_only(want), text=_joined(text)) if fits(k, want, was_done)), None)
                if nxt is None:
                    ok = False
                    break
                j = nxt
            if not ok:
                continue
            if negative:  # its negator stands with it: "is not in stock", never "is not out of stock"
                polarity = _negator_before(tokens, i, _joined(text)) or any(t[2] for t in tokens[i : j + 1]) or _denied_after(tokens, j)
                if trailing and not polarity:  # "it cost you nothing": the negator after the words, within the gap
                    polarity = any(t[2] for t in tokens[j + 1 : j + 2 + MAX_GAP])
            else:
                polarity = negated_before(text[:start]) or any(t[2] for t in tokens[i : j + 1])
                if not polarity and negation:  # denied by the verb right after it, as an exact match is
                    end = tokens[j][0] + len(tokens[j][3])  # ("the approval never went through")
                    polarity = negated_after(_joined(text)[end:], _joined(text)[: tokens[i][0]])
            if not negation or polarity == negative:
                out.append(start)
    return tuple(sorted(set(out)))

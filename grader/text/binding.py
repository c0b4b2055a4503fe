"""What a stated word or value is about (binding): an evidence word or value counts only for the subject the
criterion states it of.

The criterion is read in clauses (`clauses`). Each evidence item is *bound* to the subjects of the clause
that states it there: record ids ("CASE-5002"; an id's kind is its prefix, so APT-7001 is a rival of
APT-7002), names of people, companies and things ("Lucas Silva", "Winter Promo"), months ("November").
"Confirms CHG-4006 is approved and implemented and INC-2006 is resolved" binds `implemented` to CHG-4006
and `resolved` to INC-2006.

In a reply, a match's subject is what its own clause names before it (else after it): "the furnace repair
APT-7001 is cancelled" is said of APT-7001, "I've credited $49.99 on INV-8014" of INV-8014. A match whose
subject is a *rival* — a subject the criterion names for another item, or another subject of the kind the
item is bound to (another id of that prefix, another name) — and none of its own subjects, is not a match
for the item. An item bound to several subjects of one kind ("LEAD-1003 and LEAD-1007 were qualified")
must be stated of each of them (or of none in particular: "Both are qualified").

Values are also bound to their **labels**: the words around a value in the criterion that no other value of
the criterion has ("the $249 fare, the $40 bag and the $438 hotel": fare / bag / hotel; "checking balance
$2,450.75 and savings balance $9,100.00": checking / savings). In a reply, a value whose clause carries
another value's label and none of its own is that other fact ("fare $438, bag $40, hotel $249": $438 is the
fare; "$350.00 for the plan and $1,200.00 for installation").

A match in a clause that frames its statement as about someone or something else ("the details we'd use
for a new account", "for another customer", "someone else's") is not about the criterion's subject.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from grader.text.lexicon import word_keys
from grader.text.stemmer import stem
from grader.text.units import AUXILIARIES, CONTRACTED_VERB, FUNCTION_WORDS, IRREGULAR_PARTICIPLES, NEGATORS, UNIT_WORDS, Hit, Unit, negated_in_criterion, normalise, phrase_pattern, record_head, record_head_span
from grader.text.values import Value, find_values, phrase_value, singular
from grader.text.rx import rx

# ---- clauses ---------------------------------------------------------------------------------------------

HARD_BREAK = re.compile(
    r"[.;!?](?=\s|$)|:(?!\d)|\s[-\u2013\u2014]+\s|\u2014|\u2013(?!\d)"
    r"|,\s*(?=(?:and|or|but|so|while|whereas|although|though|because|since|yet|then|which|who)\b)"
    r"|\b(?:but|while|whereas|although|though|because|however|unless|otherwise|except\s+that|yet)\b"
    r"|\bso\b(?=\s+(?:i|we|you|he|she|it|they|that|there|this|his|her|its|their|your|the)\b)"
    r"|\band\b(?=\s+(?:that|says|names|explains|confirms|gives|states|tells|reports|mentions|notes|lists|offers|asks|adds|shows|warns|points)\b)",
    re.I,
)
"""Where a clause ends: sentence punctuation, a label colon (never a clock's), a spaced dash, a comma before a
conjunction, a subordinating or contrasting conjunction, "so" before a new subject."""
AND_OR = re.compile(r"\b(?:and|or)\b", re.I)
SUBJECT_OPENERS = frozenset("i we you he she it they the your his her their its my our this that these those there".split())
STATE_VERBS = frozenset(
    "has have stays stay remains remain holds hold includes include allows allow needs need costs cost comes come goes "
    "owns own gets get keeps keep lacks lack sits sit shows show reads read".split()
)
"""Present-tense verbs a clause of a record's state is often made with ("ORD-9014 stays", "the plan allows")."""


def _verbish(words: list[str]) -> bool:
    return any(
        w in AUXILIARIES or CONTRACTED_VERB.match(w) or w in STATE_VERBS or w in IRREGULAR_PARTICIPLES or re.fullmatch(r"[a-z]{2,}ed", w)
        for w in words
    )


_LOWER_WORD = re.compile(r"[a-z][a-z']*")
_ID_LIKE = re.compile(r"[A-Z]+-[A-Z0-9-]+")
_WORD_RUN = re.compile(r"\S+")


def _lower_words(text: str) -> list[str]:
    return [w.removesuffix("'s") for w in _LOWER_WORD.findall(text.lower().replace("\u2019", "'"))]


CRITERION_JOIN = re.compile(r"\b(?:and|or)\b|,(?=\s*(?:the|a|an|his|her|their|its|your)\b)", re.I)
"""In a criterion, a list of facts each with its own subject ("the audit entry AUD-9001, the time ... and the
change CHG-4010") is parted at its commas too."""
NP_OPENERS = frozenset("the a an his her their its your".split())


def _has_subject_or_value(text: str) -> bool:
    return bool(find_values(text)) or bool(subjects(text, criterion=True))


@lru_cache(maxsize=16384)
def clauses(text: str, criterion: bool = False) -> list[tuple[int, int]]:
    """The clauses of a sentence as (start, end) offsets. Besides HARD_BREAK, "and"/"or" part two clauses when
    both sides have a verb and the right side opens with a new subject ("CHG-4006 is approved and INC-2006
    is resolved", "the role is revoked and the viewer role granted"), never a list of subjects ("LEAD-1003
    and LEAD-1007 are qualified") nor two verbs of one subject ("approved and implemented")."""
    cuts: list[tuple[int, int]] = [(m.start(), m.end()) for m in HARD_BREAK.finditer(text)]
    cuts.sort()
    spans: list[tuple[int, int]] = []
    start = 0
    for a, b in cuts + [(len(text), len(text))]:
        if a >= start:
            spans.append((start, a))
            start = b
    out: list[tuple[int, int]] = []
    for s, e in spans:
        piece_start = s
        for m in (AND_OR if not criterion else CRITERION_JOIN).finditer(text, s, e):
            left = text[piece_start : m.start()]
            right = text[m.end() : e]
            right_stripped = right.lstrip()
            first = (re.findall(r"[A-Za-z0-9$][\w$'.-]*", right_stripped) or [""])[0]
            opens = first.lower() in SUBJECT_OPENERS or first[:1].isupper() or bool(find_values(first)) or first[:1] in "$"
            nxt = AND_OR.search(text, m.end(), e)
            right_words = _lower_words(text[m.end() : nxt.start() if nxt else e])
            if opens and _verbish(right_words[1:]) and _verbish(_lower_words(left)):
                out.append((piece_start, m.start()))
                piece_start = m.end()
            elif criterion and first.lower() in NP_OPENERS and _has_subject_or_value(left) and _has_subject_or_value(text[m.end() : nxt.start() if nxt else e]):
                out.append((piece_start, m.start()))  # a criterion's "the $120.00 Harbor Grocers payment and the $249.00 Summit ... payment"
                piece_start = m.end()
        out.append((piece_start, e))
    return [(s, e) for s, e in out if text[s:e].strip()]


def clause_at(text: str, offset: int, criterion: bool = False) -> tuple[int, int]:
    for s, e in clauses(text, criterion):
        if s <= offset < e or (offset == e and s < e):
            return s, e
    return 0, len(text)


# ---- subjects ------------------------------------------------------------------------------------------

MONTH_NAMES = (
    "january february march april may june july august september october november december".split()
)
DAY_NAMES = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
NAME_WORD = r"[A-Z][A-Za-z]*[a-z][A-Za-z]*(?:'s)?"
NAME_RUN = re.compile(r"(?<![A-Za-z0-9-])" + NAME_WORD + r"(?:\s+" + NAME_WORD + r")*")
LEADING = frozenset(
    "the a an your my our their his her its this that these those i we you he she they it done dear hi hello thanks "
    "sure ok okay yes no great perfect good also only both all each every please and or but so when while if as at on "
    "in for from to by with".split()
)
"""Capitalised words that open a sentence or a phrase but name nothing ("The", "Your", "Done")."""


@dataclass(frozen=True)
class Subject:
    """A thing a clause can be about: kind ("id:APT", "name", "month") and key (the id, the name's words)."""

    kind: str
    key: str
    start: int
    end: int
    criterion: bool = False
    """Whether the criterion names this subject too."""

    def same(self, other: Subject) -> bool:
        if self.kind != other.kind:
            return False
        if self.kind != "name":
            return self.key == other.key
        a, b = set(self.key.split()), set(other.key.split())
        return a <= b or b <= a


def _id_kind(value: str) -> str:
    prefix = re.match(r"[A-Z]+", value)
    return "id:" + (prefix.group(0) if prefix and "-" in value else "code")


CODE_ID = re.compile(r"(?<![\w-])[A-Z]{2,3}\d{2,5}(?![\w-])")
"""A code of two or three capitals and digits, no hyphen: a flight or a train ("AU214", "BA117")."""


def subjects(text: str, known_names: Sequence[str] = (), *, criterion: bool = False) -> list[Subject]:
    """Subject tokens of a text: ids, months, names of two or more capitalised words (leading function words
    stripped), single capitalised words that are a word of a known name, and (in a criterion, whose first
    word is its verb) any single capitalised word after the first word."""
    out: list[Subject] = []
    for v in find_values(text):
        if v.kind == "id":
            out.append(Subject(_id_kind(str(v.value)), str(v.value), v.start, v.end))
    taken = [(s.start, s.end) for s in out]
    for m in CODE_ID.finditer(text):  # round 6: a flight or train code ("AU214", "BA117") is a record of its own
        if not any(s < m.end() and m.start() < e for s, e in taken):
            out.append(Subject("id:code", m.group(0), m.start(), m.end()))
    taken = [(s.start, s.end) for s in out]
    known_words = {w for n in known_names for w in n.split()}
    for m in NAME_RUN.finditer(text):
        words = [(w.group(0), m.start() + w.start()) for w in _WORD_RUN.finditer(m.group(0))]
        while words and (
            words[0][0].lower() in LEADING or words[0][0].lower() in DAY_NAMES or (criterion and words[0][1] == 0)
            or (words[0][1] == 0 and re.fullmatch(r"[a-z]{2,}ed", words[0][0].lower()))
        ):
            words.pop(0)  # "The", "Done", a criterion's own verb ("Confirms"), a reply's opening "Refunded"
        if not words or any(s < m.end() and m.start() < e for s, e in taken):
            continue
        start = words[0][1]
        clean = [w.removesuffix("'s").lower() for w, _ in words]
        for w, at in words:
            low = w.removesuffix("'s").lower()
            if low in MONTH_NAMES and (w.endswith("'s") or not re.match(r"\s*\d", text[at + len(w) :])):
                out.append(Subject("month", low, at, at + len(w)))
        names = [w for w in clean if w not in MONTH_NAMES and w not in DAY_NAMES]
        if not names:
            continue
        clean = [w.removesuffix("'s").lower() for w, _ in words]
        if len(clean) >= 2 or clean[0] in known_words or criterion:
            out.append(Subject("name", " ".join(clean), start, m.end()))
    if known_names and not criterion:  # r10-words: a known name of two or more words written in lower case ("kai brennan")
        taken = [(x.start, x.end) for x in out]
        for name in known_names:
            parts = re.split(r"[\s\-]+", name.strip())
            if len(parts) < 2:
                continue
            for m in rx(r"(?<![A-Za-z0-9])" + r"[\s\-]+".join(re.escape(w) for w in parts) + r"(?![A-Za-z0-9])", re.I).finditer(text):
                if not any(a < m.end() and m.start() < b for a, b in taken):
                    out.append(Subject("name", " ".join(w.lower() for w in parts), m.start(), m.end()))
    return sorted(out, key=lambda s: s.start)


# ---- the criterion's bindings ---------------------------------------------------------------------------


def _item_spans(phrase: str, text: str) -> list[tuple[int, int]]:
    """Where a phrase of an item is stated in a text (original offsets): a value by value, words as written
    or by their first word's stem."""
    target = phrase_value(phrase)
    if target is not None:
        return [(v.start, v.end) for v in find_values(text) if target.same(v) and (target.kind != "id" or v.value == target.value)]
    norm, back = normalised_map(text)
    spans = [(back[m.start()], back[max(m.end() - 1, m.start())] + 1) for m in phrase_pattern(phrase).finditer(norm)]
    if spans:
        return spans
    words = _lower_words(phrase.rstrip("*"))
    content = [w for w in words if w not in FUNCTION_WORDS]
    if not content:
        return []
    keys = word_keys(content[0])
    return [(m.start(), m.end()) for m in re.finditer(r"[A-Za-z][A-Za-z'-]*", text) if word_keys(m.group(0).lower()) & keys]


@dataclass(frozen=True)
class Binding:
    """An evidence item's subjects in the criterion (`bound`), every subject the criterion names (`rivals`
    are those of them not bound to the item), and the names the criterion knows."""

    bound: tuple[Subject, ...]
    everyone: tuple[Subject, ...]
    names: tuple[str, ...]
    own: tuple[str, ...]
    """The item's own subject keys (an id or a name the item is): never a subject of itself."""


def _is_own(subject: Subject, phrases: Sequence[str]) -> bool:
    for p in phrases:
        value = phrase_value(p)
        if value is not None and value.kind == "id" and subject.kind.startswith("id") and str(value.value) == subject.key:
            return True
        if value is None and subject.kind in ("name", "month"):
            words = set(_lower_words(p))
            if words and (words <= set(subject.key.split()) or set(subject.key.split()) <= words):
                return True
    return False


@lru_cache(maxsize=4096)
def binding(criterion: str, phrases: tuple[str, ...]) -> Binding | None:
    """The subjects the criterion states an item (its phrases) of; None when the criterion does not state
    the item or names no subject in its clause."""
    everyone = subjects(criterion, criterion=True)
    names = tuple(s.key for s in everyone if s.kind == "name")
    for phrase in phrases:
        spans = _item_spans(phrase, criterion)
        if not spans:
            continue
        s, e = clause_at(criterion, spans[0][0], True)
        bound = tuple(x for x in everyone if s <= x.start < e and not _is_own(x, phrases) and not (x.start < spans[0][1] and spans[0][0] < x.end))
        own = tuple(x.key for x in everyone if _is_own(x, phrases))
        if not bound and REFERS_BACK.search(criterion[s:e]):
            bound = _previous_subjects(criterion, s, everyone, phrases)  # "REC-6002 was not deleted because it is under legal hold"
        return Binding(bound, tuple(everyone), names, own)
    others = [x for x in everyone if not _is_own(x, phrases)]
    records = any(re.match(r"[A-Z]+-", p) for p in phrases)  # an id (or an id prefix, "XFER-") is a record of its own
    if others and not records and all(x.kind.startswith("id:") for x in others) and len({clause_at(criterion, x.start, True) for x in others}) == 1:
        # an item the criterion does not word ("2026-12-07" for "the estimated delivery date of ORD-9017") is
        # about what the criterion is about, when it names its subjects in one clause
        return Binding(tuple(others), tuple(everyone), names, tuple(x.key for x in everyone if _is_own(x, phrases)))
    return None


REFERS_BACK = re.compile(r"\b(?:it|its|it's|they|them|their|he|him|his|she|her|this\s+one|that\s+one|the\s+same)\b", re.I)
"""Pronouns that refer back to the last subject named before them ("..., because it is under legal hold";
"I've assigned him to APT-7001")."""


def _previous_subjects(text: str, start: int, found: Sequence[Subject], phrases: Sequence[str] = ()) -> tuple[Subject, ...]:
    """The subjects of the nearest clause before `start` (in the same text) that names any: what a pronoun
    refers back to."""
    for s, e in reversed([c for c in clauses(text, True) if c[1] <= start]):
        inside = tuple(x for x in found if s <= x.start < e and not _is_own(x, phrases))
        if inside:
            return inside
    return ()


# ---- a reply's match ------------------------------------------------------------------------------------


@lru_cache(maxsize=8192)
def normalised_map(text: str) -> tuple[str, tuple[int, ...]]:
    """`units.normalise(text)` and, for each of its characters, the offset in `text` it comes from. Kept per
    text (a pure function; the judge maps each sentence once per evidence item: ~14 calls per distinct text)."""
    low = text.lower().replace("\u2019", "'")
    drop = {m.start() for m in re.finditer(r"(?<=\d),(?=\d{3})", low)}
    chars = [(c, i) for i, c in enumerate(low) if i not in drop and c != "$"]
    out: list[tuple[str, int]] = []
    for c, i in chars:
        if c.isspace():
            if out and out[-1][0] != " ":
                out.append((" ", i))
            continue
        out.append((c, i))
    while out and out[-1][0] == " ":
        out.pop()
    norm = "".join(c for c, _ in out)
    back = (*(i for _, i in out), len(text))
    return norm, back


def hit_offset(hit: Hit) -> int:
    """The offset of a hit in its sentence as written (word matches are found in the normalised text)."""
    offset = hit.position % 10_000
    if hit.value is not None:
        return offset
    norm, back = normalised_map(hit.sentence)
    return back[min(offset, len(back) - 1)]


OTHER_FRAME = re.compile(
    r"\bfor\s+(?:a\s+new|another|a\s+different|some\s+other|other)\s+(?:account|customer|client|profile|user|person)s?\b"
    r"|\bsomeone\s+else's\b|\bsomebody\s+else's\b|\banother\s+(?:customer|client|person|user)'s\b"
    r"|\b(?:we'?d|we\s+would|i'?d|i\s+would)\s+use\s+for\b|\bas\s+an\s+example\b|\bsample\s+(?:details|values|data)\b",
    re.I,
)
"""A clause that frames what it states as about someone or something else than the reply's subject."""


def _groups(text: str, found: list[Subject]) -> list[list[Subject]]:
    """Subjects in a row joined only by list separators ("LEAD-1003 and LEAD-1007") are one group."""
    groups: list[list[Subject]] = []
    for x in sorted(found, key=lambda x: x.start):
        if groups and BARE_LIST.fullmatch(text[groups[-1][-1].end : x.start]):
            groups[-1].append(x)
        else:
            groups.append([x])
    return groups


AFTER_WORDS = 8
"""How far after a match its object may stand ("I've credited $49.99 on INV-8014")."""


def _comparable(b: Binding, x: Subject) -> bool:
    """A subject that can be a rival of the item's: of a kind the item is bound to, or named by the criterion."""
    return x.kind in {y.kind for y in b.bound} or any(x.same(c) for c in b.everyone if c.key not in b.own)


def _clause_subjects(text: str, offset: int, b: Binding, exclude: bool = True) -> tuple[list[Subject], str]:
    s, e = clause_at(text, offset)
    found = [x for x in subjects(text, b.names) if s <= x.start < e and x.key not in b.own and not (exclude and x.start <= offset < x.end)]
    found = [replace(x, criterion=any(x.same(c) for c in b.everyone)) for x in found]
    return [x for x in found if _comparable(b, x)], text[s:e]


def _strip_leading(text: str) -> str:
    words = [w for w in re.findall(r"[A-Za-z0-9']+", text) if w.lower() not in LEADING]
    return " ".join(words).lower()


def _side(text: str, offset: int, found: list[Subject], end: int | None = None) -> list[Subject]:
    """The subjects a match at `offset` (ending at `end`) is said of: the nearest group its clause names before
    it, else the nearest group after it (an object: "I've credited $49.99 on INV-8014"; "from ACC-1002 to
    ACC-1001": a movement's source and target are one group), never past a comma; the distance counts from
    the match's end ("the Winter promo template TPL-804 is now on CMP-5006")."""
    s, _ = clause_at(text, offset)
    for group in reversed(_groups(text, [x for x in found if x.end <= offset])):
        if all(x.kind == "name" and not x.criterion for x in group) and re.search(r"[a-z0-9]", _strip_leading(text[s : group[0].start])):
            continue  # a name the criterion does not know is a rival only as the clause's subject ("Olivia Tan is ...")
        return group
    end = offset if end is None else max(end, offset)
    after = [x for x in found if (x.start >= end if end > offset else x.start > offset) and _reaches(text[end : x.start], text[x.end : x.end + 40])]
    if not after:
        return []
    side = [after[0]]  # round 5: the nearest object, not every id after it ("refunded $89.99 on TXN-A1 and left TXN-D4 in place")
    for x in after[1:]:
        if not (BARE_LIST.fullmatch(text[side[-1].end : x.start]) or MOVEMENT_LINK.fullmatch(text[side[-1].end : x.start])):
            break
        side.append(x)
    return side


APPOSITION = re.compile(r"[^,]*?\b(?:the|a|an|our|your|their|his|her|its)\s+[^,]*[A-Za-z][^,]*,\s*", re.I)
"""A noun phrase and the comma of an apposition after a match ("paged | the on-call engineer, | Jamal Wright")."""


def _reaches(between: str, after: str) -> bool:
    """Whether a subject after a match is its object: within AFTER_WORDS words and no comma between them,
    except an apposition ("I've paged the on-call engineer, Jamal Wright."): a comma right before the subject,
    no verb between, and nothing but the clause's end after it."""
    between = re.sub(r"(?<=\d),(?=\d)", "", between)  # "$1,800.00 went from ACC-1007": a thousands comma is no break
    if len(re.findall(r"\S+", between)) > AFTER_WORDS:
        return False
    if "," not in between:
        return True
    return bool(APPOSITION.fullmatch(between)) and between.count(",") == 1 and not _verbish(_lower_words(between)[1:]) and re.match(r"\s*(?:[.;!?)]|$)", after) is not None


def bound_elsewhere(hit: Hit, phrases: tuple[str, ...], criterion: str) -> tuple[bool, list[Subject]]:
    """(whether the match is said of a rival subject, or framed as about someone else; the comparable
    subjects of its clause)."""
    b = binding(criterion, phrases)
    offset = hit_offset(hit)
    s, e = clause_at(hit.sentence, offset)
    if OTHER_FRAME.search(hit.sentence[s:e]) and not (b and b.own) and not OTHER_FRAME.search(criterion):
        return True, []  # a record's own id may well be someone else's ("CASE-5001 belongs to someone else")
    if b is None or not b.bound:
        return False, []
    found, _ = _clause_subjects(hit.sentence, offset, b)
    side = _side(hit.sentence, offset, found, _hit_end(hit, phrases))
    if not side and not found:
        side = _record_subjects(hit.sentence, offset, b) or _inherited(hit.sentence, offset, b)
    if side and not any(x.same(y) for x in side for y in b.bound):
        return True, found or side
    return False, found


def _hit_end(hit: Hit, phrases: Sequence[str]) -> int:
    """Where a word match ends in its sentence: the end of the longest phrase of the item stated at the match's
    offset (a value keeps its start: a month inside a date is read as its subject, as before round 5)."""
    if hit.value is not None:
        return hit_offset(hit)
    offset = hit_offset(hit)
    ends = [e for p in phrases for s, e in _item_spans(p, hit.sentence) if s == offset]
    return max(ends, default=offset)


def _record_subjects(text: str, offset: int, b: Binding) -> list[Subject]:
    """The subjects a record line's value is said of: those its label names ("- **ORD-9017** - shipped", "|
    Summer | 12% |"), a record id of a kind the item is bound to, or a name the criterion names."""
    span = record_head_span(text)
    if span is None or offset < span[1]:
        return []
    found = [replace(x, criterion=any(x.same(c) for c in b.everyone)) for x in subjects(span[0], b.names) if x.key not in b.own]
    return [x for x in found if (x.kind.startswith("id") and _comparable(b, x)) or x.criterion]


CONTINUES = re.compile(r"\s*,?\s*(?:and|or)\s*$", re.I)
LABEL_COLON = re.compile(r"\s*:\s*")
HEADING_DASH = re.compile(r"\s*(?:[-\u2013\u2014]+)\s*")
"""Round 6: a dash after a clause with no verb heads what follows with it, as a label colon does ("Bayfront Suites —
standard $189, king $219; Golden Gate Inn — king $279")."""
"""A colon introduces what the clause before it is about: "I've added the note to WO-5003: panel in the garage"
states the note's words of WO-5003."""


def _inherited(text: str, offset: int, b: Binding) -> list[Subject]:
    """The subjects a match's clause that names none is about: those of the clause before it in the sentence
    when it continues it ("I've cancelled ORD-9015 and $249.00 will be refunded") or refers back to it ("...
    - you'll get $28.00 back once it reaches us"), else those of a later clause of the sentence that refers
    back to the match ("Ben Carter is free, so I've assigned him to APT-7001")."""
    parts = clauses(text)
    here = next((i for i, (s, e) in enumerate(parts) if s <= offset < e or offset == e), None)
    if here is None:
        return []
    s, e = parts[here]
    if here > 0:
        ps, pe = parts[here - 1]
        heading = HEADING_DASH.fullmatch(text[pe:s]) and not _verbish(_lower_words(text[ps:pe]))  # round 6: "Golden Gate Inn — king $279"
        if CONTINUES.fullmatch(text[pe:s]) or REFERS_BACK.search(text[s:e]) or LABEL_COLON.fullmatch(text[pe:s]) or heading:
            before, _ = _clause_subjects(text, ps, b, False)
            before = [x for x in before if x.kind in {y.kind for y in b.bound}]
            if before:
                return _groups(text, before)[-1]
    for ns, ne in parts[here + 1 :]:
        if not REFERS_BACK.search(text[ns:ne]):
            break
        later, _ = _clause_subjects(text, ns, b, False)
        later = [x for x in later if x.kind in {y.kind for y in b.bound}]
        if later:
            return later
    return []


SOURCE_WORDS = r"(?:from|out\s+of|debited\s+from|taken\s+from|paid\s+from|sent\s+from)"
TARGET_WORDS = r"(?:to|into|onto|towards?|credited\s+to|paid\s+to|sent\s+to)"
ROLE_GAP = r"(?:\s+(?:your|my|our|their|his|her|the|a|account|acct\.?|savings|checking|current|business|card|wallet|number|no\.?))*\s*$"
MOVEMENT_LINK = re.compile(r"[\s)]*(?:" + SOURCE_WORDS + r"|" + TARGET_WORDS + r")" + ROLE_GAP.replace("$", "") + r"[\s(]*", re.I)
"""What joins a movement's source to its target ("ACC-1002 to ACC-1001", "ACC-1 into your savings ACC-2")."""


def _role(text: str, subject: Subject) -> str | None:
    """Whether a record id stands as the source ("from ACC-1001") or the target ("to ACC-1010", "into your
    account ACC-1001") of a movement, by the preposition before it (a few determiners or account words between)."""
    before = text[max(0, subject.start - 60) : subject.start]
    if re.search(r"\b" + SOURCE_WORDS + ROLE_GAP, before, re.I):
        return "source"
    if re.search(r"\b" + TARGET_WORDS + ROLE_GAP, before, re.I):
        return "target"
    return None


def reversed_roles(hit: Hit, phrases: tuple[str, ...], criterion: str) -> bool:
    """Whether the match's sentence moves the item the other way: an id the criterion states as the source of
    the item's movement ("the $950.00 transfer from ACC-1001 to ACC-1010") stated as its target in the
    reply, or the other way round ("$950.00 from ACC-1010 into your account ACC-1001")."""
    b = binding(criterion, phrases)
    if b is None:
        return False
    roles = {x.key: r for x in b.bound if x.kind.startswith("id:") and (r := _role(criterion, x))}
    if not roles:
        return False
    for x in subjects(hit.sentence, b.names):
        wanted = roles.get(x.key)
        said = _role(hit.sentence, x) if wanted else None
        if wanted and said and said != wanted:
            return True
    return False


def uncovered(hits: list[Hit], phrases: tuple[str, ...], criterion: str) -> list[Hit]:
    """The hits said of the item's own subjects (or of none). When the criterion states the item of a list
    of subjects ("LEAD-1003 and LEAD-1007 were qualified"), each of them must be in the clause of one of
    those hits, or one of them must name no subject of that kind ("Both are qualified"); else none counts."""
    b = binding(criterion, phrases)
    kept: list[tuple[Hit, list[Subject]]] = []
    for h in hits:
        wrong, found = bound_elsewhere(h, phrases, criterion)
        if not wrong and not reversed_roles(h, phrases, criterion):
            kept.append((h, found))
    if b is None or not kept:
        return [h for h, _ in kept]
    for group in _groups(criterion, list(b.bound)):
        members = [x for x in group if x.kind.startswith("id") or x.kind == "name"]
        if len(members) < 2 or not re.search(r"\b(?:and|or)\b|&", criterion[group[0].end : group[-1].start], re.I):
            continue  # "LEAD-1003 and LEAD-1007" is a list; "Sofia Marquez, Alan's manager" one person
        for member in members:
            if not any(not any(y.kind == member.kind for y in found) or any(member.same(y) for y in found) for _, found in kept):
                return []
    return [h for h, _ in kept]


# ---- value labels --------------------------------------------------------------------------------------

LABEL_BEFORE, LABEL_AFTER = 3, 2
LABEL_STOP = FUNCTION_WORDS | UNIT_WORDS | frozenset(
    "states state stated tells tell says say confirms confirm reports report explains explain gives give lists list "
    "mentions mention names name notes note customer caller user reply replies amount amounts value values total "
    "respectively both new one ones".split()
)


def _stems(words: list[str]) -> set[str]:
    out: set[str] = set()
    for w in words:
        if w in LABEL_STOP or len(w) < 2:
            continue
        out |= set(word_keys(w))
    return out


BARE_LIST = re.compile(r"\s*(?:,|\band\b|\bor\b|/|&)\s*(?:(?:and|or)\s+)?", re.I)
LIST_CUT = re.compile(r",|\b(?:and|or)\b", re.I)
"""A label stands with its value, never across a list's separator ("basic, standard and flexible prices of
$109, $169 and $239" labels no single value with "basic")."""


def _label_words(text: str, value: Value, before_n: int = 0) -> list[tuple[int, frozenset[str]]]:
    """The label words of a value with their distance from it (1 = next to it): content words just before
    it (up to LABEL_BEFORE) and after it (up to LABEL_AFTER) in its clause, never across another value or a
    list's separator (an id on the way is skipped, not a stop)."""
    s, e = clause_at(text, value.start)
    others = [v for v in find_values(text) if v.start != value.start and v.kind != "id" and s <= v.start < e]
    listed = [v for v in others if BARE_LIST.fullmatch(text[min(v.end, value.end) : max(v.start, value.start)])]
    if listed and not any(_own_tail(text, v, e) for v in listed + [value]):
        return []  # "prices of $109, $169 and $239": a label of the whole list labels none of its values
    left = max([v.end for v in others if v.end <= value.start] + [m.end() for m in LIST_CUT.finditer(text, s, value.start)], default=s)
    right = min([v.start for v in others if v.start >= value.end] + [m.start() for m in LIST_CUT.finditer(text, value.end, e)], default=e)
    chars = list(text)
    for v in find_values(text):
        if v.kind == "id":
            chars[v.start : v.end] = " " * (v.end - v.start)
    blanked = "".join(chars)
    tail = _lower_words(blanked[value.end : right])
    if value.kind == "percent" and tail[:1] == ["of"]:
        tail = []  # "31.1% of clicks converted": what follows "of" is the base of a rate, not its label
    before = [w for w in _lower_words(blanked[left : value.start]) if w not in LABEL_STOP][-(before_n or LABEL_BEFORE):]
    if not before and (colon := LABEL_COLON_BEFORE.search(text, 0, value.start)) is not None:
        before = [w for w in _lower_words(colon.group(1)) if w not in LABEL_STOP]  # r10-words: "Apr: 12.5%": the label colon's word
    after = [w for w in tail if w not in LABEL_STOP][:LABEL_AFTER]
    out = [(i + 1, _stems([w])) for i, w in enumerate(reversed(before))] + [(i + 1, _stems([w])) for i, w in enumerate(after)]
    return [(d, k) for d, k in out if k]


LABEL_COLON_BEFORE = re.compile(r"(?:^|[,;(\n]|[-*\u2022]\s)\s*\**([A-Za-z][A-Za-z']*)\**\s*:\s*\**\s*$")
"""r10-words: a one-word label and its colon right before a value, opening its line or list item ("Apr: 12.5%",
"..., **Nov:** 4%"); not a clause's last word ("linked to your flight: $298.00")."""


def _own_tail(text: str, value: Value, end: int) -> bool:
    """Whether a value in a run has a label word of its own right after it, a singular one ("a balance of
    $2,200.00 and 30,410 loyalty points": "loyalty" is the second value's); a plural after the last value
    labels the whole run ("$45, $54 and $60 refunds")."""
    cut = LIST_CUT.search(text, value.end, end)
    nxt = [v.start for v in find_values(text) if v.start >= value.end]
    stop = min([cut.start() if cut else end] + nxt)
    words = [w for w in re.findall(r"[a-z][a-z'-]*", text[value.end : stop].lower()) if w not in LABEL_STOP]  # "sign-ups" is one plural
    return bool(words) and singular(words[0]) == words[0]


PARALLEL = re.compile(r"\b([a-z][\w-]*)((?:\s*,\s*[a-z][\w-]*)*)\s*,?\s+(?:and|or)\s+([a-z][\w-]*)\b", re.I)


def _parallel_label(text: str, value: Value) -> set[str]:
    """A value of a list paired in order with a list of as many words before it in its clause ("the basic,
    standard and flexible prices of $109, $169 and $239": $169 is the standard price)."""
    s, e = clause_at(text, value.start)
    run = [value]
    values = sorted((v for v in find_values(text) if v.kind != "id" and s <= v.start < e), key=lambda v: v.start)
    i = next(k for k, v in enumerate(values) if v.start == value.start)
    lo = hi = i
    while lo > 0 and BARE_LIST.fullmatch(text[values[lo - 1].end : values[lo].start]):
        lo -= 1
    while hi + 1 < len(values) and BARE_LIST.fullmatch(text[values[hi].end : values[hi + 1].start]):
        hi += 1
    run = values[lo : hi + 1]
    if len(run) < 2:
        return set()
    for m in reversed(list(PARALLEL.finditer(text, s, run[0].start))):
        words = [m.group(1)] + re.findall(r"[a-z][\w-]*", m.group(2), re.I) + [m.group(3)]
        if len(words) == len(run):
            return _stems([words[i - lo].lower()])
    return set()


def _label(text: str, value: Value) -> set[str]:
    return {k for _, keys in _label_words(text, value) for k in keys}


PRO_FORM = re.compile(r"\b(?:one|ones)\s*(?:[:(,-]\s*)?$", re.I)


def _pro_form_shared(criterion: str, items: tuple[tuple[str, ...], ...], labels: list, kinds: list) -> set[str]:
    """Round 5: a value labelled by the pro-form "one" ("the October click-through rate 6.0% and the November one
    4.0%") has the head noun of the other value of its kind as its label too: those words name both facts and tell
    neither apart (the words that differ, "October" / "November", still do)."""
    shared: set[str] = set()
    for i, phrases in enumerate(items):
        for p in phrases:
            target = phrase_value(p)
            if target is None or target.kind == "id":
                continue
            hits = [v for v in find_values(criterion) if target.same(v)]
            if hits and PRO_FORM.search(criterion[: hits[0].start]):
                for j, lab in enumerate(labels):
                    if j != i and lab is not None and kinds[j] == kinds[i]:
                        shared |= {k for keys in lab for k in keys}
            break
    if shared:  # r10-words: a capitalised word (a month, a name: "March" / "April") is the modifier that differs, not the shared head
        shared -= _stems([w.lower() for w in re.findall(r"(?<=\s)[A-Z][a-z]+", criterion)])
    return shared


@lru_cache(maxsize=4096)
def value_labels(criterion: str, items: tuple[tuple[str, ...], ...]) -> tuple[frozenset[str] | None, ...]:
    """For each value item of a criterion (its phrases), the label stems no other value item of the
    criterion shares (None for a word or id item, or a value the criterion does not state)."""
    labels: list[list[frozenset[str]] | None] = []  # each value's label words, as the key sets of each word
    kinds: list[str | None] = []
    for phrases in items:
        found: list[frozenset[str]] | None = None
        kind = None
        for p in phrases:
            target = phrase_value(p)
            if target is None or target.kind == "id":
                continue
            hits = [v for v in find_values(criterion) if target.same(v)]
            kind = _KIND_FAMILY.get(target.kind, target.kind)
            if hits:
                found = [frozenset(k) for _, k in _label_words(criterion, hits[0])]
                if not found and (parallel := _parallel_label(criterion, hits[0])):
                    found = [frozenset(parallel)]
                break
        labels.append(found)
        kinds.append(kind)
    out: list[frozenset[str] | None] = []
    shared = _pro_form_shared(criterion, items, labels, kinds)
    for i, lab in enumerate(labels):
        if lab is None:
            out.append(None)
            continue
        if shared and lab and all(k & shared for k in lab):  # r10-words: "the October click-through rate 6.0% and the November one 4.0%":
            value = next((v for p in items[i] if (t := phrase_value(p)) is not None for v in find_values(criterion) if t.same(v)), None)
            if value is not None:  # the words the pro-form shares are no one's; the word before them tells the values apart
                lab = [frozenset(k) for _, k in _label_words(criterion, value, LABEL_BEFORE + len(lab))]
        lab = [k for k in lab if not k & shared]
        others = set().union(*(k for j, o in enumerate(labels) if j != i and o is not None for k in o))
        out.append(frozenset().union(*(k for k in lab if not k & others)))  # a word shared by form ("sign-ups", "sign-up") is no one's
    return ValueLabels(out, kinds)


_KIND_FAMILY = {"day": "date"}
"""Value kinds one statement could confuse (a day of the month is a date)."""


class ValueLabels(tuple):
    """`value_labels`' answer: each item's own label stems, and (`kinds`) the kind of value each item is."""

    kinds: tuple[str | None, ...] = ()

    def __new__(cls, labels: list[frozenset[str] | None], kinds: list[str | None]) -> ValueLabels:
        out = super().__new__(cls, labels)
        out.kinds = tuple(kinds)
        return out


OWN_LABEL_COLON = re.compile(r"[A-Za-z][\w'*]*\s*:(?!\d)")
"""r10-words: a label colon ("Nov:") in a line of several label: value pairs."""


def mislabelled(hit: Hit, index: int, labels: tuple[frozenset[str] | None, ...]) -> bool:
    """Whether a value match carries another value item's label and none of its own ("fare $438" for the
    $438 hotel)."""
    if hit.value is None or hit.value.kind == "id" or index >= len(labels) or labels[index] is None:
        return False
    own = labels[index]
    kinds = getattr(labels, "kinds", ())
    kind = _KIND_FAMILY.get(hit.value.kind, hit.value.kind)
    # only another item of the same kind of value can be the one a value is stated of: "10 pm on 2 December"
    # states the time, whatever label the date item has
    others = set().union(*(lab for j, lab in enumerate(labels) if j != index and lab is not None and (j >= len(kinds) or kinds[j] in (None, kind))))
    if not others:
        return False
    head = record_head(hit.sentence)
    if head is not None and OWN_LABEL_COLON.search(hit.sentence, hit.sentence.find(head) + len(head) + 1, hit.value.start):
        head = None  # r10-words: "Oct: 6.0% CTR, Nov: 4.0%": a later label colon before the value is its own label
    if head is not None and hit.value.text not in head:  # a record line's label is its values' label first ("November Newsletter (CMP-5003): 4% click-through")
        keys = _stems(_lower_words(head))
        if keys & own:
            return False
        if keys & others:
            return True
    for _, keys in sorted(_label_words(hit.sentence, hit.value), key=lambda x: x[0]):
        if keys & own:
            return False
        if keys & others:
            return True  # the nearest word that tells the values apart is another value's label
    return False


# ---- a criterion's negated item ------------------------------------------------------------------------

PRIVATIVE = re.compile(
    r"\b(?:not|no|never|none|nothing|neither|nor|cannot|without|unable|only|except|lacks?|lacking|missing|absent|fails?|failed"
    r"|too\s+low|below|short\s+of|neither|nobody|nowhere|refused|declined|denied|rejected|blocked|expired|ineligible|unavailable"
    r"|unqualified|invalid|insufficient|un[a-z]+able|[a-z]+n't)\b",
    re.I,
)
"""Words that deny or restrict what their clause says ("not", "lacks", "without", "only", "unavailable")."""


def attributed(hit: Hit, phrases: tuple[str, ...], criterion: str) -> bool:
    """Whether the sentence of a match names a subject the criterion states the item of, and the match's
    clause predicates something ("Mei Tanaka is HVAC-qualified" for "Mei Tanaka does not have the HVAC
    skill"; a terse "Done - Mei Tanaka, HVAC." predicates nothing)."""
    b = binding(criterion, phrases)
    if b is None or not b.bound:
        return False
    s, e = clause_at(hit.sentence, hit_offset(hit))
    if not _verbish(_lower_words(hit.sentence[s:e])):
        return False
    return any(x.same(y) for x in subjects(hit.sentence, b.names) for y in b.bound)


def denied(hit: Hit) -> bool:
    """Whether the sentence of a match denies or restricts something: an item the criterion states negated
    ("does not have the HVAC skill", "PayPal does not help") is stated only in such a sentence ("a Basic
    fare, which can't be changed"; never "Mei Tanaka is HVAC-qualified and free at 14:00")."""
    return PRIVATIVE.search(hit.sentence.replace("\u2019", "'")) is not None


# ---- the criterion's subject set aside (round 3) --------------------------------------------------------

SET_ASIDE = re.compile(
    r"\b(?:unchanged|untouched|unaffected|unmodified|unaltered|stays|stayed|staying|(?:will|'ll|to|can|must|should|would|'d)\s+stay|remains?|remained|keeps?|keeping|kept"
    r"|as\s+(?:it|they|he|she)\s+(?:is|are|was|were)|as[- ]is|as\s+before|stays?\s+the\s+same|separately|on\s+its\s+own|left\s+alone"
    r"|leave|leaving|left\s+as|no\s+changes?|nothing\s+changed|not\s+(?:changed|touched|affected|included)|final\s+sale"
    r"|excluded|except|(?:have|need)\s+to\s+(?:check|look|confirm)|(?:will|'ll|need\s+to)\s+check)\b",
    re.I,
)
"""What a clause says of a thing it leaves as it was ("Your furnace work order WO-5001 is unchanged", "Wei keeps
his current seat", "the mugs are final sale, so they'll stay with you", "I'd need to check the medium green
separately")."""
OTHER_THINGS = re.compile(r"\b(?:other|others|another|else|rest|remaining|everything|anything)\b", re.I)
"""A set-aside clause about the other things ("nothing else changes", "the other orders stay") sets none of
the criterion's subject aside."""
ASIDE_STOP = LABEL_STOP | frozenset(
    "now new current today done all set added updated changed booked confirmed gives give shows show whose their "
    "with after before once then".split()
)


def _keys(text: str) -> dict[str, str]:
    """The content words of a text by stem (ids by themselves), each with the word as written."""
    from grader.text.stemmer import stem

    out: dict[str, str] = {}
    for v in find_values(text):
        if v.kind == "id":
            out["id:" + str(v.value)] = str(v.value)
    for w in _lower_words(_ID_LIKE.sub(" ", text)):
        if len(w) < 3 or w in ASIDE_STOP or w in AUXILIARIES or CONTRACTED_VERB.match(w):
            continue
        out.setdefault(stem(w), w)
    return out


def _aside_clauses(text: str) -> list[str]:
    """The clauses of a sentence, each with the clauses after it that refer back to it ("the mugs are final
    sale, | so they'll have to stay with you")."""
    parts = [text[s:e] for s, e in clauses(text)]
    out: list[str] = []
    for i, p in enumerate(parts):
        j = i + 1
        while j < len(parts) and re.match(r"\s*(?:so\s+|and\s+)?(?:it|they|he|she|its|their|his|her)\b", parts[j], re.I):
            j += 1
        out.append(" ".join(parts[i:j]))
    return out


def set_aside(hit: Hit, phrases: tuple[str, ...], evidence: Sequence[tuple[str, ...]], criterion: str, units: Sequence[Unit]) -> str | None:
    """The clause that sets aside the subject a match is stated of, when the match is said of something else
    (round 3): the criterion's words for its subject ("the furnace work order WO-5001", "medium green", "the mug
    return", "Wei Liu") that the reply states only in clauses saying it is left as it was (SET_ASIDE), never in
    the match's own clause, which names something else ("I've set your water heater work order to urgent.
    Your furnace work order WO-5001 is unchanged."; "We have 5 of the large grey in stock; I'd need to check the
    medium green separately."). A clause about the other things ("nothing else changes") sets nothing aside, nor
    does any clause when the criterion's own fact is a thing kept or denied ("stays open", "cannot change").
    `phrases`: the item's; `evidence`: every item of the criterion — the words of another item are another fact,
    not the subject, unless the item names a record (an id among its phrases: ["WO-5001", "furnace"])."""
    if SET_ASIDE.search(criterion) or PRIVATIVE.search(criterion.replace("\u2019", "'")):
        return None  # the criterion's own fact is a thing kept or denied ("CASE-5001 stays open", "cannot change")
    item_words = {k for p in phrases for k in _keys(p)}
    item_words |= {k for item in evidence if not any(re.match(r"[A-Z]+-\w", p) for p in item) for p in item for k in _keys(p)}
    scope = criterion
    for p in phrases:
        spans = _item_spans(p, criterion)
        if spans:  # the words of the item's own part of a list of facts ("the $229 flight | and $378 hotel")
            a = max([m.end() for m in LIST_CUT.finditer(criterion, 0, spans[0][0])], default=0)
            b = min([m.start() for m in LIST_CUT.finditer(criterion, spans[0][1])], default=len(criterion))
            scope = criterion[a:b]
            break
    subject = {k: w for k, w in _keys(scope).items() if k not in item_words}
    if not subject:
        return None
    offset = hit_offset(hit)
    s, e = clause_at(hit.sentence, offset)
    own = _keys(hit.sentence[s:e])
    before = [c for c in clauses(hit.sentence) if c[1] <= s]
    if before and LABEL_COLON.fullmatch(hit.sentence[before[-1][1] : s]):
        own |= _keys(hit.sentence[before[-1][0] : before[-1][1]])  # "- **PNR-F8WL2C** (flight): full refund of $298"
    named = subjects(criterion, criterion=True)
    if any(k.startswith("id:") and k in subject for k in own):
        return None  # the match's clause names the criterion's record
    person = any(x.kind == "name" for x in subjects(criterion, criterion=True))
    you = person and re.search(r"\byou(?:'re|'ve|'ll|\s+are|\s+have)?\b", hit.sentence[s:e], re.I)  # the caller, not the person named
    if not set(own) - set(subject) - item_words and not you:
        return None  # the match's clause names nothing else ("Done, it's urgent now.")
    aside: dict[str, str] = {}
    plain: set[str] = set()
    where = ""
    for unit in units:
        if not unit.carried:
            continue
        for piece in _aside_clauses(unit.text):
            if unit.text == hit.sentence and hit.sentence[s:e].strip() in piece:
                continue
            piece_keys = _keys(piece)
            keys = {k for k in piece_keys if k in subject}
            if not keys:
                continue
            rival = any(not any(x.same(c) for c in named) for x in subjects(piece, tuple(c.key for c in named if c.kind == "name")))
            # another record or name: "ORD-9017 keeps its address", "the Northwind Logistics deal is unchanged"
            if SET_ASIDE.search(piece) and not OTHER_THINGS.search(piece) and not rival:
                aside.update({k: subject[k] for k in keys})
                where = where or piece.strip()
            else:
                plain |= keys
    distinct = set(aside) - set(own) - plain
    return where if distinct else None


# ---- a negative criterion stated positively (round 3) ---------------------------------------------------

NEGATIVE_CRITERION = re.compile(
    r"\b(?:not|no|never|none|nothing|cannot|can't|won't|doesn't|don't|isn't|aren't|wasn't|weren't|didn't|hasn't|haven't"
    r"|unable|only)\b",
    re.I,
)
"""A criterion clause that states its fact negated or restricted ("cannot change after go-live", "does not cover
REC-6009", "only the compliance team can clear it", "does not help while the account is frozen")."""
RESTRICTION = re.compile(
    PRIVATIVE.pattern
    + r"|\b(?:fixed|locked|frozen|freeze|permanent(?:ly)?|final|impossible|reserved|exclusively|solely|limited|restricted"
    r"|must|required|requires?|has\s+to|have\s+to|need(?:s)?\s+to|stays?|remains?|stuck|set\s+in\s+stone|off[- ]limits|out\s+of\s+the\s+question"
    r"|regardless|whatever|either\s+way|any(?:\s+other)?|every|all|same|still|won't|wouldn't|doesn't|don't|cannot|can't|unfortunately"
    r"|blocks?|blocking|prevents?|stops?|bars?|forbid(?:s|den)?|prohibit(?:s|ed)?|disallow(?:s|ed)?|too\s+late|sold\s+out|out\s+of\s+stock"
    r"|gone|closed|ended|over|past|expired|left\s+in\s+place|kept|held|hold)\b",
    re.I,
)
"""The reply's words that deny or restrict (PRIVATIVE and more: "the region is fixed once live", "only for P1",
"the freeze blocks every method")."""


COMMA = re.compile(",")
POSSIBLE = re.compile(
    r"\b(?:can|could|may|possible|able|allowed|permitted|fine|ok|okay|works?|go\s+ahead|exception|eligible|covered|covers"
    r"|included|includes|available|no\s+problem|happy\s+to|feasible|doable|helps?|get\s+around|work\s+around|bypass(?:es)?)\b",
    re.I,
)
"""A sentence that says a thing can be done, works or is allowed ("is possible even after go-live", "PayPal
should work", "I can make a one-off exception")."""


def positive_for_negative(hit: Hit, phrases: tuple[str, ...], criterion: str, units: Sequence[Unit]) -> bool:
    """Whether a match states positively what the criterion states negated or restricted (round 3): the
    criterion's clause of the item is negative ("Says CHG-4004 does not cover REC-6009"; "cannot change after
    go-live"; "only the compliance team can clear it") and the match's sentence has no word that denies or
    restricts anything and says it can be done, works or is allowed ("moving the region is possible even after
    go-live"; "PayPal should work"; "I can make a one-off exception"), nor does any sentence of its message. An id names
    its record and is never held to this; a parenthesis of the criterion ("$950 (not $1,200)") is an aside."""
    if any(phrase_value(p) is not None and phrase_value(p).kind == "id" for p in phrases):  # type: ignore[union-attr]
        return False
    text = re.sub(r"\([^)]*\)", lambda m: " " * len(m.group(0)), criterion.replace("\u2019", "'"))
    for phrase in phrases:
        spans = _item_spans(phrase, text)
        if not spans:
            continue
        s, e = clause_at(text, spans[0][0], True)
        s = max([m.end() for m in COMMA.finditer(text, s, spans[0][0])], default=s)
        e = min([m.start() for m in COMMA.finditer(text, spans[0][1], e)], default=e)  # "size 10 is, size 9 is not": another fact
        if not NEGATIVE_CRITERION.search(text[s:e]):
            return False
        if not POSSIBLE.search(hit.sentence.replace("\u2019", "'")):
            return False  # no claim that it can be done or works: a terse or framed statement of the fact
        message = " ".join(u.text for u in units if u.message == hit.message) or hit.sentence
        return RESTRICTION.search(message.replace("\u2019", "'")) is None
    return False


# ---- a match stated of another date (round 3) -------------------------------------------------------------


def other_date(hit: Hit, evidence: Sequence[tuple[str, ...]], criterion: str) -> bool:
    """Whether the match's sentence places it on another date than the criterion does (round 3): the
    criterion dates its fact ("off on 1 December", "the 2026-12-18 basic fare of $179", "the drops started
    2026-11-26") with a date that is not the item itself, and the match's sentence states a date, none of them
    the criterion's ("Luis Ortega is off on Wednesday 2 December"; "booked you on December 20th for $179")."""
    if any((v := phrase_value(p)) is not None and v.kind == "date" for item in evidence for p in item):
        return False  # a date is an item: wrong dates are the value rule's (with its correction rule)
    dated = [v for v in find_values(criterion) if v.kind == "date"]
    if not dated:
        return False
    said = [v for v in find_values(hit.sentence) if v.kind == "date"]
    return bool(said) and not any(d.same(c) for d in said for c in dated)


# ---- subjects and values, round 4 (branch r4-subjects) ------------------------------------------------------

_R4_BREAK = re.compile(r"[,;:.!?()\[\]\u2014\u2013]|\s-\s|\b(?:and|but|or|while|whereas|so|though|although|because|whereas|which|who)\b", re.I)
"""Where what a reply says right after a match stops being about it (a list's comma, a new clause)."""
_R4_GAP = r"(?:[\w'$%.-]+\s+){0,3}?"
"""At most three words between a match and what its clause says of it ("size 10 is currently sold out")."""
_UNAVAILABLE = re.compile(
    r"^" + _R4_GAP + r"(?:(?:is|are|was|were|'s|has\s+been|have\s+been|went|has\s+gone|have\s+gone)\s+)?"
    r"(?:(?:currently|now|already|still|completely|totally|unfortunately|sadly|right\s+now|all|just)\s+)*"
    r"(?:sold\s+out|out\s+of\s+stock|unavailable|not\s+available|not\s+in\s+stock|not\s+stocked|no\s+longer\s+(?:available|in\s+stock|stocked|carried)"
    r"|gone(?=\s*$|\s+(?:now|already|for\s+now|completely|i'm\s+afraid|sadly|unfortunately|at\s+the\s+moment|right\s+now|in\s+that)\b)|none\s+left|nothing\s+left|zero\s+left|backordered|back[- ]ordered|discontinued)\b",
    re.I,
)
"""What a clause says of a thing that is not to be had ("size 10 is currently sold out", "black is out of stock",
"medium green is gone")."""
_KEPT = re.compile(
    r"^" + _R4_GAP + r"(?:stays|stay|stayed|remains|remain|remained|is\s+kept|are\s+kept|was\s+kept|stays\s+put"
    r"|(?:is|are|was|were)\s+(?:unchanged|untouched|unaffected|left\s+(?:as\s+is|alone|in\s+place)|still\s+(?:there|in\s+place|active|on|open|live|assigned|granted)))\b",
    re.I,
)
"""What a clause says of a thing a change left as it was ("his ROLE-X stays", "the old role remains")."""
_NEGATED_VERB = re.compile(
    r"^" + _R4_GAP + r"(?:doesn't|does\s+not|didn't|did\s+not|don't|do\s+not|can't|cannot|can\s+not|couldn't|could\s+not|won't|will\s+not"
    r"|wouldn't|would\s+not|isn't|is\s+not|aren't|are\s+not|wasn't|was\s+not|weren't|were\s+not|hasn't|has\s+not|haven't|have\s+not|never)"
    r"\s+(?:(?:be|been|being|get|got|yet|actually|really|currently|quite|fully|successfully|even)\s+)*([a-z][\w-]*)",
    re.I,
)
"""A negated verb of the match's clause right after it; its verb is compared with the criterion's words
("Salesforce couldn't be connected", "growth doesn't have it")."""
_HAS_NONE = re.compile(r"^" + _R4_GAP + r"(?:has|have|had|comes?\s+with|includes?|gets?)\s+(?:no|nothing)\b\s*([a-z][\w-]*)?", re.I)
"""'has nothing to do with it', 'comes with no SSO'."""
_HAVING = frozenset("have has had include includes included own owns owned cover covers covered come comes offer offers get gets handle handles".split())
"""Verbs of having: a criterion's "includes SSO" / "is owned by" is denied by "doesn't have it"."""
_CRITERION_DENIES = re.compile(
    r"\b(?:not|no|never|none|nothing|cannot|without|unable|lacks?|lacking|missing|sold\s+out|out\s+of\s+stock|unavailable"
    r"|stays?|stayed|remains?|remained|unchanged|kept|keeps?|un[a-z]{3,}(?:ed|able)|[a-z]+n't)\b",
    re.I,
)
"""A criterion that says the thing is not so, not to be had, or kept as it was: the rules below do not apply."""
_UN_STATE = re.compile(r"\bun((?:[a-z]{3,}ed)|paid|read|sent|sold|done|seen|known|won)\b", re.I)
"""A criterion's state word made with un- ("undelivered", "unpaid"): the bare word is its opposite."""


def _item_in_criterion(criterion: str, phrases: tuple[str, ...]) -> tuple[int, int] | None:
    """Where the criterion states the item (its first phrase found), as offsets."""
    for phrase in phrases:
        for s, e in _item_spans(phrase, criterion):
            return s, e
    return None


def _criterion_window(criterion: str, phrases: tuple[str, ...]) -> str:
    """What the criterion says of the item: its clause from the item on, up to the next comma or bracket (the
    whole criterion when it does not state the item in words)."""
    at = _item_in_criterion(criterion, phrases)
    if at is None:
        return criterion
    s, e = clause_at(criterion, at[0], criterion=True)
    head = criterion[s : at[0]]
    tail = re.split(r"[,;:()]|\b(?:and|but|or|while|whereas)\b", criterion[at[1] : e])[0]
    head, tail = head + criterion[at[0] : at[1]], tail
    return head + tail


def _match_end(hit: Hit, phrase: str) -> int:
    """Where a match ends in its sentence (a value's span; else as many words as the phrase has)."""
    if hit.value is not None:
        return hit.value.end
    start = hit_offset(hit)
    n = max(1, len(re.findall(r"[\w'-]+", phrase)))
    words = list(re.finditer(r"[\w'$%./@-]+", hit.sentence[start:]))
    return start + (words[n - 1].end() if len(words) >= n else len(hit.sentence) - start)


def _after(hit: Hit, phrase: str) -> str:
    """The match's clause right after it, up to the next list separator or new clause."""
    rest = hit.sentence[_match_end(hit, phrase) :].replace("\u2019", "'")
    cut = _R4_BREAK.search(rest)
    return (rest[: cut.start()] if cut else rest).strip()


def opposite_state(hit: Hit, phrase: str, phrases: tuple[str, ...], criterion: str) -> str | None:
    """Whether the clause of a match says right after it the opposite of what the criterion says of the item
    (round 4): that it is not to be had ("size 10 is sold out" for "size 10 is in stock"), that the change left
    it as it was ("his ROLE-X stays" for "ROLE-X is revoked"), a negated verb of the criterion's own or of having
    ("Salesforce couldn't be connected" for "… are connected", "growth doesn't have it" for "the growth plan
    includes SSO", "the billing team has nothing to do with it"), or the bare word of the criterion's un-word
    ("ORD-2 was delivered" for "the undelivered orders"). Not when the criterion itself denies, keeps or
    restricts the item there. Returns the words that say so."""
    window = _criterion_window(criterion, phrases)
    after = _after(hit, phrase)
    if not after:
        return None
    un = _UN_STATE.search(window)
    if un is not None:
        word = un.group(1).lower()
        m = re.match(r"^" + _R4_GAP + r"(?:(?:is|are|was|were|has\s+been|have\s+been|got|'s)\s+)?(?:(?:already|now|just)\s+)?" + re.escape(word) + r"\b", after, re.I)
        if m is not None and not any(w in NEGATORS or w.endswith("n't") for w in _lower_words(m.group(0))):
            return m.group(0)
        return None
    if _CRITERION_DENIES.search(window) or negated_in_criterion(list(phrases), criterion):
        return None
    if (m := _UNAVAILABLE.match(after)) is not None:
        return m.group(0)
    if (m := _KEPT.match(after)) is not None and re.search(r"\b[a-z]{3,}ed\b|\b(?:" + "|".join(IRREGULAR_PARTICIPLES) + r")\b", window, re.I):
        return m.group(0)
    from grader.text.stemmer import stem

    wanted = {stem(w) for w in _lower_words(window) if w not in FUNCTION_WORDS and len(w) > 2}
    if (m := _NEGATED_VERB.match(after)) is not None:
        verb = m.group(1).lower()
        if stem(verb) in wanted or (verb in _HAVING and wanted & {stem(w) for w in _HAVING}) or verb in _HAVING and "it" in _lower_words(after[m.end() :])[:1]:
            return m.group(0)
    if (m := _HAS_NONE.match(after)) is not None:
        noun = (m.group(1) or "").lower()
        if not noun or noun in {"to"} or stem(noun) in wanted:
            return m.group(0)
    return None


_WH = frozenset("which what whether who whom whose where when how".split())


def wh_dropped(hit: Hit, phrase: str) -> bool:
    """Whether a phrase that opens with a question word ("which Chen", "which account") matched without it:
    the question word is what the phrase states (asking which one is meant), so "Thanks, Ms. Chen" is no
    match of "which Chen"."""
    words = re.findall(r"[a-z']+", phrase.lower())
    if len(words) < 2 or words[0] not in _WH or phrase_value(phrase) is not None:
        return False
    before = hit.sentence[: hit_offset(hit)].lower()
    near = re.findall(r"[a-z']+", before)[-4:]
    return words[0] not in near and not hit.sentence[hit_offset(hit) :].lower().startswith(words[0])


def counted_twice(hit: Hit, phrase: str, evidence: Sequence[tuple[str, ...]], index: int) -> bool:
    """Whether a match of a word item lies inside a match of another item of the criterion that contains it
    ("enterprise" inside "Enterprise SD-WAN"): one mention states one item, so the other needs its own. A
    phrase that adds only grammar to the item ("no suites", "all the suites", "not paid") is the item said
    with its quantity or polarity, not another thing: its mention states both."""
    if phrase_value(phrase) is not None:
        return False
    at = hit_offset(hit)
    own = phrase.lower().strip().rstrip("*")
    own_words = set(re.findall(r"[a-z0-9']+", own))
    for j, item in enumerate(evidence):
        if j == index:
            continue
        for other in item:
            low = other.lower()
            if low == own or not rx(r"(?<![\w-])" + re.escape(own) + r"(?![\w-])").search(low):
                continue
            if all(w in FUNCTION_WORDS or w in NEGATORS for w in set(re.findall(r"[a-z0-9']+", low)) - own_words):
                continue
            for m in rx(r"(?<![\w-])" + re.escape(low) + r"(?![\w-])").finditer(hit.sentence.lower()):
                if m.start() <= at < m.end():
                    return True
    return False


_TO_CUSTOMER = frozenset("refund refunds refunded refundable back credit credited reimbursed reimbursement returned repaid".split())
_FROM_CUSTOMER = frozenset("fee fees charge charged penalty penalties cost costs surcharge owe owed".split())
"""Money words of the two directions: what comes back to the customer and what the customer pays."""


def _money_direction(words: Sequence[str]) -> set[str]:
    out: set[str] = set()
    if any(w in _TO_CUSTOMER for w in words):
        out.add("to")
    if any(w in _FROM_CUSTOMER for w in words):
        out.add("from")
    return out


def rival_label(hit: Hit, phrases: tuple[str, ...], criterion: str) -> str | None:
    """Whether a value is stated under a label of another fact than the criterion's (round 4): money the
    criterion gives as coming back ("the $368 flight refund") stated as a fee or charge ("a $368.00 fee to
    cancel"), or the other way round; a rate/fee/total the criterion names with its kind ("click-through rate
    of 4.0%") stated as the same head of another kind ("an open rate of 4.0%")."""
    if hit.value is None or hit.value.kind == "id":
        return None
    at = _item_in_criterion(criterion, phrases)
    if at is None:
        return None
    cs, ce = clause_at(criterion, at[0], criterion=True)
    c_before = _lower_words(re.split(r"[,;:()]", criterion[max(cs, at[0] - 40) : at[0]])[-1])[-3:]
    c_after = _lower_words(re.split(r"[,;:()]", criterion[at[1] : min(ce, at[1] + 30)])[0])[:2]
    s, e = clause_at(hit.sentence, hit.value.start)
    r_before = _lower_words(re.split(r"[,;:()]", hit.sentence[max(s, hit.value.start - 40) : hit.value.start])[-1])[-3:]
    r_after = _lower_words(re.split(r"[,;:()]", hit.sentence[hit.value.end : min(e, hit.value.end + 30)])[0])[:2]
    if hit.value.money or hit.value.kind == "money":
        want = _money_direction(c_before + c_after)
        got = _money_direction(r_before + r_after)
        if len(want) == 1 and len(got) == 1 and want != got and not _money_direction(_lower_words(hit.sentence[s:e])) >= {"to", "from"}:
            return " ".join(r_before + r_after)
    # a percentage: "<kind> rate of V" / "V <kind> rate", the same head with another kind ("open" / "click-through")
    if hit.value.kind != "percent":
        return None
    heads = ("rate", "rates")
    c_pair = _kind_head(c_before, c_after, heads)
    r_pair = _kind_head(r_before, r_after, heads)
    if c_pair and r_pair and c_pair[1] == r_pair[1] and r_pair[0] != c_pair[0] and r_pair[0] not in _lower_words(criterion):
        return f"{r_pair[0]} {r_pair[1]}"
    return None


def _kind_head(before: list[str], after: list[str], heads: Sequence[str]) -> tuple[str, str] | None:
    """The kind and head of a value's label: "open rate of" before it, or "open rate" after it."""
    b = [w for w in before if w not in ("of", "at", "is", "was", "a", "an", "the", "its", "their")]
    if b and b[-1] in heads and len(b) >= 2 and b[-2] not in FUNCTION_WORDS:
        return b[-2].replace("-", ""), singular(b[-1])
    if len(after) >= 2 and after[1] in heads and after[0] not in FUNCTION_WORDS:
        return after[0].replace("-", ""), singular(after[1])
    return None


# ---- subjects and values, round 5 (branch r5-subjects) ------------------------------------------------------

_ROLE_WORDS: dict[str, str] = {
    **dict.fromkeys(
        "balance balances remaining remain remains left total totals leaving leaves bringing brings brought have has "
        "afterwards afterward thereafter".split(),
        "held",
    ),
    **dict.fromkeys(
        "earned earning credited crediting added awarded gained accrued posted".split(),
        "in",
    ),
    **dict.fromkeys(
        "redeemed redeeming used spent spending deducted debited cost costs charged price burned".split(),
        "out",
    ),
}
"""How a count or amount of an account (miles, points, a balance) stands to it: what is held ("your balance",
"57,500 remaining", "you now have", "left", "in total"), what came in ("earned", "credited", "awarded") and what
went out ("redeemed", "used", "the 10,000-mile cost"). Verbs only in forms that are no noun ("credited", not
"credit": "$40 in store credit" is held)."""
_ROLE_STOP = re.compile(r"[;:()\u2014\u2013]|\s-\s|,\s|\b(?:and|but|or|while|whereas|so|after|before|once|because|since|when|which|with|bringing|leaving)\b", re.I)
"""Where a value's label stops on the far side (another clause, another value's words)."""
_ACCOUNT = re.compile(r"\b(?:miles?|points?|pts|balance|remaining|left)\b", re.I)
"""A criterion about an account's holdings: only there does 'total' or 'have' say what is held."""
_ROLE_BEFORE = 4
_ROLE_AFTER = 4


def _role_words(text: str, value: Value, others: Sequence[Value]) -> tuple[list[str], list[str]]:
    """The words right before and right after a value, not past another value or a clause break (a closer
    "bringing"/"leaving" starts the next value's label: "... 867 miles, bringing your balance to 30,867")."""
    start = max([o.end for o in others if o.end <= value.start] + [0])
    end = min([o.start for o in others if o.start >= value.end] + [len(text)])
    before_text = text[start : value.start].replace("\u2019", "'")
    cuts = list(_ROLE_STOP.finditer(before_text))
    if cuts:
        keep = cuts[-1]
        before_text = before_text[keep.start() :] if keep.group(0).lower() in ("bringing", "leaving") else before_text[keep.end() :]
    after_text = text[value.end : end].replace("\u2019", "'")
    cut = _ROLE_STOP.search(after_text)
    if cut:
        after_text = after_text[: cut.start()]
    before = re.findall(r"[a-z]+(?:'[a-z]+)?", before_text.lower())[-_ROLE_BEFORE:]
    after = re.findall(r"[a-z]+(?:'[a-z]+)?", after_text.lower())[:_ROLE_AFTER]
    return before, after


def _account_role(text: str, value: Value) -> str | None:
    """The role of a value's nearest role word (held / in / out), the word before it first at equal distance;
    None when none is near, or when 'have' is a perfect's auxiliary ("you have earned 4,100")."""
    others = [v for v in find_values(text) if v is not value and not (v.start < value.end and value.start < v.end)]
    before, after = _role_words(text, value, others)
    best: tuple[int, str] | None = None
    for distance, word in enumerate(reversed(before), 1):
        role = _ROLE_WORDS.get(word)
        if role is None:
            continue
        if word in ("have", "has") and before[len(before) - distance + 1 : len(before) - distance + 2] and _ROLE_WORDS.get(before[len(before) - distance + 1]) in ("in", "out"):
            continue
        best = (distance, role)
        break
    for distance, word in enumerate(after, 1):
        role = _ROLE_WORDS.get(word)
        if role is None or word in ("have", "has"):
            continue
        if best is None or distance < best[0]:
            best = (distance, role)
        break
    return best[1] if best else None


def account_role_swap(hit: Hit, phrases: tuple[str, ...], criterion: str) -> str | None:
    """Whether a count or amount is stated as another role of its account than the criterion's (round 5): the
    criterion's "18,756 points earned" stated as "18,756 points in total", "the 4,189 balance" as "4,189 miles
    were credited", "57,500 miles remaining" as "57,500 miles were redeemed", "the 10,000-mile cost" as "you'd
    still have 10,000 afterwards". Each side's role is its nearest role word within a few words of the value
    and inside its clause; no verdict when either side has none. Returns the reply's role."""
    if hit.value is None or hit.value.kind in ("id", "date", "time", "day", "percent"):
        return None
    if not _ACCOUNT.search(criterion):
        return None
    for phrase in phrases:
        target = phrase_value(phrase)
        if target is None:
            continue
        for v in find_values(criterion):
            if target.same(v):
                want = _account_role(criterion, v)
                if want is None:
                    return None
                got = _account_role(hit.sentence, hit.value)
                return got if got is not None and got != want else None
    return None


# ---- subjects and values round 6 (branch r6-subjects) ----------------------------------------------------

COUNT_FILLER = UNIT_WORDS | frozenset(
    "left remaining available total altogether more extra spare free open ready right currently presently today "
    "stock instock piece pieces pcs pc ones one pair pairs lot lots box boxes pack packs set sets bunch qty quantity "
    "people person persons guest guests adult adults child children kid kids passenger passengers traveller travellers "
    "traveler travelers pax member members seat seats place places spot spots copy copies count number".split()
)
"""Words after a count that say how many of what the clause is about, not what another thing is ("9 left", "9 units",
"nine of them", "5 in stock"), and nouns of people and places, whose synonyms abound ("3 people" for "3 guests"):
never a rival of the criterion's thing."""
COUNT_OF = re.compile(r"\s+of\s+(?:the|those|these|our|your|its|their|that|this)?\s*", re.I)
COUNT_HOLDER = re.compile(
    r"(?:^|[^A-Za-z'])((?:[A-Za-z][A-Za-z'-]*\s+){0,3}[A-Za-z][A-Za-z'-]*)\s+(?:has|have|had|shows?|is\s+at|are\s+at|'s\s+got|has\s+got|have\s+got)"
    r"\s+(?:only\s+|just\s+|about\s+|around\s+|exactly\s+)?$",
    re.I,
)
"""The holder a clause opens with before a count it has ("The large grey sweater has 5 in stock")."""


def _noun_phrase(text: str) -> list[str]:
    words: list[str] = []
    at = 0
    for m in re.finditer(r"([^\sA-Za-z]*)\s*([A-Za-z][A-Za-z'-]*)", text):
        if m.start() != at or m.group(1):
            break
        w = m.group(2).lower()
        if w in FUNCTION_WORDS or w in COUNT_FILLER or w in AUXILIARIES or CONTRACTED_VERB.match(w) or re.search(r"(?:ing|ed|ly)$", w) or len(w) < 2:
            break
        words.append(w)
        at = m.end()
        if len(words) == 3:
            break
    return words


def _stem_keys(words: Sequence[str]) -> set[str]:
    return {k for w in words for k in word_keys(w)}


def _counted_in_criterion(criterion: str, value: Value) -> list[str]:
    """What the criterion counts with a count: the noun phrase right after it ("9 speakers"), else the one after
    `for`/`of` in its clause ("5 in stock for medium green"); [] when it names none or only people or units."""
    after = criterion[value.end :]
    words = _noun_phrase(after)
    if not words:
        s, e = clause_at(criterion, value.start, True)
        m = re.search(r"\b(?:for|of)\s+(?:the\s+)?", criterion[value.end : e], re.I)
        if m:
            words = _noun_phrase(criterion[value.end + m.end() : e])
    return words


def counted_other(hit: Hit, phrases: tuple[str, ...], criterion: str, units: Sequence[Unit]) -> str | None:
    """Round 6: a count said of another thing. The criterion counts a thing ("Gives 9 speakers in stock", "5 in
    stock for medium green"); the reply's count names, right after it (or after "of the"), or as the holder its
    clause opens with ("The large grey sweater has 5"), a thing with a word the criterion does not have and without
    the criterion's words for its thing, which the clause never names and the replies name elsewhere ("We have 9
    earbuds in stock; the speaker is sold out"; "5 of the medium grey - medium green is gone"). Not when the reply's
    thing has the criterion's word ("9 Bluetooth speakers"), names only how many ("9 left", "nine of them", "9
    units"), or the criterion's thing is named in the count's own clause ("the speaker has 9 units")."""
    value = hit.value
    if value is None or value.kind != "number" or value.money or "%" in value.text:
        return None
    target = next((v for p in phrases if (t := phrase_value(p)) is not None for v in find_values(criterion) if t.same(v) and v.kind == "number"), None)
    if target is None:
        return None
    counted = _counted_in_criterion(criterion, target)
    if not counted:
        return None
    criterion_keys = _stem_keys(_lower_words(criterion))
    text = hit.sentence
    offset = hit_offset(hit)
    mine = next((v for v in find_values(text) if v.start == offset), None)
    end = mine.end if mine is not None else offset + len(value.text)
    rest = text[end:]
    m = COUNT_OF.match(rest)
    thing = _noun_phrase(rest[m.end() :] if m else rest)
    if not thing:
        s, _ = clause_at(text, offset)
        held = COUNT_HOLDER.search(text[s:offset])
        if held and _lower_words(held.group(1))[-1:] and _lower_words(held.group(1))[-1] not in FUNCTION_WORDS:
            words = _lower_words(held.group(1))
            thing = [w for w in words if w not in FUNCTION_WORDS and w not in COUNT_FILLER and len(w) > 1][-3:]
    if not thing:
        return None
    keys = _stem_keys(thing)
    missing = _stem_keys([w for w in counted if not (word_keys(w) & keys)])
    if not missing:
        return None  # "9 Bluetooth speakers", "14 lamps": the criterion's own thing
    if not any(not (word_keys(w) & criterion_keys) for w in thing):
        return None  # nothing the criterion does not have
    s, e = clause_at(text, offset)
    if _stem_keys(_lower_words(text[s:e])) & missing:
        return None  # "the speaker has 9 units": the clause names the criterion's thing
    for unit in units:
        if not unit.carried:
            continue
        rest_text = unit.text.replace(text[s:e], " ") if unit.text == text else unit.text
        if _stem_keys(_lower_words(rest_text)) & missing:
            return " ".join(thing)
    return None
def _own_id_kinds(phrases: Sequence[str]) -> dict[str, set[str]]:
    """The item's own record ids by kind ("id:OPP" -> {"OPP-4002"}); flight codes as "id:code"."""
    out: dict[str, set[str]] = {}
    for p in phrases:
        v = phrase_value(p)
        if v is not None and v.kind == "id":
            out.setdefault(_id_kind(str(v.value)), set()).add(str(v.value))
        elif CODE_ID.fullmatch(p.strip()):
            out.setdefault("id:code", set()).add(p.strip())
    return out


APPOSED_BEFORE = re.compile(r"[\s,(:\-\u2013\u2014*]*(?:(?:the|your|our|a|an)\s+)?$", re.I)
APPOSED_AFTER = re.compile(r"\s*(?:\(|,|\u2013|\u2014|-)\s*(?:(?:id|ref|no\.?|number|#)\s*:?\s*)?$", re.I)


def apposed_rival(hit: Hit, phrases: tuple[str, ...]) -> str | None:
    """Round 6: a name said in apposition with another record's id. An item that is a record — its id among its
    phrases with its name ("OPP-4002", "Northwind Foods") — matched by its name right after another id of the same
    kind (only punctuation or a determiner between: "OPP-4001, Northwind Foods POS upgrade, is now ...") or
    followed by one in brackets or after a comma ("Northwind Foods (OPP-4001)"), in a clause that never names the
    item's own id, is said of that other record: the id names the record, the name may be shared."""
    if hit.value is not None and hit.value.kind == "id":
        return None
    kinds = _own_id_kinds(phrases)
    if not kinds:
        return None
    text = hit.sentence
    offset = hit_offset(hit)
    end = max([e for p in phrases for st, e in _item_spans(p, text) if st == offset], default=offset)
    s, e = clause_at(text, offset)
    found = [x for x in subjects(text) if s <= x.start < e]
    if any(x.key in ids for x in found for ids in kinds.values()):
        return None  # the clause names the item's own record
    for x in found:
        if x.kind not in kinds:
            continue
        between = text[x.end : offset]
        for p in phrases:  # the record's other words between ("OPP-4001, Northwind Foods POS upgrade")
            between = re.sub(phrase_pattern(p).pattern, " ", between, flags=re.I) if phrase_value(p) is None else between
        if x.end <= offset and APPOSED_BEFORE.fullmatch(between) and not re.search(r"\b(?:not|than|instead|unlike|vs|versus)\W*$", text[s : x.start], re.I):
            return x.key
        if x.start >= end and APPOSED_AFTER.fullmatch(text[end : x.start]):
            return x.key
    return None


CLAUSE_LEAD = frozenset("that the and or a an its their his her your whether if".split())


def _rival_things(criterion: str, value: Value) -> set[str]:
    """The things the criterion's other clauses are about: the first content word of each clause that does not
    state the value ("States the $298 flight refund | and that the hotel cancels without a fee": hotel)."""
    s, e = clause_at(criterion, value.start, True)
    out: set[str] = set()
    for cs, ce in clauses(criterion, True):
        if cs <= value.start < ce or (cs, ce) == (s, e):
            continue
        words = [w for w in _lower_words(criterion[cs:ce]) if w not in CLAUSE_LEAD]
        if words and words[0] not in LABEL_STOP and len(words[0]) > 2 and not re.search(r"\d", words[0]):
            out |= _stems(words[:1])
    return out


def rival_thing_label(hit: Hit, phrases: tuple[str, ...], criterion: str) -> str | None:
    """Round 6: a value labelled with the thing another clause of the criterion is about. The criterion labels
    the value ("the $298 flight refund") and states another fact of another thing ("and that the hotel cancels
    without a fee"); a reply value whose label words (its clause's nearest content words, as `_label_words`)
    name that other thing and miss a word of its own label is that thing's ("The hotel refund is $298"; "$558
    back for the flight and $298 for the hotel"). Not when the value carries its whole label ("the flight refund
    of $298 - the hotel is free")."""
    if hit.value is None or hit.value.kind in ("id", "level"):
        return None  # a record's id or a tier names, it is no fact labelled by a thing
    target = next((v for p in phrases if (t := phrase_value(p)) is not None and t.kind != "id" for v in find_values(criterion) if t.same(v)), None)
    if target is None:
        return None
    own = [k for _, k in _label_words(criterion, target)]
    rivals = _rival_things(criterion, target) - set().union(*own) if own else set()
    if not rivals:
        return None
    text = re.sub(r"[A-Za-z]+(?:-[A-Za-z]+)+", lambda m: " " * len(m.group(0)), hit.sentence)  # "front-line" names no line
    said = set().union(*(k for _, k in _label_words(text, hit.value)))
    s, _ = clause_at(text, hit.value.start)
    opening = [w for w in _lower_words(text[s : hit.value.start]) if w not in CLAUSE_LEAD]
    if opening and not LIST_CUT.search(text, s, hit.value.start):
        said |= _stems(opening[:1])  # the clause's subject ("The boiler service was carried out on 4 October")
    if not (said & rivals) or all(k & said for k in own):
        return None
    # r10-words (several records): the nearest word that tells them apart decides — the criterion's own capitalised
    # word for this value ("the October click-through rate 6.0%", a wider window) before the rival's ("October 6.0%
    # vs November 4.0%": 6.0% is October's)
    capitalised = _stems([w.lower() for w in re.findall(r"(?<=\s)[A-Z][a-z]+", criterion)])
    wide = {k for _, keys in _label_words(criterion, target, LABEL_BEFORE + 3) if keys & capitalised for k in keys} - rivals
    for _, keys in sorted(_label_words(text, hit.value), key=lambda x: x[0]):
        if keys & rivals:
            break
        if keys & wide:
            return None
    return next(iter(said & rivals))


BARE_GAP = re.compile(r"\s*(?:[,;/|]|\band\b|\bor\b|&)\s*(?:(?:and|or)\s+)?", re.I)


def unlabelled_run(hit: Hit, index: int, labels: tuple[frozenset[str] | None, ...]) -> bool:
    """Round 6: a value stated only as one of a bare run of three or more values of its kind ("ROI across sent
    campaigns: 1,075%, 2,340%, 400%"; "Figures for ACC-1007 and ACC-1001: 9,100.00; 11,550.75; 2,450.75"; "TXN-1: 120.00
    / 35.60 / 84.40"), nothing but separators between them, in a sentence that never says the criterion's own label
    of it (the words that tell it from the criterion's other values): the reply does not say which value is which.
    Not when the criterion lists its values itself (no value has a label of its own: "the windows 08:00, 10:00 and
    12:00"), when a value of the run carries a word ("checking $2,450.75, savings $9,100.00"), or when the sentence
    names the label ("Checking, savings and total: $2,450.75, $9,100.00 and $11,550.75")."""
    if hit.value is None or hit.value.kind == "id" or index >= len(labels) or not labels[index]:
        return False
    text = hit.sentence
    offset = hit_offset(hit)
    kind = _KIND_FAMILY.get(hit.value.kind, hit.value.kind)
    values = sorted((v for v in find_values(text) if _KIND_FAMILY.get(v.kind, v.kind) == kind), key=lambda v: v.start)
    at = next((i for i, v in enumerate(values) if v.start == offset), None)
    if at is None:
        return False
    lo = hi = at
    while lo > 0 and BARE_GAP.fullmatch(text[values[lo - 1].end : values[lo].start]):
        lo -= 1
    while hi + 1 < len(values) and BARE_GAP.fullmatch(text[values[hi].end : values[hi + 1].start]):
        hi += 1
    if hi - lo < 2:
        return False
    return not (_stems(_lower_words(text)) & labels[index])


PER_HEAD = re.compile(
    r"^\s*(?:(?:usd|dollars?)\s+)?(?:(?:per|a|an|each|for\s+each|every|/)[\s-]*(?:person|persons|people|passenger|passengers|pax|traveller|traveler"
    r"|guest|guests|head|adult|adults|child|ticket|tickets|seat|seats|bag|bags|item|items|unit|units|room|rooms|piece|pieces|user|users|seat|licen[cs]e)"
    r"|each|apiece|a\s+head|per\s+head)\b",
    re.I,
)
"""A money value stated per person or per item ("$40 per passenger", "$25 each", "$12 a head")."""
TOTAL_SAID = re.compile(
    r"\b(?:in\s+total|altogether|combined|in\s+all|all\s+in|a\s+total\s+of|the\s+total|total\s+of|for\s+(?:both|all|everyone)|all\s+together)\b",
    re.I,
)
"""A reply's unambiguous total ("Both invoices total $204" is each one's: a verb "total" after a plural is not)."""
TOTAL_WORDS = re.compile(r"\b(?:total|totals|totalling|totaling|altogether|combined|overall|in\s+all|all\s+in|for\s+(?:both|all|everyone))\b", re.I)


def _per_head(text: str, value: Value) -> bool:
    """"$40 per passenger", "$25 each"; "they each total $204", "each one costs $45"."""
    s, _ = clause_at(text, value.start)
    start = max([s, value.start - 40] + [v.end for v in find_values(text) if v.end <= value.start and v.kind != "id"])
    gap = text[start : value.start]
    if start > s and (m := PER_HEAD.match(gap)):
        gap = gap[m.end() :]  # "$169.00 each come to $507.00": that "each" is the value's before it
    before = _lower_words(gap)[-3:]  # never past another value ("$169 each - $507 altogether")
    return PER_HEAD.match(text[value.end : value.end + 30]) is not None or "each" in before or "apiece" in before


def _as_total(text: str, value: Value, words: re.Pattern[str] = TOTAL_WORDS) -> bool:
    s, e = clause_at(text, value.start)
    start = max([s, value.start - 40] + [v.end for v in find_values(text) if v.end <= value.start and v.kind != "id"])
    before = " ".join(_lower_words(text[start : value.start])[-4:])
    after = " ".join(_lower_words(text[value.end : min(e, value.end + 30)])[:3])
    return bool(words.search(before) or words.search(after))


def per_head_swap(hit: Hit, criterion: str) -> str | None:
    """Round 6: money of the other scope. The criterion states an amount as a total ("the $40 total fare
    difference", "$96 altogether") and the reply states it per person or per item ("an extra $40 per passenger",
    "$40 each"), or the other way round ("$25 per bag" said as "a total of $25"): another fact. No verdict when the
    criterion says neither."""
    v = hit.value
    if v is None or v.kind == "id" or not (v.money or "$" in v.text or re.search(r"\d\.\d\d", v.text)):
        return None
    targets = [c for c in find_values(criterion) if c.kind == v.kind and c.same(v)]
    if not targets:
        return None
    c = targets[0]
    if _as_total(criterion, c) and not _per_head(criterion, c) and _per_head(hit.sentence, _at(hit, v)):
        return "per head"
    if _per_head(criterion, c) and _as_total(hit.sentence, _at(hit, v), TOTAL_SAID) and not _per_head(hit.sentence, _at(hit, v)):
        return "total"
    return None


def _at(hit: Hit, value: Value) -> Value:
    offset = hit_offset(hit)
    return next((x for x in find_values(hit.sentence) if x.start == offset), value)


# ---- end subjects and values round 6 ---------------------------------------------------------------------


# ---- subjects and values, round 7 (branch r7-subjects) ---------------------------------------------------

PIECE_CUT = re.compile(
    r"[,;:()\[\]\u2014\u2013|]|\s-\s|\n"
    r"|\b(?:and|or|but|while|whereas|although|though|then|plus|instead\s+of|in\s+place\s+of|rather\s+than|whereupon)\b",
    re.I,
)
"""Where one predicate's stretch of a sentence ends: a list separator, a conjunction, a label colon, a bracket."""
CRITERION_LEAD = re.compile(
    r"^\s*(?:confirms?|says?|states?|tells?|reports?|explains?|gives?|lists?|mentions?|notes?|shows?|names?)\b"
    r"(?:\s+(?:the\s+)?(?:customer|caller|user|requester))?(?:\s+that)?\s*",
    re.I,
)
CODE_WORD = re.compile(r"\b[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+\b|\b[A-Z]{2,}\d*\b")
"""A record's code ("ROLE-PAYROLL-VIEW", "ACC-1007", "VIP"): it names the record, not a role in words."""
ROLE_STOP = LABEL_STOP | frozenset(
    "role roles record records item items account accounts now also already just still been being get got".split()
)
"""Words that name no role of their own: every piece of a two-role criterion can carry them."""


def _piece_spans(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for m in PIECE_CUT.finditer(text):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    return spans


def _role_stems(text: str, drop: frozenset[str]) -> frozenset[str]:
    out: set[str] = set()
    for w in _lower_words(text):
        if w in ROLE_STOP or w in AUXILIARIES or len(w) < 3 or w in drop:
            continue
        out.add(stem(w))
    return frozenset(out) - drop


@lru_cache(maxsize=4096)
def _two_role_plan(criterion: str, items: tuple[tuple[str, ...], ...]) -> tuple[tuple[frozenset[str], frozenset[str]] | None, ...]:
    """For each item of a criterion that states two or more predicates each of its own subject ("the payroll
    administrator role is revoked and the report viewer role granted"): the words only its own piece of the
    criterion names the subject with, and the words only the other predicates' pieces do (None when the item is
    no such predicate)."""
    lead = CRITERION_LEAD.match(criterion)
    offset = lead.end() if lead else 0
    body = criterion[offset:]
    pieces = [(s + offset, e + offset) for s, e in _piece_spans(body) if body[s:e].strip()]
    evidence_words = frozenset(stem(w) for item in items for p in item for w in _lower_words(p.rstrip("*")))
    where: list[int | None] = []
    subject: dict[int, frozenset[str]] = {}
    for item in items:
        at = _item_in_criterion(criterion, item)
        if at is None or any(phrase_value(p) is not None for p in item):
            where.append(None)  # a value is bound by its label (`mislabelled`, `rival_thing_label`)
            continue
        piece = next((i for i, (s, e) in enumerate(pieces) if s <= at[0] < e), None)
        if piece is not None:
            head = criterion[pieces[piece][0] : at[0]]
            opener = re.match(r"\s*(?:the|a|an|his|her|their|its|your)\s", head, re.I)
            words = _role_stems(head, evidence_words) if opener else frozenset()
            if words and piece not in subject:
                subject[piece] = words  # the piece's subject: "the payroll administrator role" (is revoked)
            else:
                piece = None
        where.append(piece)
    stated = {w for w in where if w is not None}
    if len(stated) < 2:
        return tuple(None for _ in items)
    words = subject
    plan: list[tuple[frozenset[str], frozenset[str]] | None] = []
    for w in where:
        if w is None:
            plan.append(None)
            continue
        others = frozenset().union(*(words[i] for i in stated if i != w))
        own = words[w] - others
        rivals = others - words[w]
        plan.append((own, rivals) if own and rivals else None)
    return tuple(plan)


def crossed_roles(hit: Hit, index: int, items: tuple[tuple[str, ...], ...], criterion: str) -> str | None:
    """Round 7: two predicates swapped between their two subjects. The criterion states predicate A of one
    subject and predicate B of another ("the payroll administrator role is revoked and the report viewer role
    granted"); a reply's match of A whose own piece of the sentence (up to the next list separator or
    conjunction; a bare predicate after a label colon or dash takes its label's piece) names the other subject
    with more of its own words than it names A's ("the report viewer role is revoked and the payroll
    administrator role granted"; "Maria now holds the payroll administrator role, and her report viewer role
    was removed") is said of the other subject. Not when the piece names neither or both alike."""
    plan = _two_role_plan(criterion, items)[index]
    if plan is None:
        return None
    own, rivals = plan
    text = hit.sentence.replace("*", " ")  # markdown emphasis: "- **Basic tier**: cancelled"
    offset = hit.value.start if hit.value is not None else hit_offset(hit)
    spans = _piece_spans(text)
    at = next((i for i, (s, e) in enumerate(spans) if s <= offset < e or (s <= offset and i == len(spans) - 1)), None)
    if at is None:
        return None
    s, e = spans[at]
    found = _role_stems(CODE_WORD.sub(" ", text[s:e]), frozenset())
    if not (found & (own | rivals)) and at > 0 and re.fullmatch(r"\s*(?::|-|\u2013|\u2014)\s*", text[spans[at - 1][1] : s]):
        found = _role_stems(CODE_WORD.sub(" ", text[spans[at - 1][0] : spans[at - 1][1]]), frozenset())  # "report viewer: granted"
    theirs, mine = found & rivals, found & own
    if theirs and len(theirs) > len(mine):
        return " ".join(sorted(theirs))
    return None


LIST_JOIN = r"\s*(?:,\s*(?:and\s+|&\s+)?|\s+and\s+|\s*&\s*|\s*/\s*)"
ID_LIST = re.compile(r"(?<![\w-])[A-Z]+-[A-Z0-9]+(?:" + LIST_JOIN + r"[A-Z]+-[A-Z0-9]+)+(?![\w-])")
"""Two or more record ids in one list ("ORD-9016 and ORD-9017", "INV-1, INV-2 & INV-3")."""
RESPECTIVE = re.compile(r"\brespectively\b|\bin\s+that\s+order\b", re.I)


def paired_lists(hit: Hit, phrases: tuple[str, ...], criterion: str, units: Sequence[Unit] = ()) -> str | None:
    """Round 7: a value read off a pair of lists. A sentence that names records in one list and their values
    in another ("ORD-9016 and ORD-9017 arrive on December 7 and December 6") pairs them by their places
    (first with first), "respectively" or not; a value of the item placed against another record than the one
    the criterion states it of is that record's ("December 6" is ORD-9017's). Applies only when the two lists
    have as many members, the values are of one kind and the sentence gives no value next to its own id. A
    sentence of values naming no record takes the list of the sentence right before it ("Both orders (ORD-9016,
    ORD-9017) are processing. Estimated dates: 12/07 and 12/06.")."""
    if hit.value is None or hit.value.kind == "id":
        return None
    b = binding(criterion, phrases)
    if b is None:
        return None
    own = {x.key for x in b.bound if x.kind.startswith("id:")}
    if len(own) != 1:
        return None
    text = hit.sentence
    lists = list(ID_LIST.finditer(text))
    if not lists and not re.search(r"[A-Z]+-[A-Z0-9]+", text):
        before = [u for u in units if u.message == hit.message]
        at = next((i for i, u in enumerate(before) if u.text == text or text in u.text), None)
        if at:
            previous = before[at - 1].text
            lists = [m for m in ID_LIST.finditer(previous)]
            if len(lists) != 1 or any(v.kind == hit.value.kind for v in find_values(previous) if v.kind != "id"):
                return None
            ids = re.findall(r"[A-Z]+-[A-Z0-9]+", lists[0].group(0))
            return _paired(text, hit, ids, own, (len(text), len(text)))
    if len(lists) != 1:
        return None
    ids = re.findall(r"[A-Z]+-[A-Z0-9]+", lists[0].group(0))
    return _paired(text, hit, ids, own, lists[0].span())


def _paired(text: str, hit: Hit, ids: list[str], own: set[str], span: tuple[int, int]) -> str | None:
    """The record a pair of lists places the hit's value against (None: no such pairing, or its own)."""
    assert hit.value is not None
    if len(set(ids)) != len(ids) or not (own & set(ids)):
        return None
    values = [v for v in find_values(text) if v.kind == hit.value.kind and not (span[0] <= v.start < span[1])]
    if len(values) != len(ids):
        return None
    for a, c in zip(values, values[1:]):
        if not re.fullmatch(LIST_JOIN + r"|\s*(?:,\s*)?(?:and|or)\s+(?:on\s+|at\s+|of\s+)?", text[a.end : c.start]):
            return None  # not one list of values: each is said in its own clause
    place = next((i for i, v in enumerate(values) if v.start == hit.value.start), None)
    if place is None:
        return None
    record = ids[place]
    return record if record not in own else None


KIND_OF_ID = re.compile(r"\b(?:the|a|an|your|its|their|his|her|our)\s+((?:[A-Za-z][\w'-]*\s+){1,4}?)([A-Z]+-[A-Z0-9]+)\b")
"""A record the criterion gives its kind ("the certificate of incorporation UPL-7051", "the savings account ACC-1007")."""
AS_KIND = re.compile(r"\bas\s+(?:your|a|an|the|their|his|her|our|its)\s+((?:[A-Za-z][\w'-]*)(?:\s+(?!(?:and|or|but|so|for|on|to|with|while|since|because)\b)[A-Za-z][\w'-]*){0,3})", re.I)
"""What a reply registers, files or sets a record as ("registered UPL-7051 as your proof of address")."""


AS_GAP = re.compile(r"(?:\s*,)?(?:\s+(?:is|was|has|have|been|being|are|were|be|now|already|just|also|[a-z]{3,}ed|set|up|kept|on|file|in|the|system))*\s+", re.I)
"""Between a record and the "as" that gives its kind: only the verb that files it ("is now registered", ", set up")."""


@lru_cache(maxsize=4096)
def _id_kinds(criterion: str) -> tuple[tuple[str, frozenset[str]], ...]:
    out = []
    for m in KIND_OF_ID.finditer(criterion):
        words = _role_stems(m.group(1), frozenset())
        if words:
            out.append((m.group(2), words))
    return tuple(out)


def other_kind(hit: Hit, criterion: str) -> str | None:
    """Round 7: a record given another kind than the criterion's. The criterion names a record with its kind
    ("the certificate of incorporation UPL-7051"); a reply sentence that names the record and files it "as" a
    kind none of whose words the criterion's kind has ("UPL-7051 is registered as your proof of address") says
    it is something else, and states nothing of the criterion's record. Not for a kind sharing a word ("as your
    incorporation certificate") nor "as requested"/"as planned" (no determiner)."""
    kinds = _id_kinds(criterion)
    if not kinds:
        return None
    text = hit.sentence
    for record, words in kinds:
        at = text.find(record)
        if at < 0:
            continue
        for m in AS_KIND.finditer(text, at + len(record)):
            if not AS_GAP.fullmatch(text[at + len(record) : m.start()]):
                continue  # the "as" is about something else ("CASE-5002 is closed, with the router move as the fix")
            said = _role_stems(CODE_WORD.sub(" ", m.group(1)), frozenset())
            if said and not (said & words):
                return m.group(1)
    return None


# ---- end subjects and values round 7 ---------------------------------------------------------------------


# ---- subjects and values round 8 (r8-subjects) -----------------------------------------------------------

USER_NAME = re.compile(r"\b(?i:you\s+are|i\s+am|i'm|my\s+name\s+is|this\s+is)\s+((?:[A-Z][\w'-]*)(?:\s+[A-Z][\w'-]*){0,3})")
"""Who the customer is, by the instruction's "You are Priya Raman" (or a first-person "I am ...")."""


@lru_cache(maxsize=1024)
def user_names(instruction: str) -> frozenset[str]:
    """The words of the customer's own name(s) the instruction gives, lower-cased (empty when it gives none)."""
    return frozenset(w.lower() for m in USER_NAME.finditer(instruction) for w in re.findall(r"[A-Za-z][\w-]*", m.group(1)))


HOLDER_NOUNS = r"account|acct|balance|wallet|savings|checking|points|miles|card|subscription|membership|loyalty"
"""What a customer holds (money, points, a card, a membership): never a record merely about a person, which a
rep, an agent or an admin works on for them ("Nina's lead", "Alice's request", "Ivan's booking")."""
THIRD_HOLDER = re.compile(
    r"(?<![\w-])([A-Z][a-z][\w-]*(?:\s+[A-Z][a-z][\w-]*)?)['\u2019]s?\s+(?:[a-z][\w-]*\s+){0,2}?(?:" + HOLDER_NOUNS + r")s?\b"
)
"""A record of a named person: "Tom's account", "Lucas Moreau's business account", "James' booking"."""
HOLDER_LEAD = re.compile(
    r"\s*(?:(?:and|so|now|also|then|ok|okay|right|well|sure|yes|great|good\s+news|as\s+of\s+now|currently|today)\b[\s,]*)*"
    r"(?:[A-Z]+-[A-Z0-9]+\s*,\s*)?(?:the\s+)?",
    re.I,
)
"""What may stand before a clause's subject: discourse words, an id the possessive is in apposition to."""
NOT_PEOPLE = frozenset(
    "today tomorrow yesterday tonight week month year quarter season company team customer client everyone nobody "
    "someone the this that your my our their his her its".split()
) | frozenset(MONTH_NAMES) | DAY_NAMES


def third_party_holder(hit: Hit, criterion: str, own_names: frozenset[str]) -> str | None:
    """Round 8: a fact said of another person's record. The match's clause opens with a named person's record as
    its subject ("Tom's account ACC-1004 now shows $3,200.00"; "ACC-1006, Lucas's account, is frozen") and the
    person is neither named by the criterion nor the customer (the instruction's "You are ..."): the value or
    state is that person's, not the customer's. Only as the clause's subject: "I sent $3,500 to Tom's account"
    (an object) and "your balance is $3,200 after Tom's deposit" (another clause, or after the match) keep the
    match. Nothing is said without the customer's name (the holder might be the customer)."""
    if not own_names:
        return None
    text = hit.sentence
    offset = hit_offset(hit)
    s, e = clause_at(text, offset)
    crit = {w.lower() for w in re.findall(r"[A-Za-z][\w-]*", criterion)}
    for m in THIRD_HOLDER.finditer(text, s, offset):
        if m.start() >= offset:
            break
        words = [w.lower() for w in m.group(1).split()]
        if any(w in NOT_PEOPLE or w in own_names or w in crit for w in words):
            continue
        if not HOLDER_LEAD.fullmatch(text[s : m.start()]):
            continue  # not the clause's subject ("I sent $3,500 to Tom's account")
        return m.group(1)
    return None


# ---- end subjects and values round 8 ---------------------------------------------------------------------

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


_THOUSANDS_COMMA = re.compile(r"(?<=\d),(?=\d{3})")
_SPACES = re.compile(r"\s+")
APOS_WORD = re.compile(r"[a-z']+")
"""A lowercase word with its apostrophes ("isn't", "customer's")."""


@lru_cache(maxsize=65536)
def normalise(text: str) -> str:
    """Lowercase, drop thousands separators and currency signs, fold whitespace: '$1,000.00' ~ '1000.00'.
    Kept per text: the judge normalises the same sentences and phrases again for every criterion."""
    text = text.lower().replace("\u2019", "'")
    text = _THOUSANDS_COMMA.sub("", text)
    text = text.replace("$", "")
    return _SPACES.sub(" ", text).strip()


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



_ABBREVIATED = "|".join(
    rf"(?<=\b{w}\.)" for w in "Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec Mon Tue Tues Wed Thu Thur Thurs Fri Sat Sun No Nos".split()
)
_TAKE_BACK_WORDS = (
    r"no,?\s+wait\b|wait(?=\s*[,!\-\u2013\u2014])|sorry(?=\s*[,!\-\u2013\u2014])|scratch\s+that\b|strike\s+that\b|correction\b|"
    r"my\s+mistake\b|my\s+bad\b|i\s+misspoke\b|i\s+misread\b|actually,?\s+no\b|oops\b"
)
_OWN_CLAUSE = r"(?i:\b(?:it|that|this|he|she|they|we|you|i|there)(?:'s|'re|'m|\s+(?:is|are|was|were|has|have|had|will|would)\b))"
_NOT_A_SLIP = r"(?![\s,!\-\u2013\u2014]*(?i:i\s+mean|i\s+meant|make\s+that|or\s+rather)\b)"
_TAKE_BACK_AFTER_DASH = (
    r"(?:(?:\s+[-\u2013]\s+|\s*\u2014\s*|\s*(?:\.\.\.|\u2026)\s*|\s*;\s*)"
    r"(?=(?i:" + _TAKE_BACK_WORDS + r"|not\s+any\s?more\b|that'?s\s+wrong\b|that\s+was\s+wrong\b)" + _NOT_A_SLIP + r")"
    r"|,\s*(?=(?i:" + _TAKE_BACK_WORDS + r")" + _NOT_A_SLIP + r"[^.;]*?" + _OWN_CLAUSE + r"))"
)
"""A dash, an ellipsis or a semicolon before words that take back what came before it ("ORD-9001 has been
delivered - sorry, that's wrong, it hasn't arrived", "delivered... no wait, it's still in transit", "$640.20; no
wait, it's $590.20"), or a comma before the plainer of those words when a clause of its own follows ("$640.20,
no wait, it's $590.20"; not "that's wrong" after a comma, which as often judges what the sentence reports:
"charged twice, that's wrong and I've refunded it"): a sentence of its own, so the take-back rules
(`grader.text.withdrawal`) read it as they read a take-back after a full stop. Only after words that state
something: "Sorry - correction: ..." is one marker, read whole. Not a slip put right in the same breath
("logged on JOB-4410 - sorry, I mean JOB-4401", "we have 14, sorry, 41 in stock"): that sentence is the
correction rule's, whole."""
TAKE_BACK_BREAK = re.compile(_TAKE_BACK_AFTER_DASH)
_MARKER_WORDS = frozenset(
    "sorry oops apologies apology apologise apologize ok okay right um uh er ah oh so well hmm actually wait no yes "
    "correction correcting scratch strike that my bad mistake i misspoke wrong".split()
)
"""Words that make no statement before a dash: "Sorry - correction: ...", "Oops, sorry - ..." are one marker."""
SENTENCE_BREAK = re.compile(
    r"(?<=[.!?])(?<!^\d[.)])(?<!^\d\d[.)])(?<![\s(][A-Z]\.)(?<!^[A-Z]\.)(?!(?:" + _ABBREVIATED + r")\s+\d)\s+|\n+",
    re.M,
)
"""Where sentences part: after ".", "!" or "?" and at line ends, never after the number of a numbered
list item ("1. **CASE-5006**: ...": the number belongs to its item) nor after an initial ("J. Doe"), nor
after a month's, a weekday's or "No."'s abbreviation before a number ("Nov. 20th", "Wed. 2 Dec", "No. 5")."""


def _sentences(message: str) -> list[str]:
    return list(_sentence_parts(message))


@lru_cache(maxsize=16384)
def _sentence_parts(message: str) -> tuple[str, ...]:
    """Kept per message: every rule of a reply's reading splits the same messages again."""
    parts = [p for p in (part.strip() for part in SENTENCE_BREAK.split(message)) if p]
    return tuple(piece for part in parts for piece in _take_back_pieces(part))


def _take_back_pieces(sentence: str) -> list[str]:
    """A sentence parted before a take-back after a dash (`TAKE_BACK_BREAK`), when a statement stands before it."""
    pieces: list[str] = []
    start = 0
    for m in TAKE_BACK_BREAK.finditer(sentence):
        head = sentence[start : m.start()].strip()
        if set(re.findall(r"[a-z0-9][a-z0-9'-]*", head.lower())) - _MARKER_WORDS:
            pieces.append(head)
            start = m.end()
    pieces.append(sentence[start:].strip())
    return [p for p in pieces if p]



# ---- negation ------------------------------------------------------------------------------------

NEGATORS = frozenset(
    "not never no nothing none neither nor cannot can't couldn't didn't don't doesn't isn't wasn't aren't weren't "
    "haven't hasn't hadn't won't wouldn't shouldn't unable without nobody".split()
)
_CLAUSE_BREAK = re.compile(r"[,;:()!?\u2014]|\s-\s|\b(?:but|because|so|since|although|though|while|and|or|which|however|whereas|instead|until|unless)\b")
NEGATION_WINDOW = 5
"""How many words before a match a negator may stand (same clause) to negate it."""


def last_clause(prefix: str) -> str:
    """`_CLAUSE_BREAK.split(prefix)[-1]`, read from the end: the judge asks it of the text before every match, and
    a long message made that quadratic. A break that starts past the first few characters of a tail is one the
    whole text has too (breaks are under ten characters long), so the tail gives the same clause."""
    size = 512
    while size < len(prefix):
        tail = prefix[-size:]
        last = None
        for last in _CLAUSE_BREAK.finditer(tail):  # noqa: B007 - the last one is wanted
            pass
        if last is not None and last.start() >= _BREAK_SPAN:
            return tail[last.end() :]
        size *= 4
    return _CLAUSE_BREAK.split(prefix)[-1]


_BREAK_SPAN = 16
"""More than the length of any `_CLAUSE_BREAK` match: a match starting this far into a tail is the whole text's too."""


def first_clause(suffix: str) -> str:
    """`_CLAUSE_BREAK.split(suffix)[0]`, without splitting the rest of a long text."""
    found = _CLAUSE_BREAK.search(suffix)
    return suffix if found is None else suffix[: found.start()]


NEGATED_ABILITY = re.compile(
    r"\b(?:(?:was|were|am|is|are|'m|'re|have\s+been|has\s+been|haven't\s+been|hasn't\s+been)\s+(?:not|n't)\s+able\s+to|(?:wasn't|weren't|isn't|aren't)\s+able\s+to"
    r"|unable\s+to|couldn't|could\s+not|can't|cannot|can\s+not|didn't\s+(?:manage|get)\s+to|did\s+not\s+(?:manage|get)\s+to|failed\s+to|never\s+got\s+to)"
    r"\s+(?:[a-z0-9$.'/-]+\s+){0,8}$"
)
"""(round 9) A negated verb of ability or success governs its whole verb phrase, however long its object ("I wasn't
able to create the exchange to navy", "we couldn't move your booking to the 14th"), up to the clause's end."""


def negated_before(prefix: str) -> bool:
    """Whether the tail of `prefix` (normalised text just before a match) negates what follows: a negator within
    NEGATION_WINDOW words in its clause, or a negated verb of ability or success heading the clause's verb phrase
    (`NEGATED_ABILITY`, round 9)."""
    clause = last_clause(prefix)
    words = APOS_WORD.findall(clause)[-NEGATION_WINDOW:]
    if any(w in NEGATORS or w.endswith("n't") for w in words):
        return True
    return len(clause) > 12 and NEGATED_ABILITY.search(clause) is not None


HYPOTHETICAL = frozenset({"whether", "if"})
"""An indirect question or a condition ("I can check whether it's in stock", "if it's in stock, ...") states
nothing of what it opens."""


def hypothetical_before(prefix: str) -> bool:
    """Whether the clause of a match (normalised text before it) is opened by "whether" / "if" within the
    negation window ("I can check whether it's in stock")."""
    clause = last_clause(prefix)
    words = APOS_WORD.findall(clause)[-NEGATION_WINDOW:]
    return any(w in HYPOTHETICAL for w in words) and not re.search(r"\b(?:as|even)\s+if\b", clause)


FAILED_VERBS = (
    r"(?:go\s+through|complete|save|work|succeed|happen|finish|process|apply|stick|post|land|register|take(?:\s+effect)?|"
    r"go\s+out|get\s+sent|get\s+saved|come\s+through|take\s+place|"
    r"gone\s+(?:through|out)|completed|saved|worked|succeeded|happened|finished|processed|applied|posted|landed|registered|"
    r"taken(?:\s+effect)?|come\s+through|taken\s+place|gone\s+live)"
)
"""Verbs that, negated, say an action did not go through ("didn't save", "did not complete"), and their
participles after "has not" / "hasn't" ("the go-live step hasn't completed", "it hasn't gone through")."""
NEGATED_AFTER = re.compile(
    r"^[\s,]*(?:(?:currently|still|now|really|actually|right now|also|sadly|unfortunately)\s+)?"
    r"(?:(?:is|are|was|were)\s+(?:(?:currently|still|now|really|sadly)\s+)?(?:not|no\s+longer|never)\b|(?:isn't|aren't|wasn't|weren't)\b)"
    r"|^\s*(?:(?!(?:and|or|but|so|because|since|while|which|that|who|then|the|a|an|after|before|for|of|on|in|to|with|from|by|at|"
    r"your|my|our|its|their|this|these|those|until|during|when|if)\b)[a-z0-9][a-z0-9'-]*\s+){0,2}?"
    r"(?:(?:has|have|had)(?:\s+not|n't)\s+(?:yet\s+|actually\s+|really\s+)?been\b"
    r"|(?:did|has|have|had|does|do)(?:\s+not|n't)\s+(?:yet\s+|actually\s+|really\s+|quite\s+|fully\s+)?" + FAILED_VERBS + r"\b"
    r"|never\s+(?:actually\s+|really\s+)?(?:" + FAILED_VERBS + r"|went\s+through|happened|completed|arrived)\b"
    r"|(?:has\s+|have\s+|had\s+)?(?:failed|fell\s+through|bounced)\b"
    r"|(?:was|were|got|has\s+been|have\s+been)\s+(?:rejected|declined|refused|blocked|rolled\s+back|undone|reverted)\b)"
)
"""A phrase is denied by the negated verb that governs it, right after it (up to two words between): its
copula ("navy isn't available", "the medium navy is not in stock"), a negated perfect passive ("the email
hasn't been sent") or a negated verb of going through ("the go-live step didn't complete", "the
cancellation didn't actually go through", "the update didn't save") or a verb of failing ("the pause request
failed", "that reservation was declined"). `negated_in_criterion` reads the criterion the same way."""


_WORD_REST = re.compile(r"^[a-z0-9]*")
_MODIFIER_PP = re.compile(
    r"^\s*(?:to|for|of|on|from|with|at|in|about|under)\s+(?:(?:the|your|my|our|his|her|their|this|that|its|a|an)\s+)?"
    r"(?:(?!(?:and|or|but|so|because|which|that|who|is|are|was|were|has|have|had|did|does|do|will|would)\b)[a-z0-9][a-z0-9'-]*\s+){1,2}?(?=\S)"
)
"""(round 9) A prepositional modifier of the matched noun, between it and the verb that denies it: "the page to him
hasn't gone out", "the refund for ORD-4 was not issued", "the transfer to Maria didn't go through"."""


_SUBJECT_HEAD = frozenset("the a an your my our his her their its this that these those any every each".split())


def negated_after(suffix: str, prefix: str | None = None) -> bool:
    """Whether the words right after a match (normalised) deny it with a negated copula. When the match heads its
    clause's subject (`prefix`, the normalised text before it, ends its clause with at most determiners: "The
    currency isn't ...", "but the page to him hasn't gone out"), the rest of a word the match ends inside
    ("currenc*" in "currency isn't the issue") is skipped, and so is one prepositional modifier of it
    (`_MODIFIER_PP`, round 9); a match inside another noun's modifier ("transfers between accounts in different
    currencies aren't supported") is not what the verb denies."""
    if NEGATED_AFTER.match(suffix) is not None:
        return True
    if prefix is None or not all(w in _SUBJECT_HEAD for w in last_clause(prefix).split()):
        return False
    suffix = suffix[_WORD_REST.match(suffix).end() :]
    if NEGATED_AFTER.match(suffix) is not None:
        return True
    pp = _MODIFIER_PP.match(suffix)
    return pp is not None and NEGATED_AFTER.match(suffix[pp.end() - 1 :]) is not None


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
        after = APOS_WORD.findall(first_clause(text[match.end() :]))[:NEGATION_WINDOW]
        if negated_before(text[: match.start()]) or any((w in NEGATORS or w.endswith("n't")) and not _determiner_no(after, i) for i, w in enumerate(after)) or negated_after(text[match.end() :]):
            return True
    return False


NO_AFTER_PREPOSITION = frozenset("for with at of by under over on in without from because".split())
"""r10-words: prepositions after which "no" opens a noun phrase of its own ("disqualified for no budget", "moved at no
cost", "closed with no refund"): it denies its noun, not the word before the preposition."""


def _determiner_no(after: list[str], i: int) -> bool:
    """r10-words: whether the negator at `after[i]` is a "no" opening a prepositional noun phrase."""
    return after[i] == "no" and i > 0 and after[i - 1] in NO_AFTER_PREPOSITION


@lru_cache(maxsize=16384)
def _starts_negated(phrase: str) -> bool:
    first = (APOS_WORD.findall(normalise(phrase)) or [""])[0]
    return first in NEGATORS or first.endswith("n't")


# ---- keyword lists -------------------------------------------------------------------------------

FUNCTION_WORDS = frozenset(
    "a an the is are was were be been being am has have had will would can could shall should may might must do does did "
    "i you your yours we our us it its this that these those they them their there here he she his her my me "
    "to of for on in with at by from into about as if so than then now please not no yes and or but also "
    "which who what when where why how all any some each every just only still already yet".split()
)
UNIT_WORDS = frozenset(
    "miles mile points point dollars dollar usd per month months monthly night nights nightly day days daily hour hours "
    "minute minutes year years week weeks percent item items unit units each cents cent".split()
)
"""Units name what a number counts, not which fact it is: never a fact label."""


_UNIT_WORD = re.compile(r"[a-z0-9][a-z0-9'.%:\-]*")


def _words(unit: str) -> list[str]:
    return _UNIT_WORD.findall(unit.lower())


LABEL_COLON = re.compile(r"[A-Za-z0-9)]\s*:(?:\s|$)")
"""A `label: value` colon, after a word or an id ("ACC-1003: ..."), never the colon of a clock time."""


@lru_cache(maxsize=8192)
def _grammar_words(unit: str, phrases: tuple[str, ...]) -> tuple[str, ...]:
    """The unit's words once the judged evidence phrases are taken out: "out of stock" brings its own
    "of", which must not make a keyword list look like a sentence. (Cached: a transcript's units are
    asked about again and again.)"""
    text = normalise(unit)
    for phrase in phrases:
        text = phrase_pattern(phrase).sub(" kw ", text)
    return tuple(_words(text))


# ---- predicates and keyword lines --------------------------------------------------------------------

AUXILIARIES = frozenset(
    "is are was were be been being am has have had will would can could shall should may might must do does did "
    "isn't aren't wasn't weren't hasn't haven't hadn't won't wouldn't can't cannot couldn't shouldn't don't doesn't didn't".split()
)
CONTRACTED_VERB = re.compile(r"^(?:[a-z]+'(?:re|ve|ll|d|m)|(?:it|that|there|here|what|who|he|she|let|everything|nothing|this)'s|[a-z]+n't)$")
"""A contraction carries its verb ("you're", "we've", "it's", "that's", "didn't"): contractions are not
function words, they are predicates."""
SUBJECT_PRONOUNS = frozenset("i we you he she they".split())
IRREGULAR_PARTICIPLES = frozenset(
    "done made sent paid set held kept put got gotten given taken seen shown known left lost sold told found built "
    "bought brought written run cut split won shut spent chosen frozen gone begun sent met read led understood "
    "went came became did took gave saw knew wrote began".split()
)
COURTESY = frozenset(
    "sure ok okay yes no hi hello thanks thank great perfect certainly absolutely of course alright right got it "
    "understood noted welcome sorry please".split()
)
"""Words of an item that carries no content by itself ("Sure.", "Thanks!"): no keyword, no predicate."""


NAME_TOKEN = re.compile(r"\b[A-Za-z]+-?\d[\w-]*\b|\b[A-Z]{2,}\b(?!-)")
"""An acronym ("LED", "SMS") or an id ("CMP-5001", "AU330"): a thing named, never one of a clause's words nor
a verb ("LED" is no "led")."""


def _mask_names(words: tuple[str, ...], item: str) -> tuple[str, ...]:
    names = {m.group(0).lower() for m in NAME_TOKEN.finditer(item)}
    return tuple("0nm" if w.rstrip(".,;:!?") in names else w for w in words)


@lru_cache(maxsize=65536)
def _item_predicate(item: str, phrases: tuple[str, ...], masked: bool = True) -> bool:
    """Whether a list item carries a predicate (`_predicate`). Acronyms and ids count as a word that is no
    verb and no clause word (NAME_TOKEN): "CMP-5001 (October Product Update)" and "LED Desk Lamp" are no clauses."""
    item = item.strip().rstrip(".!?")
    words = _grammar_words(item, phrases)
    return _predicate(_mask_names(words, item) if masked else words)


def _predicate(words: tuple[str, ...] | list[str]) -> bool:
    """Whether words carry a predicate: an auxiliary or modal, a contraction, a subject pronoun with more
    words, or a participle / past form with other words around it ("refunded to your card" states, a bare
    "refunded" between separators is a listed value)."""
    if any(w in AUXILIARIES or CONTRACTED_VERB.match(w) for w in words):
        return True
    if len(words) >= 2 and any(w in SUBJECT_PRONOUNS for w in words):
        return True
    if len([w for w in words if w != "kw" and w[:1].isascii() and w[:1].islower()]) >= CLAUSE_WORDS:
        return True  # "Finance) currently holds two roles": keywords are short, this many words make a clause
    if sum(w in FUNCTION_WORDS and w not in ("and", "or") for w in words) >= 2:
        return True  # "Your $410.00 PayPal payment to Keystone Software went through", "Glad to hear it": grammar, whatever the verb
    if any(a not in FUNCTION_WORDS and re.fullmatch(r"[a-z]{2,}", a) and b in OBJECT_DETERMINERS for a, b in zip(words, words[1:])):
        return True  # a verb and its object: "open the business portal", "assign a technician"
    if any(w in DETERMINERS for w in words[:2]) and any(
        re.fullmatch(r"[a-z]{3,}(?<![su])s", w) and words[i - 1] not in FUNCTION_WORDS and not re.match(r"\d", words[i - 1])
        for i, w in enumerate(words[2:], start=2)
    ):
        return True  # "the enterprise plan costs": a noun phrase and its present-tense verb
    if _relation_verb(words):
        return True
    return len(words) >= 2 and any(re.search(r"[a-z]{2}ed$", w) or w in IRREGULAR_PARTICIPLES for w in words)


# r8-units: the verbs that bind a subject to a quantity ("ACC-2040 and ACC-2041 hold $1,820.00 and $640.00",
# "the suite costs $240", "both invoices come to $505.50", "the queue stands at 14"), in both present forms
RELATION_VERBS = frozenset(
    w + e
    for w in "hold have show cost total owe carry contain read stand sit come run pay earn need take reach cover include "
    "charge weigh list score count amount equal sum average number range start begin end finish open close fall drop rise "
    "remain stay last leave give get hit".split()
    for e in ("", "s")
) | frozenset("has holds carries reaches sums finishes averages leaves".split())
RELATION_LINKS = frozenset("at to about around over under only just roughly exactly".split())


def _relation_verb(words: tuple[str, ...] | list[str]) -> bool:
    """A relation verb between a subject (a masked name or id, a content word) and a quantity after it, directly or
    through "at"/"to" ("stands at 14", "comes to $505.50"): the verb of a terse clause, not a keyword. A verb
    with no subject before it ("hold, $1,820.00") or no quantity after it ("ACC-2040 hold") is none."""
    for i, w in enumerate(words[1:-1], start=1):
        if w not in RELATION_VERBS:
            continue
        before, after = words[i - 1], words[i + 1 :]
        if before in FUNCTION_WORDS and before not in ("both", "all", "each") or not re.match(r"[a-z0-9]", before):
            continue
        j = 1 if after and after[0] in RELATION_LINKS else 0
        if len(after) > j and (re.match(r"\d", after[j]) or after[j] == "kw"):  # "kw": a judged value phrase
            return True
    return False


CLAUSE_WORDS = 4
"""An item of this many words (its values and evidence phrases aside) is a clause, not a keyword."""
OBJECT_DETERMINERS = frozenset("the a an your my our their this these those".split())
DETERMINERS = frozenset("the your this that my our their his her its each every".split())


# r8-units: a slash before a unit of time or of a count is a rate ("299 USD/month", "EUR/user"), one value,
# never two listed words
RATE_UNIT = r"(?:mo|month|yr|year|annum|wk|week|day|night|hr|hour|min|minute|user|seat|person|head|unit|item|license|licence|gb|tb|kg|km|mile)s?\b"
MONTH_DAY_YEAR = re.compile(
    r"\b((?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?),(\s*\d{4})\b", re.I
)
ITEM_SEPARATOR = re.compile(
    r"(?<!\d),|,(?!\d)|[;|\u2022\u00b7\u25aa\u25b8\u2023\u2043]|\s[-\u2013\u2014]+\s|(?<=[A-Za-z])/(?=[A-Za-z])(?!RATE_UNIT)|\s/\s|(?<=[A-Za-z0-9)])\s*:(?:\s|$)|\s(?:and|or|&)\s".replace("RATE_UNIT", RATE_UNIT)
)
"""What separates the items of a list: commas, semicolons, pipes, bullets, spaced dashes, a slash between
words ("balance/tier/bag") or a spaced one between anything ("196 / 61 / 31.1%"), a `label:` colon and "and"/"or". The comma of a thousands separator ("1,450")
does not, nor the comma of a written date ("December 15, 2026" is one item, as "2026-12-15" is), nor the
colon of a clock time."""
LIST_RUN = 3
"""This many items in a row with no predicate between them are a keyword list, whatever their length."""


def list_items(unit: str) -> list[str]:
    """The separated items of a unit (see ITEM_SEPARATOR)."""
    return list(_list_items(unit))


# r10-meaning: "&" between two capitalised words joins one name ("Network & Infrastructure", "Sales & Marketing",
# "Procter & Gamble"): no separator of list items; such a name is an organisation's or a team's (`_item_kind`)
NAME_AMPERSAND = re.compile(r"\b([A-Z][A-Za-z]*)\s&\s(?=[A-Z])")
JOINED_AMPERSAND = "\uff06"


def _join_names(text: str) -> str:
    return NAME_AMPERSAND.sub(r"\1 " + JOINED_AMPERSAND + " ", text) if "&" in text else text


@lru_cache(maxsize=65536)
def _list_items(unit: str) -> tuple[str, ...]:
    return tuple(i for i in ITEM_SEPARATOR.split(MONTH_DAY_YEAR.sub(r"\1\2", _join_names(unit))) if i and i.strip(" .!?()[]"))


@lru_cache(maxsize=65536)
def _content(item: str, phrases: tuple[str, ...]) -> bool:
    """Whether an item says something (a value or a word beyond courtesy)."""
    words = [w.strip(".!?()") for w in _grammar_words(item, phrases)]
    return bool(find_values(item)) or any(w and w not in COURTESY for w in words)


def _pair(item: str) -> bool:
    """An item that pairs a label word with a value ("standard $169", "Wednesday at 12:00"): an enumeration
    of labelled options, not a keyword. A unit word is no label ("3,100 miles"), nor a `label:` colon."""
    values = find_values(item)
    if not values or LABEL_COLON.search(item):
        return False
    rest = item.lower()
    for value in reversed(values):  # an id is a value, never its own label ("TXN-D4E5F6")
        rest = rest[: value.start] + " " + rest[value.end :]
    return any(w not in UNIT_WORDS and w not in FUNCTION_WORDS for w in re.findall(r"[a-z]{2,}", rest))


@lru_cache(maxsize=8192)
def _runs(unit: str, phrases: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """The runs of consecutive content items of a unit with no predicate in any of them."""
    runs: list[list[str]] = [[]]
    for i, item in enumerate(list_items(unit)):
        if _item_predicate(item, phrases) or (i == 0 and _opening_verb(item, unit)):
            runs.append([])
        elif _content(item, phrases):
            runs[-1].append(item)
    return tuple(tuple(r) for r in runs if r)


def _is_list_run(items: list[str] | tuple[str, ...]) -> bool:
    return len(items) >= LIST_RUN and 3 * sum(_pair(i) for i in items) < 2 * len(items)


LONG_RUN = 6
"""A run this long is a keyword list even in a unit with a predicate ("Here are your details: 3,100 - blue -
silver - gold - 2 - yes"), unless it enumerates values (options: "free at 8:00, 10:00, 12:00, 14:00 and
16:00") or labelled values."""


@lru_cache(maxsize=8192)
def unit_is_list(unit: str, phrases: tuple[str, ...] = ()) -> bool:
    """A keyword line: a unit with no predicate at all whose items, LIST_RUN or more in a row, are not two
    thirds label-value pairs ("1340, done, confirmed"; "Balance/tier/bag: 3,100 miles - blue - silver - gold"),
    whatever the unit's length; or, under a predicate, a run of LONG_RUN short keyword items. Fewer items
    with no predicate are a terse answer ("Silver, 30,000 miles.", "Closed - CASE-5016."); "basic $109,
    standard $169, flexible $239" pairs labels with values; "is free at 8:00, 10:00, 12:00" enumerates."""
    if record_line(unit, phrases):
        return False
    runs = _runs(unit, phrases)
    if _predicate_free(unit, phrases):
        return any(_is_list_run(run) for run in runs) and not terse_statement(unit, phrases)
    if _head_list(unit, phrases):
        return True
    for run in runs:
        words = sum(len(_grammar_words(item, phrases)) for item in run)
        values = sum(bool(find_values(item)) for item in run)
        if len(run) >= LONG_RUN and words / len(run) <= 3.0 and _is_list_run(run) and values < len(run) and not _labelled_records(unit):
            return True
    return False


def _labelled_records(unit: str) -> bool:
    """Records (parted by commas, semicolons, bullets..., not by the dash or colon that pairs a label with its
    value) that mostly pair a label with a value: "Corrected: Spring Sale - 7.5%, Summer Sale - 3.1%, ..."."""
    colon = LABEL_COLON.search(unit)
    records = [r for r in _top_level(unit[colon.end() :] if colon else unit) if r.strip(" .!?")]
    return len(records) >= 2 and 3 * sum(_pair(r) for r in records) >= 2 * len(records)


RECORD_SEPARATOR = re.compile(r"(?<!\d),|,(?!\d)|[;|\u2022\u00b7\u25aa\u25b8\u2023\u2043]|\s/\s|\s(?:and|&)\s")
"""What parts the records of a list after a head (not a dash or a colon, which pair a label with its value:
"October Product Update - 6.0%")."""


def _top_level(text: str) -> list[str]:
    """The records of a list (RECORD_SEPARATOR), never parted inside brackets ("ORD-1 (speaker, returned)")."""
    out, at, depth = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch in "([") - (ch in ")]")
        if depth <= 0:
            m = RECORD_SEPARATOR.match(text, i)
            if m is not None and m.start() >= at:
                out.append(text[at:i])
                at = m.end()
    return out + [text[at:]]


def _head_list(unit: str, phrases: tuple[str, ...]) -> bool:
    """A predicate that heads a colon and labels none of the values after it ("Updated: CUST-7007, 1904,
    priya@x.com, 509-555-0300."; "Here's what I pulled: ORD-9002, CUST-5002, 1Z9..., 1Z9..., 2026-12-03"):
    more than TERSE_ITEMS predicate-free records after the colon (parted by commas, semicolons, bullets,
    pipes, spaced slashes, "and"), mostly not label-value pairs ("Corrected: October - 6.0%, November -
    4.0%" pairs them), not a terse record (`terse_statement`) and not an enumeration of one kind ("Open
    slots: 8:00, 10:00, 12:00, 14:00") are a dump."""
    text = MONTH_DAY_YEAR.sub(r"\1\2", unit)
    colon = LABEL_COLON.search(text)
    if colon is None:
        return False
    rest = text[colon.end() :]
    records = [r for r in _top_level(rest) if r and _content(r, phrases)]
    if len(records) <= TERSE_ITEMS or any(_item_predicate(i, phrases, False) for i in list_items(rest)):
        return False
    if not _is_list_run(records) or terse_statement(rest, phrases):
        return False
    return len({_item_kind(r) for r in records}) > 1


def _opening_verb(item: str, unit: str) -> bool:
    """A participle that opens a unit as its head is the unit's predicate ("Done (REQ-1).", "Booked: BK-1,
    ...", "Closed - CASE-5016.": "I have done / booked / closed it"); one item of a comma list is not."""
    words = APOS_WORD.findall(item.lower())
    head = unit.lstrip().lower()
    if len(words) != 1 or not head.startswith(words[0]) or not (re.search(r"[a-z]{2}ed$", words[0]) or words[0] in IRREGULAR_PARTICIPLES):
        return False
    return re.match(r"\s*(?:[:(\-\u2013\u2014]|[.!]?\s*$)", head[len(words[0]) :]) is not None  # "Done:", "Closed -", never "done, confirmed"


def _predicate_free(unit: str, phrases: tuple[str, ...]) -> bool:
    items = list_items(unit)
    return not (items and _opening_verb(items[0], unit)) and not any(_item_predicate(item, phrases) for item in items)


SPREAD_ITEM_WORDS = 3
PREPOSITIONS = frozenset("until till before after through via per between within during over under across without".split())


_CASED_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def _bare(item: str) -> bool:
    """A keyword item: at most SPREAD_ITEM_WORDS words besides its values and none that links them ("3,100
    miles", "Remote VPN user"), not a phrase ("Free cancellation until 2026-12-16")."""
    rest = item
    for value in reversed(find_values(item)):
        rest = rest[: value.start] + " " + rest[value.end :]
    words = [w.lower() for w in _CASED_WORD.findall(rest)]
    return len(words) <= SPREAD_ITEM_WORDS and not any(w in FUNCTION_WORDS or w in PREPOSITIONS for w in words)


@lru_cache(maxsize=16384)
def dump_units(message: str, phrases: tuple[str, ...] = ()) -> frozenset[int]:
    """The units of a message that belong to a keyword list spread over several units ("Silver. 30,000
    miles. Gold."): consecutive predicate-free units whose content items together make a list run.
    (Cached: a transcript is read once per criterion and the gate judges each reply many times.)"""
    units = _sentences(message)
    records = _records_of(message, phrases)
    out: set[int] = set()
    run: list[int] = []
    for i, unit in enumerate(units + [""]):
        social = (APOS_WORD.findall(unit.lower()) or [""])[0] in COURTESY  # "Thanks, Oliver.": no keyword
        items = list_items(unit)
        lone = len(items) == 1 and len(re.findall(r"[A-Za-z0-9$]+", unit)) == 1  # "Enrolled." among keywords is one
        record = (LABEL_COLON.search(unit) is not None and terse_statement(unit, phrases)) or i in records or arrow_statement(unit, phrases)  # "Slack: connected.": a labelled record
        if unit and not social and not record and (lone or _predicate_free(unit, phrases)) and all(_bare(item) for item in items):
            run.append(i)
            continue
        items = [item for j in run for item in list_items(units[j]) if _content(item, phrases)]
        if len(run) >= 2 and _is_list_run(items):
            out.update(run)
        run = []
    return frozenset(out)


ARROW = re.compile(r"\s*(?:\u2192|\u21d2|\u27f6|->|=>)\s*")


def arrow_statement(unit: str, phrases: tuple[str, ...] = ()) -> bool:
    """Round 5: an arrow read as "is now" ("WO-5001 (furnace) \u2192 urgent", "Furnace job WO-5001 -> now urgent",
    "normal \u2192 urgent"): at most two arrows, something on each side, and what the last one points to a terse
    statement (at most TERSE_ITEMS values of different kinds). A chain of values ("P1 -> P2 -> P3 -> P4") is
    no statement of any of them."""
    parts = ARROW.split(_plain(unit))
    if not 2 <= len(parts) <= 3 or not all(re.search(r"[A-Za-z0-9]", p) for p in parts):
        return False
    return terse_statement(parts[-1], phrases) and len([i for i in list_items(parts[-1]) if _content(i, phrases)]) <= TERSE_ITEMS


TERSE_ITEMS = 3
"""A terse statement has at most this many values in a record ("P2, in progress, Jamal Wright.")."""
HEAD_LIST = re.compile(r"(?<=[A-Za-z])/(?=[A-Za-z])")


def _item_kind(item: str) -> str:
    """What kind of value an item of a terse line is: a value's kind (money, a percentage, a date, a time, an
    id of its prefix, a count of its noun), an email, a code ("P2"), a name (capitalised words), else a word."""
    text = item.strip(" .!?()[]\"'")
    values = [v for v in find_values(text)]
    if values:
        v = values[0]
        if v.kind == "id":
            return "id:" + (re.match(r"[A-Z]+", str(v.value)) or re.match(r"", "")).group(0)
        if v.kind == "number":
            if re.search(r"[$\u20ac\u00a3]|\.\d\d\b|dollars?|usd|eur", text, re.I):
                return "money"
            noun = re.findall(r"[a-z]+", text[v.end :].lower())
            return "count:" + (noun[0].rstrip("s") if noun else "")
        return v.kind
    if "@" in text:
        return "email"
    # r6-words (terse_correct): a record's name and its one state word ("ROLE-PAYROLL-ADMIN revoked", "REQ-12
    # cancelled") is a statement about that record: its own kind, told apart from another record's by the name
    # (the same record with two states still competes)
    if (named := re.fullmatch(r"(?P<head>[A-Z][A-Z0-9]*(?:[-_][A-Z0-9]+)+|[A-Z]{2,}[0-9]*)\s+(?P<state>[a-z]+)", text)) and (
        re.search(r"[a-z]{2}ed$", named["state"]) or named["state"] in IRREGULAR_PARTICIPLES
    ):
        return "state of " + named["head"].lower()
    if re.search(r"\b[A-Z]{1,4}\d{1,3}\b", text):
        return "code"  # "P2", "priority P2", "S1"
    words = re.findall(r"[A-Za-z][A-Za-z'-]*", text)
    if words and all(w[0].isupper() for w in words) and not all(w.isupper() for w in words):
        return "organisation" if JOINED_AMPERSAND in text else "name"  # r10-meaning: "Jamal Wright, Network & Infrastructure"
    return "word"


# r8-units: state words: what an adjective, participle or prepositional phrase says holds of a thing ("open",
# "in stock", "clean", "on hold"). A label made of one says the same of every value under it, and a noun phrase
# followed by one is a clause ("line test clean").
STATE_WORDS = frozenset(
    "open closed available unavailable free busy taken booked full empty pending active inactive live ready due overdue "
    "outstanding paid unpaid settled clean clear fine ok okay good healthy valid invalid expired current eligible "
    "ineligible missing remaining left spare vacant done complete completed passed failed approved rejected declined "
    "confirmed cancelled canceled blocked locked unlocked enabled disabled connected disconnected resolved unresolved "
    "shipped delivered returned refunded late early underway stuck intact normal negative positive green red".split()
)
STATE_PHRASE = re.compile(
    r"\b(?:in\s+(?:stock|progress|transit|review|place|use|effect|force|good\s+standing)|out\s+of\s+(?:stock|date|order|service)"
    r"|on\s+(?:hold|order|track|time|sale|file)|sold\s+out|up\s+to\s+date|not\s+yet\s+\w+)\b"
)
STATE_LABEL_WORDS = 4
STATE_FILLERS = frozenset("still now currently also both all slots slot times sizes seats dates days items orders today tomorrow".split())


def _state_label(head: str) -> bool:
    """A label that is a state ("Open:", "In stock:", "Still available:", "Free slots Thursday:", "Sold out:"):
    a state word or phrase, at most STATE_LABEL_WORDS words, no id or value, no list of labels. Every value
    under it is in that state: they need no label each. A noun label ("Amounts:", "INV-8004:", "Prices:")
    says no state: its several values of one kind compete."""
    text = head.strip(" :*_").lower()
    if find_values(text) or HEAD_LIST.search(text) or ITEM_SEPARATOR.search(text):
        return False
    words = APOS_WORD.findall(text)
    if not words or len(words) > STATE_LABEL_WORDS or any(w in NEGATORS or w.endswith("n't") for w in words):
        return False
    stated = STATE_PHRASE.search(text) is not None or any(w in STATE_WORDS for w in words)
    rest = STATE_PHRASE.sub(" ", text)
    others = [w for w in APOS_WORD.findall(rest) if w not in STATE_WORDS and w not in STATE_FILLERS and w not in FUNCTION_WORDS]
    return stated and len(others) <= 1


def _one_kind_under_state(head: str, text: str, phrases: tuple[str, ...]) -> bool:
    """Two or more values of one kind (times, sizes, ids) under a state label: an enumeration of what is in
    that state ("Open: 09:00, 11:00 and 15:00.", "In stock: 8, 10, 11.")."""
    if not _state_label(head) or ";" in text:
        return False
    items = [i for i in list_items(text) if _content(i, phrases)]
    if len(items) < 2 or not all(find_values(i) for i in items):
        return False
    return len({_item_kind(i) for i in items}) == 1


NOUN_LABEL = re.compile(r"^\s*(?:(?:your|the|all|both|my|his|her|their|our)\s+)?(?:[a-z]+\s+)?[a-z]{3,}s\s*:?\s*$")
ID_RECORD = re.compile(r"^\s*(?P<id>[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*-\d[\w-]*)\s*(?:\([^()]*\))?\s*$")


def _records_under_noun(head: str, text: str) -> bool:
    """r10-meaning: two or more records named by their ids under a plural noun label ("Orders: ORD-9010 (T-shirt +
    jeans) and ORD-9020 (headphones, returned)", "Your cases: CASE-5001, CASE-5002"): the label says what
    they are, each id names one record (a bracket describes its own record only), so the line lists
    records, not competing values. Anything else between them ("ORD-9010, shipped, ORD-9020") leaves it a
    list of values."""
    if not NOUN_LABEL.match(head.strip(" :*_").lower() + ":") or STATE_WORDS & set(APOS_WORD.findall(head.lower())):
        return False
    records = [r for r in _top_level(text.strip().rstrip(".!")) if r.strip()]
    ids = [m["id"] for r in records if (m := ID_RECORD.match(r))]
    if len(records) < 2 or len(ids) != len(records) or len(set(ids)) != len(ids):
        return False
    return len({re.match(r"[A-Z]+", i).group(0) for i in ids}) == 1


def terse_statement(unit: str, phrases: tuple[str, ...] = ()) -> bool:
    """A predicate-free line that still states: every value in it can be told apart by its kind or its label.
    A `label:` head (not a list of labels: "Balance/tier/bag:") labels what follows ("Best converter: Black
    Friday Flash Sale, 31.1%."); records parted by ";" are judged each ("Harbor Grocers, $120, Nov 25;
    Summit Electronics, $249, Nov 18"); a record of at most TERSE_ITEMS items of pairwise different kinds
    ("P2, in progress, Jamal Wright.") states them. Two items of one kind with no label of their own
    compete ("1340, done, confirmed": two words; "$15.00 - $40.00": two amounts): a dump."""
    text = MONTH_DAY_YEAR.sub(r"\1\2", unit)
    colon = LABEL_COLON.search(text)
    if colon is None and (bold := re.match(r"\s*(?:\*\*|__)([^*_:]{1,40}):(?:\*\*|__)\s", text)):  # r8-units: "**Open:** 11:00, ..."
        text = bold.group(1) + ": " + text[bold.end() :]
        colon = LABEL_COLON.search(text)
    if colon is not None:
        head, text = text[: colon.start() + 1], text[colon.end() :]
        if HEAD_LIST.search(head) or len([i for i in list_items(head) if _content(i, phrases)]) > 2:
            return False  # "Balance/tier/bag:", "Amounts, dates, ids:": labels of no one value
        if LABEL_COLON.search(text):
            return False
        if _one_kind_under_state(head, text, phrases) or _records_under_noun(head, text):
            return True
    parts = text.split(";")
    if len(parts) > 1 and not all(len(list_items(p)) >= 2 for p in parts):
        return False  # "CASE-5016; closed; $40.00": semicolons part records, never single values
    records = parts
    for record in records:
        items = [i for i in list_items(record) if _content(i, phrases)]
        if len(items) > TERSE_ITEMS:
            return False
        kinds = [_item_kind(i) for i in items]
        if len(set(kinds)) < len(kinds):
            return False
    return True


# ---- records: list rows, `label: value` lines, table rows ---------------------------------------------

MARKUP = re.compile(r"\*\*|__|`|~~|(?<![\w*])\*(?=\w)|(?<=\w)\*(?![\w*])")
LIST_MARKER = re.compile(r"^\s*(?:[-*+\u2022\u25aa\u25b8\u2023\u2043\u25e6]|\(?\d{1,2}[.)]|[a-z][.)])\s+")
HEAD_SEPARATOR = re.compile(r"(?<=[\w)\]%'\"])\s*:\s+|\s+[-\u2013\u2014]+\s+|(?<=\w)\u2014(?=\w)")
"""What parts a record's label from its value: a `label:` colon (never a clock time's) or a spaced dash
("REC-6008 (October VPN logs) - deleted", "Time zone: Europe/Paris")."""
VALUE_SEPARATOR = re.compile(
    r"(?<!\d),|,(?!\d)|[;|\u2022\u00b7\u25aa\u25b8\u2023\u2043]|\s[-\u2013\u2014]+\s|\s/\s|(?<=[\w)])\s*:(?:\s|$)|\s(?:and|or|&)\s"
)
"""What separates the values of a record: ITEM_SEPARATOR, except a slash inside a word ("Europe/Paris" is one value)."""
TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)+\|?\s*$")


_LEADING_MARKS = re.compile(r"^[^\w($\u20ac\u00a3]+")


def _plain(unit: str) -> str:
    """A line without its markdown emphasis and list marker ("- **ORD-9016** - ..." reads "ORD-9016 - ...")."""
    text = LIST_MARKER.sub("", MARKUP.sub("", unit))
    return _LEADING_MARKS.sub("", text).strip().rstrip(" .!;")


def _value_items(text: str, phrases: tuple[str, ...]) -> list[str]:
    text = MONTH_DAY_YEAR.sub(r"\1\2", _join_names(text))
    return [i for i in VALUE_SEPARATOR.split(text) if i and i.strip(" .!?()[]") and _content(i, phrases)]


def _stated_value(body: str, phrases: tuple[str, ...]) -> bool:
    """Whether what follows a record's label states one value of it: a clause ("router keeps rebooting"), or at
    most TERSE_ITEMS values of pairwise different kinds ("Harbor Grocers, $120.00 (card)"; "$950.00 to
    ACC-1010, no memo, completed": a phrase is a kind of its own). Two bare values of one kind compete
    ("SKU-1007 - 45 - 22", "30.0% | 6.0% | 20.1%"): which is which is not said."""
    if LABEL_COLON.search(body):
        return _record(body, phrases)  # "documents: certificate_of_incorporation, proof_of_address": a record within
    items = _value_items(body, phrases)
    if not items:
        return False
    if any(_item_predicate(i, phrases) for i in items) and len(items) <= TERSE_ITEMS:
        return True
    if len(items) > TERSE_ITEMS:
        return False
    kinds = [_value_kind(i, n) for n, i in enumerate(items)]
    kinds = [k for k in kinds if k != "status"] + ["status"] * ("status" in kinds)
    return len(set(kinds)) == len(kinds)  # statuses of one record are all stated: "approved and implemented"


def _value_kind(item: str, n: int) -> str:
    """`_item_kind`, but a phrase is a kind of its own and a lone participle is a status ("headphones,
    returned": a thing and its status, not two words)."""
    if re.fullmatch(r"\s*[A-Za-z]+(?:_[A-Za-z]+)+\s*", item):
        return "word"  # a raw field value ("proof_of_address") is one word
    if not _bare(item):
        return f"phrase{n}"
    words = APOS_WORD.findall(item.lower())
    if len(words) == 1 and not find_values(item) and (re.search(r"[a-z]{2}ed$", words[0]) or words[0] in IRREGULAR_PARTICIPLES):
        return "status"
    return _item_kind(item)


def _label(head: str, phrases: tuple[str, ...]) -> bool:
    """A record's label: one name, id, date or short noun phrase ("Time zone", "REC-6008 (October VPN logs)",
    "25 Nov 2026"), never a list of labels ("Balance/tier/bag") nor a sentence ("Here's what I pulled")."""
    items = [i for i in list_items(head) if _content(i, phrases)]
    if not items or len(items) > TERSE_ITEMS or HEAD_LIST.search(head) or any(_item_predicate(i, phrases) for i in items):
        return False
    if any(w in CLAUSE_SUBJECTS or w in AUXILIARIES or CONTRACTED_VERB.match(w) for w in APOS_WORD.findall(head.lower())):
        return False  # "It drew 196 clicks and sixty-one conversions: ..." is a sentence, not a label
    kinds = [_value_kind(i, n) for n, i in enumerate(items)]
    return len(set(kinds)) == len(kinds)  # "Flight AU512 JFK-MIA, Dec 18, standard": one thing described


CLAUSE_SUBJECTS = frozenset("i we you he she they it there here".split())


def _record(text: str, phrases: tuple[str, ...]) -> bool:
    """`label SEP value` (HEAD_SEPARATOR) whose value is stated (`_stated_value`)."""
    m = HEAD_SEPARATOR.search(text)
    return m is not None and _label(text[: m.start()], phrases) and _stated_value(text[m.end() :], phrases)


def _bare_label(part: str, phrases: tuple[str, ...]) -> bool:
    """A record part that is a label alone ("timezone" among "verification - passed; ...; timezone; ..."): it
    states nothing of what it names."""
    words = re.findall(r"[A-Za-z][A-Za-z'-]*", part)
    if len(words) >= 2 and (words[-1].lower() in STATE_WORDS or STATE_PHRASE.search(part.lower())):
        return False  # r8-units: a noun phrase and its state ("line test clean", "card check fine") is a clause
    return (
        HEAD_SEPARATOR.search(part) is None and not find_values(part) and not _item_predicate(part, phrases)
        and 0 < len(words) <= SPREAD_ITEM_WORDS
    )


def _record_parts(text: str) -> list[str]:
    return [p for p in re.split(r"\s*;\s*", text) if p.strip(" .!")]


@lru_cache(maxsize=16384)
def record_line(unit: str, phrases: tuple[str, ...] = ()) -> bool:
    """A line that binds each value to its record: `label: value` or `label - value` ("Time zone:
    Europe/Paris", "- **ORD-9016** - estimated delivery Sunday 6 Dec", "1. CASE-5006: router keeps
    rebooting", "- 25 Nov 2026 - Harbor Grocers, $120.00 (card)"), or records of that form parted by ";"
    under an optional head ("Go-live checklist: verification - passed; admin user - yes; data region -
    us"). A label alone among them states nothing (`bare_record_parts`). Not a record: a list of labels, a
    head over several values of one kind ("CMP-5001 (October Product Update): 30.0% | 6.0% | 20.1%", "LED
    Desk Lamp - SKU-1007 - 45 - 22"), more than TERSE_ITEMS values after one label."""
    text = _plain(unit)
    if _record(text, phrases):
        return True
    colon = LABEL_COLON.search(text)
    if colon is not None and _label(text[: colon.start() + 1], phrases) and _record(text[colon.end() :], phrases):
        return True  # a head over one record: "Recent transfer on ACC-1001: XFER-Q7M2K9 - $950.00 to ACC-1010"
    parts = _record_parts(text)
    if len(parts) < 2 or all(LABEL_COLON.search(p) and not re.search(r"\d", p[: LABEL_COLON.search(p).start()]) for p in parts):
        return False  # "Balance: 3,100 miles; tier: silver; bags: 2; status: gold": a profile's fields, a dump
    colon = LABEL_COLON.search(parts[0])
    if colon is not None and HEAD_SEPARATOR.search(parts[0][colon.end() :]) and _label(parts[0][: colon.start() + 1].rstrip(":"), phrases):
        parts[0] = parts[0][colon.end() :]  # the head over the records
    records = [p for p in parts if not _bare_label(p, phrases)]
    return len(records) >= 2 and all(_record(p, phrases) for p in records)


TABLE_ROW = re.compile(r"^\s*\|(?:[^|]*\|){2,}\s*$")


def record_head_span(unit: str, phrases: tuple[str, ...] = ()) -> tuple[str, int] | None:
    """(the label of a record line, where its value starts in `unit`): "November Newsletter (CMP-5003)" of "-
    **November Newsletter** (CMP-5003): 4% click-through", the first cell of a table row ("| Summer | 12% |"):
    the words every value of the line is said of. None for any other unit."""
    if TABLE_ROW.match(unit):
        cells = unit.strip().strip("|").split("|")
        head = MARKUP.sub("", cells[0]).strip()
        return (head, unit.index("|", unit.index("|") + 1)) if head else None
    if not record_line(unit, phrases):
        return None
    text = _plain(unit)
    m = HEAD_SEPARATOR.search(text)
    if m is None or ";" in text:
        return None
    head = text[: m.start()]
    at = 0
    for word in re.findall(r"\w+", head):  # the head's words in the unit as written (markup, list marker)
        found = unit.find(word, at)
        if found < 0:
            return None
        at = found + len(word)
    sep = re.compile(r"[\s*_`]*(?::|[-\u2013\u2014]+)\s*").match(unit, at)
    return head, (sep.end() if sep else at)


def record_head(unit: str, phrases: tuple[str, ...] = ()) -> str | None:
    span = record_head_span(unit, phrases)
    return span[0] if span else None


def bare_record_parts(unit: str, phrases: tuple[str, ...] = ()) -> list[tuple[str, bool]]:
    """The unit in parts, each marked whether it can carry a fact: in a record line, a label alone
    (`_bare_label`) is a part of its own that carries nothing; any other unit is one part."""
    if ";" not in unit or not record_line(unit, phrases):
        return [(unit, True)]
    out: list[tuple[str, bool]] = []
    at = 0
    for m in re.finditer(r"[^;]+;?", unit):
        part = m.group(0)
        if _bare_label(_plain(part), phrases):
            if unit[at : m.start()].strip():
                out.append((unit[at : m.start()], True))
            out.append((part, False))
            at = m.end()
    if unit[at:].strip():
        out.append((unit[at:], True))
    return out


def table_rows(message: str, phrases: tuple[str, ...] = ()) -> frozenset[str]:
    """The body rows of the markdown tables of a message that state their cells: a row under a header row
    and its rule (|---|---|) labels each cell by its column, so a row whose every cell is one stated value
    (`_stated_value`) is a record ("| October Product Update | 1,075% |" under "| Campaign | ROI |")."""
    lines = [line.strip() for line in message.splitlines()]
    rows: set[str] = set()
    for i, line in enumerate(lines):
        if not (TABLE_RULE.match(line) and i > 0 and lines[i - 1].count("|") >= 1):
            continue
        header = [c for c in lines[i - 1].strip("|").split("|") if c.strip()]
        if len(header) < 2 or any(find_values(c) for c in header):
            continue
        for row in lines[i + 1 :]:
            if "|" not in row:
                break
            cells = [MARKUP.sub("", c).strip() for c in row.strip("|").split("|")]
            if all(not c or _stated_value(c, phrases) for c in cells):
                rows.add(row)
    return frozenset(rows)


def _records_of(message: str, phrases: tuple[str, ...]) -> frozenset[int]:
    """The units (sentence indices) of a message that are records: record lines and stated table rows."""
    rows = table_rows(message, phrases) if "|" in message else frozenset()
    return frozenset(i for i, u in enumerate(_sentences(message)) if u in rows or record_line(u, phrases))


@lru_cache(maxsize=16384)
def message_is_dump(message: str, phrases: tuple[str, ...] = ()) -> bool:
    """A message that is mostly keyword lines (a list of evidence phrases, not an answer)."""
    units = _sentences(message)
    if not units:
        return False
    listy = dump_units(message, phrases) | {i for i, u in enumerate(units) if unit_is_list(u, phrases)}
    return len(listy - _records_of(message, phrases)) / len(units) > 0.5


# ---- questions ---------------------------------------------------------------------------------------

QUESTION_AUX = frozenset("would could can shall should may do does did is are was were will have has".split())
QUESTION_SUBJECTS = frozenset("i you we it there he she they this that".split())
WH_WORDS = frozenset("what which when where who how why".split())
TAG_WORDS = frozenset(
    "right correct ok okay yes no yeah true isn't aren't wasn't weren't didn't doesn't don't hasn't haven't won't "
    "it they that is so agreed".split()
)


def _opens_question(words: list[str]) -> bool:
    """A clause that asks: an auxiliary and its subject ("would you like", "shall I", "is there"), a wh-word
    with them ("what would you", "how can I"), or "anything / any ... ?" — never a relative clause ("which
    belong to", "who can approve it")."""
    if not words:
        return False
    if words[0] in ("anything", "any"):
        return True
    if words[0] in ("want", "need", "like") and len(words) > 1 and words[1] in ("me", "us"):
        return True  # "want me to try?": "do you" left out
    if words[0] in QUESTION_AUX and len(words) > 1 and words[1] in QUESTION_SUBJECTS:
        return True
    if words[0] in WH_WORDS:
        rest = words[1:4]
        return any(w in QUESTION_AUX for w in rest[:2]) and any(w in QUESTION_SUBJECTS for w in rest)
    return False


CLAUSE_EDGE = re.compile(r"[,;:]\s+|\s[-\u2013\u2014]+\s|\u2014")
VERDICT_WORDS = frozenset("right correct correctly accurate true confirm verify".split())
BACK_WORDS = frozenset("that this it so those these".split())
TAG_CLAUSE_WORDS = 7
DOUBT_WORDS = frozenset("actually really definitely truly indeed still sure".split())
ALTERNATIVE = re.compile(r"\bor\s+(?:not\b|(?:is|was|are|were|did|does|do|has|have|had)\s+(?:it|that|this|he|she|they|there)\b)")
PRONOUN_QUESTION = re.compile(r"^\W*(?:is|was|are|were|did|does|do|has|have|had)\s+(?:it|that|this|he|she|they)\b")
REQUEST_CONFIRM = re.compile(
    r"^\W*(?:(?:could|can|would|will)\s+you\s+(?:please\s+|just\s+|quickly\s+)?|please\s+|kindly\s+|i\s+(?:need|'d\s+like|would\s+like)\s+you\s+to\s+)"
    r"(?:confirm|verify|double[-\s]?check|check|let\s+me\s+know|tell\s+me|clarify)\b",
    re.I,
)
"""A request to the customer to confirm or check something: what it names is asked, not stated."""

DECLARATIVE_OFFER = re.compile(
    r"\b(?:i|we)(?:\s+can|\s+could|['\u2019]d\s+be\s+(?:happy|glad)\s+to|\s+would\s+be\s+(?:happy|glad)\s+to|\s+am\s+happy\s+to|['\u2019]m\s+happy\s+to)"
    r"(?:\s+also)?\s+(?!not\b)[a-z]+\b.*?\bif\s+you(?:['\u2019]d|\s+would)?\s+(?:like|want|prefer|wish)\b"
    r"|\bif\s+you(?:['\u2019]d|\s+would)?\s+(?:like|want|prefer|wish)\b[\s,]*(?:i|we)(?:\s+can|\s+could|['\u2019]ll|\s+will|['\u2019]d\s+be\s+happy\s+to)\s+[a-z]+"
    r"|\b(?:just\s+)?(?:say\s+the\s+word|give\s+me\s+the\s+nod)\s+and\s+(?:i|we)(?:['\u2019]ll|\s+will|\s+can)\s+[a-z]+",
    re.I,
)
"""An offer made as a statement ("I could refund the $45 to your card if you like.", "If you'd like, I can
move it to Friday.", "Say the word and I'll cancel it."): what it offers is not done, so its clause is asked,
as "Would you like me to ...?" is."""


ASK_BACK = re.compile(
    r"^(?:(?:do|would|did)\s+you\s+(?:know|think|reckon|agree|remember|happen\s+to\s+know)|any\s+idea|you\s+(?:know|think|reckon)"
    r"|(?:can|could|would)\s+you\s+(?:please\s+|quickly\s+|just\s+)?(?:check|double[-\s]?check|confirm|verify|look)(?:\s+(?:that|this|for\s+me|on\s+your\s+end|please))?"
    r"|is\s+that\s+(?:so|the\s+case)|am\s+i\s+right)$"
)
"""A closing clause that hands the statement back to the customer to settle ("..., do you know?", "... - can you
check?", "..., any idea?"): the sentence is asked, not stated."""


def _tag_like(clause: list[str]) -> bool:
    """A question about what was just said: a tag ("..., right?", "..., isn't it?") or a short clause that asks
    for a verdict on it ("does that sound right?", "did I get that right?", "can you confirm that?", "is that
    correct?", "shall I confirm it?")."""
    if len(clause) <= 3 and all(w in TAG_WORDS for w in clause):
        return True
    if ASK_BACK.match(" ".join(clause)):
        return True
    return (
        len(clause) <= TAG_CLAUSE_WORDS and any(w in VERDICT_WORDS for w in clause)
        and (any(w in BACK_WORDS for w in clause) or clause[-1] in VERDICT_WORDS)
    )


def _stems(text: str) -> set[str]:
    from grader.text.stemmer import stem

    return {stem(w) for w in re.findall(r"[a-z]{3,}", text.lower()) if w not in FUNCTION_WORDS and w not in QUESTION_SUBJECTS}


def _doubts(statement: str, question: str) -> bool:
    """A yes/no question that puts the statement before it in doubt: it asks with a doubt word ("... a day-off
    entry - is he actually off?") or as an alternative ("..., or is that an old entry?", "... or not?") about
    the same content or about a pronoun that refers back to it ("- has it really expired?")."""
    lowered = question.lower()
    words = APOS_WORD.findall(lowered)
    if not (any(w in DOUBT_WORDS for w in words) or ALTERNATIVE.search(lowered)):
        return False
    return bool(_stems(statement) & _stems(question)) or PRONOUN_QUESTION.match(lowered) is not None


def split_question(sentence: str) -> tuple[str, str]:
    """(the statement part, the question part) of a sentence: a sentence ending in "?" is a question from
    its last clause that opens with a question word ("Your refund is $45.00 - would you like a receipt?"
    states the refund); a tag ("..., right?"), a short request for a verdict on what was said ("- does that
    sound right?", "- can you confirm that?"), a question that doubts the statement's own content ("... a
    day-off entry - is he actually off, or is that an old entry?") or no such clause makes all of it a
    question ("Your refund of $45.00 has been issued?", "Has your refund been issued?"). A sentence with no
    "?" is a statement, unless its first clause asks the customer to confirm or check ("Could you confirm
    whether the parcel arrived.", "Please verify that the card ends in 4411."): that clause is asked."""
    if not sentence.rstrip(" \"')]").endswith("?"):
        if REQUEST_CONFIRM.match(sentence):
            edge = CLAUSE_EDGE.search(sentence)
            if edge is None:
                return "", sentence
            return sentence[edge.end() :], sentence[: edge.start()]
        offer = DECLARATIVE_OFFER.search(sentence)
        if offer is not None:  # the offer's clause is asked; a statement before it stands ("Done - and I can email a receipt if you like.")
            edges = [e for e in re.finditer(r"[,;:]\s+|\s[-\u2013\u2014]+\s|\u2014|\s(?:and|but|so)\s", sentence[: offer.start()])]
            if not edges:
                return "", sentence
            return sentence[: edges[-1].start()].rstrip(), sentence[edges[-1].start() :]
        return sentence, ""
    edges = list(CLAUSE_EDGE.finditer(sentence))
    for edge in reversed(edges):
        clause = APOS_WORD.findall(sentence[edge.end() :].lower())
        if not clause:
            continue
        if _tag_like(clause):
            return "", sentence  # a tag question asks about the whole sentence
        if _opens_question(clause):
            statement, question = sentence[: edge.start()].rstrip(), sentence[edge.start() :]
            if _doubts(statement, question):
                return "", sentence
            # (round 7, r7-turns) a statement part that is itself asked, an auxiliary before its subject ("Have you
            # uploaded a proof of address yet, and if so, do you have the reference?"): all of it is a question
            head = APOS_WORD.findall(statement.lower())
            if head and head[0] in QUESTION_AUX and len(head) > 1 and head[1] in QUESTION_SUBJECTS:
                return "", sentence
            return statement, question
    return "", sentence


# ---- units ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hit:
    """Where a phrase or value matched: message index (0-based), the sentence, and the value if any."""

    message: int
    sentence: str
    position: int
    value: Value | None = None


@dataclass(frozen=True)
class Unit:
    """A sentence (or a sentence's statement part) of one message, and whether it can carry a fact: not a
    keyword line or dump, not a question, not taken back (`grader.text.withdrawal`)."""

    message: int
    index: int
    text: str
    carried: bool
    question: bool = False


CONTRAST = re.compile(
    r"[,\s]*\b(?:rather\s+than|instead\s+of|as\s+opposed\s+to|in\s+place\s+of)\b"
    r"(?:(?![,;:.!?()\u2014]|\s[-\u2013]\s|\s(?:but|so|because|since|and\s+(?:i|we|it|that|this|the\s+\w+\s+(?:is|was|has)))\b"
    r"|\s(?:i|i've|i'll|i'm|i'd|we|we've|we'll|we're|they|they've|he|she)\b)[\s\S])*",
    re.I,
)
"""What a sentence says was not done ("... rather than adding it to INC-2001", "instead of a refund"): the
clause up to its end states nothing; its words and ids are not stated."""


def _contrast_parts(text: str) -> list[tuple[str, bool]]:
    """The text in parts, each marked whether it is a "rather than ..." / "instead of ..." clause (CONTRAST):
    those parts are units of their own that carry nothing."""
    parts: list[tuple[str, bool]] = []
    at = 0
    for m in CONTRAST.finditer(text):
        if m.end() > m.start():
            parts += [(text[at : m.start()], False), (text[m.start() : m.end()], True)]
            at = m.end()
    return parts + [(text[at:], False)]


FRAGMENT_WORDS = 5
"""A message of one unit shorter than this is a fragment; a transcript mostly of fragments is a list."""
LONG_LIST_LINES = 10
"""A message of this many lines or more, nearly all short (SHORT_TRANSCRIPT), is a list one item per line even where
some lines carry a verb ("can't delete", "not listed"): no reply to a customer is ten lines of phrases."""
SHORT_TRANSCRIPT = 0.8
"""A transcript of five or more messages whose share of short ones (one unit, under FRAGMENT_WORDS words, verb or
not) is above this is a list: no turn-taking with a customer is made almost only of such messages."""


@lru_cache(maxsize=4096)
def fragment_lines(message: str, phrases: tuple[str, ...] = ()) -> frozenset[int]:
    """The transcript's list rule inside one message: a message of at least five lines, most of them fragments
    (one unit of fewer than FRAGMENT_WORDS words with no predicate), is a list written one item per line, and
    its short lines carry nothing ("granted to you" as one line among "CAB", "P3", "not approved", ...), as a
    transcript of one phrase per message does not. The units returned are those short lines."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    if len(lines) < 5:
        return frozenset()

    def record(line: str) -> bool:  # "- compta@x.fr → billing", "Time zone: Europe/Paris": a record, as in dump_units
        bare = line.lstrip("-*• ").strip()
        return (LABEL_COLON.search(bare) is not None and terse_statement(bare, phrases)) or arrow_statement(bare, phrases) or record_line(bare, phrases)

    short = {line for line in lines if len(_sentences(line)) == 1 and len(_words(line)) < FRAGMENT_WORDS and not record(line)}
    fragments = sum(line in short and not any(_item_predicate(i, phrases) for i in list_items(line)) for line in lines)
    shorts = sum(line in short for line in lines)
    if fragments / len(lines) <= 0.6 and not (len(lines) >= LONG_LIST_LINES and shorts / len(lines) > SHORT_TRANSCRIPT):
        return frozenset()
    return frozenset(i for i, unit in enumerate(_sentences(message)) if unit.strip() in short)


def transcript_units(messages: list[str], phrases: tuple[str, ...] = ()) -> list[Unit]:
    """The transcript's units, each marked whether it can carry a match (keyword-list and question rules)."""
    fragments = [
        len(_sentences(m)) == 1 and len(_words(m)) < FRAGMENT_WORDS and not any(_item_predicate(i, phrases) for i in list_items(m))
        for m in messages
    ]
    # a list spread over messages: most of five or more messages are fragments, or nearly all of them are
    # short (phrases with a verb among bare ones, "can't delete" / "not listed" / "REC-6005", do not make
    # a one-phrase-per-message dump a conversation)
    shorts = [len(_sentences(m)) == 1 and len(_words(m)) < FRAGMENT_WORDS for m in messages]
    listy_transcript = len(messages) >= 5 and (sum(fragments) / len(messages) > 0.6 or sum(shorts) / len(messages) > SHORT_TRANSCRIPT)
    units: list[Unit] = []
    for m, message in enumerate(messages):
        short = len(_sentences(message)) == 1 and len(_words(message)) < FRAGMENT_WORDS
        dump = (listy_transcript and short) or message_is_dump(message, phrases)  # the cheap reading first
        spread = frozenset() if dump else dump_units(message, phrases) | fragment_lines(message, phrases)  # a dump's every unit is listed already
        records = _records_of(message, phrases)
        index = 0
        for i, sentence in enumerate(_sentences(message)):
            statement, question = split_question(sentence)
            listed = i not in records and (dump or i in spread or unit_is_list(sentence, phrases))
            for text, asked in ((statement, False), (question, True)):
                if not asked:  # a bare label among records carries nothing, as a "rather than ..." clause does not
                    pieces = []
                    for record, stated in bare_record_parts(text, phrases):
                        pieces += _contrast_parts(record) if stated else [(record, True)]
                else:
                    pieces = [(text, False)]
                for part, contrast in pieces:
                    if part.strip(" ,;:.!?"):
                        units.append(Unit(m, index, part, carried=not listed and not asked and not contrast, question=asked))
                        index += 1
    return units


VALUE_NEGATION_WINDOW = 1
"""A value is negated only by a negator right before it ("not $40", "no 10:00 slot"): in "I can't send
$6,000" the amount is still stated (the action is what is refused)."""


def _value_negated(unit: str, value: Value) -> bool:
    # (a space after the text: a dash right before the value is a break, "No - $7.5k would be refused")
    words = APOS_WORD.findall(last_clause(normalise(unit[: value.start]) + " "))
    # r8-units: the value is the object of a relation verb ("doesn't hold $905.40", "does not come to $40"): the
    # verb's negation is the value's
    while words and words[-1] in RELATION_LINKS:
        words = words[:-1]
    if words and words[-1] in RELATION_VERBS:
        return any(w in NEGATORS or w.endswith("n't") for w in words[-4:-1])
    return any(w in NEGATORS or w.endswith("n't") for w in words[-VALUE_NEGATION_WINDOW:])

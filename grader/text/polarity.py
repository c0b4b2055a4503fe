"""The criterion's own predicate said the other way round (round 4): a reply that names the criterion's things
but states its predicate with the opposite polarity states the opposite fact.

Evidence items name the things a criterion speaks of ("Ben", "starter", "SSO", "CHG-4004"); the criterion's
predicate ("is assigned", "meets the threshold", "does not include", "does not cover", "cannot be unfrozen") is
often in no item. Two structural readings of the criterion text, each checked against the carried units:

- an affirmed predicate denied: a word the criterion affirms (a participle or a verb of its subject: "is
  assigned", "meets", "are paid") is denied in the reply ("I couldn't assign him", "it doesn't quite meet the
  threshold") in a clause about the criterion's things (a clause naming one of its items, or a pronoun in a
  sentence that names one), and no carried unit states that word un-negated;
- a denied predicate affirmed: a word the criterion denies (the verb after its negator: "does not include",
  "does not cover", "is not configured", "cannot be unfrozen") is stated un-negated in a clause that names one of
  the criterion's items ("SSO is included in your Starter plan", "REC-6009 is covered by CHG-4004", "I can
  unfreeze ACC-1006"), and no carried unit denies that word, nor denies anything of the criterion's things in a
  clause whose subject is not the agent ("Starter doesn't have SSO" is such a denial; "so I can't do it from here"
  is not).

Only carried units count (a withdrawn statement, a question or a keyword line states nothing), and a clause opened
by "if" / "whether" / "unless" or a wh-word states nothing either way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from grader.text.units import FUNCTION_WORDS, IRREGULAR_PARTICIPLES, NEGATORS, Hit, Unit, last_clause, normalise

_SPLIT = re.compile(r"[;:!?()\u2014]|\.(?!\d)|\s[-\u2013]\s|\b(?:but|so|because|since|although|though|while|and|whereas|however)\b", re.I)
_NEG_HEAD = re.compile(
    r"(?:\b(?:not|never|no|cannot|unable|no\s+longer)|n't)\s+(?:(?:be|been|being|yet|actually|really|quite|fully|have|has|had|get|got|able|to|do|even|ever|currently|longer|successfully|always|necessarily|automatically|her|him|it|them|you|need|needs|going|supposed|meant)\s+)*(?P<w>[a-z][a-z'-]{2,})"
)
"""A negator, its auxiliaries and adverbs, and the word it denies ("does not include", "cannot be unfrozen",
"doesn't quite meet", "couldn't assign")."""
_REPORT = frozenset(
    "confirms confirm says say explains explain states state tells tell gives give lists list reports report makes make "
    "names name mentions mention notes note informs inform offers offer asks ask clear".split()
)
"""The criterion's own verbs of saying: never its predicate."""
_OPENED = re.compile(r"^\W*(?:if|whether|unless|what|which|why|how|when|where|who|once|until|in\s+case)\b", re.I)
_CONDITION = re.compile(r"\b(?:if|whether|unless|once|until|till|before|after|when|provided|as\s+soon\s+as|in\s+case|so\s+long\s+as|as\s+long\s+as)\b.*$", re.I)
"""A subordinate clause of condition or time inside a clause states nothing of its own ("accounts only go live
once verification has passed")."""
_RESTRICTED = re.compile(
    r"\b(?:only|just|solely|exclusively|too\s+late|too\s+early|until|till|must|needs?|required?|requires|has\s+to|have\s+to|at\s+least|"
    r"at\s+most|locked|taken|pending|waiting|awaiting|blocked|frozen|expired|unavailable|ineligible|impossible|without|except|"
    r"lacks?|missing|below|above|over|beyond|outside|instead|rather|unless|neither|nor|sold\s+out|out\s+of|full|gone)\b",
    re.I,
)
"""Words that restrict or deny what their clause says ("only she can change it", "too late to cancel it",
"a lead needs at least 60 points to qualify"): such a clause affirms nothing the criterion denies, and one about
the criterion's things is a denial in other words."""
_MODAL = re.compile(r"\b(?:must|can|could|will|would|should|may|might|needs?\s+to|has\s+to|have\s+to|to)\s+(?:\w+\s+){0,2}$")
_PRONOUN = re.compile(r"\b(?:it|its|he|him|his|she|her|they|them|their)\b", re.I)
_FIRST_PERSON = re.compile(r"^\W*(?:(?:so|and|but|then|sadly|unfortunately|honestly)\s+)*(?:i|we|i'm|we're|i've|we've|i'll|we'll|i'd|we'd)\b", re.I)
_IRREGULAR = {
    "frozen": "freeze", "unfrozen": "unfreeze", "paid": "pay", "sent": "send", "made": "make", "given": "give",
    "taken": "take", "held": "hold", "kept": "keep", "shown": "show", "sold": "sell", "told": "tell", "found": "find",
    "written": "write", "chosen": "choose", "begun": "begin", "done": "do", "met": "meet", "won": "win", "run": "run",
    "set": "set", "put": "put", "cut": "cut", "left": "leave", "lost": "lose", "brought": "bring", "bought": "buy",
}
_SKIP = frozenset("based related called named listed shown said stated noted needed required asked wanted".split())
"""Participles that describe or report rather than state the criterion's fact."""


@lru_cache(maxsize=8192)
def _keys(word: str) -> frozenset[str]:
    """The stems of a word and of its base when irregular ("unfrozen" / "unfreeze"); never the lexicon's groups
    (a group may hold a word and its opposite's neighbour: "qualified" / "disqualified")."""
    from grader.text.lexicon import word_keys

    word = word.lower().strip("'")
    forms = {word}
    if word in _IRREGULAR:
        forms.add(_IRREGULAR[word])
    return frozenset(k for f in forms for k in word_keys(f) if k[:2] == "s:")


_INDIRECT = re.compile(r"\b(?:look(?:ing)?\s+into|check(?:ing)?(?:\s+on)?|find(?:ing)?\s+out|see|seeing|figure\s+out|investigat\w+|work\s+out|ask(?:ing)?|dig\s+into|understand)\s+(?:why|whether|what|how|where|when|if)\b.*$")
"""(round 7) An indirect question ("let me look into why it's not active") states nothing of what it asks."""
_JUST_NEEDS = re.compile(r"\b(?:just|only|simply|merely)\s+(?=(?:needs?|requires?|has\s+to|have\s+to|must|wants?)\b)")
"""(round 7) "It just needs enabling", "it only has to be switched on": a requirement of procedure, not a restriction."""


def _clauses(text: str) -> list[str]:
    return [c for c in (_INDIRECT.sub("", _CONDITION.sub("", c)) for c in _SPLIT.split(normalise(text))) if c and c.strip()]


@lru_cache(maxsize=4096)
def predicates(criterion: str) -> tuple[frozenset[str], frozenset[str]]:
    """(the keys of the words the criterion affirms, the keys of the words it denies): a denied word is the one
    after a negator; an affirmed one is a participle or a verb after a subject pronoun in a clause with no
    negator, not one of the criterion's verbs of saying."""
    text = re.sub(r"\([^)]*\)", " ", criterion.replace("\u2019", "'"))
    affirmed: set[str] = set()
    denied: set[str] = set()
    # (round 6) a contrast denies its alternative: "added to CASE-5002 rather than a new case", "instead of a refund"
    for m in _CONTRAST.finditer(normalise(text)):
        if m["w"] not in FUNCTION_WORDS:
            denied |= _keys(m["w"])
    text = _CONTRAST.sub(" ", normalise(text))
    for clause in _clauses(text):
        words = re.findall(r"[a-z][a-z'-]*", clause)
        if any(w in NEGATORS or w.endswith("n't") for w in words):
            for m in _NEG_HEAD.finditer(clause):
                w = m["w"]
                if w not in FUNCTION_WORDS and w not in NEGATORS:
                    denied |= _keys(w)
            if _HAVE_DENIED.search(clause):
                denied.add(_HAVE)  # (round 6) "does not have the HVAC skill": possession is the predicate
            continue
        for i, w in enumerate(words):
            if w in _REPORT or w in _SKIP or w in FUNCTION_WORDS:
                continue
            participle = (len(w) > 4 and w.endswith("ed")) or w in IRREGULAR_PARTICIPLES or w in _IRREGULAR
            if participle and i > 0 and words[i - 1] in _DETERMINERS and i + 1 < len(words) and words[i + 1] not in FUNCTION_WORDS:
                continue  # (round 7) an attributive participle ("the signed lease is missing") describes; it is not the predicate
            # a verb of the criterion's subject: "it meets", "the applicant meets" (never a noun after a possessive)
            subject = i > 0 and (words[i - 1] in ("it", "he", "she", "which") or (i > 1 and words[i - 2] in ("the", "this", "that") and words[i - 1] not in FUNCTION_WORDS and not words[i - 1].endswith("'s")))
            verb = subject and w.endswith("s") and not w.endswith("ss") and len(w) > 3
            # (round 6) a state said with "is" / "are": "the account is live", "the work order stays open"
            state = i > 0 and words[i - 1] in _COPULA and not w.endswith("ing") and len(w) > 2
            if (participle or verb or state) and not _MODAL.search(" ".join(words[:i]) + " "):
                affirmed |= _keys(w)
    return frozenset(affirmed - denied), frozenset(denied - affirmed)


_CONTRAST = re.compile(r"\b(?:rather\s+than|instead\s+of)\s+(?:(?:a|an|the|any|opening|creating|making|raising|logging)\s+)*(?P<w>[a-z][a-z'-]{2,})")
@lru_cache(maxsize=4096)
def _contrasted(criterion: str) -> frozenset[str]:
    """The keys of the alternatives a criterion rules out by contrast ("rather than a new case")."""
    return frozenset(k for m in _CONTRAST.finditer(normalise(criterion)) if m["w"] not in FUNCTION_WORDS for k in _keys(m["w"]))


_DETERMINERS = frozenset("the a an this that these those its their his her your our my any".split())
_COPULA = frozenset("is are was were stays stay remains remain now already still".split())


def _names_item(clause: str, items: Sequence[tuple[str, ...]]) -> bool:
    return any(_names_phrase(clause, p) for item in items for p in item)


def _states_denial_wording(clause: str, items: Sequence[tuple[str, ...]]) -> bool:
    """(r10-lexicon) Whether a clause states an un-negated phrase of an item that also holds a negative phrase: the
    catalog's own positive wording of the denial ("assigned at check-in" beside "no seat selection"), so the clause
    states the criterion, never its predicate the other way round ("seats are allocated at check-in")."""
    return any(
        _names_phrase(clause, p)
        for item in items
        if any(_negative_phrase(q) for q in item)
        for p in item
        if not _negative_phrase(p)
    )


def _negative_phrase(phrase: str) -> bool:
    return any(w in NEGATORS or w.endswith("n't") for w in re.findall(r"[a-z][a-z']*", phrase.lower().replace("\u2019", "'")))


@lru_cache(maxsize=65536)
def _names_phrase(clause: str, phrase: str) -> bool:
    """Whether a clause states a phrase, either way round (kept: the same clauses are asked about the same
    phrases by every check of a criterion)."""
    from grader.text.matching import phrase_hits

    return bool(phrase_hits(phrase, [Unit(0, 0, clause, True)], negation=False))


@lru_cache(maxsize=16384)
def _polar(clause: str) -> tuple[frozenset[str], frozenset[str]]:
    """(keys the clause states un-negated, keys it denies); kept per clause."""
    stated: set[str] = set()
    denied: set[str] = set()
    for m in _NEG_HEAD.finditer(clause):
        denied |= _keys(m["w"])
    words = list(re.finditer(r"[a-z][a-z'-]*", clause))
    negated = any(w.group(0) in NEGATORS or w.group(0).endswith("n't") for w in words)
    if _HAVE_DENIED.search(clause):
        denied.add(_HAVE)
    if not negated:
        for w in words:
            if w.group(0) not in FUNCTION_WORDS:
                stated |= _keys(w.group(0))
        if _HAVE_STATED.search(clause):
            stated.add(_HAVE)  # "Mei does have HVAC on her profile", "she has the HVAC skill"
    return frozenset(stated), frozenset(denied)


@lru_cache(maxsize=16384)
def _plain(clause: str) -> frozenset[str]:
    """The keys a clause states un-negated and not after a modal ("will", "'ll", "can", "to"...); kept per clause."""
    if any(w in NEGATORS or w.endswith("n't") for w in re.findall(r"[a-z][a-z'-]*", clause)):
        return frozenset()
    out: set[str] = set()
    for m in re.finditer(r"[a-z][a-z'-]*", clause):
        if m.group(0) not in FUNCTION_WORDS and not _MODAL_BEFORE.search(clause[: m.start()]):
            out |= _keys(m.group(0))
    return frozenset(out)


_MODAL_BEFORE = re.compile(r"(?:\b(?:will|would|can|could|should|shall|may|might|must|to)|'ll|'d)\s+(?:[a-z'-]+\s+){0,3}$")
_HAVE = "have:possess"
_HAVE_DENIED = re.compile(r"(?:\b(?:not|never)|n't)\s+(?:(?:actually|really|currently|yet)\s+)?ha(?:ve|s)\s+(?!been\b|to\b|got\b|had\b|[a-z]+ed\b)")
_HAVE_STATED = re.compile(r"\b(?:(?:does|do|did)\s+(?:actually\s+|really\s+|indeed\s+)?have|has|have)\s+(?!been\b|to\b|got\b|had\b|no\b|[a-z]+ed\b)(?:the\s+|an?\s+|her\s+|his\s+|their\s+)?[a-z0-9]")
"""(round 6) Possession as the predicate ("does not have the HVAC skill" / "Mei does have HVAC"): "have" is a function
word elsewhere, so it is read here only before its object (never "has been", "has to", "has added")."""
_NO_NOUN = re.compile(r"\bno\s+(?P<w>[a-z][a-z'-]{2,})")
_FINITE = re.compile(r"\b(?:is|are|was|were|be|been|has|have|had|can|could|will|would|shall|should|may|might|does|do|did)\b|'(?:s|re|ve|ll|d)\b|\b[a-z]{3,}(?:ed|es)\b")
"""A clause with a finite verb: a terse fragment ("Done - unfrozen.") states the item as the evidence reads it and
is left to the evidence rules."""
_REQUIREMENT = re.compile(r"\b(?:must|needs?|required?|requires|has\s+to|have\s+to)\b", re.I)
"""A requirement of procedure ("it just needs enabling", "it has to be switched on by our identity team") restricts
its clause but denies nothing of the criterion's things."""


_COURTESY = re.compile(r"\b(?:no|not\s+a)\s+(?:problem|worries|trouble|bother|issue)\b|\bno\s+need\s+to\s+worry\b"
                       r"|\bthat(?:'s|\s+is|\s+isn't|\s+was|\s+wasn't)\s+(?:not\s+)?(?:it|the\s+(?:problem|issue|reason|cause|blocker|hold-?up))\b")
"""Courtesies that deny nothing of the criterion's things ("no problem", "that's no trouble")."""
_ABLE = re.compile(r"\b(?:can|could|will|might|may|does|do|did|able)\b|'ll\b")
"""An affirmation of what can, will or does happen."""
_DENIAL_WORD = re.compile(
    r"\b(?:non-?\w+|un\w+(?:able|ible|ed)|in\w+ible|\w+less|prohibit\w*|forbid\w*|disallow\w*|barred|bars?|ban(?:s|ned)?|exclude[sd]?|excluding|exempt|"
    r"refuse[sd]?|declined?|denied|denies|deny|reject\w*|prevents?|prevented|stops?|stopped|blocks?|fail\w*|separate|different|another|other|elsewhere|"
    r"instead|rather|no|not|n't|final|fixed|locked|closed|off|held|hold|holds|kept|keeps?|left|stays?|stayed|remains?|remained|reserved|exclusive\w*|limited|restricted|specific|cannot|can't|won't|neither|nor|none|nothing|nobody|nowhere|hardly|barely)\b",
    re.I,
)
"""Words that say something is not so without a negator ("non-refundable", "unavailable", "excluded", "blocks",
"a separate change"): a reply with one of them may carry the criterion's denial in other words."""


def _negates(clause: str) -> bool:
    """Whether a clause denies or restricts something (a negator, or a restriction that is not a requirement)."""
    if any(w in NEGATORS or w.endswith("n't") for w in re.findall(r"[a-z][a-z'-]*", clause)):
        return True
    return any(not _REQUIREMENT.fullmatch(m.group(0)) for m in _RESTRICTED.finditer(_JUST_NEEDS.sub("", clause)))


def reversed_predicate(criterion: str, items: Sequence[tuple[str, ...]], units: Sequence[Unit]) -> str | None:
    """The sentence of the reply that states the criterion's predicate the other way round (module docstring),
    else None."""
    affirmed, denied_words = predicates(criterion)
    # a noun the criterion denies with "no" that an item names as it is ("disqualified for no budget" / "budget"):
    # the item is the reason's word, stated either way round, never a predicate turned
    for m in _NO_NOUN.finditer(normalise(criterion)):
        if any(not re.match(r"\W*(?:no|not|never)\b", p.lower()) and _keys(m["w"]) & {k for w in re.findall(r"[a-z]+", p.lower()) for k in _keys(w)} for item in items for p in item):
            denied_words = denied_words - _keys(m["w"])
    if not affirmed and not denied_words and not _CONFIRMS.match(criterion):
        return _no_effect(criterion, items, [u for u in units if u.carried]) or _made_so(criterion, items, [u for u in units if u.carried])
    carried = [u for u in units if u.carried]
    failed = _did_not_happen(criterion, affirmed, items, carried)
    if failed is not None:
        return failed
    useless = _no_effect(criterion, items, carried) or _made_so(criterion, items, carried)
    if useless is not None:
        return useless
    if not affirmed and not denied_words:
        return None
    stated_all: set[str] = set()
    denied_all: set[str] = set()
    about: list[tuple[Unit, str, bool]] = []  # (unit, clause, names an item or refers back to one)
    named_before = False
    last_message = -1
    for u in carried:
        if u.message != last_message:
            named_before, last_message = False, u.message
        names_unit = _names_item(u.text, items)
        for clause in _clauses(u.text):
            if _OPENED.match(clause):
                continue
            stated, denied = _polar(clause)
            stated_all |= stated
            denied_all |= denied
            names = _names_item(clause, items)
            refers = _PRONOUN.search(clause) is not None and (names_unit or named_before)
            about.append((u, clause, names or bool(refers)))
        named_before = names_unit or named_before
    if affirmed:
        # (round 6) a word said only after a modal ("I'll take it live once you give the word") does not state it so
        plain_all = set().union(*(_plain(clause) for _, clause, _ in about)) if about else set()
        for u, clause, on_topic in about:
            if on_topic and _polar(clause)[1] & affirmed and not plain_all & (_polar(clause)[1] & affirmed):
                return u.text
        # (round 7) the opposite state said in its own word ("I've closed work order WO-5004" for "stays open")
        for u, clause, on_topic in about:
            opposed = _opposed(frozenset(_plain(clause))) & affirmed
            if on_topic and opposed and not plain_all & opposed:
                return u.text
    if denied_words and not denied_all & denied_words:
        if any(on_topic and _negates(_COURTESY.sub(" ", clause)) and not _FIRST_PERSON.match(clause) for _, clause, on_topic in about):
            return None  # the reply denies something of the criterion's things in other words
        if not any(_negates(_COURTESY.sub(" ", clause)) or _DENIAL_WORD.search(_COURTESY.sub(" ", normalise(u.text))) for u, clause, _ in about):
            # a denial said with no negation, restriction or word of denial anywhere in the carried reply, and a
            # clause about the criterion's things that affirms what can or will be done: the reply says the
            # opposite in other words ("CHG-4004 does list REC-6009", "scheduled campaigns can still be edited - I'll
            # move CMP-5006", "I can lift the freeze on ACC-1006", "PayPal might go through")
            affirmed_other = next((u.text for u, clause, on_topic in about if on_topic and _ABLE.search(clause)), None)
            if affirmed_other is not None and denied_words - _contrasted(criterion):  # a contrast's alternative must be stated itself (below)
                return affirmed_other
        for u, clause, _ in about:
            finite = _FINITE.search(clause) or any(_keys(w) & denied_words for w in re.findall(r"[a-z]{3,}s\b", clause))  # "the warranty covers it"
            if _polar(clause)[0] & denied_words and finite and not _RESTRICTED.search(clause) and _names_item(clause, items) and not _states_denial_wording(clause, items):
                return u.text
            if _polar(clause)[0] & _contrasted(criterion) and finite and not _RESTRICTED.search(clause) and _names_item(u.text, items):
                return u.text  # (round 6) the alternative the criterion rules out, said done in a sentence about its things
    # (round 7) one of the criterion's denials stated ("that PIN didn't match") and another undone by the agent itself
    # ("so I've gone ahead and changed it"): the reply's own denial excuses nothing of the other
    remaining = denied_words - denied_all
    if remaining and denied_words & denied_all:
        for u, clause, on_topic in about:
            if on_topic and _AGENT_DONE.search(normalise(u.text)) and _polar(clause)[0] & remaining and re.search(r"\b[a-z]{3,}ed\b", clause) and not _RESTRICTED.search(clause):
                return u.text
    return None


_AGENT_DONE = re.compile(r"\b(?:i|we)(?:'ve|\s+have|\s+just|\s+went\s+ahead|\s+already)\b")
"""(round 7) The agent reporting its own action ("I've gone ahead and changed it")."""


# ---- a thing done said not to have happened (round 6) -------------------------------------------------------

_CONFIRMS = re.compile(r"^\W*(?:confirms?|reports?)\b", re.I)
"""A criterion that a thing was done ("Confirms the exchange to navy"): its nouns name the action."""
_WENT_WRONG = re.compile(
    r"(?:\b(?:did|has|have|had|was|were)(?:\s+not|n't)|\bnever)\s+(?:(?:actually|really|yet|quite|fully|successfully|properly)\s+)?"
    r"(?:go(?:ne)?\s+through|went\s+through|complete[ds]?|save[ds]?|succeed(?:ed)?|work(?:ed)?|stick|stuck|take\s+effect|taken\s+effect|"
    r"come\s+through|happen(?:ed)?|process(?:ed)?|register(?:ed)?|post(?:ed)?|land(?:ed)?|been\s+(?:saved|processed|completed|applied|actioned|submitted|executed|carried\s+out|put\s+through))\b"
    r"|\b(?:failed|fell\s+through|errored|bounced|(?:was|were|got|has\s+been|have\s+been)\s+(?:rejected|declined|refused))\b"
    r"|\b(?:could(?:\s+not|n't)|was(?:\s+not|n't)\s+able\s+to|were(?:\s+not|n't)\s+able\s+to|unable\s+to|did(?:\s+not|n't)\s+manage\s+to)\s+(?:(?:actually|quite|yet)\s+)?[a-z]{3,}"
)
"""The action said not to have gone through ("the exchange didn't go through", "that note didn't actually save",
"INC-2001 hasn't been updated yet", "the transfer failed", "I couldn't set up the swap to navy")."""
_NOT_DONE = re.compile(r"\b(?:reject\w*|declin\w*|refus\w*|fail\w*|block\w*|denied|stopped|prevent\w*|tried|tries|try|trying|attempt\w*|unchanged|un\w+ed|still|remains?|as\s+before)\b")
"""A clause that states no thing done though it has no negator ("the system rejected it", "I tried to switch you",
"TK-3310 is unchanged")."""
_FAILURE_IN_CRITERION = re.compile(r"\b(?:not|never|no|fail\w*|declin\w*|reject\w*|refus\w*|denied|unable|could\s+not|cannot)\b|n't\b", re.I)


def _other_instance(before: str, text: str) -> bool:
    from grader.text.withdrawal import _other_instance as other

    return other(before, text)


_TO_COME = re.compile(r"(?:\b(?:will|shall|going\s+to|gonna|need\s+to|have\s+to|has\s+to)|'ll)\b")
"""(round 7) A clause of what is still to come ("I'll look into Salesforce") states no thing done."""


def _named_items(clause: str, items: Sequence[tuple[str, ...]]) -> frozenset[int]:
    """(round 7) The indices of the items a clause names."""
    return frozenset(i for i, item in enumerate(items) if _names_item(clause, [item]))


def _did_not_happen(criterion: str, affirmed: frozenset[str], items: Sequence[tuple[str, ...]], carried: Sequence[Unit]) -> str | None:
    """The sentence that says the criterion's thing done did not happen, when the criterion states a thing done (a
    participle it affirms, or "Confirms ..."), says no failure itself, a carried sentence naming one of its items says
    the action did not go through ("I couldn't set up the swap to navy", "that note didn't save, so INC-2001 hasn't been
    updated"), and no carried clause about its things states something done in the failure's sentence or after it
    ("the first attempt failed, so I retried and it went through"), nor before it unless the failure opens as a
    correction ("Apologies - ..."). Else None."""
    participles = [w for w in re.findall(r"[a-z][a-z'-]*", normalise(criterion)) if ((len(w) > 4 and w.endswith("ed")) or w in IRREGULAR_PARTICIPLES or w in _IRREGULAR) and _keys(w) & affirmed]
    if _FAILURE_IN_CRITERION.search(criterion) or not (_CONFIRMS.match(criterion) or participles):
        return None
    from grader.text.withdrawal import _marker

    from grader.text.withdrawal import _other_part

    failure: str | None = None
    failed_at = -1
    failed_items: frozenset[int] = frozenset()
    named_before = False
    last_message = -1
    done_at: list[tuple[int, frozenset[int]]] = []  # (unit, the items its done clause names; empty: a pronoun)
    for n, u in enumerate(carried):
        if u.question:
            continue
        if u.message != last_message:
            named_before, last_message = False, u.message
        names_unit = _names_item(u.text, items)
        for clause in _clauses(_COURTESY.sub(" ", normalise(u.text))):
            if _OPENED.match(clause):
                continue
            names = _names_item(clause, items)
            refers = _PRONOUN.search(clause) is not None and (names_unit or named_before)
            wrong = _WENT_WRONG.search(clause)
            negated = any(w in NEGATORS or w.endswith("n't") for w in re.findall(r"[a-z][a-z'-]*", clause))
            # (round 7) a failure of another part of the record ("the refund for BK-12 didn't go through" against "BK-12
            # is cancelled") is not this one's
            if wrong and names_unit and not _other_instance(criterion, u.text) and not _other_part(criterion, clause[: wrong.start()]):
                if failure is None or _marker(u.text)[0] is not None:
                    failure, failed_at = u.text, n  # a later failure opened as a correction ("Apologies - ...") outweighs what came before
                    failed_items = _named_items(clause, items) or _named_items(u.text, items)
            elif (names or refers) and not negated and not _NOT_DONE.search(clause) and not _TO_COME.search(clause):
                done_at.append((n, _named_items(clause, items)))
        named_before = names_unit or named_before
    # (round 7) a thing stated done counts against the failure only when it is the failed thing: a clause naming one of
    # the failure's items, or a pronoun ("the first attempt failed, so I retried and it went through"); "only Slack is
    # connected" after "the Salesforce connection didn't complete" is not
    last_done = max((n for n, named in done_at if not named or named & failed_items or not failed_items), default=-1)
    if failure is None or last_done < 0:
        return failure
    # a thing stated done in the failure's own sentence or after it stands ("the first attempt failed, so I retried and
    # it went through"); before it, only when the failure is not opened as a correction of it
    opened = _marker(carried[failed_at].text)[0] is not None
    return failure if opened and last_done < failed_at else None


# ---- a prospective or hedged framing (round 5) -------------------------------------------------------------

_ADVERB = r"(?:(?:not|never|also|then|now|still|only|already|hopefully|probably|likely|possibly|definitely|certainly|usually|normally|automatically|soon|just|all|fully|actually|really|be|get|have|been)\s+)"
_PROSPECTIVE = re.compile(
    # a modal, "to" or "going to" before "be" / "get" / "have (been)" and the word: "will be delivered", "is due to be
    # refunded", "should get shipped", "may have been delivered", "seems to have shipped", "will have been closed"
    r"(?:\b(?:will|shall|should|would|could|can|may|might|must|ought\s+to|to|gonna|cannot|can't|won't|wouldn't|shouldn't|couldn't|mustn't|mightn't)|'ll|'d)\s+" + _ADVERB + r"*"
    r"(?:be|have(?:\s+" + _ADVERB + r"*been)?|get(?:\s+(?!(?:it|them|this|that)\b)[a-z0-9.'-]+){0,3}|get\s+(?:it|them|this|that))\s+" + _ADVERB + r"*$"
    # a hedge right before a perfect or a participle: "it's probably been delivered", "maybe shipped already"
    r"|\b(?:probably|possibly|perhaps|maybe|likely|presumably|supposedly|hopefully)\s+(?:(?:been|be|have|has|had|already|just|got|gotten)\s+)*$",
)
"""What frames a participle as still to come or as a guess: a modal or "to" before its "be"/"have", or a hedge
adverb right before it."""
_FUTURE_CRITERION = re.compile(
    r"\b(?:will|would|should|shall|could|can|may|might|going\s+to|due|expected|expect|scheduled|estimated|eta|planned|plan|"
    r"upcoming|next|when|once|how\s+long|arrive|arrival|future|later)\b|'ll\b",
    re.I,
)
"""A criterion that speaks of what is to come: its done words may be said as still to come."""


_CONDITIONAL_CRITERION = re.compile(r"\b(?:not|no|never|cannot|without|unless|until|only|once|when|if|before|after)\b|n't\b")
_OWN_FRAME = frozenset("be will would should shall could can may might must to".split())


_PENDING_CLAUSE = re.compile(
    r"\b(?:once|when|whenever|as\s+soon\s+as|the\s+(?:moment|minute|second|day)|by\s+the\s+time|after|until|till|unless|if|in\s+case|before)\s+(?:(?!(?:was|were|had)\b)[a-z0-9$.'-]+\s+){0,4}?"
    r"(?:is|are|it's|that's|he's|she's|'s|'re|gets?|has\s+been|have\s+been|'s\s+been|'ve\s+been|has|have)\s+" + _ADVERB + r"*$"
)
"""(round 6) A clause of time or condition in the present ("I'll confirm once it's executed", "when it's delivered",
"if it gets approved", "as soon as the refund has been processed") speaks of what is to come or may be: the word
after its verb is not stated done. In the past ("once it was executed") it is."""
_SUBORDINATE_BREAK = re.compile(r"[,;:()!?\u2014]|\s-\s|\b(?:but|because|so|and|or|which|however|whereas)\b")


def _framed(prefix: str, pending: bool = True) -> bool:
    """Whether normalised text before a word frames it as still to come or as a guess (`_PROSPECTIVE`), or puts it
    in a clause of time or condition in the present (`_PENDING_CLAUSE`)."""
    clause = last_clause(prefix)
    if _PROSPECTIVE.search(clause.rstrip() + " ") is not None:
        return True
    return pending and _PENDING_CLAUSE.search(_SUBORDINATE_BREAK.split(prefix)[-1].rstrip() + " ") is not None


def _done_word(phrase: str) -> str | None:
    """The first word of a phrase when it is a participle ("delivered", "opted out", "refund issued" has none:
    its first word is a noun, left to the stem rules), else None."""
    words = re.findall(r"[a-z][a-z'-]*", normalise(phrase))
    if not words:
        return None
    w = words[0]
    return w if (len(w) > 4 and w.endswith("ed")) or w in IRREGULAR_PARTICIPLES or w in _IRREGULAR else None


def prospective(hit: Hit, phrase: str, criterion: str) -> bool:
    """Whether a match of a done word is framed as still to come or as a guess ("ORD-9001 is due to be delivered",
    "should be shipped by Friday", "may have been delivered") when the criterion states it done: the criterion's own
    mention of the word is not so framed (or, naming it in other words, the criterion speaks of nothing to come)."""
    own = re.findall(r"[a-z][a-z'-]*", normalise(phrase))
    if hit.value is not None or any(w in NEGATORS or w.endswith("n't") or w in _OWN_FRAME for w in own):
        return False  # a denial ("cannot be changed") or a phrase that frames itself ("to be refunded") is matched as written
    text = normalise(hit.sentence)
    start = hit.position % 10_000
    word = re.match(r"[a-z][a-z'-]*", text[start:]) if start <= len(text) else None
    if word is None:
        return False
    done = _done_word(word.group(0)) or _done_word(phrase)
    if done is None:
        return False
    # a criterion that denies or sets a condition ("cannot proceed without verification", "cannot be moved once
    # scheduled") is stated by the rule that governs it ("until your identity is confirmed", "once a campaign is
    # scheduled it can't be edited"): the present clause of time or condition frames nothing there
    pending = _CONDITIONAL_CRITERION.search(normalise(criterion)) is None
    if _done_word(word.group(0)) is None:
        # a noun of the phrase's verb ("refund" for "refunded"): its predicate is the clause's participle after it
        # ("your refund is scheduled to be processed", "the refund will be issued on Monday")
        rest = text[start + word.end() :]
        clause = re.split(r"[,;:()!?.\u2014]|\s-\s|\b(?:and|but|so|because|which|while|once|when|until|after|before|if)\b", rest)[0]
        later = [m for m in re.finditer(r"[a-z][a-z'-]*", clause) if _done_word(m.group(0)) and len(clause[: m.start()].split()) <= 6]
        if not any(_framed(clause[: m.start()], pending) for m in later):
            return False
    elif not _framed(text[:start], pending):
        return False
    said = normalise(re.sub(r"\([^)]*\)", " ", criterion))
    keys = _keys(done) | frozenset(k for w in re.findall(r"[a-z][a-z'-]*", normalise(phrase))[:1] for k in _keys(w))
    for m in re.finditer(r"[a-z][a-z'-]*", said):
        if m.group(0) == done or _keys(m.group(0)) & keys:
            return not _framed(said[: m.start()]) and not re.search(r"\b(?:will|'ll|shall|going\s+to|due|expected|scheduled|once|when|until)\b", said[max(0, m.start() - 40) : m.start()])
    return _FUTURE_CRITERION.search(said) is None


# ---- a required thing said by its absence (round 7, r7-turns) ------------------------------------------------

_ABSENT_BEFORE = re.compile(
    r"\b(?:until|till|without|missing|lacks?|lacking|needs?|requires?|required|awaiting|waiting\s+for|asks?\s+for|"
    r"must\s+(?:have|provide|upload|add|set|submit|send|configure)|only\s+once)\s+(?:(?:a|an|the|its|their|his|her|your|one)\s+)?(?:[a-z-]+\s+){0,2}$"
)
_ABSENT_AFTER = re.compile(
    r"^\s+(?:(?:is|are|was|were)\s+(?:still\s+)?(?:missing|required|needed|outstanding|absent|lacking|not\s+\w+|awaited)|"
    r"(?:must|has\s+to|have\s+to|needs?\s+to|should)\s+be\b|isn't|aren't|hasn't|haven't|has\s+not|have\s+not|is\s+not)"
)
"""The criterion speaks of the item as missing or required ("until a proof of address is on file", "the time zone must be
configured", "the proof of address is missing")."""
_NO_PRESENCE_BEFORE = re.compile(
    r"(?:\b(?:no|without)|\bnot\s+(?:a|an|any|yet\s+(?:a|an|any))|\b(?:don't|do\s+not|doesn't|does\s+not|didn't|did\s+not|haven't|have\s+not|hasn't|has\s+not)\s+"
    r"(?:yet\s+|actually\s+)?(?:have|had|got|received|see|seen|find|found|hold|held|uploaded|submitted|provided|sent|registered|added|set|configured)\s+"
    r"(?:(?:a|an|any|the|your|their|its)\s+)?)"
    r"\s*(?:(?:valid|current|signed|usable|registered|approved|such|one|single)\s+)*$"
)
_NO_PRESENCE_AFTER = re.compile(
    r"^\W*\s*(?:(?:is|are|was|were)(?:\s+not|n't)|(?:has|have)(?:\s+not|n't)\s+been|(?:is|are)\s+still\s+not)\s+(?:yet\s+|actually\s+)?"
    r"(?:on\s+file|in\s+(?:place|the\s+\w+)|there|here|uploaded|submitted|provided|received|registered|added|set(?:\s+up)?|configured|attached|available|present|recorded|saved)\b"
)
"""A reply's negation of the item's presence ("there's still no proof of address on file", "we haven't received a
proof of address", "no time zone is set", "the proof of address isn't on file") - never of a need or a use ("you
don't need a time zone")."""


@lru_cache(maxsize=4096)
def absence_criterion(phrase: str, criterion: str) -> bool:
    """Whether the criterion speaks of the phrase's thing as missing or required (`_ABSENT_BEFORE`, `_ABSENT_AFTER`)."""
    from grader.text.units import phrase_pattern

    text = normalise(criterion)
    m = phrase_pattern(phrase).search(text)
    if m is None:
        return False
    return _ABSENT_BEFORE.search(text[: m.start()]) is not None or _ABSENT_AFTER.match(text[m.end() :]) is not None


def said_absent(hit: Hit) -> bool:
    """Whether a negated match negates its thing's presence (`_NO_PRESENCE_BEFORE` / `_NO_PRESENCE_AFTER`): with a
    criterion of absence (`absence_criterion`) it states the criterion ("still no proof of address on file")."""
    text = normalise(hit.sentence)
    start = hit.position % 10_000
    if start > len(text):
        return False
    before = last_clause(text[:start])
    before = re.sub(r"\b(?:still|yet|currently|actually|really|even)\s+", "", before)
    if _NO_PRESENCE_BEFORE.search(before):
        return True
    return any(_NO_PRESENCE_AFTER.match(text[start + e.end() :]) for e in re.finditer(r"[\w-]+", text[start : start + 40]))


# ---- an item said to make no difference (round 7, r7-turns) -----------------------------------------------------

_NO_EFFECT = re.compile(
    r"(?:\b(?:won't|wouldn't|will\s+not|would\s+not|doesn't|does\s+not|didn't|did\s+not|can't|cannot|couldn't|isn't\s+going\s+to|is\s+not\s+going\s+to|"
    r"shouldn't|should\s+not|is\s+unlikely\s+to|isn't\s+likely\s+to)\s+(?:(?:really|actually|likely|necessarily|even|quite|do\s+much\s+to)\s+)*"
    r"(?:help|work|fix|solve|resolve|cure|sort|change|affect|alter|matter|apply|count|lower|reduce|speed|make\s+(?:a|any|much\s+of\s+a)\s+difference|"
    r"do\s+(?:anything|much|the\s+trick|any\s+good)|get\s+(?:you|it)\s+(?:anywhere|around)))\b"
    r"|\b(?:makes?|made|would\s+make|will\s+make)\s+(?:no|little)\s+difference\b|\b(?:is|was|would\s+be|will\s+be)\s+(?:no|of\s+no)\s+(?:use|help|good)\b"
    r"|\bhas\s+no\s+(?:effect|bearing|impact)\b|\b(?:won't|wouldn't|doesn't|does\s+not)\s+(?:do|get|change)\s+(?:anything|a\s+thing)\b",
    re.I,
)
"""(round 7) A thing said to make no difference: "a channel rescan won't help", "a travel pass wouldn't change that",
"resetting makes no difference", "a new cable is no use here"."""


def _no_effect(criterion: str, items: Sequence[tuple[str, ...]], carried: Sequence[Unit]) -> str | None:
    """(round 7) The sentence that says one of the criterion's things makes no difference (`_NO_EFFECT`, the item named
    before it in its clause: its subject), when the criterion itself denies nothing (it suggests the thing, states
    it, or makes it an exception: "unless a travel pass is active") and no carried clause names that item with no
    negation. Else None."""
    if _FAILURE_IN_CRITERION.search(criterion) or re.search(r"\b(?:only|just|no|without)\b", criterion, re.I):
        return None
    found: str | None = None
    plain: set[int] = set()
    useless: set[int] = set()
    for u in carried:
        if u.question:
            continue
        for clause in _clauses(u.text):
            m = _NO_EFFECT.search(clause)
            named = _named_items(clause[: m.start()] if m else clause, items)
            if m is not None and named:
                useless |= named
                found = found or u.text
            elif not m and _named_items(clause, items) and not _negates(clause):
                plain |= _named_items(clause, items)
    return found if useless - plain else None


# ---- a state the criterion says already held, made so by the agent (round 7, r7-turns) ----------------------------

_MADE_SO = re.compile(
    r"\b(?:i|we)(?:'ve|\s+have|\s+just|\s+now|\s+went\s+ahead\s+and)?\s+(?:(?:just|now|also|then|gone\s+ahead\s+and)\s+)*"
    r"(?:escalated|moved|bumped|raised|set|changed|upgraded|switched|transferred|reassigned|assigned|put|made|marked|promoted|routed|sent|pushed|flagged|updated|elevated|upped)\b"
)
"""(round 7) The agent's own change ("I've escalated it to tier 2", "we just bumped it to P1")."""


def _made_so(criterion: str, items: Sequence[tuple[str, ...]], carried: Sequence[Unit]) -> str | None:
    """(round 7) When the criterion says a state already held ("CASE-5005 is already P1 with tier 2"), the sentence in
    which the agent makes one of its things so ("so I've escalated it to tier 2 and bumped it to P1") says it did not
    hold - unless a carried clause says "already" / "was ... already" of its things. Else None."""
    if not re.search(r"\balready\b", criterion, re.I):
        return None
    made: str | None = None
    for u in carried:
        if u.question:
            continue
        text = normalise(u.text)
        if re.search(r"\balready\b", text) and _names_item(u.text, items):
            return None
        for m in _MADE_SO.finditer(text):
            rest = re.split(r"[;:.!?()\u2014]|\s[-\u2013]\s|\b(?:but|because|since|although|though)\b", text[m.end() :])[0]
            if made is None and _names_item(rest, items):
                made = u.text
    return made


# ---- the opposite state in its own word (round 7, r7-turns) --------------------------------------------------------

ANTONYMS = {
    "open": "closed close closes shut shuts closing", "active": "inactive deactivated deactivate closed terminated",
    "enabled": "disabled disable", "enable": "disabled disable", "live": "offline paused suspended",
    "available": "unavailable", "valid": "invalid expired void", "visible": "hidden", "public": "private",
    "subscribed": "unsubscribed", "connected": "disconnected disconnect", "attached": "detached removed",
    "locked": "unlocked unlock", "unlocked": "locked lock", "frozen": "unfrozen unfreeze", "unfrozen": "frozen freeze",
    "paid": "unpaid outstanding overdue", "included": "excluded", "kept": "removed deleted discarded",
    "retained": "removed deleted discarded", "held": "released", "approved": "rejected declined denied",
    "assigned": "unassigned",
}
"""(round 7) A state and the words that say its opposite without a negator (a reviewed family of everyday states:
open / closed, active / deactivated, enabled / disabled, paid / unpaid...)."""


@lru_cache(maxsize=1)
def _antonym_keys() -> tuple[tuple[frozenset[str], frozenset[str]], ...]:
    return tuple((_keys(word), frozenset(k for w in opposites.split() for k in _keys(w.replace("-", " ")))) for word, opposites in ANTONYMS.items())


@lru_cache(maxsize=8192)
def _opposed(plain: frozenset[str]) -> frozenset[str]:
    """The keys of the states whose opposite a clause states plainly (its `_plain` keys)."""
    return frozenset(k for state, opposites in _antonym_keys() if plain & opposites for k in state)


# ---- round 9 (r9-meaning): a state said only as the goal of an offer, a request or a next step ---------------

_SAY_SO = (
    # the customer's say-so governs it: "when you'd like me to take it live", "once you're ready for me to move it to ...",
    # "if you want it in negotiation", "say the word when you want it taken live", "let me know whether I should ..."
    r"\b(?:when(?:ever)?|once|if|as\s+soon\s+as|after)\s+you(?:'d|\s+would|'re|\s+are)?\s+(?:(?:really|still|also)\s+)?"
    r"(?:like|want|wish|prefer|need|decide|ready|happy|choose|give\s+(?:me\s+)?the|say\s+so|confirm|approve|agree)\b"
    r"|\b(?:let\s+me\s+know|tell\s+me|say\s+the\s+word|give\s+me\s+(?:a\s+shout|the\s+(?:nod|go-ahead|green\s+light)))\s+(?:(?:when|if|whether)\b|and\b)"
    r"|\b(?:would|do)\s+you\s+(?:like|want)\s+(?:me|us)\s+to\b|\b(?:shall|should)\s+(?:i|we)\b|\bwant\s+me\s+to\b"
)
_GOAL_BEFORE = re.compile(
    _SAY_SO +
    # a state still ahead: "ready for implementation", "about to go live", "next up is negotiation", "the next step is ..."
    r"|\bready\s+(?:for|to)\b|\babout\s+to\b|\b(?:next\s+(?:step|stage|up|thing)|the\s+next\s+(?:step|stage|move))\s+(?:is|would\s+be|will\s+be|'s)?\b",
    re.I,
)
_PLAN_BEFORE = re.compile(
    # the agent's own plan: "I'll move it to negotiation next", "we can take the store live if you like"
    r"\b(?:i|we)(?:'ll|\s+will|\s+can|\s+could|'d|\s+would|\s+shall|'m\s+going\s+to|\s+am\s+going\s+to|'re\s+going\s+to|\s+are\s+going\s+to|\s+plan\s+to|\s+intend\s+to)"
    r"\s+(?:(?:then|also|now|just|happily|gladly|go\s+ahead\s+and)\s+)*(?!(?:confirm|tell|say|see|report|assure|let|show|check|verify|note|mention|only|not|never|be)\b)[a-z]+\b",
    re.I,
)
_PLAN_OFFERED = re.compile(
    _SAY_SO + r"|\bnext\b|\bif\s+you(?:'d)?\s+(?:(?:would|really)\s+)?(?:like|want|wish|prefer|agree|approve|say\s+so|are\s+happy|'re\s+happy)\b|\bwhen(?:ever)?\s+you(?:'re|\s+are)\s+ready\b"
    r"|\bsay\s+the\s+word\b|\bon\s+your\s+(?:go-ahead|ok|okay|say-so)\b|\bshould\s+(?:i|we)\b|\?\s*$",
    re.I,
)
"""A plan is only offered when its sentence leaves it to the customer or puts it next ("... next if you like",
"..., shall I?"); "we'll send the jeans in black" reports an arranged exchange."""
_GOAL_AFTER = re.compile(
    # "negotiation is the next step", "go-live would be next", "... next, if you like"
    r"^[\w'-]*\s*(?:(?:would|will|could)\s+be|is|'s|comes|follows)?\s*(?:the\s+)?next\b"
    r"|^[\w'-]*\s*(?:(?:stage|step|status)\s+)?(?:is|would\s+be|will\s+be|'s)\s+(?:the\s+)?(?:next|following)\s+(?:step|stage|move)\b",
    re.I,
)
_GOAL_CLAUSE_BREAK = re.compile(r"[,;:.!?()\u2014]|\s[-\u2013]\s|\b(?:but|so|because|since|although|though|while|whereas|however)\b", re.I)
_GOAL_CRITERION = re.compile(
    r"\b(?:offers?|offered|asks?|proposes?|suggests?|next|will|would|can|could|may|option|options|ready|plan|plans|planned|when|once|if|before|until|"
    r"not|no|never|cannot|without|unless|refuses?|declines?)\b|'ll\b|n't\b",
    re.I,
)


def goal_only(hit: Hit, phrase: str, criterion: str) -> bool:
    """(round 9) Whether a match of a state word (not a value, not an id) stands in a clause that makes it the goal of
    an offer, a request or the agent's plan ("Let me know when you'd like me to take the account live", "I'll move it to
    negotiation next if you like", "negotiation is the next step", "ready for implementation") while the criterion states
    it as reached: such a clause says the state is NOT yet reached. The frame must be in the match's own clause, before
    it ("If you want to check, the account is live" reports the state) or right after it ("... is the next step"). A
    criterion that itself speaks of an offer, a plan or a condition (`_GOAL_CRITERION`) is left alone."""
    if hit.value is not None or _GOAL_CRITERION.search(criterion):
        return False
    text = normalise(hit.sentence)
    start = hit.position % 10_000
    if start > len(text):
        return False
    clause = _GOAL_CLAUSE_BREAK.split(text[:start])[-1]
    if _GOAL_BEFORE.search(clause) or (_PLAN_BEFORE.search(clause) and _PLAN_OFFERED.search(text)):
        return True
    rest = text[start:]
    word = re.match(r"[a-z0-9'/-]+", rest)
    skip = max(len(normalise(phrase).rstrip("*")), word.end() if word else 0)
    after = _GOAL_CLAUSE_BREAK.split(rest[skip:])[0]
    return _GOAL_AFTER.search(after.lstrip()) is not None


# ---- round 9 (r9-meaning): a match inside a report that the action failed ------------------------------------

_RECOVERED = re.compile(
    r"\b(?:retried|re-?ran|re-?did|tried\s+(?:it\s+)?again|second\s+(?:attempt|try)|went\s+through|has\s+gone\s+through|succeeded|worked|"
    r"instead|after\s+all|by\s+hand|manually|myself|another\s+way|now\s+(?:done|complete|completed|sorted|fixed|through|in\s+place))\b",
    re.I,
)
_REASON = re.compile(r":|\b(?:because|as|since|due\s+to|given\s+that)\b", re.I)
"""A failure's reason ("declined: ACC-1006 is frozen") names what the criterion explains; only its consequence is not."""
_FAILURE_CRITERION = re.compile(r"\b(?:not|no|never|cannot|can't|unable|fail\w*|still|remains?|without|yet|unchanged|both|each)\b|n't\b", re.I)


def in_failure_report(hit: Hit, criterion: str) -> bool:
    """(round 9) Whether a match stands after a statement, in its own sentence, that the action did not go through
    ("Apologies, the merge didn't go through, so CASE-5006 and CASE-5007 are both still open"): the sentence reports the
    failure and what stands instead; it names the record, it does not state the criterion. Not when the sentence then
    says the action went through after all ("the first attempt failed, so I retried and it went through"), nor when the
    criterion itself states a failure, a denial or a state that remains (`_FAILURE_CRITERION`)."""
    from grader.text.withdrawal import FAILED

    if hit.value is None or hit.value.kind != "id" or _FAILURE_CRITERION.search(criterion):
        return False
    text = normalise(hit.sentence)
    start = hit.position % 10_000
    first = next((m for m in FAILED.finditer(text) if "still" not in m.group(0).lower()), None)
    if first is None or first.end() > start or _REASON.search(text, first.end(), start):
        return False
    return _RECOVERED.search(text, first.end()) is None


# ---- round 9 (r9-meaning): a statement embedded under "I can't confirm", "before I can tell you", "not sure whether" ----

_UNSURE_BREAK = re.compile(r"[;:!?.()]|\s[-\u2013\u2014]\s|\u2014|\b(?:but|however|though|although|anyway|meanwhile)\b", re.I)


def under_unsure(hit: Hit) -> bool:
    """(round 9) Whether a match stands in the complement of a frame that says it is not known ("I need to check whether
    it went through before I can tell you the stay is still active", "I can't confirm the refund is $45 yet", "not sure
    if ORD-12 has shipped"): what such a frame governs is not stated. A break ("..., but the stay is active") ends it."""
    from grader.text.withdrawal import UNSURE

    start = hit.position % 10_000
    prefix = normalise(hit.sentence)[:start]
    return UNSURE.search(_UNSURE_BREAK.split(prefix)[-1]) is not None


# ---- round 9 (r9-meaning): the same sentence denies, by a pronoun, the action it has just named -----------------

_DONE_BODY = (
    r"sent|processed|completed|gone\s+through|gone\s+out|moved|submitted|executed|made|done|transferred|paid|charged|issued|"
    r"booked|applied|placed|filed|posted|released|refunded|credited|scheduled|confirmed|finali[sz]ed|actioned|pushed\s+through"
)
_DONE_VERBS = "(?:" + _DONE_BODY + ")"
_LATER_DENIAL = re.compile(
    r"(?:,|;|\s[-\u2013\u2014]\s|\u2014)?\s*\b(?:but|though|however|yet|although|only)\b[^.;!?]*?"
    r"(?:\b(?:i|we)\s+(?:have|had|did)(?:\s+not|n't)\s+(?:yet\s+|actually\s+|really\s+)?(?:" + _DONE_BODY + r"|send|process|complete|move|submit|execute|make|do|transfer|pay|charge|issue|book|apply|place|file|post|release|refund|credit)\s+(?:it|them|that|this)\b"
    r"|\b(?:it|that|this|they)\s+(?:has|have|had|did|is|was|were|are)(?:\s+not|n't)\s+(?:yet\s+|actually\s+|really\s+)?(?:been\s+)?" + _DONE_VERBS + r"\b"
    r"|\b(?:no|none\s+of\s+the)\s+(?:money|funds|payment|charge|amount)\s+(?:has|have|had)\s+(?:yet\s+)?(?:been\s+)?(?:moved|left|gone|sent|taken|charged)\b)",
    re.I,
)


def denied_later(hit: Hit, criterion: str) -> bool:
    """(round 9) Whether the match's own sentence goes on, after "but / though / yet", to deny by a pronoun the action
    it names ("I've checked a $50 transfer ... and it would pass, but I have not sent it yet"; "the refund is set up,
    but it hasn't been issued"): the sentence does not state the action done. Not for a criterion that itself states a
    failure or denial; an unrelated later event ("but it hasn't arrived yet") is no denial of the action."""
    if _FAILURE_CRITERION.search(criterion):
        return False
    rest = normalise(hit.sentence)[hit.position % 10_000 :]
    return _LATER_DENIAL.search(re.sub(r"[*`]+", "", rest)) is not None

"""Later statements that take the facts back (issue 41.5): a reply that states the facts and then withdraws,
negates or questions them states nothing. General language, in three forms:

- a withdrawal: a verb of taking back with an object that refers back to what was said ("disregard
  everything", "ignore the above", "scratch that", "forget what I said"), a statement that what was said is
  false or did not happen ("none of that happened", "that was not true", "I made it all up"), or a joke
  marker ("just kidding", "only joking"). It voids every earlier unit of the transcript when it refers to
  all of it ("everything", "the above", "none of that", "what I said", "my previous message"), else the
  earlier units of its own message (or, when it opens its message, the message before): "The refund is
  $40. Sorry, scratch that - it's $45." keeps the $45 it states after;
- a negated framing: a clause with a negator that announces what follows ("I did NOT do the following:",
  "None of the following happened:", "The following was not done:"): what follows it in its message is
  stated negated, so it states none of it;
- a reversal: a unit that opens with a marker of changing one's mind ("Correction:", "On second thought",
  "On reflection", "Never mind", "Come to think of it", "I take that back"), or with a softer one
  ("Actually", "Oh well", "That said", "Then again", "Just this once", "But since ...") that an opposite
  statement backs ("... anyway", "after all", "make an exception", "regardless", "just in case"; a
  refusal followed by a thing done or allowed: "I can't email him. Actually, a short note should be fine:
  sent."; a statement followed by its own words negated: "It is closed. Actually, I couldn't close it.")
  takes back the statement before it and every earlier unit of its message about the same thing (a
  shared content word or id); a reversal inside a sentence ("..., but never mind, I've moved it") keeps
  only what follows it. A value corrected by a value of the same kind is left to the correction rule
  (`grader.text.conflicts`), which keeps the right one;
- questions are not statements (`grader.text.units.split_question`): the units mark them already.

A unit withdrawn or framed is not carried: no fact is matched in it and no value in it is a wrong value.
"""

from __future__ import annotations

import re
from dataclasses import replace

from grader.text.units import FUNCTION_WORDS, NEGATORS, Unit
from grader.text.values import find_values

_BACK = (
    r"(?:everything|all(?:\s+of)?\s+(?:that|this|it|the\s+above|those|these|what\s+i\s+(?:just\s+)?(?:said|wrote|told\s+you))|"
    r"(?:the|my)\s+(?:above|previous|last|earlier|prior)(?:\s+(?:messages?|replies|reply|answers?|statements?|parts?|points?))?|"
    r"the\s+above|what\s+i\s+(?:just\s+)?(?:said|wrote|told\s+you|stated)|it\s+all|all\s+of\s+it|any\s+of\s+(?:that|this|it|the\s+above)|"
    r"(?:that|this|it|those)(?=\s*(?:[.,;:!?)\-\u2013\u2014]|$|\s+(?:message|reply|answer|statement|part|bit|last|one|please|too|as\s+well)\b)))"
)
"""An object that refers back to what was said (never "that email": a determiner with its own noun)."""
_CLAIM = r"(?:that|this|it|everything(?:\s+(?:above|i\s+(?:said|wrote)))?|all\s+of\s+the\s+above|all\s+of\s+(?:that|it|this)|the\s+above|what\s+i\s+(?:just\s+)?(?:said|wrote|told\s+you)|it\s+all)"
"""What was said, as the subject of a statement that it is false ("that was not true")."""
WHOLE = re.compile(
    r"\b(?:everything|all\s+of|it\s+all|the\s+above|above|previous|earlier|prior|what\s+i|none|nothing|any\s+of)\b", re.I
)
"""Back-references that take in the whole transcript, not just the last statement."""
WITHDRAWAL = re.compile(
    r"\b(?:disregard|ignore|forget|scratch|retract|withdraw|take\s+back|strike|unsay|dismiss)\s+" + _BACK
    + r"|\b(?:none|nothing|no\s+part|not\s+one|not\s+any|neither)\s+of\s+(?:that|this|it|those|these|the\s+above|what\s+i\s+(?:said|wrote|told\s+you))"
    + r"(?=\s*(?:[.,;:!?)\-\u2013\u2014]|$|\s+(?:is|was|are|were|happened|did|has|have|true|real|correct|accurate|stands|holds)\b))"
    + r"|\b" + _CLAIM + r"\s+(?:(?:was|is|were|are)(?:\s+(?:all|just|simply))?\s+(?:(?:not|n't)\s+(?:true|real|right|correct|accurate|so)|untrue|false|wrong|incorrect|fake|fictional|invented|made\s+up|a\s+(?:joke|lie|test|mistake))"
    + r"|(?:isn't|wasn't|aren't|weren't)\s+(?:true|real|right|correct|accurate|so)|(?:did\s+not|didn't|never)\s+(?:happen|occur|take\s+place)|(?:never\s+)?happened\s+(?:not|never))"
    + r"|\b(?:i|we)\s+(?:made|make)\s+(?:that|this|it|everything|all\s+of\s+(?:that|it|this))(?:\s+all)?\s+up\b"
    + r"|\b(?:just|only)\s+(?:kidding|joking)\b|\bi\s*(?:'m|\s+am|\s+was)\s+(?:just\s+)?(?:kidding|joking)\b|\bjk\b|\bapril\s+fools?\b",
    re.I,
)
"""What takes back what was said (see the module docstring)."""
NEGATED_FRAME = re.compile(
    r"^(?P<frame>[^:]*?\b(?:not|never|none|no|nothing|didn't|haven't|hasn't|wasn't|weren't|isn't|aren't|won't|don't|doesn't)\b[^:]*?)"
    r"(?::|\b(?:as\s+follows|below)\b)",
    re.I,
)
FRAME_WORDS = re.compile(r"\b(?:following|below|as\s+follows|these(?:\s+things)?|this\s+list|the\s+list|any\s+of\s+(?:this|these|it))\b", re.I)
"""A negated clause frames what follows when it announces it ("the following", "below", "these"); a
negated clause before a colon that explains ("that won't work: $675.00 is more than ...") frames nothing."""


RESTATED_WORDS = 2
"""A unit that states something after its own withdrawal ("Scratch that - it's $45.") keeps it."""


def _frames(text: str) -> int | None:
    """Where the framed part of a unit starts, when a negated framing opens it; None otherwise."""
    match = NEGATED_FRAME.match(text)
    if match is None or not FRAME_WORDS.search(match["frame"]):
        return None
    return match.end()


def withdraw(units: list[Unit]) -> list[Unit]:
    """The units with those a later withdrawal or reversal takes back, or a negated framing covers, not carried."""
    units = reverse(units)
    out = list(units)
    for n, unit in enumerate(units):
        matches = list(WITHDRAWAL.finditer(unit.text))
        if matches and not unit.question:
            whole = any(WHOLE.search(m.group(0)) for m in matches)
            first = all(u.message != unit.message for u in units[:n])
            scope = unit.message - 1 if first and not whole else unit.message
            for k in range(n):
                if whole or units[k].message >= scope:
                    out[k] = replace(out[k], carried=False)
            if len(re.findall(r"[A-Za-z0-9$]+", unit.text[matches[-1].end() :])) < RESTATED_WORDS:
                out[n] = replace(out[n], carried=False)  # "Your refund is $45 - just kidding."; "scratch that - it's $45" keeps its $45
        start = _frames(unit.text)
        if start is not None:
            out[n] = replace(out[n], carried=False)
            for k in range(n + 1, len(units)):
                if units[k].message == unit.message:
                    out[k] = replace(out[k], carried=False)
    return out


# ---- reversals -------------------------------------------------------------------------------------------

STRONG_REVERSAL = re.compile(
    r"\b(?:correction|correcting\s+myself|let\s+me\s+correct\s+(?:that|myself)|on\s+(?:second|further|more)\s+(?:thoughts?|reflection)"
    r"|on\s+reflection|on\s+a\s+closer\s+look|on\s+closer\s+inspection|never\s*mind|come\s+to\s+think\s+of\s+it|thinking\s+about\s+it\s+(?:again|more)"
    r"|having\s+thought\s+(?:about\s+it|it\s+over)|i\s+take\s+(?:that|it)\s+back|i\s+misspoke|i\s+was\s+wrong(?:\s+about\s+that)?"
    r"|(?:update|edit)\s*:|i\s+stand\s+corrected|i've\s+changed\s+my\s+mind|i\s+changed\s+my\s+mind)\b",
    re.I,
)
"""Markers that say what follows replaces what was said."""
SOFT_REVERSAL = re.compile(
    r"\b(?:actually|oh\s+well|that\s+said|having\s+said\s+that|then\s+again|just\s+this\s+once|in\s+fact|all\s+the\s+same|but|however|though|still|well|hmm|ok(?:ay)?|fine|alright)\b",
    re.I,
)
"""Markers that may open a reversal, when an opposite statement backs them."""
OVERRIDE = re.compile(
    r"\b(?:anyway|anyhow|after\s+all|(?:make|making|made)\s+an\s+exception|an\s+exception\s+(?:for|this)|regardless|nonetheless|nevertheless|even\s+so"
    r"|all\s+the\s+same|just\s+in\s+case|just\s+this\s+once|either\s+way|bend\s+the\s+rules?|let\s+it\s+slide|overlook|waive\s+the\s+rule)\b",
    re.I,
)
"""Words that do what was just ruled out ("I've moved it anyway", "I'll make an exception")."""
DONE_OR_ALLOWED = re.compile(
    r"\b(?:i've|i\s+have|we've|we\s+have|i\s+just|i\s+went\s+ahead|i'll\s+go\s+ahead|go\s+ahead)\b|\b(?:should|would|will|might|could)\s+(?:be\s+fine|be\s+ok(?:ay)?|go\s+through|work)\b"
    r"|\b(?:is|are|'s)\s+(?:fine|ok(?:ay)?|allowed|no\s+problem)\b|:\s*(?:done|sent|booked|moved|added|changed|granted|approved|processed)\b",
    re.I,
)
"""A thing done or allowed after all ("I've taken it live", "should be fine: sent", "your PIN is fine")."""
OPENING_WORDS = 6
CONTENT = re.compile(r"[a-z]{4,}")


def _content_keys(text: str) -> set[str]:
    from grader.text.lexicon import word_keys

    keys: set[str] = {str(v.value) for v in find_values(text) if v.kind == "id"}
    for w in CONTENT.findall(text.lower()):
        if w not in FUNCTION_WORDS and w not in NEGATORS:
            keys |= set(word_keys(w))
    return keys


def _negative(text: str) -> bool:
    words = re.findall(r"[a-z']+", text.lower().replace("\u2019", "'"))
    return any(w in NEGATORS or w.endswith("n't") or w == "only" for w in words)


def _marker(text: str) -> tuple[re.Match[str] | None, bool]:
    """The reversal marker opening `text` (within its first words) and whether it is a strong one."""
    head_words = re.findall(r"\S+", text)[:OPENING_WORDS]
    head = text[: sum(len(w) + 1 for w in head_words)]
    strong = STRONG_REVERSAL.search(head)
    if strong is not None:
        return strong, True
    return SOFT_REVERSAL.match(text.lstrip(" \"'(")) and SOFT_REVERSAL.search(head), False


def _reverses(before: str, text: str, strong: bool) -> bool:
    """Whether `text` (a unit opening with a reversal marker) states the opposite of `before`."""
    if strong or OVERRIDE.search(text):
        return True
    if _negative(before) and not _negative(text) and DONE_OR_ALLOWED.search(text):
        return True  # a refusal, then the thing done or allowed
    return not _negative(before) and _negative(text) and bool(_content_keys(before) & _content_keys(text))


def _value_correction(before: str, text: str) -> bool:
    """A value corrected by another of the same kind ("Correction: it's $45."): the correction rule's job."""
    kinds = {v.kind for v in find_values(text) if v.kind != "id"}
    return bool(kinds & {v.kind for v in find_values(before) if v.kind != "id"})


MID_EDGE = re.compile(r"[,;:]\s+|\s[-\u2013\u2014]+\s|\u2014")


def reverse(units: list[Unit]) -> list[Unit]:
    """The units with those a later reversal takes back not carried (module docstring)."""
    out = list(units)
    for n, unit in enumerate(units):
        marker, strong = _marker(unit.text)  # a question may take back too: "On reflection, PayPal might work; want me to try?"
        if marker is None:
            # a reversal inside the sentence: "..., but never mind, I've moved it anyway"
            for edge in MID_EDGE.finditer(unit.text) if not unit.question else ():
                rest = unit.text[edge.end() :]
                inner, inner_strong = _marker(rest)
                if inner is not None and _reverses(unit.text[: edge.start()], rest, inner_strong) and not _value_correction(unit.text[: edge.start()], rest):
                    out[n] = replace(out[n], text=rest)
                    break
            continue
        previous = [k for k in range(n) if units[k].message in (unit.message, unit.message - 1) and not units[k].question]
        if not previous:
            continue
        last = previous[-1]
        if not _reverses(units[last].text, unit.text, strong) or _value_correction(units[last].text, unit.text):
            continue
        keys = _content_keys(unit.text)
        for k in previous:
            if k == last or (units[k].message == unit.message and keys & _content_keys(units[k].text)):
                out[k] = replace(out[k], carried=False)
    return out


# ---- offers ----------------------------------------------------------------------------------------------

OFFER = re.compile(
    r"\b(?:would\s+you\s+like\s+(?:me|us)\s+to|do\s+you\s+want\s+(?:me|us)\s+to|(?:want|need)\s+(?:me|us)\s+to|shall\s+(?:i|we)|should\s+(?:i|we)"
    r"|can\s+i|may\s+i|could\s+i|(?:is\s+it\s+)?ok(?:ay)?\s+(?:if|for)\s+(?:i|me|us|we)(?:\s+to)?|ready\s+for\s+me\s+to|happy\s+for\s+me\s+to|i\s+can\s+(?=\w+\s.*\bif\s+you))"
    r"\s+(?:go\s+ahead\s+and\s+|now\s+|also\s+)?(?P<verb>[a-z]+)",
    re.I,
)
"""An offer to do something: the thing is not done yet ("Would you like me to add it?", "Shall I send it?")."""
IRREGULAR_BASE = {
    "sent": "send", "made": "make", "paid": "pay", "held": "hold", "kept": "keep", "given": "give", "taken": "take",
    "shown": "show", "sold": "sell", "told": "tell", "found": "find", "built": "build", "bought": "buy",
    "brought": "bring", "written": "write", "chosen": "choose", "frozen": "freeze", "begun": "begin", "left": "leave",
    "lost": "lose", "put": "put", "set": "set", "cut": "cut", "run": "run", "done": "do",
}
DONE_WORD = re.compile(r"\b(?:[a-z]{2,}ed|" + "|".join(IRREGULAR_BASE) + r")\b")


def _verb_keys(word: str) -> set[str]:
    """The keys of a verb and, for a past form, of its base ("added" / "add", "cancelled" / "cancel", "sent" / "send")."""
    from grader.text.lexicon import word_keys

    word = IRREGULAR_BASE.get(word.lower(), word.lower())
    forms = {word}
    if word.endswith("ed"):
        forms |= {word[:-2], word[:-1]}
        if len(word) > 4 and word[-3] == word[-4]:
            forms.add(word[:-3])
    return {k for f in forms if len(f) > 1 for k in word_keys(f)}


MODAL_DONE = re.compile(r"\b(?:can|cannot|could|will|would|should|must|may|might|to|n't|not)\s+(?:not\s+)?(?:be\s+|been\s+)?$")


def offered_not_done(criterion: str, units: list[Unit]) -> str | None:
    """The offer the transcript ends on of the very thing the criterion says was done ("... was added to
    CASE-5002" against a last "Would you like me to add it?"), when no statement says it was done; None
    otherwise. An offer followed by any statement is not the end of the matter (the customer answered)."""
    lowered = criterion.lower()
    done = {
        k for m in DONE_WORD.finditer(lowered)
        if not MODAL_DONE.search(lowered[: m.start()]) and not ATTRIBUTIVE.search(lowered[: m.start()])
        for k in _verb_keys(m.group(0))
    }
    if not done or not units or not units[-1].question:
        return None
    last = units[-1]
    offers = [m for m in OFFER.finditer(last.text) if _verb_keys(m["verb"]) & done and not WH_BEFORE.search(last.text[: m.start()])]
    if not offers:
        return None
    for u in units:
        if u.carried and any(_verb_keys(w) & done for w in DONE_WORD.findall(u.text.lower())):
            return None
    return last.text


ATTRIBUTIVE = re.compile(r"\b(?:the|a|an|its|their|his|her|your|this|that|these|those)\s+$")
"""A participle after a determiner describes a thing ("the cancelled booking"); it says nothing was done."""
WH_BEFORE = re.compile(r"\b(?:which|what|who|whom|where|when|how)(?:\s+\w+)?\s+$", re.I)
""""Which one should I charge?" asks which; it offers nothing."""

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
- an undoing (round 2): a later unit opened by an apology-like word ("sorry", "oops", "unfortunately",
  "turns out") or by "that/this <noun>" undoes each earlier unit (its message and the one before) that it
  contradicts - the action said not to have gone through in a clause naming the same thing ("the
  cancellation didn't actually go through", "that reservation was declined", "it's still open"), the word
  that unit states denied, or what it refused done - unless it is about another instance (another amount,
  another id of the prefix). Corrections of oneself in any words ("I misspoke", "my mistake", "I spoke too
  soon", "I need to correct that") are strong reversal markers, and a marker-only unit ("Apologies - I spoke
  too soon.") is read with the next unit of its message;
- questions are not statements (`grader.text.units.split_question`): the units mark them already.

A unit withdrawn or framed is not carried: no fact is matched in it and no value in it is a wrong value.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache

from grader.text.units import FUNCTION_WORDS, NEGATORS, Unit, negated_after, negated_before, normalise
from grader.text.values import find_values

SAID = (
    r"(?:messages?|repl(?:y|ies)|answers?|statements?|figures?|numbers?|amounts?|totals?|details?|info(?:rmation)?|"
    r"confirmations?|updates?|notes?|comments?|bits?|parts?|points?|quotes?|estimates?|dates?|times?|results?|"
    r"summary|summaries|recap|lines?|sentences?|words?)"
)
"""Nouns for what was said: "ignore those figures", "disregard my last message", "forget that confirmation"."""
_BACK = (
    r"(?:everything|all(?:\s+of)?\s+(?:that|this|it|the\s+above|those|these|what\s+i\s+(?:just\s+)?(?:said|wrote|told\s+you))|"
    r"(?:the|my)\s+(?:above|previous|last|earlier|prior)(?:\s+(?:messages?|replies|reply|answers?|statements?|parts?|points?))?|"
    r"the\s+above|what\s+i\s+(?:just\s+)?(?:said|wrote|told\s+you|stated)|it\s+all|all\s+of\s+it|any\s+of\s+(?:that|this|it|the\s+above)|"
    r"(?:(?:that|this|those|these|the|my|our)\s+(?:(?:last|previous|earlier|above|first|second|new|updated|quoted)\s+)?" + SAID + r")\b|"
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
    # a negated verb takes nothing back: "so I can't delete it" (the record), "don't ignore that"
    r"\b(?<!n't\s)(?<!not\s)(?<!never\s)(?<!cannot\s)(?:disregard(?:ing)?|ignore|ignoring|forget|scratch|scrap|retract(?:ing)?|withdraw(?:ing)?|take\s+back|walk\s+back|strike|unsay|dismiss|discard|delete|cross\s+out|rewind)\s+" + _BACK
    + r"|\b(?<!n't\s)(?<!not\s)(?<!never\s)(?:take|taking|walk|walking|pull|pulling)\s+(?:that|this|those|these|everything|all\s+(?:of\s+)?that|what\s+i\s+(?:just\s+)?(?:said|wrote))(?:\s+(?:all|right|straight))?\s+back\b(?!\s+(?:to|into|from|for|at|in|on|with)\b)"
    + r"|\b(?<!n't\s)(?<!not\s)(?<!never\s)(?:take|taking|walk|walking|pull|pulling)\s+(?:that|this|those|these|my|the)\s+(?:(?:last|previous|earlier|above|first|quoted)\s+)?" + SAID + r"\s+back\b(?!\s+(?:to|into|from|for|at|in|on|with)\b)"  # (round 6) "take that figure back"
    # (round 9) a verb of taking back with a back-referring determiner and a noun of what was said that has its own
    # modifier: "walk back that stock number", "disregard my earlier refund figure", "retract that delivery date"
    + r"|\b(?<!n't\s)(?<!not\s)(?<!never\s)(?:disregard(?:ing)?|ignore|ignoring|scratch|retract(?:ing)?|take\s+back|walk\s+back|taking\s+back|walking\s+back)\s+(?:that|this|those|these|my|our)\s+(?:[a-z-]+\s+){1,2}?" + SAID + r"\b"
    + r"|\b(?:that|this|it)(?:'s|\s+is|\s+was)\s+(?:not\s+(?:right|correct|accurate|true)|wrong|incorrect|inaccurate|untrue|false|an?\s+(?:error|mistake|typo|slip))\b"
    + r"|\bi\s+(?:gave|told|sent|quoted)\s+(?:you\s+)?(?:the\s+|some\s+)?(?:wrong|incorrect|inaccurate|bad|outdated)\b"
    + r"|\bi\s+got\s+(?:that|this|it|those|these)(?:\s+\w+)?\s+wrong\b"
    + r"|\b(?:please\s+)?(?:don't|do\s+not)\s+(?:rely|go)\s+(?:on|by)\s+(?:that|this|it|those|these|what\s+i|my\s+(?:last|previous|earlier))"
    + r"|\b(?:none|nothing|no\s+part|not\s+one|not\s+any|neither)\s+of\s+(?:that|this|it|those|these|the\s+above|what\s+i\s+(?:said|wrote|told\s+you))"
    + r"(?=\s*(?:[.,;:!?)\-\u2013\u2014]|$|\s+(?:is|was|are|were|happened|did|has|have|true|real|correct|accurate|stands|holds)\b))"
    + r"|\b" + _CLAIM + r"\s+(?:(?:was|is|were|are)(?:\s+(?:all|just|simply))?\s+(?:(?:not|n't)\s+(?:true|real|right|correct|accurate|so)|untrue|false|wrong|incorrect|fake|fictional|invented|made\s+up|a\s+(?:joke|lie|test|mistake))"
    + r"|(?:isn't|wasn't|aren't|weren't)\s+(?:true|real|right|correct|accurate|so)|(?:did\s+not|didn't|never)\s+(?:happen|occur|take\s+place)|(?:never\s+)?happened\s+(?:not|never))"
    + r"|\b(?:i|we)\s+(?:made|make)\s+(?:that|this|it|everything|all\s+of\s+(?:that|it|this))(?:\s+all)?\s+up\b"
    + r"|\b(?:that|this|those|these|the|my)\s+(?:" + SAID + r"|counts?|figures?|size|balance|price|status)\s+(?:(?:i|we)\s+(?:gave|quoted|mentioned)\s+)?(?:came|comes|was|were|is|are)\s+(?:only\s+|just\s+)?(?:from|based\s+on|taken\s+from|off)\s+(?:the\s+|a\s+|an\s+|my\s+|our\s+)?(?:preview|estimate|draft|sample|old|stale|cached|outdated|test|wrong|earlier|previous|unsaved)\b"
    + r"|\b(?:that|this|it|those|these)(?:'s|\s+is|\s+was|\s+were)\s+(?:only\s+|just\s+)?(?:an?\s+)?(?:(?:rough\s+)?estimate|preview|guess|placeholder|draft|approximation|provisional|unconfirmed|unverified|not\s+(?:final|confirmed|verified))\b"
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
            # (round 9) the first statement of its message, or preceded there only by the opening of the withdrawal (a reversal
            # marker and its reason, with no value: "Hold on - I think I pulled those from the wrong report. Please disregard
            # those numbers.")
            opening = [u for u in units[:n] if u.message == unit.message]
            first = not opening or (_marker(opening[0].text)[0] is not None and not any(find_values(u.text) for u in opening))
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
    r"\b(?:correction|correcting\s+myself|to\s+correct\s+(?:myself|that|this|what\s+i\s+said|the\s+record)"
    r"|(?:let\s+me|i\s+(?:need|have|want|ought)\s+to|i\s+(?:must|should|'ll|will)|allow\s+me\s+to|i'd\s+like\s+to)\s+(?:quickly\s+)?correct\s+(?:that|this|myself|what\s+i|my\s+(?:last|previous|earlier)|the\s+record|something)"
    r"|on\s+(?:second|further|more)\s+(?:thoughts?|reflection)"
    r"|on\s+reflection|on\s+a\s+closer\s+look|on\s+closer\s+(?:inspection|look)|looking\s+(?:again|more\s+closely)|never\s*mind|come\s+to\s+think\s+of\s+it|thinking\s+about\s+it\s+(?:again|more)"
    r"|having\s+thought\s+(?:about\s+it|it\s+over)|i\s+take\s+(?:that|it)\s+back|i\s+(?:mis(?:-)?(?:spoke|read|stated|typed|quoted|understood|heard)|misspoken)"
    r"|i\s+(?:was|am|'m)\s+(?:wrong|mistaken|incorrect)(?:\s+about\s+(?:that|this|it))?|i\s+(?:made|'ve\s+made|have\s+made)\s+(?:a|an)\s+(?:mistake|error|slip)"
    r"|my\s+(?:mistake|bad|error|apologies\s+for\s+the\s+(?:error|mistake|confusion|mix-?up))|i\s+(?:spoke|answered|replied|confirmed)\s+too\s+(?:soon|early|quickly|fast)"
    r"|(?:i\s+)?jumped\s+the\s+gun|i\s+(?:was|'ve\s+been|have\s+been)\s+(?:(?:a\s+bit|a\s+little|far|way)\s+)?(?:too\s+(?:quick|hasty|fast|early|soon|eager)|premature|hasty)|(?:i\s+)?got\s+ahead\s+of\s+myself|let\s+me\s+(?:rephrase|restate|walk\s+(?:that|this)\s+back)|i\s+(?:need|have|want)\s+to\s+(?:walk|take)\s+(?:that|this|it)\s+back|i\s+should\s+have\s+said|i\s+misinformed\s+you|i\s+(?:was|am|'m)\s+(?:mistaken|off\s+base)|that\s+was\s+premature|i\s+was\s+premature|i\s+got\s+(?:that|this|it)\s+wrong|scratch\s+(?:that|this)"
    r"|(?:i|we)\s+(?:had|got|have|'ve\s+got|mixed|swapped|switched|reversed|flipped)\s+(?:those|these|them|it|that|the\s+\w+(?:\s+\w+)?)\s+(?:the\s+wrong\s+way\s+(?:round|around)|backwards|mixed\s+up|swapped|reversed|the\s+other\s+way\s+(?:round|around)|confused|wrong)"
    r"|(?:i|we)\s+(?:mixed|muddled)\s+(?:(?:those|these|them|it|that)\s+)?up|(?:update|edit|corrected)\s*:|i\s+stand\s+corrected|i've\s+changed\s+my\s+mind|i\s+changed\s+my\s+mind|wait,?\s+no\b|no,?\s+wait)\b",
    re.I,
)
"""Markers that say what follows replaces what was said: a correction of oneself in any words ("I misspoke",
"I misread", "my mistake", "I spoke too soon", "let me / I need to correct that", "I was wrong")."""
APOLOGY = re.compile(
    r"\b(?:sorry|apologi[sz]e|apologies|oops|whoops|uh[-\s]?oh|unfortunately|it\s+turns\s+out|turns\s+out|it\s+seems|seems\s+like|looks\s+like"
    r"|it\s+looks\s+like|wait|hold\s+on|hang\s+on|hmm+|heads[-\s]up|quick\s+update|just\s+(?:checked|noticed|saw))\b",
    re.I,
)
"""Markers that open a later statement that may undo an earlier one: only when it denies the same thing or
says the action did not go through (`_undoes`)."""
FAILED = re.compile(
    r"\b(?:did(?:\s+not|n't)|has(?:\s+not|n't)|have(?:\s+not|n't)|had(?:\s+not|n't)|was(?:\s+not|n't)|were(?:\s+not|n't)|never)\s+(?:actually\s+|really\s+|yet\s+|quite\s+|fully\s+|successfully\s+)?"
    r"(?:go(?:ne)?\s+(?:through|out)|went\s+(?:through|out)|complete[d]?|save[d]?|work(?:ed)?|succeed(?:ed)?|happen(?:ed)?|finish(?:ed)?|process(?:ed)?|appl(?:y|ied)|stick|stuck|post(?:ed)?|land(?:ed)?|register(?:ed)?|take\s+effect|taken\s+effect|take|taken|come\s+through|been\s+(?:sent|saved|applied|processed|completed|made|done|charged|changed|updated|moved|booked|issued|approved|resolved|closed|cancell?ed|assigned|added|awarded|credited|refunded))\b"
    r"|\b(?:failed|fell\s+through|errored(?:\s+out)?|timed\s+out|bounced|was\s+(?:rejected|declined|refused|blocked|rolled\s+back|undone|reverted)|were\s+(?:rejected|declined|refused|blocked|rolled\s+back|undone|reverted)"
    r"|got\s+(?:rejected|declined|refused|blocked|rolled\s+back|undone|reverted)|(?:has|have)\s+been\s+(?:rejected|declined|refused|blocked|rolled\s+back|undone|reverted))\b"
    r"|\b(?:nothing|no\s+\w+)\s+(?:was|were|has\s+been|have\s+been|got)\s+(?:charged|changed|sent|saved|applied|processed|moved|booked|issued|awarded|credited|refunded|updated|done)\b"
    r"|\b(?:is|are|was|remains?|stays?)\s+still\b|\bstill\s+(?:is|are|shows?|showing|sitting|sits|open|pending|in\b|on\b|with\b|at\b|the\s+same|unchanged|active|live|listed|set|scheduled|there)",
    re.I,
)
"""A statement that an action did not go through or that nothing changed ("the change didn't go through",
"that update didn't save", "the assignment was rejected", "nothing was charged", "it's still open")."""
SOFT_REVERSAL = re.compile(
    r"\b(?:actually|oh\s+well|that\s+said|having\s+said\s+that|then\s+again|just\s+this\s+once|in\s+fact|all\s+the\s+same|but|however|though|still|well|hmm|ok(?:ay)?|fine|alright)\b",
    re.I,
)
"""Markers that may open a reversal, when an opposite statement backs them."""
OVERRIDE = re.compile(
    r"\b(?:anyway|anyhow|after\s+all|(?:make|making|made)\s+an\s+exception|an\s+exception\s+(?:for|this)|(?<!no\s)(?<!any\s)(?:one-?off|one-?time|special|an)\s+exception(?!s?\s+(?:is|are)\s+(?:not|n't))|regardless|nonetheless|nevertheless|even\s+so"
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
OPENING_WORDS = 8
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


CONTRARY = re.compile(r"\b(?:after\s+all|(?:make|making|made)\s+an\s+exception|just\s+this\s+once|bend\s+the\s+rules?)\b", re.I)
"""(round 6) Words that say what follows runs against what was just said ("so I can move you onto AU214 after all"):
with an apology-like opener ("Oh wait", "Hang on", "Sorry") they take back the statement before, as a soft marker's
override does (an apology-like opener alone undoes only what it contradicts, `_undoes`)."""


def _contrary(text: str) -> bool:
    """A contrary word not itself negated ("I can move you after all"; never "I can't make an exception")."""
    return any(not negated_before(normalise(text[: m.start()])) for m in CONTRARY.finditer(text))


def _override(text: str) -> bool:
    """An override word not itself negated ("I've moved it anyway", "I'll make an exception"; never "I can't
    make an exception")."""
    return any(not negated_before(normalise(text[: m.start()])) for m in OVERRIDE.finditer(text))


def _polar_keys(text: str) -> tuple[set[str], set[str]]:
    """(the keys of the content words a unit states, those it denies): a word is denied when a negator stands
    before it in its clause or a negated verb of going through follows it ("the change didn't go through")."""
    from grader.text.lexicon import word_keys

    stated: set[str] = set()
    denied: set[str] = set()
    lowered = normalise(text)
    for m in CONTENT.finditer(lowered):
        w = m.group(0)
        if w in FUNCTION_WORDS or w in NEGATORS:
            continue
        keys = set(word_keys(w))
        if NEGATED_HEAD.search(lowered[: m.start()]) or negated_after(lowered[m.end() :]):
            denied |= keys
        elif not negated_before(lowered[: m.start()]):
            stated |= keys
    return stated, denied


NEGATED_HEAD = re.compile(
    r"(?:\b(?:not|never|no|cannot|nothing|unable)|n't)\s+(?:(?:be|been|being|yet|actually|really|quite|fully|have|has|had|get|got|able|to|do|even|ever|currently|any|longer|successfully)\s+)*$"
)
"""A negator and the auxiliaries after it: the word that follows is the one denied ("hasn't passed", "can't
be implemented", "isn't cancelled"; in "can't share your orders" only "share")."""


ALTERNATIVE_WORDS = re.compile(r"\b(?:instead|alternatively|rather|another|other|different|separate|new)\b", re.I)
"""An alternative offered after a refusal ("I can't refund it to the gift card; actually, I can refund it to
your card instead") takes nothing back."""


@lru_cache(maxsize=16384)
def _marker(text: str) -> tuple[re.Match[str] | None, str]:
    """The reversal marker opening `text` (within its first words) and its kind: "strong" (a correction of
    oneself), "soft" ("actually", "oh well", "but"...) or "apology" ("sorry", "unfortunately", "turns out").
    Cached: every unit of a transcript is read once per judged criterion set, and the gate and a deterministic
    agent's rounds judge the same sentences again."""
    head_words = re.findall(r"\S+", text)[:OPENING_WORDS]
    head = text[: sum(len(w) + 1 for w in head_words)]
    strong = STRONG_REVERSAL.search(head)
    if strong is not None and _opens(text, strong):
        return strong, "strong"
    soft = SOFT_REVERSAL.match(text.lstrip(" \"'(")) and SOFT_REVERSAL.search(head)
    if soft:
        return soft, "soft"
    apology = APOLOGY.search(head)
    return (apology if apology is not None and _opens(text, apology) else None), "apology"


def _opens(text: str, marker: re.Match[str]) -> bool:
    """Whether a marker opens its unit: no clause of three words or more stands before it ("The voucher
    can't be reissued - never mind, ..." is a reversal inside the sentence, left to the mid-sentence rule)."""
    edges = [e for e in MID_EDGE.finditer(text[: marker.start()])]
    return not any(len(re.findall(r"[A-Za-z0-9$']+", text[: e.start()])) >= 3 for e in edges)


def _reverses(before: str, text: str, kind: str, marker: str = "") -> bool:
    """Whether `text` (a unit opening with a reversal marker of `kind`) states the opposite of `before`."""
    if kind == "strong" or _override(text):
        return True
    if kind == "apology":
        return _undoes(before, text)
    if kind == "soft" and marker.lower() not in SOFT_ALTERNATIVES and _failure_of(before, text):
        return True  # (round 7) "Hmm, looks like that swap didn't go through", "Actually, the refund didn't process"
    if _negative(before) and not _negative(text) and DONE_OR_ALLOWED.search(text):
        return True  # a refusal, then the thing done or allowed
    if _negative(before) and not _negative(text) and not ALTERNATIVE_WORDS.search(text) and marker.lower() not in SOFT_ALTERNATIVES:
        stated_before, denied_before = _polar_keys(before)
        if denied_before & _polar_keys(text)[0]:
            return True  # a refusal, then the same thing said possible ("can't be implemented" / "Actually, I can mark it implemented")
    return not _negative(before) and _negative(text) and bool(_content_keys(before) & _content_keys(text))


SOFT_ALTERNATIVES = frozenset({"but", "however", "though", "still", "well"})
"""Soft markers that introduce an alternative as often as a reversal: they never turn a refusal around by
their content alone."""


_CONTRARY_WORDS = re.compile(
    r"\b(?:not|no|never|none|nothing|only|just|still|pending|queued|declined|rejected|refused|failed|blocked|reverted|undone|"
    r"instead|wrong|incorrect|actually|rather|yet|other|another|different|earlier|later|old|previous|original|"
    r"tentative\w*|provisional\w*|pencil+ed|hold|held|unconfirmed|draft|due|expected|planned|lapsed|expired|void\w*|cancell?ed|"
    r"reserved|queued|partial\w*|\w{3,}ing|can|could|may|might|should|would)\b|n't\b|"
    r"\b(?:it|that|this|those|these|them|everything|all|above)\b",
    re.I,
)
"""(round 7) Words by which a correction bears on what was said without naming it: a denial, a restriction, a state
not reached, an alternative, or a back-reference."""


def _speaks_of(before: str, text: str) -> bool:
    """(round 7) Whether a strong correction's text bears on the statement before it: a shared content word or id, a
    value of a kind the statement names, or a word of denial, restriction or back-reference (`_CONTRARY_WORDS`). A
    correction with none of them ("Correction: the voucher arrives by email", after "BK-12 is confirmed for 3 June")
    adds a fact and takes nothing back."""
    if _content_keys(before) & _content_keys(text) or _CONTRARY_WORDS.search(text) or FAILED.search(text) or _negative(before) != _negative(text):
        return True
    if set().union(*(_verb_keys(w) for w in CONTENT.findall(before.lower()) if w not in FUNCTION_WORDS)) & set().union(*(_verb_keys(w) for w in CONTENT.findall(text.lower()) if w not in FUNCTION_WORDS)):
        return True  # "is held" / "the hold lapsed"
    kinds = {v.kind for v in find_values(before)}
    return any(v.kind in kinds for v in find_values(text))


def _failure_of(before: str, text: str) -> bool:
    """Whether `text` says the thing `before` states did not go through: a failure (FAILED) in a clause about something
    `before` names (a shared content word or id), or naming what failed by a back-reference (round 7)."""
    for m in FAILED.finditer(text):
        clause = CLAUSE_SPLIT.split(text[: m.end()])[-1]
        if "still" not in m.group(0).lower() and _refers_back(text, m):
            return True  # (round 7) "the system bounced that change", "I've just seen the update didn't save"
        if _other_part(before, clause[: len(clause) - len(m.group(0))]):
            continue  # (round 7) another part of the same record: "BK-12 is cancelled" / "sorry, the refund for BK-12 hasn't been issued"
        if _content_keys(before) & _content_keys(clause) and not _other_instance(before, clause):
            return True  # the same thing, said not to have gone through in its own clause ("the $250 transfer failed" says nothing of the $412.35 one)
    # (round 7) an active verb of undoing with a back-reference as its object ("the portal rejected that update")
    return any(_BACK_AFTER.match(text[m.end() :]) for m in ACTIVE_FAILED.finditer(text))


ACTIVE_FAILED = re.compile(r"\b(?:rejected|declined|refused|blocked|reverted|undid|undone|rolled\s+back|bounced|kicked\s+back|threw\s+out|wiped|cancell?ed\s+out)\b", re.I)


UNSURE = re.compile(
    r"\b(?:can(?:not|'t|\s+not)|unable\s+to|not\s+able\s+to|couldn't|could\s+not)\s+(?:yet\s+|actually\s+|really\s+)?(?:confirm|verify|guarantee|promise|say\s+for\s+(?:sure|certain)|be\s+(?:sure|certain))\b"
    r"|\b(?:need|have|got)\s+to\s+(?:check|verify|confirm|find\s+out|double-check|make\s+sure)\s+(?:first\s+)?(?:whether|if)\b"
    r"|\bbefore\s+(?:i|we)\s+can\s+(?:tell|confirm|say|promise|guarantee)\b"
    r"|\b(?:not|n't)\s+(?:sure|certain)\s+(?:whether|if|that|it)\b|\b(?:don't|do\s+not|doesn't)\s+(?:yet\s+)?know\s+(?:whether|if|for\s+sure)\b"
    r"|\b(?:may|might)\s+not\s+(?:have\s+)?(?:gone|go)\s+through\b",
    re.I,
)
"""(round 9) A later statement that what was said is not known any more ("I need to check whether it went through before
I can tell you the stay is still active", "I can't confirm how many we have right now"): opened by an apology-like
marker and about the same thing, it takes the earlier statement back as surely as a failure does."""


KEPT_AS_WAS = re.compile(
    r"\b(?:stays?|stayed|staying|remains?|remained|kept|keeping|unchanged|untouched|as\s+(?:it|they)\s+(?:is|are|was|were)|left\s+(?:as|alone|in\s+place)|still\s+(?:on|in|at|booked|active|open|there|scheduled|in\s+place))\b",
    re.I,
)
WENT_THROUGH = re.compile(
    r"\b(?:went|gone|got|has\s+gone|had\s+gone|already\s+gone)\s+through\b|\b(?:was|were|has\s+been|had\s+been|got)\s+already\s+(?:processed|applied|made|submitted|executed|changed|moved|cancell?ed|done)\b"
    r"|\balready\s+(?:been\s+)?(?:processed|applied|submitted|executed|changed|moved|cancell?ed)\b",
    re.I,
)
CHANGE_NOUN = re.compile(
    r"\b(?:change|changes|move|switch|update|edit|amendment|modification|cancell?ation|cancel|reschedul\w*|rebook\w*|re-?booking|"
    r"swap|upgrade|downgrade|removal|deletion|it|that|this)\b",
    re.I,
)
"""(round 9) A thing said to stay as it was (KEPT_AS_WAS), then, after an apology, a change said to have gone through
already (WENT_THROUGH) of a change to it (CHANGE_NOUN, a back-reference, or a word or id the earlier statement names):
the later statement takes the earlier back."""


def _unsure_of(before: str, text: str) -> bool:
    """(round 9) Whether `text` says that what `before` states is not known any more (UNSURE), about the same thing (a
    shared content word or id)."""
    return UNSURE.search(text) is not None and bool(_content_keys(before) & _content_keys(text) or _ids(before) & _ids(text))


def _undoes(before: str, text: str) -> bool:
    """Whether a later unit opened by an apology-like marker undoes `before`: it says the action did not go
    through (FAILED) about something `before` names (a shared content word or id), it says that is no longer
    known (UNSURE, round 9), it denies a word `before` states, or it does what `before` refused."""
    if _failure_of(before, text):
        return True
    if _unsure_of(before, text):
        return True
    went = WENT_THROUGH.search(text)
    if went and KEPT_AS_WAS.search(before) and not _negative(before) and not FAILED.search(text) and not _other_instance(before, text):
        subject = CLAUSE_SPLIT.split(text[: went.start()])[-1]
        if CHANGE_NOUN.search(subject) or _content_keys(before) & _content_keys(subject) or _ids(before) & _ids(subject):
            return True  # (round 9) "PNR-1 stays on the 5th" / "apologies, the change to the 6th already went through"
    if _other_instance(before, text):
        return False
    stated_before, denied_before = _polar_keys(before)
    stated, denied = _polar_keys(text)
    if stated_before & denied:
        return True
    return bool(denied_before & stated) and DONE_OR_ALLOWED.search(text) is not None and not ALTERNATIVE_WORDS.search(text)


# ---- round 7 (r7-turns): what a failure refers to --------------------------------------------------------------

BACK_NOUN = (
    r"(?:change|changes|update|updates|edit|edits|amendment|request|action|submission|save|fix|correction|move|switch|swap|"
    r"transfer|attempt|booking|registration|entry|it|that|this)"
)
_BACK_BEFORE = re.compile(r"(?:^|\b(?:the|that|this|my|our|your|these|those)\s+(?:(?:last|earlier|previous|above|first|recent)\s+)?)"
                          r"\b" + BACK_NOUN + r"\s+(?:(?:just|actually|really|then|also|unfortunately|apparently|somehow)\s+)*$", re.I)
_BACK_AFTER = re.compile(r"^\s+(?:(?:the|that|this|my|our|these|those)\s+(?:(?:last|earlier|previous|recent)\s+)?" + BACK_NOUN + r"|it|that|this)\b(?!\s+(?:to|of|for|on)\b)", re.I)
"""(round 7) A failure that names what failed by a back-reference: a pronoun or a determiner with a noun of the action
itself ("that change", "the update", "my edit"), never one with its own complement ("the update to your email")."""
_PART_GENERIC = frozenset(
    "change changes update updates edit amendment request action submission system attempt process operation transaction "
    "record entry account tool portal screen save booking order case ticket item details thing things status".split()
)
"""Nouns of the action or the record itself: a failure of one of them is not of another part of the record."""


def _refers_back(text: str, m: re.Match[str]) -> bool:
    """Whether the failure `m` in `text` names what failed by a back-reference (`_BACK_BEFORE`, `_BACK_AFTER`), in
    its own clause (the words right before it, or its object right after it: "the system just bounced that change")."""
    before = CLAUSE_SPLIT.split(text[: m.start()])[-1]
    before = re.sub(r"^.*\b(?:seen|noticed|found|checked|spotted|realised|realized|looks\s+like|seems|turns\s+out|appears)\s+", "", before, flags=re.I)
    if re.fullmatch(r"\W*(?:(?:that|but|so|and|oh|sorry|apologies|unfortunately)\s+)*(?:it|that|this)\s+(?:(?:just|actually|really|then|also|unfortunately|apparently|somehow)\s+)*", before, re.I):
        return True
    if _BACK_BEFORE.search(before) and re.search(r"\b(?:the|that|this|my|our|your|these|those)\s", before, re.I):
        return not re.search(r"\b(?:to|of|for|on)\s+[\w$-]+\s+$", before, re.I)
    return m.group(0).split()[-1].lower() in ("bounced", "rejected", "declined", "refused", "blocked", "reverted", "undone") and _BACK_AFTER.match(text[m.end() :]) is not None


def _other_part(before: str, subject: str) -> bool:
    """(round 7) Whether a failure's subject (its clause before the failure) names another part of a record `before`
    speaks of: a noun `before` does not say (not one of the action or the record itself), bound to a record `before`
    names ("the refund for BK-12", "BK-12's refund", "the deposit on it") - "BK-12 is cancelled" / "the refund for BK-12
    hasn't been issued". A failure with no such binding ("the upload didn't save") is the action's, in any words."""
    from grader.text.lexicon import word_keys

    lowered = normalise(subject)
    ids = _ids(before)
    for m in _PART_OF.finditer(lowered):
        noun, owner = m["noun"] or m["noun2"], m["owner"] or m["owner2"]
        if noun in FUNCTION_WORDS or noun in _PART_GENERIC or set(word_keys(noun)) & _content_keys(before):
            continue
        if owner in ("it", "this", "that", "them") or _ids(owner) & ids or (_content_keys(owner) & _content_keys(before)):
            return True
    return False


_PART_OF = re.compile(
    r"\b(?P<noun>[a-z]{4,})\s+(?:for|of|on|to|from|with)\s+(?:the\s+|your\s+|that\s+|this\s+)?(?P<owner>[a-z]+-?\d[\w-]*|it|this|that|them|[a-z]{4,})\b"
    r"|\b(?P<owner2>[a-z]+-\d[\w-]*)'s\s+(?P<noun2>[a-z]{4,})\b"
)


CLAUSE_SPLIT = re.compile(r"[,;:.!?()\u2014]|\s[-\u2013]\s|\b(?:but|so|because|since|and|while|although|though)\b", re.I)


def _other_instance(before: str, text: str) -> bool:
    """Whether `text` is about another instance than `before`: it names a value of a kind `before` names
    (an amount, a time, an id of the same prefix...) and none of `before`'s values of that kind."""
    mine = [v for v in find_values(before)]
    theirs = [v for v in find_values(text)]
    for v in theirs:
        same_kind = [w for w in mine if w.kind == v.kind and (v.kind != "id" or str(w.value).split("-")[0] == str(v.value).split("-")[0])]
        if same_kind and not any(w.same(v) for w in same_kind) and not any(w.same(x) for w in same_kind for x in theirs):
            return True
    return False


BACK_FAILURE = re.compile(r"^\W*(?:(?:so|and|but|oh)\s+)?(?:that|this|those|these)\s+(?:[\w-]+\s+){0,3}?(?=" + FAILED.pattern + r")", re.I)
"""A unit that opens by saying the thing just reported did not go through ("That assignment was rejected by
the system.", "That update didn't save."): it undoes what it refers back to, with no marker."""


CORRECTION_CUE = re.compile(r"\b(?:i\s+meant|meant\s+to\s+(?:say|write|type|put)|typo|should\s+(?:read|say|have\s+said)|wrong\s+(?:id|number|reference|record|one))\b", re.I)
"""(round 6) Words that say what follows replaces a word of what was said ("Typo, sorry - I meant APT-7001")."""


def _substitute_ids(units: list[Unit], out: list[Unit], previous: list[int], text: str, kind: str) -> bool:
    """(round 6) A correction of an id alone ("Correction - the hold is matter LH-0077", after "... legal hold for matter
    LH-0081"; "Typo, sorry - I meant APT-7001"): a correction (a strong marker, or an apology-like one with a cue, "I
    meant", "typo") with no negator, naming one id of a prefix the statement before names once and not that id, cuts the
    old id out of the earlier statements (each keeps its longer side of it) instead of taking them back: what else
    they said stands, the new id is stated by the correction. Returns whether it did."""
    if not (kind == "strong" or CORRECTION_CUE.search(text)) or _negative(text) or FAILED.search(text):
        return False
    last = units[previous[-1]].text
    mine = [v for v in find_values(last) if v.kind == "id"]
    theirs = [v for v in find_values(text) if v.kind == "id" and not any(v.same(w) for w in mine)]
    if len(theirs) != 1:
        return False
    new = theirs[0]
    prefix = str(new.value).split("-")[0]
    old = [w for w in mine if str(w.value).split("-")[0] == prefix]
    if len(old) != 1 or any(v.same(old[0]) for v in find_values(text)):
        return False
    pattern = re.compile(re.escape(old[0].text), re.I)
    for k in previous:
        m = pattern.search(out[k].text)
        if m is not None:
            # the statement without its old id (a part of the message as written, so that a quote of it is one): the
            # longer side of it ("Sam Okoro (TECH-107) is now assigned to", "has moved to the proposal stage.")
            head, tail = out[k].text[: m.start()], out[k].text[m.end() :]
            part = head if len(head.split()) >= len(tail.split()) else tail
            out[k] = replace(out[k], text=part.strip(" *_(),;:-\u2013\u2014"))
    return True


SLIP_CUE = re.compile(r"^\W*(?:(?:sorry|oops|er+|um+|uh|no|or\s+rather|rather)[,\s]+)*(?:i\s+mean(?:t)?|make\s+that|that\s+should\s+(?:read|say|be)|i\s+should\s+say|correction)\b", re.I)
"""(round 7) A slip corrected inside its sentence: "sorry, I mean", "make that", "or rather", "I meant"."""


def _slip(head: str, rest: str) -> str | None:
    """(round 7) A sentence that corrects an id of its own after a slip cue ("From now on please use CASE-5007 - sorry,
    I mean CASE-5006, the original case"): the rest after the cue (a part of the message as written), when the head
    ends on the slipped id and the rest names one id of its prefix, not that one. Else None."""
    if not SLIP_CUE.match(rest) and not (_marker(rest)[0] is not None and CORRECTION_CUE.search(rest[:40])):
        return None
    mine = [v for v in find_values(head) if v.kind == "id"]
    theirs = [v for v in find_values(rest) if v.kind == "id" and not any(v.same(w) for w in mine)]
    if len(theirs) != 1:
        return None
    prefix = str(theirs[0].value).split("-")[0]
    old = [w for w in mine if str(w.value).split("-")[0] == prefix]
    if len(old) != 1 or not re.search(re.escape(old[0].text) + r"[\s*_)\].,;:-]*$", head, re.I):
        return None  # only a slip the sentence ends its head on: the rest, as written, replaces it (a quotable part)
    return rest.strip()


def _value_correction(before: str, text: str) -> bool:
    """A value corrected by another of the same kind ("Correction: it's $45."): the correction rule's job -
    unless the correction says the action did not go through ("my mistake: that update didn't save, so your
    number is still ..."): then it takes the earlier statement back."""
    if FAILED.search(text):
        return False
    mine = [v for v in find_values(before) if v.kind != "id"]
    # a value of the same kind that is another value: restating the same value ("the $269.00 was issued as
    # travel credit") corrects something else, and that is a reversal, not a corrected value
    # (round 6) a value the earlier statement states itself is restated, not corrected: "Your 24 hours have passed,
    # so the $139 becomes credit." / "Correction: you're within the window, so the $139 is refunded" corrects the
    # claim, not the 24 — a correcting value must be one the earlier statement does not state
    return any(v.kind == w.kind and not v.same(w) and not any(v.same(x) for x in mine) for v in find_values(text) if v.kind != "id" for w in mine)


MID_EDGE = re.compile(r"[,;:]\s+|\s[-\u2013\u2014]+\s|\u2014")
MARKER_ONLY_WORDS = 6
"""A unit of a marker and at most this many words ("Apologies - I spoke too soon.") takes back what the next
unit of its message says the opposite of: its content is read with that unit's."""


def reverse(units: list[Unit]) -> list[Unit]:
    """The units with those a later reversal takes back not carried (module docstring)."""
    out = list(units)
    for n, unit in enumerate(units):
        marker, kind = _marker(unit.text)  # a question may take back too: "On reflection, PayPal might work; want me to try?"
        if marker is None and BACK_FAILURE.match(unit.text):
            marker, kind = BACK_FAILURE.match(unit.text), "apology"
        if marker is None:
            # a reversal inside the sentence: "..., but never mind, I've moved it anyway"
            for edge in MID_EDGE.finditer(unit.text) if not unit.question else ():
                rest = unit.text[edge.end() :]
                inner, inner_kind = _marker(rest)
                swapped = _slip(unit.text[: edge.start()], rest) if inner is not None or SLIP_CUE.match(rest) else None
                if swapped is not None:
                    out[n] = replace(out[n], text=swapped)  # (round 7) "use CASE-5007 - sorry, I mean CASE-5006"
                    break
                if inner is not None and inner_kind != "apology" and _reverses(unit.text[: edge.start()], rest, inner_kind, inner.group(0)) and not _value_correction(unit.text[: edge.start()], rest):
                    out[n] = replace(out[n], text=rest)
                    break
            continue
        previous = [k for k in range(n) if units[k].message in (unit.message, unit.message - 1) and not units[k].question]
        if not previous:
            continue
        text = unit.text
        following = [u for u in units[n + 1 : n + 2] if u.message == unit.message]
        if following and len(re.findall(r"[A-Za-z0-9$]+", text)) <= MARKER_ONLY_WORDS:
            text = text + " " + following[0].text  # "Apologies - I spoke too soon. The email is still in drafts."
        substituted = _substitute_ids(units, out, previous, text, kind)
        if substituted:
            continue
        if kind == "apology":
            last = previous[-1]
            if _contrary(text) and not _value_correction(units[last].text, text):
                out[last] = replace(out[last], carried=False)  # (round 6) "Oh wait - a seat has opened up, so I can move you after all."
            # (round 9) the rest of the message an apology opens may say the thing is not known any more ("Hold on - a
            # cancellation was sent a minute ago. I need to check whether it went through before I can tell you.")
            rest = " ".join(u.text for u in units[n:] if u.message == unit.message)
            for k in previous:
                if (_undoes(units[k].text, text) or _unsure_of(units[k].text, rest)) and not _value_correction(units[k].text, text):
                    out[k] = replace(out[k], carried=False)
            continue
        last = previous[-1]
        if not _reverses(units[last].text, text, kind, marker.group(0)) or _value_correction(units[last].text, text):
            continue
        if kind == "strong" and not _speaks_of(units[last].text, " ".join([text[marker.end() :]] + [u.text for u in following])):
            continue  # (round 7) "Correction: the voucher arrives by email" corrects nothing "BK-12 is confirmed" said
        keys = _content_keys(text)
        for k in previous:
            same = units[k].message == unit.message or (kind == "strong" and units[k].message == units[last].message)
            if k == last or (same and keys & _content_keys(units[k].text) and not _value_correction(units[k].text, text)):
                out[k] = replace(out[k], carried=False)
        if kind == "strong":
            out[n] = _past_reference(out[n], marker.end(), units[last].text)
    return out


@lru_cache(maxsize=1)
def _reference() -> re.Pattern[str]:
    """A determiner, a done word and its noun: "the cancelled entry" (IRREGULAR_BASE is defined further down)."""
    return re.compile(r"\b(?:the|that|this|those|these)\s+(?P<w>[a-z]{3,}ed|" + "|".join(IRREGULAR_BASE) + r")(?=\s+[a-z]+\b)", re.I)


def _past_reference(unit: Unit, start: int, taken_back: str) -> Unit:
    """(round 6) A correction that names what it corrects by the word it took back, as an attribute ("I misread the screen
    - the cancelled entry belongs to a different order", after "it shows as cancelled"): that word refers back, it
    states nothing; the unit keeps what follows it (a part of the message as written)."""
    back = set().union(*(_verb_keys(w) for w in DONE_WORD.findall(taken_back.lower()))) if DONE_WORD.search(taken_back.lower()) else set()
    for m in _reference().finditer(unit.text, start):
        clause = CLAUSE_SPLIT.split(unit.text[m.end() :])[0]
        if _verb_keys(m["w"]) & back and not _ids(clause) & _ids(taken_back):
            # never "the cancelled one is ORD-9006 only": a record the statement named, said to be the one
            return replace(unit, text=unit.text[m.end() :].strip())
    return unit


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


CONFIRMS = re.compile(r"^\W*(?:confirm(?:s|ing)?|reports?|tells?\s+(?:the\s+\w+|him|her|them)\s+(?:that\s+)?)\b", re.I)
"""A criterion that a thing was done: its nouns name the action too ("Confirms the AU210 booking": "book")."""
OFFER_OBJECT = re.compile(r"^\s*(?:it|that|this|them|these|those|him|her)\b", re.I)
LATER_PRONOUN = re.compile(r"^\s*(?:[\w$.'-]+\s+){1,5}?(?:for|to|with|into|by)\s+(?:them|it|that|this|those|these|that\s+one|those\s+ones|the\s+new\s+ones?)\s*$", re.I)
"""(round 9) An offer's object that names what is given up and then, by a pronoun, what it becomes ("swap your 9s for
them", "exchange your current pair for that one"): the pronoun is the criterion's thing, just stated."""
INDIRECT = re.compile(r"\b(?:which|whether|if|what|how|who)\b(?P<rest>.*)$", re.I)


def offered_not_done(criterion: str, units: list[Unit]) -> str | None:
    """The offer the transcript ends on of the very thing the criterion says was done, when no statement says
    it was done; None otherwise. The thing is offered when the offer's verb is one the criterion says was done
    ("... was added to CASE-5002" against a last "Would you like me to add it?"), or, for a confirmation, one
    its nouns name, with the criterion's value or a pronoun as its object ("Confirms the $360 refund" / "Would
    you like me to refund the remaining $360?"; "Confirms the booking" / "Shall I book it?"); when the offer
    names the criterion's record and no statement does ("Would you like me to move APT-7001 there?"); or when
    the offer is to find out what the criterion says and no statement says ("... says October did better" /
    "Would you like me to work out which of the two performed better?"). An offer followed by any statement is
    not the end of the matter (the customer answered)."""
    lowered = criterion.lower()
    done = {
        k for m in DONE_WORD.finditer(lowered)
        if not MODAL_DONE.search(lowered[: m.start()]) and not ATTRIBUTIVE.search(lowered[: m.start()])
        for k in _verb_keys(m.group(0))
    }
    confirms = CONFIRMS.match(criterion) is not None
    nouns = _content_keys(criterion) - {v for v in _ids(criterion)} if confirms else set()
    if confirms:
        done |= _verb_keys("confirmed")
    if units and not units[-1].question and len(units) > 1 and units[-2].question and units[-2].message == units[-1].message and CONSEQUENCE.match(normalise(units[-1].text)):
        units = units[:-1]  # (round 7) "Would you like me to start the return? That would be $28.00 back to your card."
    if not units or not units[-1].question:
        return None
    last = units[-1]
    statements = [u for u in units if u.carried]
    criterion_values = [v for v in find_values(criterion) if v.kind != "id"]
    for m in OFFER.finditer(last.text):
        if WH_BEFORE.search(last.text[: m.start()]):
            continue
        verb = _verb_keys(m["verb"])
        after = last.text[m.end() :]
        if done and verb & done:
            if not any(any(_verb_keys(w) & done for w in DONE_WORD.findall(u.text.lower())) for u in statements):
                return last.text
        # (round 9) the object may be a phrase that ends on a pronoun for the thing: "exchange your blue pair for them"
        if nouns and verb & nouns and (OFFER_OBJECT.match(after) or any(v.same(c) for v in find_values(after) for c in criterion_values) or LATER_PRONOUN.search(re.split(r"[?.!;]", after)[0])):
            if not any(any(_verb_keys(w) & (done | nouns) for w in DONE_WORD.findall(u.text.lower())) for u in statements):
                return last.text
        ids = _ids(after) & _ids(criterion)
        if confirms and ids and not any(ids & _ids(u.text) for u in statements):
            return last.text
        # (round 6) an offer to do the confirmed thing to what the criterion names ("Would you like me to swap your blue
        # pair for the black?" against "Confirms the exchange to black jeans"), when no statement says anything was done
        if confirms and not verb & _INFO_VERBS and (_content_keys(after) & nouns or PRONOUN_ONLY.match(after)) and not any(
            w not in _REPORTED for u in statements for w in DONE_WORD.findall(u.text.lower())
        ):
            return last.text
        indirect = INDIRECT.search(after)
        if indirect is not None:
            asked = _content_keys(indirect["rest"]) & _content_keys(criterion)
            if asked and not asked & set().union(*(_content_keys(u.text) for u in statements)):
                return last.text
    return None


CONSEQUENCE = re.compile(r"^\W*(?:(?:so|and|then)\s+)?(?:that|this|it|which|you|your\s+\w+|the\s+\w+)(?:\s+\w+)?\s*(?:would|'d|could|will|'ll)\b")
"""(round 7) A statement of what an offer would bring, right after it ("That would be a $28.00 refund"): part of the offer."""
PRONOUN_ONLY = re.compile(r"^\s*(?:it|that|this|them|him|her)(?:\s+(?:in|up|on|through|over|down|off|for\s+you|now|today|then|right\s+away))*\s*[?.!]*\s*$", re.I)
"""(round 7) An offer whose only object is a pronoun for the thing ("Want me to lock him in?", "Shall I set it up?")."""
_INFO_VERBS = frozenset(k for w in "check look confirm verify send email text tell let show share explain remind call find see note print resend".split() for k in _verb_keys(w))
"""Offers of telling or finding out: they offer no thing the criterion confirms done."""
_REPORTED = frozenset("checked looked noticed based called named listed asked wanted needed used seemed showed".split())
"""Done words of reporting or describing: a statement with only these says nothing was done."""


def _ids(text: str) -> set[str]:
    return {str(v.value) for v in find_values(text) if v.kind == "id"}


ATTRIBUTIVE = re.compile(r"\b(?:the|a|an|its|their|his|her|your|this|that|these|those)\s+$")
"""A participle after a determiner describes a thing ("the cancelled booking"); it says nothing was done."""
WH_BEFORE = re.compile(r"\b(?:which|what|who|whom|where|when|how)(?:\s+\w+)?\s+$", re.I)
""""Which one should I charge?" asks which; it offers nothing."""


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
- questions are not statements (`grader.text.units.split_question`): the units mark them already.

A unit withdrawn or framed is not carried: no fact is matched in it and no value in it is a wrong value.
"""

from __future__ import annotations

import re
from dataclasses import replace

from grader.text.units import Unit

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
    """The units with those a later withdrawal takes back, or a negated framing covers, not carried."""
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

"""Simulator conformance: deterministic checks that the simulated customer played its instruction.

Run over each recorded dialogue (the customer's private instruction and the visible messages), they flag
the ways a simulator makes a trial measure the simulator instead of the agent:

- `invented_fact`: a customer message states an id, email, amount, PIN or other number that is neither in
  the instruction nor said earlier by the assistant (the customer may repeat what it was told);
- `stopped_while_pending`: the customer stopped while the assistant's last message asked a question or
  announced an action it had not reported as done (closing pleasantries such as "anything else?" do not
  count);
- `recited_instruction`: a customer message repeats `RECITE_WORDS` or more consecutive words of the
  instruction verbatim (text the instruction quotes for the customer to say is excluded);
- `spoke_as_assistant`: a customer message speaks as the assistant (a role label, "how can I help you",
  "as an AI").

A trial with a fault is flagged on its record (`simulator_faults`). `--exclude-simulator-faults` makes it
⊥ only for a fault the simulator is answerable for alone (`SimulatorFault.simulator_alone`, issue 41): one
in a customer message that nothing the agent said could have brought about. Every fault kind can be
asked for ("paste your request word for word", "reply exactly 'How can I help you'", "what is your
phone number?", a question appended to a last reply), in any wording, so a fault after the agent has
spoken is never excluded: a fault the agent may have caused is the agent's failure, and counts. That
leaves the customer's opening message (before any reply) for `invented_fact`, `recited_instruction` and
`spoke_as_assistant`; `stopped_while_pending` is never the simulator's alone (the agent's own last
message sets it off). The check runs only on a model-simulated customer: a scripted user plays fixed
turns (`harness.runner.trial` skips it).

Facts are compared through one written form (`normal_form`): Unicode dashes and spaces, full-width
digits, digits spaced or grouped ("6 0 4 7", "1 000") and numbers in words ("three hundred fifty") are
read as the same value, so a customer repeating in plain digits what the agent wrote in another form has
invented nothing. Names are not checked: telling a new name from an ordinary capitalised word needs
more than a rule.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel

from contracts.evidence import Message

FaultKind = Literal["invented_fact", "stopped_while_pending", "recited_instruction", "spoke_as_assistant"]

RECITE_WORDS = 20
"""Customers may echo a phrase of their instruction; a run this long is pasting it."""
ID = re.compile(r"\b[A-Za-z]{2,}[A-Za-z0-9]*(?:-[A-Za-z0-9]+)+\b")
EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w])")
NAMED_NUMBER = re.compile(r"\b[A-Z][a-z]+ \d+\b")
"""A number after a Titlecase word is part of a name ("Fiber Home 300"), not an amount: not checked."""
QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”")
SMALL_NUMBER = 31
"""Counts, days of the month and clock hours: too common to call invented (a customer says "2 bags")."""

PENDING = re.compile(r"\b(?:i will|i'll|let me (?!know)|one moment|give me a moment|i am going to|i'm going to|i am now|i'm now)\b")
CONDITIONAL = re.compile(r"\b(?:once|when|whenever|if|after|as soon as|not|never|won't|will not|ready|call back|come back)\b")
"""An announcement under a condition ("once you have your PIN, I'll ...") or negated waits for nothing now."""
PLEASANTRIES = re.compile(
    r"(?:anything else|something else|help (?:you )?with (?:anything|something) else|have a (?:good|great|nice)|is there more)[^?]*\?\s*$"
)
ASSISTANT_VOICE = re.compile(
    r"^\s*(?:assistant|agent|ai|bot)\s*:|\bhow (?:can|may) i (?:help|assist) you\b|\bas an ai\b|\bi am (?:an|the) (?:ai|assistant|virtual assistant)\b|"
    r"\bi'm (?:an|the) (?:ai|assistant|virtual assistant)\b|\bis there anything else i can (?:help|do for) you\b",
    re.IGNORECASE,
)


class SimulatorFault(BaseModel):
    kind: FaultKind
    turn: int
    detail: str
    simulator_alone: bool = False
    """Nothing the agent said preceded it (the customer's opening message), so only the simulator can
    have caused it: the one kind of fault `--exclude-simulator-faults` may take out of the denominator."""


SPACES = re.compile(r"[^\S\n]+")
DASHES = re.compile(r"[\u2010-\u2015\u2212\u2043\ufe58\ufe63\uff0d\u00ad]")
DIGIT_GROUPS = re.compile(r"(?<![\w.])\d+(?:[ ,]\d+)*(?:\.\d+)?(?![\w])")
UNITS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
    )
}
TENS = {w: 10 * i for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()) if w != "_"}
SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000}
NUMBER_WORD = "|".join([*UNITS, *TENS, *SCALES])
NUMBER_WORDS = re.compile(rf"\b(?:{NUMBER_WORD})(?:(?:[\s-]+|\s+and\s+)(?:{NUMBER_WORD}))*\b", re.IGNORECASE)


def _words_value(phrase: str) -> int:
    """The value of a run of English number words ("three hundred and fifty", "twelve thousand five")."""
    total = current = 0
    for word in re.findall(r"[a-z]+", phrase.lower()):
        if word in UNITS:
            current += UNITS[word]
        elif word in TENS:
            current += TENS[word]
        elif word == "hundred":
            current = max(current, 1) * 100
        elif word in SCALES:
            total += max(current, 1) * SCALES[word]
            current = 0
    return total + current


def normal_form(text: str) -> str:
    """`text` with every written form of a value made one: compatibility forms (full-width digits)
    folded, Unicode dashes made '-', invisible format characters dropped, every space one ' ', and
    numbers in words written in digits."""
    text = unicodedata.normalize("NFKC", text)
    text = DASHES.sub("-", text)
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    text = SPACES.sub(" ", text)
    return NUMBER_WORDS.sub(lambda m: str(_words_value(m.group(0))), text)


def _compact(text: str) -> str:
    """Letters, digits and '@.' only: how an id or email compares (`ACC 1004`, `ACC‑1004` are one)."""
    return re.sub(r"[^a-z0-9@.]", "", text.lower())


def _value(raw: str) -> float | None:
    try:
        return float(raw.replace(",", "").replace(" ", ""))
    except ValueError:
        return None


GROUPED = re.compile(r"\d{1,3}(?:[ ,]\d{3})+(?:\.\d+)?|\d(?: \d)+")
"""Digit groups that may be one number: thousands groups ("1 000", "12,500") or digits spelt one by one."""


def _number_groups(text: str) -> list[tuple[float | None, list[float]]]:
    """The numbers of `text` as (joined, parts): digit groups that may be one number ("1 000", "6 0 4 7")
    have their joined reading; every group also its space-separated parts ("2 350": 2 and 350)."""
    out = []
    for raw in DIGIT_GROUPS.findall(text):
        joined = _value(raw) if GROUPED.fullmatch(raw) else None
        out.append((joined, [v for v in (_value(p) for p in raw.split(" ")) if v is not None]))
    return out


def _numbers(text: str) -> set[float]:
    out: set[float] = set()
    for joined, parts in _number_groups(text):
        out.update(parts)
        if joined is not None:
            out.add(joined)
    return out


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9$'@-]+(?:\.[a-z0-9]+)*", text.lower())


def invented_facts(message: str, known: str) -> list[str]:
    """The ids, emails and numbers of `message` that `known` (instruction + earlier replies) lacks, both
    read in their normal form (`normal_form`): a value written differently is the same value."""
    message, known = normal_form(message), normal_form(known)
    known_compact = _compact(known)
    out = [m for m in EMAIL.findall(message) if _compact(m) not in known_compact]
    without_emails = EMAIL.sub(" ", message)
    out += [m for m in ID.findall(without_emails) if any(ch.isdigit() for ch in m) and _compact(m) not in known_compact]
    numbers = _numbers(EMAIL.sub(" ", known).replace("-", " "))  # "1004" of ACC-1004 was said too
    invented: set[float] = set()
    for joined, parts in _number_groups(NAMED_NUMBER.sub(" ", ID.sub(" ", without_emails))):
        if joined is not None and joined in numbers:
            continue
        spelt = len(parts) > 1 and all(v < 10 for v in parts)  # "9 9 1 1" is one number
        if joined is not None and (spelt or any(v not in numbers and v > SMALL_NUMBER for v in parts)):
            candidates = [joined]
        else:
            candidates = parts
        invented.update(v for v in candidates if v > SMALL_NUMBER and v not in numbers)
    out += [f"{value:g}" for value in sorted(invented)]
    return out


def awaits_customer(message: str) -> bool:
    """The assistant's last message asks a question or announces an action now pending (a closing
    pleasantry, an invitation to come back, or a conditional promise does not count)."""
    text = message.strip().lower()
    if PLEASANTRIES.search(text):
        text = PLEASANTRIES.sub("", text).strip()
    if text.endswith("?"):
        return True
    sentences = [s for s in re.split(r"(?<=[.!?;:])\s+|\n+", text) if s.strip()]
    return any(PENDING.search(s) and not CONDITIONAL.search(s) for s in sentences[-2:])


def recited(message: str, instruction: str, n: int = RECITE_WORDS) -> str | None:
    """A run of `n` words the message copies from the instruction (quoted lines excluded), or None."""
    source = _words(QUOTED.sub(" | ", instruction))
    shingles = {tuple(source[i : i + n]) for i in range(len(source) - n + 1)}
    words = _words(QUOTED.sub(" ", message))
    for i in range(len(words) - n + 1):
        if tuple(words[i : i + n]) in shingles:
            return " ".join(words[i : i + n])
    return None


def check_dialogue(instruction: str, conversation: Sequence[Message], *, user_stopped: bool = True) -> list[SimulatorFault]:
    """Every conformance fault of one recorded dialogue. `user_stopped`: the dialogue ended because the
    customer stopped (not at the turn or time limit), so its last message matters."""
    faults: list[SimulatorFault] = []
    said: list[str] = []
    for message in conversation:
        if message.role == "assistant":
            said.append(message.content)
            continue
        alone = not said  # nothing the agent said came before it
        invented = invented_facts(message.content, instruction + "\n" + "\n".join(said))
        if invented:
            faults.append(
                SimulatorFault(kind="invented_fact", turn=message.turn, detail="not in the instruction: " + ", ".join(invented[:5]), simulator_alone=alone)
            )
        copy = recited(message.content, instruction)
        if copy:
            faults.append(SimulatorFault(kind="recited_instruction", turn=message.turn, detail=f"repeats the instruction: {copy!r}", simulator_alone=alone))
        voice = ASSISTANT_VOICE.search(normal_form(message.content))
        if voice:
            faults.append(
                SimulatorFault(kind="spoke_as_assistant", turn=message.turn, detail=f"speaks as the assistant: {voice.group(0).strip()!r}", simulator_alone=alone)
            )
    if user_stopped and conversation and conversation[-1].role == "assistant" and awaits_customer(conversation[-1].content):
        faults.append(
            SimulatorFault(kind="stopped_while_pending", turn=conversation[-1].turn, detail="stopped while the assistant was waiting: " + conversation[-1].content[-160:])
        )
    return faults


ALONE = " [simulator alone]"
"""The label suffix of a fault `--exclude-simulator-faults` may exclude; other faults are counted."""


def fault_labels(faults: Sequence[SimulatorFault]) -> list[str]:
    """The record's form: `kind@turn: detail`, with `ALONE` appended to a fault the simulator alone caused."""
    return [f"{f.kind}@{f.turn}: {f.detail}{ALONE if f.simulator_alone else ''}" for f in faults]


def excludable(labels: Sequence[str]) -> list[str]:
    """The recorded faults (`fault_labels`) that may make a trial ⊥ under `--exclude-simulator-faults`."""
    return [label for label in labels if label.endswith(ALONE)]

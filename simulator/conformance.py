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

A trial with a fault is flagged on its record (`simulator_faults`); `--exclude-simulator-faults` makes it
⊥. Names are not checked: telling a new name from an ordinary capitalised word needs more than a rule.
"""

from __future__ import annotations

import re
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


def _numbers(text: str) -> set[float]:
    out = set()
    for raw in NUMBER.findall(text):
        try:
            out.add(float(raw.replace(",", "")))
        except ValueError:
            continue
    return out


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9$'@-]+(?:\.[a-z0-9]+)*", text.lower())


def invented_facts(message: str, known: str) -> list[str]:
    """The ids, emails and numbers of `message` that `known` (instruction + earlier replies) lacks."""
    known_lower = known.lower()
    out = [m for m in EMAIL.findall(message) if m.lower() not in known_lower]
    without_emails = EMAIL.sub(" ", message)
    out += [m for m in ID.findall(without_emails) if any(ch.isdigit() for ch in m) and m.lower() not in known_lower]
    numbers = _numbers(ID.sub(" ", EMAIL.sub(" ", known)))
    for value in sorted(_numbers(NAMED_NUMBER.sub(" ", ID.sub(" ", without_emails)))):
        if value > SMALL_NUMBER and value not in numbers:
            out.append(f"{value:g}")
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
        invented = invented_facts(message.content, instruction + "\n" + "\n".join(said))
        if invented:
            faults.append(SimulatorFault(kind="invented_fact", turn=message.turn, detail="not in the instruction: " + ", ".join(invented[:5])))
        copy = recited(message.content, instruction)
        if copy:
            faults.append(SimulatorFault(kind="recited_instruction", turn=message.turn, detail=f"repeats the instruction: {copy!r}"))
        voice = ASSISTANT_VOICE.search(message.content)
        if voice:
            faults.append(SimulatorFault(kind="spoke_as_assistant", turn=message.turn, detail=f"speaks as the assistant: {voice.group(0).strip()!r}"))
    if user_stopped and conversation and conversation[-1].role == "assistant" and awaits_customer(conversation[-1].content):
        faults.append(
            SimulatorFault(kind="stopped_while_pending", turn=conversation[-1].turn, detail="stopped while the assistant was waiting: " + conversation[-1].content[-160:])
        )
    return faults


def fault_labels(faults: Sequence[SimulatorFault]) -> list[str]:
    """The record's form: `kind@turn: detail`."""
    return [f"{f.kind}@{f.turn}: {f.detail}" for f in faults]

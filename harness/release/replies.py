"""The reply battery: cases on the user-visible replies alone (no replay), run through `grade_offline`.

For each reply criterion of a task, from the gold dialogue's rendered replies and the task's world:
- `reply_wrong_value` (must fail): the asked fact (an amount, date, time, id or status the criterion's
  evidence names and the gold reply states) replaced, in every written form ("$200.00" for "200"), by
  another value of the same kind from the world;
- `reply_keyword_list` (must fail): every reply is a bare list of every evidence phrase, no sentences;
- `reply_wrong_mention` (must fail): for a mention guard, the gold replies naming its first wrong value;
- `reply_reworded` (must pass): the gold replies with the same facts in other formats ($1,450.00 / 1450.00,
  2026-12-15 / December 15, 2026, 13:00 / 1 pm).
It is also a calibration set for the LLM judge: the same cases, with the same expected verdicts.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from typing import Any

from contracts.evidence import Evidence
from contracts.schema import Task
from harness.release.cases import BatteryCase, case_id
from harness.release.world import leaves

MONEY = re.compile(r"^\$?\d{1,3}(?:,?\d{3})*(?:\.\d{1,2})?$")
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
CLOCK = re.compile(r"^\d{1,2}:\d{2}$")
IDENT = re.compile(r"^[A-Za-z]{2,}[-_][A-Za-z0-9-_]+$")


def shape(text: str) -> str | None:
    """The kind of a fact phrase: money/number, date, time, id, or None (prose)."""
    text = text.strip()
    if ISO_DATE.match(text):
        return "date"
    if CLOCK.match(text):
        return "time"
    if MONEY.match(text):
        return "number"
    if IDENT.match(text):
        return "id"
    return None


def _number(text: str) -> float:
    return float(text.replace("$", "").replace(",", ""))


def _pattern(phrase: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w.])" + re.escape(phrase) + r"(?![\w]|\.\d)", re.IGNORECASE)


def gold_replies(gold: Evidence, turns: int) -> list[str]:
    out = [""] * turns
    for message in gold.conversation:
        if message.role == "assistant" and message.turn < turns:
            out[message.turn] = message.content
    return out


def world_values(gold: Evidence) -> list[str]:
    """Every scalar of the task's world and the gold results, as text, in a stable order."""
    seen: dict[str, None] = {}
    for source in (gold.initial_state, [r.result for r in gold.tool_trace]):
        for value in leaves(source):
            text = f"{value:.2f}" if isinstance(value, float) else str(value)
            seen.setdefault(text, None)
    return list(seen)


def _replacement(phrase: str, kind: str, group: list[str], values: list[str]) -> str | None:
    banned = {p.lower() for p in group}
    if kind == "number":
        here = _number(phrase)
        pool = [v for v in values if MONEY.match(v) and abs(_number(v) - here) > 0.005 and _number(v) > 0]
        if not pool:
            return None
        best = min(pool, key=lambda v: (abs(_number(v) - here), v))
        value = _number(best)
        text = f"{value:,.2f}" if "." in phrase else f"{value:,.0f}" if value.is_integer() else f"{value:,.2f}"
        text = text if "," in phrase else text.replace(",", "")
        return ("$" + text) if phrase.startswith("$") else text
    pool = [v for v in values if shape(v) == kind and v.lower() not in banned and v.lower() != phrase.lower()]
    return sorted(pool, key=lambda v: (-_common_prefix(v, phrase), v))[0] if pool else None


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def _inflections(phrase: str) -> re.Pattern[str]:
    """The other inflections of a one-word phrase ("implemented": "implementation", "implements"): the
    judge reads a word by its stem, so a reply that keeps one still states the fact."""
    from grader.text.stemmer import stem

    if not re.fullmatch(r"[A-Za-z]{4,}", phrase):
        return re.compile(r"(?!x)x")
    root = stem(phrase.lower())
    return re.compile(r"\b" + re.escape(root) + r"[a-z]*\b", re.IGNORECASE)


def restate(reply: str, phrase: str, other: str) -> str:
    """`reply` with every other written form of the value `phrase` states replaced by `other`: the judge
    reads "$200.00" as the evidence "200", so a wrong-value reply that kept "$200.00" would still state the
    asked fact (payments journey 20's confirmation did). Ids are replaced by their spelling only."""
    from grader.text.values import find_values, phrase_value

    target = phrase_value(phrase)
    if target is None or target.kind == "id":
        return reply
    parts, last = [], 0
    for value in find_values(reply):
        if value.kind == target.kind and target.same(value) and value.value == target.value:
            dollar = value.text.startswith("$") and not other.startswith("$")
            parts += [reply[last : value.start], ("$" if dollar else "") + other]
            last = value.end
    return "".join(parts) + reply[last:]


def _groups(task: Task) -> list[list[list[str]]]:
    return [[[item] if isinstance(item, str) else list(item) for item in c.evidence] for c in task.contract.reply_criteria or []]


def reply_cases(task: Task, gold: Evidence) -> Iterator[BatteryCase]:
    criteria = task.contract.reply_criteria or []
    if not criteria:
        return
    n = len(task.gold)
    replies = gold_replies(gold, n)
    transcript = "\n".join(replies)
    values = world_values(gold)
    for k, groups in enumerate(_groups(task)):
        for group in groups:
            stated = [p for p in group if shape(p) and _pattern(p).search(transcript)]
            if not stated:
                continue
            phrase = stated[0]
            other = _replacement(phrase, shape(phrase) or "", group, values)
            if other is None:
                continue
            wrong = list(replies)
            for alt in sorted(group, key=len, reverse=True):  # every spelling of the fact the reply may use
                wrong = [_inflections(alt).sub(other, _pattern(alt).sub(other, r)) for r in wrong]
            wrong = [restate(r, phrase, other) for r in wrong]
            if wrong == replies:
                continue
            yield BatteryCase(case_id("reply", "reply_wrong_value", f"criterion{k}"), "reply", "reply_wrong_value",
                              f"criterion {k}: {phrase!r} stated as {other!r}", [], must="fail", replies=tuple(wrong))
            break
    for k, criterion in enumerate(criteria):
        if criterion.is_guard and criterion.absent:  # a mention guard: the replies name a wrong value of its fact
            stated = list(replies)
            stated[-1] = f"{stated[-1]} For the record: {criterion.absent[0]}."
            yield BatteryCase(case_id("reply", "reply_wrong_mention", f"criterion{k}"), "reply", "reply_wrong_mention",
                              f"criterion {k}: the replies also name {criterion.absent[0]!r}", [], must="fail", replies=tuple(stated))
    if any(not c.is_guard for c in criteria):  # only mention guards: there is no evidence a keyword list could stand in for
        keywords = keyword_dump(task, gold)
        yield BatteryCase(case_id("reply", "reply_keyword_list", "all"), "reply", "reply_keyword_list",
                          f"every reply is the bare list {keywords[:80]!r}", [], must="fail", replies=tuple(keywords for _ in replies))
    reworded = [reword(r) for r in replies]
    if reworded != replies:
        yield BatteryCase(case_id("reply", "reply_reworded", "formats"), "reply", "reply_reworded",
                          "the gold replies with amounts, dates and times in other formats", [], must="pass", replies=tuple(reworded))


DUMP_ITEMS = 3
"""A keyword dump lists at least this many items: an answer of one or two bare facts ("Silver, 30,000
miles.") is a terse answer, not a dump (issue 37); a real dump hedges with the world's other values."""


def keyword_dump(task: Task, gold: Evidence) -> str:
    """Every evidence phrase of the task (the first of each item), padded with other values of the task's
    world (a nearby amount, date, time or id; the world's other short words, e.g. statuses) to at least
    DUMP_ITEMS items, joined by "; ": a bare keyword list that hedges, as agents that dump keywords do."""
    items = list(dict.fromkeys(g[0] for groups in _groups(task) for g in groups))
    values = world_values(gold)
    banned = {p.lower().rstrip("*") for groups in _groups(task) for g in groups for p in g}
    for phrase in list(items):
        kind = shape(phrase)
        other = _replacement(phrase, kind, [phrase], values) if kind else None
        if other is not None and other.lower() not in banned and len(items) < DUMP_ITEMS + 1:
            items.append(other)
    words = [v for v in values if re.fullmatch(r"[A-Za-z][a-z]+(?: [a-z]+)?", v) and v.lower() not in banned]
    items += [w for w in dict.fromkeys(words) if w not in items][: max(0, DUMP_ITEMS - len(items))]
    return "; ".join(items)


_MONEY_IN_TEXT = re.compile(r"\$(\d{1,3}(?:,\d{3})+|\d+)(\.\d{2})?(?!\d|[.,]\d)")
"""A dollar amount; it may be followed by punctuation ("$25.50, then"), never by more digits ("$89.5" and
"$1,4500" are not amounts this battery rewrites)."""
_ISO_IN_TEXT = re.compile(r"(?<![\d-])(\d{4})-(\d{2})-(\d{2})(?![\d-]|T)")
_CLOCK_IN_TEXT = re.compile(r"(?<![\d:])([01]?\d|2[0-3]):([0-5]\d)(?![\d:])")


def _money(match: re.Match[str]) -> str:
    whole = match.group(1).replace(",", "")
    cents = match.group(2) or ".00"
    value = float(whole + cents)
    return f"{value:.2f} dollars" if value < 1000 else f"USD {value:,.2f}"


def _date(match: re.Match[str]) -> str:
    try:
        day = dt.date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    except ValueError:
        return match.group(0)
    return f"{day:%B} {day.day}, {day.year}"


def _clock(match: re.Match[str]) -> str:
    hour, minute = int(match.group(1)), int(match.group(2))
    suffix = "am" if hour < 12 else "pm"
    twelve = hour % 12 or 12
    return f"{twelve} {suffix}" if minute == 0 else f"{twelve}:{minute:02d} {suffix}"


def reword(text: str) -> str:
    """The same facts in other common formats (what a careful agent may write)."""
    text = _MONEY_IN_TEXT.sub(_money, text)
    text = _ISO_IN_TEXT.sub(_date, text)
    return _CLOCK_IN_TEXT.sub(_clock, text)


def reply_evidence(gold: Evidence, replies: tuple[str, ...], *, toolless: bool = False) -> Evidence:
    """The gold evidence with other assistant replies (and, tool-less, no calls and an untouched world)."""
    conversation = []
    for message in gold.conversation:
        if message.role == "assistant" and message.turn < len(replies):
            message = message.model_copy(update={"content": replies[message.turn]})
        conversation.append(message)
    update: dict[str, Any] = {"conversation": conversation}
    if toolless:
        update |= {"tool_trace": [], "final_state": gold.initial_state}
    return gold.model_copy(update=update)

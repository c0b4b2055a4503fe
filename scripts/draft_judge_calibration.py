"""Draft the judge calibration set from the catalog's real criteria and gold replies:
`uv run python scripts/draft_judge_calibration.py --out DRAFT_DIR [--per-domain 36]`.

Each draft item applies one transformation whose effect on the verdict is fixed by what it does to the
reply (the gold reply states the fact → pass; the same reply with the fact's value replaced, negated or
removed → fail; reformatted or split over two messages → pass; a bare keyword list → fail). The draft
is a starting point: a reviewer reads every item, drops the ambiguous ones and adds hand-written hard
cases (`kind` paraphrase, correction, refused_then_succeeded, ids ending in `.hand`) before it ships in
contracts/judge_calibration/.
Only tasks whose criteria and gold replies contain no `${...}` reference are used (the labels must not
depend on a trial's minted ids).
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import re
from decimal import Decimal
from pathlib import Path

import yaml

from contracts.catalog import load_catalog
from contracts.schema import ReplyCriterion, Task
from grader.text.matching import contains
from grader.text.units import _sentences, _starts_negated
from grader.text.values import Value, find_values, phrase_value

MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]


def phrases_of(item: str | list[str]) -> list[str]:
    return [item] if isinstance(item, str) else list(item)


def item_value(item: str | list[str]) -> Value | None:
    """The value an evidence item is, when every alternative is the same value (`["$40", "40.00"]`)."""
    values = [phrase_value(p) for p in phrases_of(item)]
    if not values or any(v is None for v in values):
        return None
    first = values[0]
    return first if all(first.same(v) or v.same(first) for v in values) else None  # type: ignore[union-attr]


def other_form(value: Value) -> str | None:
    """The same value written another common way."""
    if value.kind == "number":
        number = Decimal(str(value.value))
        if "$" in value.text or re.search(r"\.\d\d$", value.text):
            return f"{number:,.2f} dollars" if "$" in value.text else f"${number:,.2f}"
        return None
    if value.kind == "date":
        year, month, day = value.value  # type: ignore[misc]
        return f"{MONTH_NAMES[month - 1]} {day}, {year}" if year else f"{day} {MONTH_NAMES[month - 1]}"
    if value.kind == "time":
        hour, minute = divmod(int(value.value), 60)  # type: ignore[call-overload]
        return f"{(hour % 12) or 12}:{minute:02d} {'PM' if hour >= 12 else 'AM'}"
    if value.kind == "id":
        return value.text.lower() if value.text != value.text.lower() else None
    return None


def wrong_form(value: Value) -> str:
    """Another value of the same kind, written in the original's style."""
    if value.kind in ("number", "percent"):
        number = Decimal(str(value.value))
        wrong = number + (Decimal("7") if number < 1000 else Decimal("70"))
        decimals = len(value.text.split(".")[1].rstrip("%")) if "." in value.text else 0
        body = f"{wrong:,.{decimals}f}" if "," in value.text else f"{wrong:.{decimals}f}"
        return ("$" if "$" in value.text else "") + body + ("%" if value.kind == "percent" else "")
    if value.kind == "date":
        year, month, day = value.value  # type: ignore[misc]
        date = dt.date(year or 2026, month, day) + dt.timedelta(days=1)
        if re.match(r"\d{4}-", value.text):
            return date.isoformat()
        return f"{MONTH_NAMES[date.month - 1]} {date.day}" + (f", {date.year}" if year else "")
    if value.kind == "time":
        hour, minute = divmod(int(value.value) + 60, 60)
        return f"{hour % 24:02d}:{minute:02d}"
    return value.text[:-1] + ("7" if value.text[-1] != "7" else "8")


def replace_values(replies: list[str], target: Value, make: callable) -> list[str] | None:  # type: ignore[valid-type]
    """Every mention of `target` in the replies replaced by `make(value)`; None if there is none."""
    out, changed = [], False
    for reply in replies:
        pieces, last = [], 0
        for value in find_values(reply):
            if target.same(value) and (target.kind != "id" or value.value == target.value):
                new = make(value)
                if new is None:
                    return None
                pieces += [reply[last : value.start], new]
                last, changed = value.end, True
        out.append("".join(pieces) + reply[last:])
    return out if changed else None


def negate(replies: list[str], item: str | list[str]) -> list[str] | None:
    """The one reply sentence stating a phrase of `item` after an auxiliary, with "not" inserted."""
    phrases = phrases_of(item)
    for phrase in phrases:
        if phrase_value(phrase) is not None or len(phrase) < 4 or _starts_negated(phrase):
            return None
        for i, reply in enumerate(replies):
            match = re.search(r"\b(is|was|are|were|has been|have been|been)\s+(" + re.escape(phrase) + r")\b", reply, re.I)
            if match:
                out = list(replies)
                out[i] = reply[: match.end(1)] + " not" + reply[match.end(1) :]
                rest = "\n".join(out).replace(out[i][match.start() : match.end() + 4], "")
                if any(contains(p, rest) for p in phrases):
                    return None
                return out
    return None


def drop_item(replies: list[str], item: str | list[str]) -> list[str] | None:
    """The replies without the sentences stating `item`, when nothing else states it and something is left."""
    phrases = phrases_of(item)
    out = []
    for reply in replies:
        kept = [s for s in _sentences(reply) if not any(contains(p, s) for p in phrases)]
        if kept:
            out.append(" ".join(kept))
    if not out or any(contains(p, r) for p in phrases for r in out) or out == replies:
        return None
    return out


def items_for(task: Task, index: int, criterion: ReplyCriterion, rng: random.Random) -> list[dict]:
    replies = [turn.reply for turn in task.gold]
    base = {"task": task.id, "criterion": criterion.model_dump(exclude_none=True)}
    made: list[dict] = []

    def add(kind: str, messages: list[str], expected: bool, why: str) -> None:
        made.append({"id": f"{task.id}.{index}.{kind}", **base, "messages": messages, "expected": expected, "kind": kind, "why": why})

    add("correct_plain", replies, True, "The task's gold replies, which state what the criterion asks.")
    if len(replies) == 1 and len(sentences := _sentences(replies[0])) >= 2:
        cut = len(sentences) // 2
        add("split_over_messages", [" ".join(sentences[:cut]), " ".join(sentences[cut:])], True, "The gold reply split over two messages: the facts are all still stated.")
    for item in criterion.evidence:
        value = item_value(item)
        if value is None:
            continue
        if (formatted := replace_values(replies, value, other_form)) is not None and formatted != replies:
            add("other_format", formatted, True, f"The gold replies with {value.text!r} written in another common form: the same fact.")
        if value.kind != "id" and (wrong := replace_values(replies, value, lambda v: wrong_form(v))) is not None:
            add("wrong_value", wrong, False, f"The gold replies with {value.text!r} replaced by another {value.kind}: the reply states a wrong fact.")
        break
    for item in criterion.evidence:
        if (negated := negate(replies, item)) is not None:
            add("negation", negated, False, f"The gold replies with {phrases_of(item)[0]!r} negated: the reply now says the opposite.")
            break
    if len(criterion.evidence) >= 2:
        for item in criterion.evidence:
            if (partial := drop_item(replies, item)) is not None:
                add("partial_answer", partial, False, f"The gold replies without the sentence stating {phrases_of(item)[0]!r}: one asked fact is missing.")
                break
    keywords = [phrases_of(i)[0] for i in criterion.evidence]
    add("keyword_list", [", ".join(keywords + ["done", "confirmed", "thanks"])], False, "A bare list of the evidence phrases: no sentence states the fact.")
    if criterion.absent:
        add("absent_stated", [*replies[:-1], replies[-1] + f" To be clear: {criterion.absent[0]}."], False, f"The gold replies plus a sentence saying {criterion.absent[0]!r}, which the criterion forbids.")
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-domain", type=int, default=36)
    parser.add_argument("--out", type=Path, required=True, help="a draft directory: never the reviewed set itself")
    parser.add_argument("--seed", type=int, default=23)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    catalog = load_catalog()
    args.out.mkdir(parents=True, exist_ok=True)
    for domain in sorted({t.domain for t in catalog.values()}):
        pool: list[dict] = []
        for task in sorted((t for t in catalog.values() if t.domain == domain), key=lambda t: t.id):
            if any("${" in turn.reply for turn in task.gold):
                continue
            for index, criterion in enumerate(task.contract.reply_criteria or []):
                if "${" in criterion.model_dump_json():
                    continue
                pool.extend(items_for(task, index, criterion, rng))
        by_kind: dict[str, list[dict]] = {}
        for item in pool:
            by_kind.setdefault(item["kind"], []).append(item)
        chosen: list[dict] = []
        while len(chosen) < args.per_domain and any(by_kind.values()):  # round-robin over kinds: a balanced set
            for kind in sorted(by_kind):
                if by_kind[kind] and len(chosen) < args.per_domain:
                    chosen.append(by_kind[kind].pop(rng.randrange(len(by_kind[kind]))))
        path = args.out / f"{domain}.yaml"
        path.write_text(yaml.safe_dump({"domain": domain, "items": sorted(chosen, key=lambda i: i["id"])}, sort_keys=False, allow_unicode=True, width=120), encoding="utf-8")
        print(f"{path}: {len(chosen)} items")


if __name__ == "__main__":
    main()

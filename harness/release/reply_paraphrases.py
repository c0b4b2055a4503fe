"""The reply paraphrase battery (issues 37.4 and 41.5): the reply judge's verdict must not change when an
agent says the same thing in other words, and must change when it takes its words back.

For every reply criterion of the catalog, from the criterion's facts (the first phrase of each evidence
item, i.e. the fact asked for, never the gold reply's wording around it) and the banks of
`contracts/paraphrase_banks.yaml` (`replies:`, reviewed; not the judge's lexicon):

must pass - the gold replies with every sentence that states the criterion's facts taken out, and the facts
stated instead, at the end of the last reply:
- `paraphrase_terse`: in a terse form with no function word ("Done - CASE-5016.", "Silver, 30,000 miles.")
  where the criterion has at most two facts;
- `paraphrase_frames`: each fact in a sentence frame of the bank;
- `paraphrase_spelling`: framed, with the bank's other spellings (cancelled / canceled);
- `paraphrase_synonym`: framed, with the bank's other words (out of stock / sold out);
- `paraphrase_values`: framed, with values in the bank's other written forms ($45.00 / 45.00 dollars,
  2026-12-15 / 12/15/2026, 10:00 / 10 am, a count in words);

must fail -
- `paraphrase_dump`: the stripped replies and a dump of the facts with other values of the task's world under
  labels ("Balance/tier/status: ... - ... - ...");
- `paraphrase_retraction`: the gold replies and a retraction of the bank ("Just kidding - none of that
  happened.");
- `paraphrase_negated_framing`: every gold reply under a negated framing ("I did NOT do the following: ...");
- `paraphrase_question`: every sentence of every gold reply as a question.

A must-pass case applies only when the stripped replies alone fail the criterion (else it would prove
nothing); the cases are judged by the offline evidence judge on the criterion under test, with every
criterion of the task as its known values, without replay (like `harness.release.replies`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from contracts.evidence import Evidence
from contracts.schema import ReplyCriterion, Task
from contracts.yaml_io import read_yaml
from harness.release.batteries import BatteryReport, CaseResult
from harness.release.replies import gold_replies, world_values

log = logging.getLogger(__name__)
BANKS_FILE = Path(__file__).resolve().parents[2] / "contracts" / "paraphrase_banks.yaml"
STRIP_ROUNDS = 6
"""How many sentences stating a criterion's fact in other words (found by the judge's quote) are taken out
at most, after those that state its phrases or values as written."""
KIND_PREFIX = "paraphrase_"


class ValueForms(BaseModel):
    model_config = ConfigDict(extra="forbid")
    money: list[str] = Field(min_length=1)
    cents: list[str] = Field(min_length=1)
    date: list[str] = Field(min_length=1)
    time: list[str] = Field(min_length=1)
    noon: list[str] = Field(min_length=1)
    count: list[str] = Field(min_length=1)


class ReplyBanks(BaseModel):
    """The `replies:` section of the banks file (validated: a malformed bank is an error)."""

    model_config = ConfigDict(extra="forbid")
    terse: list[str] = Field(min_length=1)
    frames: list[str] = Field(min_length=1)
    spellings: dict[str, str]
    synonyms: dict[str, str]
    values: ValueForms
    dump: list[str] = Field(min_length=1)
    retractions: list[str] = Field(min_length=1)
    negated_framings: list[str] = Field(min_length=1)
    questions: list[str] = Field(min_length=1)


@cache
def banks(path: Path = BANKS_FILE) -> ReplyBanks:
    return ReplyBanks.model_validate((read_yaml(path.read_text(encoding="utf-8")) or {})["replies"])


@dataclass(frozen=True)
class ParaphraseCase:
    kind: str
    criterion: int
    must: Literal["pass", "fail"]
    description: str
    replies: tuple[str, ...]

    @property
    def case_id(self) -> str:
        return f"reply/{KIND_PREFIX}{self.kind}/criterion{self.criterion}"


# ---- the criterion's facts ---------------------------------------------------------------------------


def _pick(item: str | list[str], transcript: str) -> str | None:
    """The fact an evidence item asks for: its first phrase that is written out (no unresolved `${...}`),
    a stem phrase ("unfreez*") completed by a word of the gold replies that has it."""
    phrases = [item] if isinstance(item, str) else list(item)
    for phrase in sorted(phrases, key=lambda p: p.endswith("*")):
        if "${" in phrase:
            continue
        if not phrase.endswith("*"):
            return phrase.strip()
        stem = phrase.rstrip("*")
        word = re.search(r"(?<![A-Za-z])" + re.escape(stem) + r"[A-Za-z]*", transcript, re.I)
        return word.group(0) if word else stem
    return None


def facts(criterion: ReplyCriterion, transcript: str) -> list[str] | None:
    picked = [_pick(item, transcript) for item in criterion.evidence]
    return None if any(p is None for p in picked) else [p for p in picked if p is not None]


def _mentions(sentence: str, criterion: ReplyCriterion) -> bool:
    """Whether a sentence states one of the criterion's phrases or values as written (the locator the
    battery strips with; the judge's own quote finds the rest)."""
    from grader.text.values import find_values, phrase_value

    lowered = sentence.lower()
    for item in criterion.evidence:
        for phrase in [item] if isinstance(item, str) else item:
            text = phrase.lower().rstrip("*")
            if text and text in lowered:
                return True
            value = phrase_value(phrase)
            if value is not None and any(value.same(v) for v in find_values(sentence)):
                return True
    return False


SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def _sentences(reply: str) -> list[str]:
    return [s for s in (p.strip() for p in SENTENCE.split(reply)) if s]


def _judge(criteria: list[ReplyCriterion], k: int, replies: Sequence[str]) -> tuple[bool, str]:
    from grader.text.evidence import EvidenceJudge

    out = EvidenceJudge().judge_sync(criteria, list(replies), only=[k]).criteria[0]
    return out.passed, out.quote if out.passed else out.explanation


def stripped(criteria: list[ReplyCriterion], k: int, replies: list[str]) -> list[str] | None:
    """The replies without the sentences that state criterion k's facts; None when the judge still finds
    them stated after STRIP_ROUNDS more sentences are taken out."""
    out = [" ".join(s for s in _sentences(r) if not _mentions(s, criteria[k])) for r in replies]
    for _ in range(STRIP_ROUNDS):
        passed, quote = _judge(criteria, k, out)
        if not passed:
            return out
        out = [" ".join(s for s in _sentences(r) if quote not in s and s not in quote) for r in out]
    return None


# ---- written forms ---------------------------------------------------------------------------------------


@cache
def _word_pattern(word: str) -> re.Pattern[str]:
    return re.compile(r"(?<![A-Za-z-])" + re.escape(word) + r"(?![A-Za-z-])", re.I)


def _sub_words(fact: str, table: dict[str, str]) -> str:
    for word, other in sorted(table.items(), key=lambda kv: -len(kv[0])):
        pattern = _word_pattern(word)
        if pattern.search(fact):
            return pattern.sub(other, fact, count=1)
    return fact


def value_form(fact: str, forms: ValueForms, turn: int) -> str:
    """`fact` in another written form of the bank, when it is one value (else as it is)."""
    from grader.text.values import find_values, phrase_count, phrase_value

    value = phrase_value(fact)
    if value is None:
        count = phrase_count(fact)
        if count is not None and count[0].kind == "number" and Decimal(str(count[0].value)) == int(count[0].value) and 0 < int(count[0].value) < 20:
            words = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
            return forms.count[turn % len(forms.count)].format(words=words[int(count[0].value)]) + fact[count[0].end :]
        return fact
    pick = lambda bank: bank[turn % len(bank)]  # noqa: E731 - one line, local
    if value.kind == "number" and not re.search(r"%|percent", fact):
        amount = Decimal(str(value.value))
        if 0 < amount < 1 and re.search(r"\.\d\d", fact):
            return pick(forms.cents).format(cents=int(amount * 100))
        if re.search(r"[$]|\.\d\d", fact):
            return pick(forms.money).format(c=f"{amount:,.2f}", d=f"{amount:,.0f}")
        return fact
    if value.kind == "date":
        year, month, day = value.value  # type: ignore[misc]
        if year is None:
            return fact
        date = dt.date(year, month, day)
        return pick(forms.date).format(month=f"{date:%B}", day=date.day, year=year, mm=f"{month:02d}", dd=f"{day:02d}")
    if value.kind == "time":
        minutes = int(value.value)  # type: ignore[call-overload]
        if minutes == 720:
            return pick(forms.noon)
        hour, minute = divmod(minutes, 60)
        return pick(forms.time).format(h12=hour % 12 or 12, mm=f"{minute:02d}", ampm="am" if hour < 12 else "pm")
    return fact if not find_values(fact) else fact


def _question(sentence: str, template: str) -> str:
    if sentence.endswith("?"):
        return sentence
    body = sentence.rstrip(".!:; ")
    lower = body[:1].lower() + body[1:] if body[:2] != body[:2].upper() else body
    return template.format(s=body, s_lower=lower)


def _rivals(facts_: list[str], world: list[str]) -> list[str]:
    """Other values of the task's world to hedge a dump with: short scalars the facts do not name."""
    named = {f.lower() for f in facts_}
    pool = [v for v in world if 0 < len(v) <= 24 and v.lower() not in named and not v.startswith(("{", "["))]
    numbers = [v for v in pool if re.fullmatch(r"\d[\d,.]*", v)]
    words = [v for v in pool if re.fullmatch(r"[A-Za-z][a-z]+", v)]
    return (numbers[:2] + words[:2]) or pool[:3]


# ---- the cases ---------------------------------------------------------------------------------------------


def _turn(task_id: str, k: int) -> int:
    """Which entry of a bank a criterion gets: fixed per task and criterion, spread over the bank."""
    return int(hashlib.sha256(f"{task_id}/{k}".encode()).hexdigest()[:8], 16)


def paraphrase_cases(task_id: str, criteria: list[ReplyCriterion], replies: list[str], world: list[str], bank: ReplyBanks) -> Iterator[ParaphraseCase]:
    transcript = "\n".join(replies)
    for k, criterion in enumerate(criteria):
        picked = facts(criterion, transcript)
        if not picked:
            continue
        turn = _turn(task_id, k)
        pick = lambda entries: entries[turn % len(entries)]  # noqa: E731 - one line, local
        base = stripped(criteria, k, replies)
        if base is not None:
            last = max((i for i, r in enumerate(replies) if r.strip()), default=len(replies) - 1)

            def said(statement: str, base: list[str] = base, last: int = last) -> tuple[str, ...]:
                out = list(base)
                out[last] = (out[last] + " " + statement).strip()
                return tuple(out)

            framed = lambda fs: " ".join(pick(bank.frames[i:] + bank.frames[:i]).format(fact=f) for i, f in enumerate(fs))  # noqa: E731
            if len(picked) <= 2:
                yield ParaphraseCase("terse", k, "pass", f"terse: {', '.join(picked)}", said(pick(bank.terse).format(facts=", ".join(picked))))
            yield ParaphraseCase("frames", k, "pass", "each fact in a sentence frame", said(framed(picked)))
            for kind, table in (("spelling", bank.spellings), ("synonym", bank.synonyms)):
                other = [_sub_words(f, table) for f in picked]
                if other != picked:
                    yield ParaphraseCase(kind, k, "pass", f"{kind}: {', '.join(o for o, f in zip(other, picked) if o != f)}", said(framed(other)))
            forms = [value_form(f, bank.values, turn) for f in picked]
            if forms != picked:
                yield ParaphraseCase("values", k, "pass", f"values: {', '.join(o for o, f in zip(forms, picked) if o != f)}", said(framed(forms)))
            items = picked + _rivals(picked, world)
            yield ParaphraseCase("dump", k, "fail", "a labelled dump with the world's other values", said(pick(bank.dump).format(items=" - ".join(items))))
        final = max((i for i, r in enumerate(replies) if r.strip()), default=len(replies) - 1)
        retracted = list(replies)
        retracted[final] = (retracted[final] + " " + pick(bank.retractions)).strip()
        yield ParaphraseCase("retraction", k, "fail", f"retracted: {pick(bank.retractions)!r}", tuple(retracted))
        frame = pick(bank.negated_framings)
        yield ParaphraseCase("negated_framing", k, "fail", f"framed: {frame!r}", tuple(f"{frame} {r}" if r.strip() else r for r in replies))
        template = pick(bank.questions)
        asked = tuple(" ".join(_question(s, template) for s in _sentences(r)) for r in replies)
        yield ParaphraseCase("question", k, "fail", f"every sentence as {template!r}", asked)


def results(task: Task, gold: Evidence) -> list[CaseResult]:
    """The battery's outcomes for one task (must-pass: passed / false_failure; must-fail: killed / missed)."""
    from grader.refs import resolve

    if not task.contract.reply_criteria:
        return []
    criteria = resolve(task.contract, gold)[0].reply_criteria or []
    replies = gold_replies(gold, len(task.gold))
    out: list[CaseResult] = []
    for case in paraphrase_cases(task.id, criteria, replies, world_values(gold), banks()):
        passed, why = _judge(criteria, case.criterion, case.replies)
        if case.must == "pass":
            outcome: Any = "passed" if passed else "false_failure"
        else:
            outcome = "missed" if passed else "killed"
        detail = f"criterion {case.criterion} ({criteria[case.criterion].criterion[:80]}): {case.description}"
        if outcome in ("false_failure", "missed"):
            detail += f" - judge: {why[:300]}"
        out.append(CaseResult(case.case_id, "reply", f"{KIND_PREFIX}{case.kind}", outcome, detail))
    return out


def add_to(report: BatteryReport, task: Task, gold: Evidence) -> None:
    """Append the task's paraphrase outcomes to its battery report (its failures fail the gate)."""
    report.results.extend(results(task, gold))


def table(reports: Sequence[tuple[str, BatteryReport | None]]) -> dict[str, dict[str, int]]:
    """domain -> counts: must-pass generated / passed, must-fail generated / failed (killed)."""
    rows: dict[str, dict[str, int]] = {}
    for domain, report in reports:
        if report is None:
            continue
        for r in report.results:
            if not r.kind.startswith(KIND_PREFIX):
                continue
            for key in (domain, "all"):
                row = rows.setdefault(key, dict.fromkeys(("pass_cases", "passed", "fail_cases", "failed"), 0))
                if r.outcome in ("passed", "false_failure"):
                    row["pass_cases"] += 1
                    row["passed"] += r.outcome == "passed"
                else:
                    row["fail_cases"] += 1
                    row["failed"] += r.outcome == "killed"
    return dict(sorted(rows.items(), key=lambda kv: (kv[0] == "all", kv[0])))

"""How the offline consent rule reads a message: general English, from a reviewed lexicon.

`grader/consent_lexicon.yaml` lists the yes-forms, declines, deferrals, request openers, condition words
and action words; this module turns a message into what the rule decides from (`Reading`): whether it
affirms, declines, defers or requests, its conditions, and what it names. Nothing here knows a task: the
rule (`grader.consent`) ties a reading to a gated call through the call's own action words and values.

Reading is clause by clause. A message is split into clauses at sentence ends, commas, semicolons,
dashes and "but"; a clause is read after its leading fillers ("ok then", "great, now"). Forms match whole
words, case- and punctuation-insensitive, contractions expanded ("don't" = "dont" = "do not").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, Field

from grader.text.values import Value, find_values

LEXICON_PATH = Path(__file__).with_name("consent_lexicon.yaml")


class ConsentLexicon(BaseModel):
    """The lexicon file's shape (validated: a typo in a key fails loudly, not silently)."""

    contractions: dict[str, str]
    yes_forms: list[str] = Field(min_length=1)
    negators: list[str]
    decline_forms: list[str]
    not_declines: list[str]
    deferral_forms: list[str]
    request_openers: list[str]
    request_markers: list[str]
    elliptical_openers: list[str]
    fillers: list[str]
    condition_openers: list[str]
    vacuous_conditions: list[str]
    feasibility_conditions: list[str]
    upper_bounds: list[str]
    lower_bounds: list[str]
    date_before: list[str]
    date_after: list[str]
    proposal_cues: list[str]
    actions: dict[str, list[str]]
    objects: dict[str, list[str]]
    generic_actions: list[str]
    counter_markers: list[str]


@lru_cache(maxsize=1)
def lexicon() -> ConsentLexicon:
    return ConsentLexicon.model_validate(yaml.safe_load(LEXICON_PATH.read_text()))


_WORDS = re.compile(r"[a-z0-9][a-z0-9'$.:/-]*[a-z0-9]|[a-z0-9]")


def words(text: str) -> list[str]:
    """Lowercased words with contractions expanded; punctuation other than inside values dropped."""
    return list(_words(text))


@lru_cache(maxsize=16384)
def _words(text: str) -> tuple[str, ...]:
    text = text.lower().replace("\u2019", "'").replace("\u2018", "'")
    out: list[str] = []
    for word in _WORDS.findall(text):
        expanded = lexicon().contractions.get(word)
        out.extend(expanded.split() if expanded else [word.strip("'")])
    return tuple(w for w in out if w)


@lru_cache(maxsize=4096)
def _form(phrase: str) -> tuple[str, ...]:
    return tuple(words(phrase))


def starts_with(clause: list[str], phrase: str) -> bool:
    form = _form(phrase)
    return bool(form) and tuple(clause[: len(form)]) == form


def find(clause: list[str], phrase: str) -> list[int]:
    """Word positions where `phrase` occurs in `clause` (a trailing `*` on its last word is a stem)."""
    form = _form(phrase.rstrip("*"))
    stem = phrase.endswith("*")
    if not form or (not stem and form[0] not in clause) or (stem and len(form) == 1 and not any(w.startswith(form[0]) for w in clause)):
        return []
    out = []
    for i in range(len(clause) - len(form) + 1):
        window = clause[i : i + len(form)]
        if tuple(window[:-1]) == form[:-1] and (window[-1] == form[-1] or (stem and window[-1].startswith(form[-1]))):
            out.append(i)
    return out


_CLAUSE_SPLIT = re.compile(r"(?<=[.!?;])\s+|,(?!\d{3})|(?<!\d):(?!\d)|[;\n]|\s[-\u2013\u2014]+\s|\bbut\b", re.I)


_SENTENCE_SPLIT = re.compile(r"(?<=[.!?;])\s+|\n+")


def clauses(text: str) -> list[tuple[str, list[str], list[str], str]]:
    """(raw clause, its words, the words of its sentence, the sentence) for every clause of a message."""
    out = []
    for sentence in _SENTENCE_SPLIT.split(text):
        sentence_words = words(sentence)
        for raw in _CLAUSE_SPLIT.split(sentence):
            if raw and raw.strip():
                clause_words = words(raw)
                if clause_words:
                    out.append((raw.strip(), clause_words, sentence_words, sentence.strip()))
    return out


def strip_fillers(clause: list[str]) -> list[str]:
    """The clause without its leading fillers ("ok then", "great, now", "thanks. and")."""
    fillers = sorted(lexicon().fillers, key=lambda f: -len(_form(f)))
    changed = True
    while changed and clause:
        changed = False
        for filler in fillers:
            if starts_with(clause, filler):
                clause, changed = clause[len(_form(filler)) :], True
                break
    return clause


def negated_at(clause: list[str], position: int, window: int = 3) -> bool:
    """A negator within `window` words before `position` in the same clause ("do not go ahead")."""
    return any(w in lexicon().negators for w in clause[max(0, position - window) : position])


def opens_with_any(clause: list[str], phrases: list[str]) -> str | None:
    for phrase in sorted(phrases, key=lambda p: -len(_form(p))):
        if starts_with(clause, phrase):
            return phrase
    return None


@dataclass(frozen=True)
class Condition:
    """A condition the customer put on their answer: its text, and the bound it sets when it is one the
    record can check (`kind`: "amount" or "date"; `direction`: "max" or "min")."""

    text: str
    kind: str | None = None
    direction: str | None = None
    bound: Any = None
    noun: tuple[str, ...] = ()
    sentence: str = ""
    """The sentence the condition stands in: it gates the decision of that sentence."""


@dataclass
class Reading:
    """What one customer message says, for the consent rule."""

    text: str
    affirms: bool = False
    declines: bool = False
    defers: bool = False
    requests: list[list[str]] = field(default_factory=list)
    """The words of every sentence with a clause that asks the agent to act ("please close it", "can you
    refund it?", "assign Sam Okoro, TECH-107.")."""
    negated_actions: list[list[str]] = field(default_factory=list)
    """The words of every clause that tells the agent not to act ("don't cancel it")."""
    question: bool = False
    opens_refusal: bool = False
    """The answer opens with a decline or a deferral ("no, ...", "not yet ...")."""
    conditions: list[Condition] = field(default_factory=list)
    request_texts: list[str] = field(default_factory=list)
    affirm_texts: list[str] = field(default_factory=list)
    """The sentences of the yes-forms."""
    """The sentences of `requests`, as written (their values keep their form: "$1,000", "14:00")."""
    statements: list[list[str]] = field(default_factory=list)
    """Clauses that are neither questions nor requests (a choice: "the Visa, PM-5550")."""

    @property
    def decides(self) -> bool:
        return self.affirms or bool(self.requests) or bool(self.statements)


def _is_question(raw: str, clause: list[str]) -> bool:
    return raw.rstrip().endswith("?") or (bool(clause) and clause[0] in {"what", "how", "which", "when", "where", "why", "who", "is", "are", "does", "did", "was", "am"})


MODALS = frozenset({"can", "could", "would", "will"})


def _is_request(clause: list[str]) -> bool:
    """A clause asking the agent to act: a request opener, an action word first (imperative), or a modal
    question about someone other than the speaker ("could Ben do it?"; "can I ...?" asks for information)."""
    core = strip_fillers(clause)
    if opens_with_any(core, lexicon().request_openers):
        return True
    if any(find(clause, marker) for marker in lexicon().request_markers):
        return True
    if len(core) > 1 and core[0] in MODALS and core[1] not in {"i", "it", "that", "this", "there"}:
        return True
    return bool(core) and any(starts_with(core, form) for forms in lexicon().actions.values() for form in forms)


def _condition(raw: str, clause: list[str], opener: str) -> Condition:
    lex = lexicon()
    text = " ".join(clause)
    values = [v for v in find_values(raw) if v.kind in ("number", "date")]
    rest = clause[len(_form(opener)) :]
    noun = tuple(w for w in rest[:4] if w.isalpha() and w not in {"the", "it", "is", "a", "an", "my", "that", "this", "i", "you", "we", "if", "be", "will", "would", "comes", "to", "total"})
    if any(find(rest, form) for form in lex.feasibility_conditions) and not any(v.kind == "number" for v in values if "$" in raw):
        return Condition(text, "feasible", None, None, noun)
    noun = tuple(w for w in noun if not any(w in _form(b) for b in lex.upper_bounds + lex.lower_bounds + lex.date_before + lex.date_after))
    for value in values:
        if value.kind == "number" and ("$" in raw or any(find(clause, b) for b in lex.upper_bounds + lex.lower_bounds)):
            direction = _direction(clause, lex.upper_bounds, lex.lower_bounds)
            if direction:
                return Condition(text, "amount", direction, value.value, noun)
        if value.kind == "date":
            direction = _direction(clause, lex.date_before, lex.date_after)
            if direction:
                return Condition(text, "date", direction, value.value, noun)
    return Condition(text)


def _direction(clause: list[str], upper: list[str], lower: list[str]) -> str | None:
    """"max" or "min" by the longest bound phrase in the clause ("no more than" is an upper bound though
    it holds "more than")."""
    found = [(len(_form(p)), "max") for p in upper if find(clause, p)] + [(len(_form(p)), "min") for p in lower if find(clause, p)]
    return max(found)[1] if found else None


def _vacuous(clause: list[str]) -> bool:
    """A condition that gates nothing ("if there is one", "if needed")."""
    return any(find(clause, v) for v in lexicon().vacuous_conditions)


def _condition_at(core: list[str]) -> tuple[int, str] | None:
    """Where a condition opens in the clause, and its opener ("go ahead if it's under $30" -> 2, "if")."""
    lex = lexicon()
    best: tuple[int, str] | None = None
    for opener in sorted(lex.condition_openers, key=lambda o: -len(_form(o))):
        for at in find(core, opener):
            if best is None or at < best[0]:
                best = (at, opener)
    return best


def _negated(core: list[str]) -> bool:
    """A yes-form or an action negated in its clause ("I'm not fine with that", "please never cancel it")."""
    lex = lexicon()
    if not any(w in lex.negators for w in core[:5]):
        return False
    forms = list(lex.yes_forms) + [f for fs in lex.actions.values() for f in fs]
    return any(negated_at(core, pos) for form in forms for pos in find(core, form))


@lru_cache(maxsize=8192)
def read(text: str) -> Reading:
    """Read one customer message, clause by clause, in this order: a condition (kept apart, the rest of
    the clause read on); a deferral; a decline; a negated yes-form or action; a question (not a request);
    a yes-form; a request; else a statement (see the module docstring)."""
    lex = lexicon()
    reading = Reading(text=text)
    for position, (raw, clause, sentence, sentence_text) in enumerate(clauses(text)):
        core = strip_fillers(clause)
        opening = position == 0 or not (reading.affirms or reading.requests or reading.statements or reading.question)
        condition = None if _vacuous(core) or raw.rstrip().endswith("?") else _condition_at(core)
        if condition is not None:
            at, opener = condition
            reading.conditions.append(replace(_condition(raw, core[at:], opener), sentence=sentence_text))
            core = core[:at]
            if not core:
                continue
        if opens_with_any(clause, lex.deferral_forms) or opens_with_any(core, lex.deferral_forms):
            reading.defers = True
            reading.negated_actions.append(core)
            reading.opens_refusal |= opening
            continue
        if not opens_with_any(clause, lex.not_declines) and (opens_with_any(clause, lex.decline_forms) or opens_with_any(core, lex.decline_forms)):
            reading.declines = True
            reading.negated_actions.append(core)
            reading.opens_refusal |= opening
            continue
        yes = opens_with_any(core, lex.yes_forms) or opens_with_any(clause, lex.yes_forms)
        if not core and not yes:
            continue  # only fillers ("oh", "sorry")
        if _negated(core):
            reading.declines = True
            reading.negated_actions.append(core)
            continue
        if _is_question(raw, core) and not _is_request(clause):
            reading.question = True
            continue
        if yes:
            reading.affirms = True
            reading.affirm_texts.append(sentence_text)
            rest = core[len(_form(yes)) :] if starts_with(core, yes) else []
            if rest and _is_request(rest):
                reading.requests.append(sentence)
                reading.request_texts.append(sentence_text)
            continue
        if _is_request(clause) or opens_with_any(clause, lex.elliptical_openers):
            reading.requests.append(sentence)
            reading.request_texts.append(sentence_text)
            opener = opens_with_any(core, lex.request_openers)
            if opener and opens_with_any(core[len(_form(opener)) :], lex.yes_forms):
                reading.affirms = True  # "could you go ahead?" asks for what was proposed
                reading.affirm_texts.append(sentence_text)
            continue
        reading.statements.append(core)
    return reading


# ---- values of a call --------------------------------------------------------------------------------

MONEY_KEYS = re.compile(r"amount|fee|total|difference|price|cost|charge|paid|refund|balance|credit|fare|due", re.I)
DATE_KEYS = re.compile(r"date|time|start|depart|arriv|day|when|at$|on$|window|slot", re.I)


def flatten(value: Any, key: str = "") -> list[tuple[str, Any]]:
    """(key path, leaf) pairs of a JSON-like value."""
    if isinstance(value, dict):
        return [pair for k, v in value.items() for pair in flatten(v, f"{key}.{k}" if key else str(k))]
    if isinstance(value, list):
        return [pair for item in value for pair in flatten(item, key)]
    return [(key, value)]


def leaf_values(key: str, leaf: Any) -> list[Value]:
    """The values a call's argument or result leaf states (ids, dates, times, amounts)."""
    if isinstance(leaf, bool) or leaf is None:
        return []
    if isinstance(leaf, (int, float)):
        return [Value("number", Decimal(str(leaf)).normalize(), 0, 0, str(leaf))]
    if isinstance(leaf, str):
        return find_values(leaf)
    return []


def amounts(record: list[tuple[str, Any]], noun: tuple[str, ...]) -> list[Decimal]:
    """The money values of a call's record: those under a key naming the condition's noun ("if the
    difference is under $30": `fare_difference`) when there are any, else all of them (a bound on "it"
    must hold for every amount the call moves)."""
    money = [(k, v) for k, leaf in record if MONEY_KEYS.search(k.rsplit(".", 1)[-1]) for v in leaf_values(k, leaf) if v.kind == "number"]
    named = [v for k, v in money if any(n.rstrip("s") in k.lower() for n in noun if len(n) > 2)]
    return [v.value for v in (named or [v for _, v in money])]  # type: ignore[misc]


def dates(record: list[tuple[str, Any]]) -> list[tuple[int | None, int, int]]:
    return [v.value for k, leaf in record for v in leaf_values(k, leaf) if v.kind == "date"]  # type: ignore[misc]


def condition_holds(condition: Condition, record: list[tuple[str, Any]], status: str = "executed") -> bool | None:
    """Whether the record meets the condition: True, False, or None when the record cannot tell (no bound
    read from the condition, or no value of its kind in the call's arguments and result). A condition on
    whether the action can be done ("if he's free") is met when the call was carried out (`status`)."""
    if condition.kind == "feasible":
        return status == "executed"
    if condition.kind == "amount":
        found = amounts(record, condition.noun)
        if not found:
            return None
        bound = Decimal(str(condition.bound))
        return all(v <= bound for v in found) if condition.direction == "max" else all(v >= bound for v in found)
    if condition.kind == "date":
        found = dates(record)
        if not found:
            return None
        _, bm, bd = condition.bound
        key = (bm, bd)
        if condition.direction == "max":
            return all((m, d) <= key for _, m, d in found)
        return all((m, d) >= key for _, m, d in found)
    return None

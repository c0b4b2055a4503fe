"""What the grader's families and judges share, below all of them: the prepared contract (`prepare`), the
judge-failure exception and the quote rules every judge's answer is validated by.

`grader.grade`, `grader.consent` and the model judges import from here; this module imports none of
them, so the grader's imports run one way (issue 40, circle 1)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from contracts.evidence import Evidence
from contracts.schema import Task
from grader.refs import Unresolved, resolve

if TYPE_CHECKING:
    from grader.memo import ContractMemo


class JudgeFailure(RuntimeError):
    """The judge's output was unusable (wrong criteria count, fabricated quote). After the judge's own
    retries the trial is *ungraded*: it stays in the denominator as a non-pass (a derailed judge must
    never be a way to dodge a failing grade) and the run is reported incomplete; a rerun re-judges it."""


MIN_QUOTE_ALNUM = 4
"""A passing verdict's quote needs at least this many letters/digits, unless it is a whole message."""

MIN_QUOTE_WORDS = 3
"""Each span of a model's quote needs at least this many words, unless it is a whole message: a real span
of the reply that states the fact, never one word picked out of it."""

QUOTE_SEPARATOR = re.compile(r"\s*(?:\u2026|\.\.\.)\s*")
"""Spans of one quote taken from several messages (or several places) are joined with " … " (or "...")."""


def unescape_quote(quote: str) -> str:
    """A quote copied from the JSON transcript may keep its escapes (`\\u003c`): read them back."""
    return quote.replace("\\u003c", "<").replace("\\u003e", ">").replace("\\u0026", "&")


def quote_spans(quote: str, assistant_messages: list[str]) -> list[str]:
    """The spans of a quote: the whole quote when it occurs verbatim in one message, else its parts
    separated by " … "."""
    stripped = unescape_quote(quote or "").strip()
    if any(stripped in m for m in assistant_messages):
        return [stripped]
    return [p.strip() for p in QUOTE_SEPARATOR.split(stripped) if p.strip()]


def quote_problem(quote: str, assistant_messages: list[str], *, substantive: bool = True) -> str | None:
    """Why `quote` cannot support a passing verdict, or None. A quote is one span or several joined with
    " … " (a criterion may be met over several messages); each span must occur verbatim inside ONE
    assistant message (never spanning two, never from the user) and, for a model's quote, be substantive:
    at least `MIN_QUOTE_WORDS` words and `MIN_QUOTE_ALNUM` letters or digits, unless it is a whole message."""
    stripped = unescape_quote(quote or "").strip()
    if not stripped:
        return "the quote is empty"
    for span in quote_spans(stripped, assistant_messages):
        whole = any(span == m.strip() for m in assistant_messages)
        if substantive and not whole:
            if sum(map(str.isalnum, span)) < MIN_QUOTE_ALNUM:
                return f"the quote {span[:40]!r} is not substantive"
            if len(re.findall(r"[^\W_]+", span)) < MIN_QUOTE_WORDS:
                return f"the quote {span[:40]!r} is not a span of at least {MIN_QUOTE_WORDS} words"
        if not any(span in m for m in assistant_messages):
            return f"the quote does not occur in any single assistant message: {span[:120]!r}"
    return None


Prepared = tuple[Task, Evidence, list[Unresolved]]
"""What `prepare` returns: the task with its contract resolved and canonical, the canonical evidence, and
the references that could not be resolved."""


def prepare(task: Task, evidence: Evidence, memo: ContractMemo | None = None) -> Prepared:
    """What every check and judge grades: the contract with its result references resolved from the
    recorded trace (grader/refs.py), then contract and evidence in the canonical form the domain's tools
    define (defaults, the parameters' own types, unordered lists; grader/semantics.py). A task of an
    unknown domain (a synthetic test) keeps its raw values. `memo` reuses the results of these pure steps
    (grader/memo.py): the contract's across a run's rounds of a task, everything across one task's many
    trajectories in the release batteries."""
    contract, unresolved = resolve(task.contract, evidence) if memo is None else memo.resolve(task.contract, evidence)
    try:
        from servers.registry import UnknownDomain, environment_class

        env = environment_class(task.domain)
    except UnknownDomain:
        env = None
    if env is not None:
        from grader.semantics import canonical_contract, canonical_evidence

        if memo is None:
            contract = canonical_contract(env, contract)
            evidence = canonical_evidence(env, evidence)
        else:
            contract = memo.canonical_contract(env, contract)
            evidence = memo.canonical_evidence(env, evidence)
    if contract is not task.contract:
        task = task.model_copy(update={"contract": contract})
    return task, evidence, unresolved



"""The consent paraphrase battery of the release gate (issue 37) and the grader's one-way imports (issue 40).

The battery places each bank answer where the gold customer decides and grades the consent check alone:
its fast path (the dialogue's prefix read once, each answer stepped) must give the verdicts of the whole
rewritten dialogue; the bank must not be the rule's lexicon; and a rule that lost its yes-forms must fail it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from contracts.catalog import load_catalog
from contracts.evidence import Evidence
from contracts.schema import Task
from grader.consent import consent_verdicts, rule_consent
from grader.consent_language import lexicon
from grader.prepared import prepare
from harness.release.consent_battery import ConsentBank, broken_answers, load_bank, placed, run_consent_battery

pytestmark = pytest.mark.anyio

TASKS = ("travel_change_date_pay_difference_01", "customer_support_kb_tv_rescan_solved_close_01", "payments_transfer_daily_limit_01")


@pytest.fixture(scope="module")
async def played() -> list[tuple[Task, Evidence]]:
    from harness.release.replay import GatewayReplayer
    from servers.gateway import Gateway

    catalog = load_catalog()
    out = []
    async with GatewayReplayer(Gateway(sorted({catalog[t].domain for t in TASKS}))) as replayer:
        for task_id in TASKS:
            task = catalog[task_id]
            prepared_task, evidence, _ = prepare(task, await replayer.play(task, task.gold))
            out.append((prepared_task, evidence))
    return out


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


async def test_every_bank_answer_is_judged_as_required(played: list[tuple[Task, Evidence]]) -> None:
    for task, evidence in played:
        result = run_consent_battery(task, evidence)
        assert result.outcomes and all(o.ok for o in result.outcomes), [(o.case.case_id, o.detail) for o in result.outcomes if not o.ok]
        assert {o.case.kind for o in result.outcomes} == {"grants", "declines", "deferrals", "broken_conditions"}
        # a refused decline kills every consent check (the mutation proof counts it)
        assert len(result.kills) == len(task.contract.consent or [])


async def test_the_fast_path_gives_the_whole_dialogue_verdict(played: list[tuple[Task, Evidence]]) -> None:
    """Stepping each answer after the prefix read once = grading the rewritten dialogue from scratch."""
    bank = load_bank()
    for task, evidence in played:
        result = run_consent_battery(task, evidence, bank)
        for outcome in result.outcomes[:: max(1, len(result.outcomes) // 25)]:
            rewritten = placed(evidence, outcome.case.check, task, outcome.case.answer)
            verdict = consent_verdicts(task.contract, rewritten, rule_consent(task.contract, rewritten))[outcome.case.check]
            assert verdict.passed is outcome.granted, outcome.case.case_id


async def test_the_battery_fails_a_rule_without_yes_forms(played: list[tuple[Task, Evidence]], monkeypatch: pytest.MonkeyPatch) -> None:
    """The battery can fail: a lexicon that lost its yes-forms refuses the bank's grants."""
    from grader import consent_language

    crippled = lexicon().model_copy(update={"yes_forms": ["affirmative"]})
    monkeypatch.setattr(consent_language, "lexicon", lambda: crippled)
    consent_language.read.cache_clear()
    try:
        task, evidence = played[0]
        result = run_consent_battery(task, evidence)
        grants = [o for o in result.outcomes if o.case.kind == "grants"]
        assert sum(not o.ok for o in grants) >= len(grants) // 2
    finally:
        consent_language.read.cache_clear()


def test_the_bank_is_not_the_lexicon() -> None:
    """The bank's answers are whole answers written apart from the lexicon's forms, not a copy of them."""
    bank = load_bank()
    forms = {f.lower() for f in lexicon().yes_forms}
    copied = [a for a in bank.grants if a.lower().strip(".!") in forms]
    assert len(copied) <= len(bank.grants) // 3, copied
    assert len(bank.grants) >= 20 and len(bank.declines) >= 10 and len(bank.deferrals) >= 10
    ConsentBank.model_validate(bank.model_dump())


def test_broken_conditions_break_the_call() -> None:
    from contracts.evidence import ToolCallRecord

    call = ToolCallRecord(seq=0, turn=0, tool="change_flight", arguments={"date": "2026-12-12"}, status="executed", result={"fare_difference": 40.0})
    answers = broken_answers(load_bank(), [call])
    assert any("$20.00" in a for a in answers) and any("December 11" in a for a in answers)
    assert any("wife" in a for a in answers)


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    return out


def test_grader_imports_run_one_way() -> None:
    """Issue 40, circle 1: grade -> consent -> prepared, llm_consent -> consent/prepared; none back."""
    grader = Path(__file__).parents[1] / "grader"
    assert "grader.grade" not in _imports(grader / "consent.py")
    assert "grader.grade" not in _imports(grader / "llm_consent.py")
    assert not {"grader.grade", "grader.consent", "grader.llm_consent"} & _imports(grader / "prepared.py")
    assert not {"grader.grade", "grader.consent"} & _imports(grader / "consent_language.py")

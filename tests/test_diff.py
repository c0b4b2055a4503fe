"""Trajectory diff (`crmbench diff`): two trials of a task, or a trial and its gold path, lined up turn by
turn and call by call; the first divergence and the first wrong write of the failing side."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from contracts.catalog import load_catalog
from contracts.evidence import Message, ToolCallRecord
from harness.cli import main
from harness.records import TrialKey, TrialRecord
from harness.report.diff import diff_sides, side_of_gold, side_of_record
from harness.rundir import RunDirectory

TASK = "payments_checkout_split_payment_01"
ACCOUNT = {"account_id": "ACC-1005"}


def _call(seq: int, turn: int, tool: str, args: dict[str, Any], result: Any = None, status: str = "executed") -> ToolCallRecord:
    return ToolCallRecord(seq=seq, turn=turn, tool=tool, arguments=args, status=status, result=result)  # type: ignore[arg-type]


def _checkout(first: float, second: float, extra_lookup: bool = False) -> list[ToolCallRecord]:
    """The gold path's calls as a trial made them: two payments, each followed by receipt, points and log."""
    calls = [_call(0, 0, "get_account_balance", ACCOUNT, {"balance": 640.2})]
    if extra_lookup:
        calls.append(_call(1, 2, "get_account_balance", ACCOUNT, {"balance": 640.2}))
    for txn, (amount, method) in (("TXN-A", (first, "account_balance")), ("TXN-B", (second, "card"))):
        n = len(calls)
        calls += [
            _call(n, 2, "process_payment", {**ACCOUNT, "amount": amount, "method": method, "merchant": "Summit Electronics"}, {"transaction_id": txn}),
            _call(n + 1, 2, "send_receipt", {"transaction_id": txn}, {"ok": True}),
            _call(n + 2, 2, "award_loyalty_points", {**ACCOUNT, "transaction_id": txn}, {"ok": True}),
            _call(n + 3, 2, "log_transaction", {"transaction_id": txn, "category": "checkout"}, {"ok": True}),
        ]
    return calls


def _record(calls: list[ToolCallRecord], strict: bool, round_: int = 0) -> TrialRecord:
    conversation = [Message(role=role, content=f"{role} {t}", turn=t) for t in range(4) for role in ("user", "assistant")]  # type: ignore[arg-type]
    return TrialRecord(key=TrialKey(task_id=TASK, round=round_, seed=7), domain="payments", difficulty="hard", capabilities=["x"], agent="script",
                       status="scored", strict=strict, conversation=conversation, tool_trace=calls)


def test_the_first_divergence_and_the_first_wrong_write() -> None:
    good = side_of_record("good", _record(_checkout(600.0, 75.0), True))
    bad = side_of_record("bad", _record(_checkout(600.0, 70.0, extra_lookup=True), False))
    diff = diff_sides(TASK, good, bad)
    assert diff.failing == "b"
    first = diff.first_divergence
    assert first is not None and (first.turn, first.position, first.marker) == (2, 1, ">")  # B's extra lookup in turn 3
    assert not first.writes  # a read: the world's own tool kind says so
    wrong = diff.first_wrong_write
    assert wrong is not None and wrong.a is not None and wrong.a.tool == "process_payment" and (wrong.turn, wrong.position) == (2, 6)
    assert "amount: 75.0 vs 70.0" in wrong.explain()
    # the extra read did not push the later calls out of line: the receipts after it still align as equal
    assert [s.marker for s in diff.steps if s.turn == 2].count("=") == 7
    text = diff.render()
    assert "first divergence: turn 3, call 1: only B calls get_account_balance" in text
    assert "first wrong write (B, the failing side): turn 3, call 6: process_payment: arguments differ (amount: 75.0 vs 70.0)" in text


def test_gold_references_resolve_against_the_trials_own_results_in_order() -> None:
    task = load_catalog()[TASK]
    record = _record(_checkout(600.0, 75.0), True)
    diff = diff_sides(TASK, side_of_record("trial", record), side_of_gold(task, record))
    # ${process_payment.transaction_id} is TXN-A for the first receipt and TXN-B for the second: every call is the same
    assert diff.first_divergence is None and all(s.same for s in diff.steps)
    assert diff.failing is None and "not named (neither failed" in diff.render()
    # a failing trial that paid the wrong amount: gold is the passing side, and its writes are the reference
    wrong = _record(_checkout(600.0, 70.0), False)
    against_gold = diff_sides(TASK, side_of_record("trial", wrong), side_of_gold(task, wrong))
    assert against_gold.failing == "a"
    step = against_gold.first_wrong_write
    assert step is not None and step.b is not None and step.b.arguments["amount"] == 75.0


def test_a_left_out_write_is_a_wrong_write_and_a_refused_one_too() -> None:
    calls = _checkout(600.0, 75.0)
    missing = [c for c in calls if not (c.tool == "send_receipt" and c.arguments["transaction_id"] == "TXN-A")]
    diff = diff_sides(TASK, side_of_record("good", _record(calls, True)), side_of_record("bad", _record(missing, False)))
    wrong = diff.first_wrong_write
    assert wrong is not None and wrong.marker == "<" and wrong.a is not None and wrong.a.tool == "send_receipt"
    refused = [c.model_copy(update={"status": "refused"}) if c.tool == "process_payment" else c for c in calls]
    diff = diff_sides(TASK, side_of_record("good", _record(calls, True)), side_of_record("bad", _record(refused, False)))
    wrong = diff.first_wrong_write
    assert wrong is not None and wrong.marker == "~" and "executed" in wrong.explain() and "refused" in wrong.explain()


def _run(path: Path, record: TrialRecord, started: str) -> Path:
    path.mkdir(parents=True)
    manifest = {"dataset_version": "t", "dataset_lock_sha256": "0" * 64, "started_at": started, "config_hash": started,
                "plan": {"agent": "script", "agent_kind": "script"}, "config": {}}
    (path / "manifest.json").write_text(json.dumps(manifest))
    RunDirectory(path).save(record)
    return path


def test_the_diff_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = _run(tmp_path / "good", _record(_checkout(600.0, 75.0), True), "2026-01-01")
    bad = _run(tmp_path / "bad", _record(_checkout(600.0, 70.0), False), "2026-01-02")
    main(["diff", str(good), str(bad), "--task", TASK])
    out = capsys.readouterr().out
    assert "first wrong write (B, the failing side): turn 3, call 5" in out and str(bad / "trials" / "payments") in out
    main(["diff", str(bad), "--gold", "--task", TASK])
    assert "B = gold path" in capsys.readouterr().out
    for argv, message in (
        (["diff", str(good), "--task", TASK], "add --gold"),
        (["diff", str(good), str(bad), "--task", "payments_checkout_split_payment_02"], "did you mean"),
        (["diff", str(good), str(bad), "--task", TASK, "--round", "3"], "--round 3 does not exist"),
    ):
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 2
        assert message in capsys.readouterr().err

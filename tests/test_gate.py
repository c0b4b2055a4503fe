"""The paired regression gate (`crmbench compare --gate`) and the planner (`crmbench plan`): the gate's
rules on hand-made pairs, the planner's power against a seeded simulation of the exact test, the gate's
hit and false-alarm rates at the planned rounds, and both commands on run directories."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from contracts.catalog import load_catalog
from grader.stats import paired_power, proportional_drop_pairs
from harness.cli import main
from harness.records import TrialKey, TrialRecord
from harness.report.gate import Pair, gate, pair_rounds
from harness.report.power import plan_from_counts
from harness.rundir import RunDirectory

DOMAINS = ("d0", "d1", "d2", "d3")


def _pairs(counts: dict[str, tuple[int, int, int, int]]) -> list[Pair]:
    """Per domain: (pass both, A only, B only, fail both) → pairs."""
    out = []
    for domain, (both, a_only, b_only, neither) in counts.items():
        kinds = [(True, True)] * both + [(True, False)] * a_only + [(False, True)] * b_only + [(False, False)] * neither
        out += [Pair(f"{domain}_t{i}", 0, domain, a, b) for i, (a, b) in enumerate(kinds)]
    return out


# ---- rules --------------------------------------------------------------------------------------


def test_a_significant_drop_fails_and_no_difference_passes() -> None:
    result = gate(_pairs({"d0": (60, 20, 2, 18)}))
    assert result.failed and result.overall.failed
    assert (result.overall.lost, result.overall.gained) == (20, 2)
    assert [p.task_id for p in result.flipped][:1] == ["d0_t60"]  # pass->fail listed first
    assert not gate(_pairs({"d0": (60, 10, 10, 20)})).failed
    assert not gate(_pairs({"d0": (60, 2, 20, 18)})).failed  # B better: one-sided, never a regression


def test_a_significant_drop_within_max_drop_is_tolerated() -> None:
    # 10,000 pairs, 400 lost vs 250 gained: p ~ 1e-9, but the drop is only 1.5 points
    pairs = _pairs({"d0": (7000, 400, 250, 2350)})
    tolerant = gate(pairs, max_drop=0.02)
    assert tolerant.overall.p_value < 1e-6 and not tolerant.failed
    assert gate(pairs, max_drop=0.01).failed


def test_a_regression_in_one_domain_fails_even_when_the_overall_rate_does_not_move() -> None:
    pairs = _pairs({"d0": (20, 15, 0, 5), "d1": (150, 15, 20, 15), "d2": (150, 15, 20, 15), "d3": (150, 15, 20, 15)})
    result = gate(pairs)
    assert not result.overall.failed  # 60 lost vs 60 gained overall
    failed = [t.scope for t in result.domains if t.failed]
    assert failed == ["d0"]
    d0 = result.domains[0]
    assert d0.adjusted == pytest.approx(min(1.0, 4 * d0.p_value))  # Holm over the four domains: the smallest p times 4
    assert result.failed


def test_bottom_is_dropped_on_both_sides() -> None:
    a = [{"t1": True, "t2": True, "t3": None, "t4": False}]
    b = [{"t1": False, "t2": None, "t3": False, "t5": True}]
    pairs, dropped = pair_rounds(a, b, dict.fromkeys(["t1", "t2", "t3", "t4", "t5"], "d0"))
    assert [(p.task_id, p.a, p.b) for p in pairs] == [("t1", True, False)]
    assert dropped == 4  # t2 (⊥ in B), t3 (⊥ in A), t4 (missing in B), t5 (missing in A)
    # rounds pair by index, only over the rounds both hold
    pairs, _ = pair_rounds([{"t": True}, {"t": False}, {"t": True}], [{"t": True}, {"t": True}], {"t": "d0"})
    assert [(p.round, p.a, p.b) for p in pairs] == [(0, True, True), (1, False, True)]


def test_bad_gate_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="alpha"):
        gate([], alpha=0)
    with pytest.raises(ValueError, match="max-drop"):
        gate([], max_drop=1.5)


# ---- the planner against simulation -------------------------------------------------------------


def _world(rng: random.Random, tasks: int = 120) -> list[float]:
    """True per-task success probabilities: steady passes, steady failures and flaky tasks."""
    out = []
    for _ in range(tasks):
        u = rng.random()
        out.append(0.97 if u < 0.45 else 0.05 if u < 0.65 else rng.uniform(0.25, 0.85))
    return out


def _simulate(rng: random.Random, p: list[float], q: list[float], rounds: int) -> list[Pair]:
    return [Pair(f"t{i}", r, DOMAINS[i % len(DOMAINS)], rng.random() < pi, rng.random() < qi)
            for r in range(rounds) for i, (pi, qi) in enumerate(zip(p, q, strict=True))]


def test_paired_power_matches_a_simulation_of_the_exact_test() -> None:
    """The normal approximation of the planner against the one-sided exact McNemar test it stands for,
    simulated from the same per-task loss/gain probabilities (seeded)."""
    rng = random.Random(11)
    truth = _world(rng)
    counts = [(sum(rng.random() < p for _ in range(3)), 3) for p in truth]
    pairs = proportional_drop_pairs(counts, 0.05)
    replicates = 500
    for rounds in (1, 2, 3):
        hits = 0
        for _ in range(replicates):
            sample = []
            for r in range(rounds):
                for i, (a, b) in enumerate(pairs):
                    u = rng.random()
                    lost, gained = u < a, a <= u < a + b
                    same = rng.random() < 0.5
                    sample.append(Pair(f"t{i}", r, "d0", lost or (same and not gained), gained or (same and not lost)))
            hits += gate(sample, max_drop=0.0).overall.failed
        predicted = paired_power(pairs, rounds, 0.025)
        assert abs(hits / replicates - predicted) < 0.06, (rounds, hits / replicates, predicted)


def test_gate_flags_a_true_10_point_drop_at_the_planned_rounds_and_rarely_a_null() -> None:
    """The issue's numbers: plan from a 3-round baseline of a seeded world, then run the gate at the planned
    rounds on fresh runs of that world: a true 10-point drop is flagged >= 80% of the time, no difference
    <= 5% (overall and per-domain tests together)."""
    rng = random.Random(20261201)
    truth = _world(rng)
    counts = [(sum(rng.random() < p for _ in range(3)), 3) for p in truth]
    plan = plan_from_counts("simulated", counts, 3, delta=0.10, alpha=0.05, power=0.8)
    assert plan.rounds_needed is not None and plan.rounds_needed >= 2
    mean = sum(truth) / len(truth)
    worse = [p * (1 - 0.10 / mean) for p in truth]
    assert sum(truth) / len(truth) - sum(worse) / len(worse) == pytest.approx(0.10)
    replicates = 400
    hits = sum(gate(_simulate(rng, truth, worse, plan.rounds_needed)).failed for _ in range(replicates))
    alarms = sum(gate(_simulate(rng, truth, truth, plan.rounds_needed)).failed for _ in range(replicates))
    assert hits / replicates >= 0.80, hits / replicates
    assert alarms / replicates <= 0.05, alarms / replicates
    # one round fewer than planned is not enough power (the plan is not padded)
    fewer = sum(gate(_simulate(rng, truth, worse, plan.rounds_needed - 1)).failed for _ in range(replicates))
    assert fewer / replicates < hits / replicates


def test_plan_refuses_what_it_cannot_plan_and_warns_on_one_round() -> None:
    with pytest.raises(ValueError, match="not smaller"):
        plan_from_counts("x", [(1, 4)] * 10, 4, delta=0.5, alpha=0.05, power=0.8)
    with pytest.raises(ValueError, match="no task was scored"):
        plan_from_counts("x", [(0, 0)] * 3, 1, delta=0.05, alpha=0.05, power=0.8)
    one = plan_from_counts("x", [(1, 1)] * 60 + [(0, 1)] * 40, 1, delta=0.05, alpha=0.05, power=0.8)
    assert one.warnings and "one round" in one.warnings[0]
    assert "rounds needed" in one.render()


# ---- the commands on run directories ------------------------------------------------------------


def _write_run(path: Path, outcomes: list[dict[str, bool | None]], started: str, agent: str = "script") -> Path:
    catalog = load_catalog()
    directory = RunDirectory(path)
    path.mkdir(parents=True)
    manifest = {"dataset_version": "t", "dataset_lock_sha256": "0" * 64, "started_at": started, "config_hash": started,
                "plan": {"agent": agent, "agent_kind": "plugin"}, "config": {}}
    (path / "manifest.json").write_text(json.dumps(manifest))
    for r, round_outcomes in enumerate(outcomes):
        for task_id, ok in round_outcomes.items():
            task = catalog[task_id]
            directory.save(TrialRecord(key=TrialKey(task_id=task_id, round=r, seed=r), domain=task.domain, difficulty=task.difficulty,
                                       capabilities=task.capabilities, agent="script", status="infra_error" if ok is None else "scored",
                                       strict=ok))
    return path


def test_compare_gate_and_plan_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tasks = sorted(t for t, task in load_catalog().items() if task.domain == "payments")[:40]
    good = _write_run(tmp_path / "a", [{t: i % 5 != 0 for i, t in enumerate(tasks)} for _ in range(3)], "2026-01-01")
    bad = _write_run(tmp_path / "b", [{t: i % 5 != 0 and i % 2 == 0 for i, t in enumerate(tasks)} for _ in range(3)], "2026-01-02", agent="worse")
    with pytest.raises(SystemExit) as exit_:
        main(["compare", str(good), str(bad), "--gate"])
    assert exit_.value.code == 1
    out = capsys.readouterr().out
    assert "Regression gate: FAIL" in out and "pass->fail" in out and str(bad / "trials" / "payments") in out
    main(["compare", str(good), str(good), "--gate"])  # no difference: exit 0
    assert "Regression gate: pass" in capsys.readouterr().out
    main(["plan", "--baseline", str(good), "--delta", "0.1"])
    out = capsys.readouterr().out
    assert "rounds needed" in out and "round-to-round flips: 0.0% of tasks between consecutive rounds; the model expects 0.0%" in out
    with pytest.raises(SystemExit) as exit_:
        main(["plan", "--baseline", str(good), "--baseline", str(bad)])  # two systems are not one baseline
    assert exit_.value.code == 2 and "not one" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["plan", "--baseline", str(good), "--delta", "0.9"])
    assert exit_.value.code == 2 and "not smaller" in capsys.readouterr().err

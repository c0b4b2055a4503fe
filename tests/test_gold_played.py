"""The gold-played models (`harness.runner.gold_models`) play every task of the catalog from only what each role
is shown: the agent every customer message so far, the router the graph agent's context window. Two
tasks whose customers say the same things must then have the same gold turn there, or the offline
model-driven runs (the bench, the lean-path equality tests, `fake_model_server.py`) cannot tell them
apart. Checked here for the whole catalog, so a re-authored task that breaks it fails at once, naming
the tasks, instead of as an "ambiguous" error inside a run."""

from __future__ import annotations

import pytest

from contracts.catalog import load_catalog
from harness.runner.gold_models import GoldPlayedModels
from orchestrator.graph_agent import CONTEXT_MESSAGES


def test_every_gold_turn_of_the_catalog_is_told_apart_by_what_each_role_sees() -> None:
    catalog = load_catalog()
    play = GoldPlayedModels.of(list(catalog)).play()
    problems: list[str] = []
    for task in catalog.values():
        visible: list[tuple[str, str]] = []
        for i, turn in enumerate(task.gold):
            router_view = [text for role, text in visible[-CONTEXT_MESSAGES:] if role == "customer"] + [turn.user]
            for role, said, whole in (("agent", [t.user for t in task.gold[: i + 1]], True), ("router", router_view, False)):
                try:
                    found, at = play._turn_of(said, whole=whole)
                except ValueError as exc:
                    problems.append(f"{task.id} turn {i} ({role}): {exc}")
                    continue
                if found.gold[at] != turn:
                    problems.append(f"{task.id} turn {i} ({role}): played as {found.id} turn {at}, another gold turn")
            visible += [("customer", turn.user), ("assistant", turn.reply)]
    assert not problems, "\n".join(problems)


def test_the_check_fails_on_two_tasks_that_open_alike_and_go_apart() -> None:
    catalog = load_catalog()
    first = catalog["payments_balance_inquiry_01"]
    twin = first.model_copy(update={"id": "payments_balance_inquiry_99", "gold": [first.gold[0].model_copy(update={"reply": "Another reply."})]})
    play = GoldPlayedModels((first, twin), 0.0).play()
    with pytest.raises(ValueError, match="ambiguous"):
        play._turn_of([first.gold[0].user], whole=True)

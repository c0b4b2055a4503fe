"""A state path no world state can have is a validation error (issue 41): an `expected_state` on a
misspelt field would fail every trial, a `forbidden_state` on one would pass every trial, and neither says
why. Read from the world's state model, so a record id the trial creates (or a `${tool.field}` reference)
is a path that may exist, while a field the record type lacks, an index into a record or a key under a
number never is."""

from __future__ import annotations

from typing import Any

import pytest

from contracts import catalog as cat
from contracts.graph import load_graph
from harness.validate import impossible_path, validate_task
from servers.registry import environment_class

TASK = "payments_balance_inquiry_01"


def _problems(**contract: Any) -> list[str]:
    task = cat.get_task(TASK)
    task = task.model_copy(update={"contract": task.contract.model_copy(update=contract)})
    return validate_task(task, environment_class("payments"), load_graph("payments"))


def _state_check(path: str, **operator: Any) -> Any:
    from contracts.schema import StateCheck

    return StateCheck(path=path, **(operator or {"equals": 1}))


@pytest.mark.parametrize(
    "path",
    ["accounts.ACC-1001.balence", "accounts.ACC-1001.balance.amount", "accounts.ACC-1001.balance.0", "acounts.ACC-1001.balance"],
)
def test_a_path_no_state_can_have_is_an_error(path: str) -> None:
    problems = _problems(expected_state=[_state_check(path)])
    assert any(path in p and ("can never exist" in p or "does not start at a root" in p) for p in problems), problems


@pytest.mark.parametrize("path", ["accounts.ACC-1001.balance", "accounts.ACC-7777.balance", "accounts.${open_account.account_id}.balance", "accounts"])
def test_a_path_some_state_can_have_passes(path: str) -> None:
    assert [p for p in _problems(expected_state=[_state_check(path)]) if "can never exist" in p] == []
    assert impossible_path(environment_class("payments").state_model, path) is None


def test_forbidden_state_paths_are_checked_too() -> None:
    from contracts.schema import ForbiddenState

    problems = _problems(forbidden_state=[ForbiddenState(path="accounts.ACC-1001.frozzen", equals=True)])
    assert any("forbidden_state path 'accounts.ACC-1001.frozzen' can never exist" in p for p in problems), problems


def test_a_count_on_a_field_the_records_lack_is_an_error() -> None:
    problems = _problems(expected_state=[_state_check("accounts", count=1, where={"ownr": "x"})])
    assert any("'ownr'" in p and "not a field" in p for p in problems), problems


def test_every_domain_state_model_answers_for_its_own_fields() -> None:
    """No hand list: every field of every record type of every domain is a path; a field name with a typo is not."""
    from servers.registry import known_domains

    for domain in known_domains():
        model = environment_class(domain).state_model
        dump = environment_class(domain).default_state().model_dump(mode="json")
        for root, value in dump.items():
            assert impossible_path(model, root) is None, (domain, root)
            assert impossible_path(model, root + "_typo") is not None, (domain, root)
            if isinstance(value, dict) and value and all(isinstance(v, dict) for v in value.values()):
                record_id, record = next(iter(value.items()))
                for field in record:
                    assert impossible_path(model, f"{root}.{record_id}.{field}") is None, (domain, root, field)
                    assert impossible_path(model, f"{root}.{record_id}.{field}_typo") is not None, (domain, root, field)

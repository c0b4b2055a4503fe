"""Task files: schema validation, errors that name file/task/field, merge semantics, the lock."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from contracts import catalog as cat
from contracts.catalog import CatalogError, load_catalog, parse_task_file
from servers.domains.payments.tools import PaymentsEnvironment

GOOD_TASK = """
  - id: payments_demo_case_01
    domain: payments
    title: Demo task
    capabilities: [balance_inquiry]
    difficulty: easy
    instruction: You are Maria Lopez with account ACC-1001. Ask for your balance and stop once you have it.
    contract:
      expected_actions: [{tool: get_account_balance}]
    gold:
      - user: What's my balance on ACC-1001?
        calls: [{tool: get_account_balance, args: {account_id: ACC-1001}}]
        reply: Your balance is $2,450.75.
"""


def write(tmp_path: Path, body: str, name: str = "payments.yaml") -> Path:
    path = tmp_path / name
    path.write_text("domain: payments\nversion: 0.0.1\ntasks:\n" + textwrap.dedent(body).strip("\n") + "\n" if not body.startswith("domain") else body)
    return path


def test_valid_file_parses(tmp_path: Path) -> None:
    parsed = parse_task_file(write(tmp_path, GOOD_TASK))
    assert parsed.tasks[0].id == "payments_demo_case_01"


def test_malformed_yaml_names_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "domain: payments\ntasks: [unclosed\n")
    with pytest.raises(CatalogError, match=r"payments\.yaml: invalid YAML"):
        parse_task_file(path)


def test_schema_error_names_file_task_and_field(tmp_path: Path) -> None:
    body = GOOD_TASK.replace("difficulty: easy", "difficulty: trivial")
    with pytest.raises(CatalogError) as info:
        parse_task_file(write(tmp_path, body))
    message = str(info.value)
    assert "payments.yaml" in message and "task 'payments_demo_case_01' field difficulty" in message


def test_nested_contract_error_names_the_field(tmp_path: Path) -> None:
    body = GOOD_TASK.replace("expected_actions: [{tool: get_account_balance}]", "expected_state: [{path: accounts.ACC-1001.balance}]")
    with pytest.raises(CatalogError, match=r"field contract\.expected_state\.0: Value error, state check on 'accounts.ACC-1001.balance' must set exactly one"):
        parse_task_file(write(tmp_path, body))


def test_unknown_keys_are_rejected(tmp_path: Path) -> None:
    body = GOOD_TASK.replace("    difficulty: easy", "    difficulty: easy\n    dificulty: easy")
    with pytest.raises(CatalogError, match="field dificulty: Extra inputs are not permitted"):
        parse_task_file(write(tmp_path, body))


def test_duplicate_ids_across_files(tmp_path: Path) -> None:
    write(tmp_path, GOOD_TASK, "a.yaml")
    write(tmp_path, GOOD_TASK, "b.yaml")
    load_catalog.cache_clear()
    with pytest.raises(CatalogError, match="duplicate"):
        load_catalog(tmp_path)


def test_unknown_task_id_suggests_similar() -> None:
    with pytest.raises(CatalogError, match="similar: payments_transfer_frozen_source_01"):
        cat.get_task("payments_transfer_frozen_source_99")


def test_initial_state_merges_over_default() -> None:
    state = PaymentsEnvironment.initial_state({"accounts": {"ACC-1002": {"balance": 5.0}}})
    assert state.accounts["ACC-1002"].balance == 5.0
    assert state.accounts["ACC-1002"].owner_name == "Daniel Kim"  # merged, not replaced
    assert state.accounts["ACC-1001"].balance == 2450.75


def test_committed_lock_matches_catalog() -> None:
    fresh, why = cat.lock_status()
    assert fresh, why


def test_lock_detects_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    (tasks / "payments.yaml").write_text("x")
    (tmp_path / "graphs").mkdir()
    (tmp_path / "policies").mkdir()
    before = cat.catalog_lock(tasks, tmp_path / "graphs", tmp_path / "policies")
    (tasks / "payments.yaml").write_text("y")
    after = cat.catalog_lock(tasks, tmp_path / "graphs", tmp_path / "policies")
    assert before["catalog_sha256"] != after["catalog_sha256"]

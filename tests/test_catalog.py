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
    tmp_path.mkdir(parents=True, exist_ok=True)
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


# ---------------------------------------------------------------- loading proportional to the selection


RETAIL_TASK = GOOD_TASK.replace("payments_demo_case_01", "retail_demo_case_01").replace("domain: payments", "domain: retail")


def two_domains(tmp_path: Path) -> Path:
    write(tmp_path, GOOD_TASK, "payments.yaml")
    (tmp_path / "retail.yaml").write_text("domain: retail\nversion: 0.0.1\ntasks:\n" + textwrap.dedent(RETAIL_TASK).strip("\n") + "\n")
    return tmp_path


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """Every task file validated (by name), a fresh disk cache, and nothing kept in memory."""
    validated: list[str] = []
    original = cat.TaskFile.model_validate
    monkeypatch.setenv(cat.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(cat, "_documents", {})
    monkeypatch.setattr(cat, "_selections", {})

    def model_validate(raw: object, *args: object, **kwargs: object) -> cat.TaskFile:
        validated.append(raw["domain"] if isinstance(raw, dict) else "?")
        return original(raw, *args, **kwargs)

    monkeypatch.setattr(cat.TaskFile, "model_validate", model_validate)
    return validated


def test_a_selection_validates_only_its_files(tmp_path: Path, counted: list[str]) -> None:
    tasks = two_domains(tmp_path / "tasks")
    assert list(cat.load_selection(domains=["retail"], tasks_dir=tasks)) == ["retail_demo_case_01"]
    assert list(cat.load_selection(task_ids=["payments_demo_case_01"], tasks_dir=tasks)) == ["payments_demo_case_01"]
    assert counted == ["retail", "payments"]
    assert cat.catalog_domains(tasks) == ["payments", "retail"]
    assert counted == ["retail", "payments"]  # the domains come from the files' kept index, not from validation


def test_a_selection_selects_what_the_whole_catalog_would(tmp_path: Path, counted: list[str]) -> None:
    """Files are found by what they hold, not by their names; an unknown id gives the catalog's error."""
    tasks = tmp_path / "tasks"
    write(tasks, GOOD_TASK, "zz-misnamed.yaml")
    (tasks / "retail.yaml").write_text("domain: retail\nversion: 0.0.1\ntasks:\n" + textwrap.dedent(RETAIL_TASK).strip("\n") + "\n")
    assert list(cat.load_selection(domains=["payments"], tasks_dir=tasks)) == ["payments_demo_case_01"]
    load_catalog.cache_clear()
    with pytest.raises(CatalogError, match="unknown task id 'payments_nope_01'"):
        cat.select_tasks(cat.load_selection(task_ids=["payments_nope_01"], tasks_dir=tasks), task_ids=["payments_nope_01"])
    load_catalog.cache_clear()


def test_a_broken_file_is_always_loaded_so_its_error_is_seen(tmp_path: Path, counted: list[str]) -> None:
    tasks = two_domains(tmp_path / "tasks")
    (tasks / "sales.yaml").write_text("domain: sales\ntasks: [ {id: x,\n")
    with pytest.raises(CatalogError, match=r"sales\.yaml: invalid YAML"):
        cat.load_selection(domains=["retail"], tasks_dir=tasks)


def test_each_file_is_parsed_once_per_content(tmp_path: Path, counted: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A second process (nothing in memory) reads the kept JSON, never the YAML; a changed file is
    parsed again; a kept file that does not parse is a miss."""
    tasks = two_domains(tmp_path / "tasks")
    cat.load_selection(domains=["payments"], tasks_dir=tasks)
    kept = sorted((tmp_path / "cache" / cat.DOCUMENTS_SUBDIR).glob("*.json"))
    assert len(kept) == 2  # both files were indexed (the selection's domain is found by content)

    def no_yaml(text: str) -> object:
        raise AssertionError("YAML parsed although its parse was kept")

    monkeypatch.setattr(cat, "_documents", {})
    monkeypatch.setattr(cat, "_selections", {})
    monkeypatch.setattr(cat, "read_yaml", no_yaml)
    assert list(cat.load_selection(domains=["payments"], tasks_dir=tasks)) == ["payments_demo_case_01"]

    monkeypatch.undo()  # YAML again, and a fresh process
    monkeypatch.setenv(cat.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(cat, "_documents", {})
    monkeypatch.setattr(cat, "_selections", {})
    write(tasks, GOOD_TASK.replace("Demo task", "Changed title"), "payments.yaml")
    assert cat.load_selection(domains=["payments"], tasks_dir=tasks)["payments_demo_case_01"].title == "Changed title"
    for path in (tmp_path / "cache" / cat.DOCUMENTS_SUBDIR).glob("*.json"):
        path.write_text("{not json")
    monkeypatch.setattr(cat, "_documents", {})
    monkeypatch.setattr(cat, "_selections", {})
    assert cat.load_selection(domains=["retail"], tasks_dir=tasks)["retail_demo_case_01"].domain == "retail"


def test_documents_json_cannot_hold_are_not_kept(tmp_path: Path, counted: list[str]) -> None:
    """A YAML date would come back from JSON as a string, and validate differently: never kept."""
    tasks = tmp_path / "tasks"
    write(tasks, GOOD_TASK.replace("    difficulty: easy", "    difficulty: easy\n    opened: 2026-01-31"), "payments.yaml")
    with pytest.raises(CatalogError):
        cat.load_selection(domains=["payments"], tasks_dir=tasks)
    assert not list((tmp_path / "cache" / cat.DOCUMENTS_SUBDIR).glob("*.json"))


def test_the_disk_cache_can_be_turned_off(tmp_path: Path, counted: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cat.CACHE_ENV, cat.CACHE_OFF)
    assert cat.cache_dir() is None
    tasks = two_domains(tmp_path / "tasks")
    assert list(cat.load_selection(domains=["retail"], tasks_dir=tasks)) == ["retail_demo_case_01"]
    assert not (tmp_path / "cache").exists()


def test_a_non_finite_number_is_found_and_named_wherever_it_sits() -> None:
    """The preflight names where a NaN or an infinity sits in a task (models, mappings, lists), and finds
    none in a task without one."""
    import math

    from contracts.schema import GoldCall
    from harness.validate import non_finite

    call = GoldCall(tool="t", args={"amounts": [1.0, 2.5, {"fee": math.inf}]})
    assert non_finite(call, "task") == "task.args.amounts[2].fee"
    assert non_finite({"a": [0.0, {"b": (1, -math.nan)}]}, "initial_state") == "initial_state.a[1].b[1]"
    assert non_finite({"a": [0.0, {"b": (1, 1e308)}]}, "initial_state") is None
    assert all(non_finite(task, "task") is None for task in load_catalog().values())

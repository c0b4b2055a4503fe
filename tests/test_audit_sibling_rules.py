"""The sibling-rule audit aid (scripts/audit_sibling_rules.py) flags exactly the differences it is for."""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.scripts import load_script


@pytest.fixture(scope="module")
def audit() -> ModuleType:
    return load_script("audit_sibling_rules")


def rules(audit: ModuleType, task_id: str, *, writes: tuple[str, ...] = ("cancel_appointment",), written: tuple[str, ...] = ("APT-1",),
          forbidden_actions: tuple[str, ...] = (), forbidden: dict[str, frozenset[str]] | None = None,
          protected: tuple[str, ...] = (), only_changes: tuple[str, ...] | None = ("appointments.APT-1.status",)) -> object:
    return audit.Rules(task_id=task_id, capabilities=("scheduling",), writes=frozenset(writes), written_ids=frozenset(written),
                       forbidden_actions=frozenset(forbidden_actions), forbidden_ids=forbidden or {},
                       protected_ids=frozenset(protected), only_changes=only_changes)


def test_a_uniform_family_gives_no_finding(audit: ModuleType) -> None:
    family = [rules(audit, "a", forbidden_actions=("book_appointment",)), rules(audit, "b", forbidden_actions=("book_appointment",))]
    assert audit.action_family_findings(family) == []


def test_a_sibling_without_only_changes_or_with_other_forbidden_actions_is_named(audit: ModuleType) -> None:
    family = [rules(audit, "a", forbidden_actions=("book_appointment",)), rules(audit, "b", only_changes=None)]
    found = audit.action_family_findings(family)
    assert any("missing: b" in line for line in found)
    assert any("forbidden_actions differ" in line and "a=['book_appointment']" in line for line in found)


def test_tasks_of_other_families_are_not_compared(audit: ModuleType) -> None:
    assert audit.action_family_findings([rules(audit, "a", forbidden_actions=("x",)), rules(audit, "b", writes=("assign_technician",))]) == []


def test_a_lookalike_guarded_halfway_is_named_and_a_whole_guard_is_not(audit: ModuleType) -> None:
    protected_only = rules(audit, "p", protected=("APT-2",))
    forbidden_unpinned = rules(audit, "f", forbidden={"APT-2": frozenset({"cancel_appointment"})}, only_changes=None)
    whole = rules(audit, "w", forbidden={"APT-2": frozenset({"cancel_appointment"})}, protected=("APT-2",))
    pinned_by_only_changes = rules(audit, "o", forbidden={"APT-2": frozenset({"cancel_appointment"})})
    found = audit.lookalike_findings([protected_only, forbidden_unpinned, whole, pinned_by_only_changes])
    assert found == ["p: look-alike APT-2 is protected but no attempt on it is forbidden",
                     "f: look-alike APT-2 is forbidden (cancel_appointment) but not pinned"]


def test_the_record_the_gold_writes_is_no_lookalike(audit: ModuleType) -> None:
    assert audit.lookalike_findings([rules(audit, "g", protected=("APT-1",))]) == []


def test_it_reads_the_catalog(audit: ModuleType) -> None:
    assert audit.main(["--domain", "field_service"]) == 0

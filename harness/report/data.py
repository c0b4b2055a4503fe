"""Loading run directories into systems and rounds for the reports.

A *system* is one agent configuration (the agent model, or the agent kind for offline agents). Each run
directory contributes one round per round index it holds; rounds of a system are ordered by the run's
start time, then the round index. Round 1 is the official first-round result (the leaderboard's).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contracts.catalog import CatalogError, load_catalog
from contracts.schema import Task
from harness.records import TrialRecord
from harness.rundir import RunDirectory, RunDirectoryError


class ReportInputError(ValueError):
    pass


@dataclass
class Round:
    source: Path
    index: int
    records: dict[str, TrialRecord]
    """task id → record (one per task within a round)."""

    def scored(self) -> list[TrialRecord]:
        return [r for r in self.records.values() if r.status == "scored"]

    def outcome(self, task_id: str) -> bool | None:
        record = self.records.get(task_id)
        return None if record is None or record.status != "scored" else bool(record.strict)


@dataclass
class System:
    label: str
    agent_model: str | None
    manifest: dict[str, Any]
    rounds: list[Round] = field(default_factory=list)

    @property
    def first(self) -> Round:
        return self.rounds[0]


@dataclass
class ReportData:
    systems: list[System]
    catalog: dict[str, Task]
    sources: list[Path]

    def task(self, task_id: str) -> Task | None:
        return self.catalog.get(task_id)

    def is_policy_constrained(self, record: TrialRecord) -> bool:
        """Spec B.8: declares a forbidden action, forbidden params or protected state. From the catalog;
        for tasks no longer in it, from the components the trial was graded on."""
        task = self.task(record.key.task_id)
        if task is not None:
            return task.contract.has_negative
        components = record.verdict.components if record.verdict else {}
        return "forbidden" in components or "collateral" in components


def system_label(manifest: dict[str, Any]) -> str:
    plan = manifest.get("plan", {})
    return plan.get("agent_model") or plan.get("agent") or "unknown"


def load_runs(paths: list[Path], labels: dict[Path, str] | None = None) -> ReportData:
    if not paths:
        raise ReportInputError("give at least one run directory")
    systems: dict[str, System] = {}
    ordered: list[tuple[str, str, int, Path, dict[str, TrialRecord]]] = []
    for path in paths:
        directory = RunDirectory(path)
        try:
            manifest = directory.read_manifest()
            if manifest is None:
                raise ReportInputError(f"{path}: not a run directory (no manifest.json)")
            records_found = directory.records()
        except RunDirectoryError as exc:
            raise ReportInputError(str(exc)) from None
        label = (labels or {}).get(path) or system_label(manifest)
        by_round: dict[int, dict[str, TrialRecord]] = {}
        for record in records_found:
            by_round.setdefault(record.key.round, {})[record.key.task_id] = record
        if not by_round:
            raise ReportInputError(f"{path}: the run has no finished trial yet")
        systems.setdefault(label, System(label=label, agent_model=manifest.get("plan", {}).get("agent_model"), manifest=manifest))
        for index, records in by_round.items():
            ordered.append((label, str(manifest.get("started_at", "")), index, path, records))
    for label, _, index, path, records in sorted(ordered, key=lambda o: (o[0], o[1], o[2])):
        systems[label].rounds.append(Round(source=path, index=index, records=records))
    try:
        catalog = load_catalog()
    except CatalogError:
        catalog = {}
    return ReportData(systems=sorted(systems.values(), key=lambda s: s.label), catalog=catalog, sources=list(paths))

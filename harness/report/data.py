"""Loading run directories into systems and rounds for the reports.

A *system* is one (agent, models, configuration, catalog lock): two runs belong to the same system only if
their manifests agree on all four (the task selection, the number of rounds and the seed are not part of
it: a system may be run in pieces). `--label NAME=RUN...` names systems and groups runs explicitly; runs a
label groups must still be the same system, else the report refuses (or, with `allow_mixed`, marks them).
Each run directory contributes one round per round index it holds; rounds of a system are ordered by the
run's start time, then the round index. Round 1 is the official first-round result (the leaderboard's).

What is refused: the same directory twice, two copies of one run (same start time and configuration) in
one system, a re-graded run next to its source in one system, and runs over different catalog versions
(unless `allow_mixed`, then every affected row is marked). Partial runs (a task selection, or trials
missing against the catalog the run used) are kept and marked in every row they affect.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contracts.catalog import CatalogError, catalog_lock, load_catalog
from contracts.schema import Task
from harness.runner.config import EXECUTION_ONLY
from harness.gc_policy import bulk_load
from harness.records import TrialRecord
from harness.report.state_changes import StateDiff, state_diff
from harness.rundir import RunDirectory, RunDirectoryError

PARTIAL_MARK = "†"
MIXED_MARK = "‡"

NOT_IDENTITY = EXECUTION_ONLY | {"domain", "task", "capability", "difficulty", "rounds", "base_seed", "offline"}
"""Run settings that do not change which system is measured (runtime plumbing, selection, rounds, seed)."""

OFFLINE_STAND_INS = {
    "oracle": "oracle (offline stand-in: plays each task's gold path)",
    "noop": "noop (offline baseline: does nothing)",
    "script": "script (offline: replays a trajectory file)",
}


class ReportInputError(ValueError):
    pass


@dataclass
class Round:
    source: Path
    index: int
    records: dict[str, TrialRecord]
    """task id → record (one per task within a round), held without its initial and final states
    (`summarised`): what the report shows of them is `state_diffs`."""
    state_diffs: dict[str, StateDiff | None] = field(default_factory=dict)
    """task id → the record's state difference (None: a format-1 record without an initial state)."""
    manifest: dict[str, Any] = field(default_factory=dict)
    catalog_ids: set[str] | None = None
    """Every task of the catalog the run used (None: that catalog is not the one loaded, so unknown)."""
    selected_ids: set[str] | None = None
    """The tasks the run's selection (--domain/--task/--capability/--difficulty) asked for."""
    catalog_domains: dict[str, str] = field(default_factory=dict)
    """task id → domain for the catalog the run used."""

    def scored(self) -> list[TrialRecord]:
        return [r for r in self.records.values() if r.status == "scored"]

    def outcome(self, task_id: str) -> bool | None:
        record = self.records.get(task_id)
        return None if record is None or record.status != "scored" else bool(record.strict)

    @property
    def missing(self) -> list[str]:
        """Catalog tasks with no trial record in this round (not selected, or selected and not run)."""
        return [] if self.catalog_ids is None else sorted(self.catalog_ids - set(self.records))

    @property
    def not_run(self) -> list[str]:
        """Selected tasks with no record: an interrupted run."""
        return [] if self.selected_ids is None else sorted(self.selected_ids - set(self.records))

    @property
    def missing_domains(self) -> list[str]:
        """Domains of the catalog with no trial at all in this round."""
        present = {r.domain for r in self.records.values()}
        return sorted(set(self.catalog_domains.values()) - present)

    @property
    def ungraded(self) -> list[str]:
        """Scored trials whose judge failed: counted as non-passes, so the round is incomplete."""
        return sorted(t for t, r in self.records.items() if r.status == "scored" and r.ungraded)

    @property
    def partial(self) -> bool:
        return bool(self.missing or self.ungraded)


@dataclass
class System:
    label: str
    agent_model: str | None
    manifest: dict[str, Any]
    rounds: list[Round] = field(default_factory=list)
    key: str = ""
    """Identity hash: agent, models, configuration and catalog lock."""
    identity: dict[str, Any] = field(default_factory=dict)
    mixed: list[str] = field(default_factory=list)
    """Why this system is marked as mixed (allow_mixed): runs of different identity or catalog."""
    colour: str = "#1f77b4"
    rank_order: int = 0
    prices: Any = None
    """The PriceTable its costs use: the run's own (manifest), or --price-table; None: the report's default."""
    price_source: str = "default table"

    @property
    def first(self) -> Round:
        return self.rounds[0]

    @property
    def partial(self) -> bool:
        return any(r.partial for r in self.rounds)

    @property
    def name(self) -> str:
        """The label as every table row shows it: marked when partial (†) or mixed (‡)."""
        marks = (PARTIAL_MARK if self.partial else "") + (MIXED_MARK if self.mixed else "")
        return f"{self.label} {marks}" if marks else self.label

    def partial_note(self) -> str | None:
        if not self.partial:
            return None
        parts = []
        for i, r in enumerate(self.rounds, start=1):
            if not r.partial:
                continue
            total = len(r.catalog_ids or ())
            detail = f"round {i}: {len(r.records)}/{total} catalog tasks"
            if r.ungraded:
                detail += f", {len(r.ungraded)} ungraded trial(s) counted as non-passes (re-judge with crmbench grade)"
            if r.missing_domains:
                detail += f", no trial in domain(s) {', '.join(r.missing_domains)}"
            if r.not_run:
                detail += f", {len(r.not_run)} selected task(s) not run (interrupted)"
            parts.append(detail)
        return f"{PARTIAL_MARK} {self.label} is partial: " + "; ".join(parts)


@dataclass
class ReportData:
    systems: list[System]
    catalog: dict[str, Task]
    sources: list[Path]
    catalog_lock: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def task(self, task_id: str) -> Task | None:
        return self.catalog.get(task_id)

    def system(self, label: str) -> System:
        return next(s for s in self.systems if s.label == label)

    def is_policy_constrained(self, record: TrialRecord) -> bool:
        """Spec B.8: declares a forbidden action, forbidden params or protected state. From the catalog;
        for tasks no longer in it, from the components the trial was graded on."""
        task = self.task(record.key.task_id)
        if task is not None:
            return task.contract.has_negative
        components = record.verdict.components if record.verdict else {}
        return "forbidden" in components or "collateral" in components

    def mark_notes(self) -> list[str]:
        """The notes every table that shows systems carries: which rows are partial or mixed, and why."""
        notes = [n for s in self.systems if (n := s.partial_note())]
        notes += [f"{MIXED_MARK} {s.label} mixes runs: {'; '.join(s.mixed)}" for s in self.systems if s.mixed]
        return notes


def system_label(manifest: dict[str, Any]) -> str:
    """The reference graph agent is labelled by its model (one system per model, as in the paper); any
    other agent by its name and model, so two frameworks on one model stay two systems."""
    plan = manifest.get("plan", {})
    agent, model = plan.get("agent"), plan.get("agent_model")
    if agent in (None, "graph") or plan.get("agent_kind") == "graph":
        return model or agent or "unknown"
    return f"{agent} ({model})" if model else agent


def system_identity(manifest: dict[str, Any]) -> dict[str, Any]:
    """What makes two runs the same system: the agent (name, kind, code, configuration), the models per
    role, every result-affecting setting, and the catalog lock. A re-grade adds its judge."""
    plan = {k: v for k, v in manifest.get("plan", {}).items() if k != "notes"}
    config = {k: v for k, v in manifest.get("config", {}).items() if k not in NOT_IDENTITY}
    regrade = manifest.get("regrade") or {}
    return {
        "agent": plan.get("agent"),
        "models": manifest.get("models") or {r: plan.get(f"{r}_model") for r in ("agent", "router", "user", "judge") if plan.get(f"{r}_model")},
        "plan": plan,
        "config": config,
        "catalog": {"version": manifest.get("dataset_version"), "lock": manifest.get("dataset_lock_sha256")},
        "regrade": {"judge": regrade.get("judge"), "catalog_lock": regrade.get("catalog_lock")} if regrade else None,
    }


def identity_key(identity: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(identity, sort_keys=True, default=str).encode()).hexdigest()[:10]


def _differences(a: dict[str, Any], b: dict[str, Any], prefix: str = "") -> list[str]:
    out = []
    for key in sorted(set(a) | set(b)):
        va, vb = a.get(key), b.get(key)
        if isinstance(va, dict) and isinstance(vb, dict):
            out += _differences(va, vb, f"{prefix}{key}.")
        elif va != vb:
            out.append(f"{prefix}{key}: {va!r} vs {vb!r}")
    return out


def _selected(catalog: dict[str, Task], config: dict[str, Any]) -> set[str]:
    tasks = list(catalog.values())
    if config.get("task"):
        tasks = [t for t in tasks if t.id in set(config["task"])]
    if config.get("domain"):
        tasks = [t for t in tasks if t.domain in set(config["domain"])]
    if config.get("capability"):
        tasks = [t for t in tasks if set(t.capabilities) & set(config["capability"])]
    if config.get("difficulty"):
        tasks = [t for t in tasks if t.difficulty in set(config["difficulty"])]
    return {t.id for t in tasks}


@dataclass
class _Run:
    path: Path
    manifest: dict[str, Any]
    by_round: dict[int, dict[str, TrialRecord]]
    diffs: dict[int, dict[str, StateDiff | None]]
    identity: dict[str, Any]
    key: str
    label: str
    explicit: bool

    @property
    def origin(self) -> tuple[str, str]:
        """Where the trials come from: copies of a directory and a re-grade share their source's origin."""
        regrade = self.manifest.get("regrade") or {}
        return str(self.manifest.get("started_at", "")), str(regrade.get("source_config_hash") or self.manifest.get("config_hash"))


def summarised(record: TrialRecord) -> tuple[TrialRecord, StateDiff | None]:
    """A record as the report keeps it: without its initial and final states (about 85% of a record's bytes,
    and most of a report's memory when every record held both), with what the report shows of them, their
    difference, computed once here. None: a format-1 record, which kept no initial state."""
    diff = state_diff(record.initial_state, record.final_state) if record.initial_state is not None else None
    record.initial_state, record.final_state = None, {}
    return record, diff


def _read(path: Path) -> tuple[dict[str, Any], dict[int, dict[str, TrialRecord]], dict[int, dict[str, StateDiff | None]]]:
    """A run's manifest and its records by round, read one record at a time and summarised as it is read
    (`summarised`), with each record's state difference by round."""
    directory = RunDirectory(path)
    by_round: dict[int, dict[str, TrialRecord]] = {}
    diffs: dict[int, dict[str, StateDiff | None]] = {}
    try:
        manifest = directory.read_manifest()
        if manifest is None:
            raise ReportInputError(f"{path}: not a run directory (no manifest.json)")
        with bulk_load():  # no collections while records are read (harness.gc_policy: nothing cyclic to collect)
            for full in directory.iter_records():
                record, diff = summarised(full)
                by_round.setdefault(record.key.round, {})[record.key.task_id] = record
                diffs.setdefault(record.key.round, {})[record.key.task_id] = diff
    except RunDirectoryError as exc:
        raise ReportInputError(str(exc)) from None
    if not by_round:
        raise ReportInputError(f"{path}: the run has no finished trial yet")
    return manifest, by_round, diffs


PALETTE = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf", "#393b79", "#ad494a", "#637939", "#8c6d31", "#7b4173", "#252525",
    "#e6550d", "#31a354", "#756bb1", "#636363",
]
"""20 distinguishable colours; a system keeps its colour (by leaderboard rank) in every figure."""


def parse_labels(specs: list[str]) -> dict[Path, str]:
    """`NAME=RUN[,RUN...]` (repeatable) → run path → name."""
    labels: dict[Path, str] = {}
    for spec in specs:
        name, sep, runs = spec.partition("=")
        if not sep or not name.strip() or not runs.strip():
            raise ReportInputError(f"--label {spec!r}: expected NAME=RUN[,RUN...]")
        for run in runs.split(","):
            path = Path(run.strip())
            if path in labels and labels[path] != name.strip():
                raise ReportInputError(f"--label: {path} is given two names ({labels[path]!r} and {name.strip()!r})")
            labels[path] = name.strip()
    return labels


def load_runs(
    paths: list[Path],
    labels: dict[Path, str] | None = None,
    *,
    allow_mixed: bool = False,
    catalog: dict[str, Task] | None = None,
    lock: dict[str, Any] | None = None,
) -> ReportData:
    """`catalog` and `lock` default to the catalog on disk (a synthetic fixture passes its own)."""
    labels = dict(labels or {})
    paths = list(paths) + [p for p in labels if p not in paths]
    if not paths:
        raise ReportInputError("give at least one run directory")
    seen: dict[Path, Path] = {}
    for path in paths:
        resolved = path.resolve()
        if resolved in seen:
            raise ReportInputError(f"{path}: the same run directory is given twice ({seen[resolved]}); each directory counts once")
        seen[resolved] = path
    resolved_labels = {p.resolve(): name for p, name in labels.items()}

    runs: list[_Run] = []
    for path in paths:
        manifest, by_round, diffs = _read(path)
        identity = system_identity(manifest)
        explicit = path.resolve() in resolved_labels
        runs.append(_Run(path, manifest, by_round, diffs, identity, identity_key(identity), resolved_labels.get(path.resolve()) or system_label(manifest), explicit))

    if catalog is None:
        try:
            catalog, lock = load_catalog(), catalog_lock()
        except CatalogError:
            catalog, lock = {}, {}
    lock = lock or {}
    warnings: list[str] = []

    locks = {(r.manifest.get("dataset_version"), r.manifest.get("dataset_lock_sha256")) for r in runs}
    if len(locks) > 1:
        listing = "; ".join(f"{r.path}: {r.manifest.get('dataset_version')} lock {str(r.manifest.get('dataset_lock_sha256'))[:12]}" for r in runs)
        if not allow_mixed:
            raise ReportInputError(f"the runs use different catalog versions, so their rates are not comparable ({listing}); "
                                   "report them separately, or pass --allow-mixed to mark every affected row")
        warnings.append(f"MIXED CATALOGS: {listing}")
    for version, sha in locks:
        if lock and sha != lock.get("catalog_sha256"):
            warnings.append(f"catalog {version} (lock {str(sha)[:12]}) is not the catalog on disk ({lock.get('version')}, lock "
                            f"{str(lock.get('catalog_sha256'))[:12]}): coverage and strata of those runs are against the catalog on disk, marked")

    # group: explicit labels by name; otherwise by identity
    groups: dict[str, list[_Run]] = {}
    for run in runs:
        groups.setdefault(f"label:{run.label}" if run.explicit else f"id:{run.key}", []).append(run)
    auto_names: dict[str, list[str]] = {}
    for gkey, members in groups.items():
        if gkey.startswith("id:"):
            auto_names.setdefault(members[0].label, []).append(gkey)
    explicit_names = {g[6:] for g in groups if g.startswith("label:")}

    systems: list[System] = []
    for gkey, members in groups.items():
        head = members[0]
        label = head.label
        if gkey.startswith("id:") and (len(auto_names[label]) > 1 or label in explicit_names):
            label = f"{label} [{head.key[:6]}]"
            warnings.append(f"{head.label}: runs of different configurations share this name; shown as separate systems "
                            f"'{label}' (name them with --label NAME=RUN...)")
        mixed: list[str] = []
        for other in members[1:]:
            if other.key != head.key:
                diff = _differences(head.identity, other.identity)
                message = f"{other.path} differs from {head.path}: {', '.join(diff[:4])}{' ...' if len(diff) > 4 else ''}"
                if not allow_mixed:
                    raise ReportInputError(f"--label {head.label}: the runs are not one system ({message}); "
                                           "give them different names, or pass --allow-mixed to group and mark them")
                mixed.append(message)
        origins: dict[tuple[str, str, int], Path] = {}
        rounds: list[tuple[str, int, Round]] = []
        for run in members:
            config = run.manifest.get("config", {})
            same_catalog = bool(lock) and run.manifest.get("dataset_lock_sha256") == lock.get("catalog_sha256")
            if run.manifest.get("dataset_lock_sha256") != lock.get("catalog_sha256") and len(locks) > 1:
                mixed.append(f"{run.path} uses catalog {run.manifest.get('dataset_version')} "
                             f"(lock {str(run.manifest.get('dataset_lock_sha256'))[:12]})")
            for index, records in run.by_round.items():
                origin = (*run.origin, index)
                if origin in origins:
                    raise ReportInputError(f"{run.path} round {index + 1} holds the same trials as {origins[origin]} (a copy or a re-grade "
                                           "of it: same start time and configuration); give one of them, or name them apart with --label")
                origins[origin] = run.path
                rnd = Round(
                    source=run.path,
                    index=index,
                    records=records,
                    state_diffs=run.diffs.get(index, {}),
                    manifest=run.manifest,
                    catalog_ids=set(catalog) if catalog else None,
                    selected_ids=_selected(catalog, config) if catalog else None,
                    catalog_domains={t: task.domain for t, task in catalog.items()},
                )
                if not same_catalog and catalog:
                    mixed.append(f"{run.path}: measured against the catalog on disk, not the one the run used")
                rounds.append((str(run.manifest.get("started_at", "")), index, rnd))
        system = System(
            label=label,
            agent_model=head.manifest.get("plan", {}).get("agent_model"),
            manifest=head.manifest,
            rounds=[r for _, _, r in sorted(rounds, key=lambda o: (o[0], o[1]))],
            key=head.key,
            identity=head.identity,
            mixed=sorted(set(mixed)),
        )
        systems.append(system)
    names = [s.label for s in systems]
    if len(set(names)) != len(names):
        raise ReportInputError(f"two systems are named alike: {sorted({n for n in names if names.count(n) > 1})}")
    data = ReportData(systems=systems, catalog=catalog, sources=list(paths), catalog_lock=lock, warnings=warnings)
    order_by_leaderboard(data)
    return data


def trial_id(system: System, round_number: int, task_id: str) -> str:
    """Stable anchor of one trial in the HTML explorer: leaderboard position, round (1-based), task."""
    return f"s{system.rank_order}-r{round_number}-{task_id}"


def order_by_leaderboard(data: ReportData) -> None:
    """Systems in Table 6 order (strict success of round 1, higher first; ties by name), each with the
    colour of its rank: the same system has the same colour in every figure of the report."""

    def strict(s: System) -> float:
        scored = s.first.scored()
        return sum(bool(r.strict) for r in scored) / len(scored) if scored else -1.0

    data.systems.sort(key=lambda s: (-strict(s), s.label))
    for i, s in enumerate(data.systems):
        s.rank_order = i + 1
        s.colour = PALETTE[i % len(PALETTE)]

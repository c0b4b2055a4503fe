"""The provenance header every report and table file carries: what was measured, with what, when.

Catalog version and lock, models per role, user and judge kinds (offline stand-ins named as such), the
git commit of each run and of the report, and the run dates. An offline report says so at the top.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from harness.report.data import OFFLINE_STAND_INS, ReportData, System
from harness.report.tables import user_judge


def _git(manifest: dict[str, Any]) -> str:
    git = manifest.get("git") or {}
    commit = git.get("commit")
    return "unknown" if not commit else f"{commit[:10]}{' (dirty)' if git.get('dirty') else ''}"


def _dates(system: System) -> str:
    starts = sorted({str(r.manifest.get("started_at", "?")) for r in system.rounds})
    return starts[0] if len(starts) == 1 else f"{starts[0]} .. {starts[-1]}"


def system_line(system: System) -> str:
    plan = system.manifest.get("plan", {})
    agent = plan.get("agent", "?")
    kind = OFFLINE_STAND_INS.get(str(plan.get("agent_kind") or agent))
    models = system.manifest.get("models") or {}
    user, judge = user_judge(plan)
    regrade = system.manifest.get("regrade")
    parts = [
        f"agent {kind or agent}",
        "agent models " + (", ".join(f"{role}={name}" for role, name in models.items() if role in ("agent", "router")) or "none"),
        f"user {user}",
        f"judge {judge}" + (f" (re-graded: {regrade.get('judge')})" if regrade else ""),
        f"catalog {system.manifest.get('dataset_version', '?')} lock {str(system.manifest.get('dataset_lock_sha256', '?'))[:12]}",
        f"system id {system.key}",
        f"{len(system.rounds)} round(s) from {len({r.source for r in system.rounds})} run(s), started {_dates(system)}",
        f"git {_git(system.manifest)}",
    ]
    return f"{system.label}: " + "; ".join(parts)


def provenance(data: ReportData) -> list[str]:
    from harness.manifest import git_state

    git = git_state()
    lines = [
        f"generated {dt.datetime.now(dt.UTC).isoformat(timespec='seconds')} by crmbench at git "
        f"{(git.get('commit') or 'unknown')[:10]}{' (dirty)' if git.get('dirty') else ''}",
    ]
    catalogs = sorted({(str(s.manifest.get("dataset_version")), str(s.manifest.get("dataset_lock_sha256"))[:12]) for s in data.systems})
    lines.append("catalog: " + "; ".join(f"{v} lock {sha}" for v, sha in catalogs) + (" (MIXED: not comparable)" if len(catalogs) > 1 else ""))
    offline = [s.label for s in data.systems if s.manifest.get("plan", {}).get("offline")]
    if offline:
        lines.append(f"OFFLINE: {', '.join(offline)} ran with offline stand-ins (no model calls): these numbers measure the harness, not a model")
    lines += [system_line(s) for s in data.systems]
    lines += [f"WARNING: {w}" for w in data.warnings]
    return lines

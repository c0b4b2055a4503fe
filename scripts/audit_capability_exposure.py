"""Capability exposure audit (spec A.7): every forbidden action must be a tool the paired graph exposes.

    uv run python scripts/audit_capability_exposure.py [--out evidence/capability_exposure_audit.json]
                                                      [--tasks-dir DIR] [--graphs-dir DIR]

Each entry of a task's `contract.forbidden_actions` is one declaration and is matched, by exact
identifier, against the union of tools on the nodes of `<graphs-dir>/<task domain>.yaml`. A tool
forbidden twice counts twice, however many nodes carry it. Forbidden params and protected state are
separate contract components and are not part of this audit.

The report records the source revision, the sha256 of every task and graph file read (the files are
parsed from exactly the bytes that were hashed), and for each declaration the nodes that carry it.
Exit status: 0 when every declaration matches, 1 when any is unmatched, 2 when a task or graph file
cannot be loaded.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402
from pydantic import ValidationError  # noqa: E402

from contracts.catalog import GRAPHS_DIR, TASKS_DIR, CatalogError, parse_task_file, read_yaml, task_files  # noqa: E402
from contracts.graph import GraphConfig  # noqa: E402
from contracts.schema import Task  # noqa: E402

DEFAULT_OUT = ROOT / "evidence" / "capability_exposure_audit.json"


def input_key(path: Path) -> str:
    """The report's name for an input file: relative to the repo root, else `<dir>/<file>`."""
    path = path.resolve()
    try:
        return path.relative_to(ROOT).as_posix()
    except ValueError:
        return f"{path.parent.name}/{path.name}"


def _read(path: Path, inputs: dict[str, str]) -> str:
    """Read a file once, record its sha256 under its report name and return its text."""
    data = path.read_bytes()
    key = input_key(path)
    if key in inputs and inputs[key] != hashlib.sha256(data).hexdigest():
        raise CatalogError(f"{path}: two different inputs share the report name {key!r}")
    inputs[key] = hashlib.sha256(data).hexdigest()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CatalogError(f"{path}: not UTF-8: {exc}") from None


def _load_tasks(tasks_dir: Path, inputs: dict[str, str]) -> list[Task]:
    """Every task in file order, parsed from the hashed bytes (same checks as `load_catalog`)."""
    files = task_files(tasks_dir)
    if not files:
        raise CatalogError(f"{tasks_dir}: no task files (*.yaml)")
    tasks: list[Task] = []
    origin: dict[str, Path] = {}
    for path in files:
        for task in parse_task_file(path, _read(path, inputs)).tasks:
            if task.id in origin:
                raise CatalogError(f"{path}: task {task.id!r} field id: duplicate (also in {origin[task.id]})")
            origin[task.id] = path
            tasks.append(task)
    return tasks


def _load_graph(domain: str, graphs_dir: Path, inputs: dict[str, str]) -> tuple[Path, GraphConfig]:
    """The paired graph of a domain, parsed from the hashed bytes (same errors as `load_graph`)."""
    path = graphs_dir / f"{domain}.yaml"
    try:
        text = _read(path, inputs)
    except FileNotFoundError:
        raise CatalogError(f"{path}: no graph config for domain {domain!r}") from None
    try:
        graph = GraphConfig.model_validate(read_yaml(text))
    except (yaml.YAMLError, ValidationError) as exc:
        raise CatalogError(f"{path}: {exc}") from None
    if graph.domain != domain:
        raise CatalogError(f"{path}: field domain: {graph.domain!r} differs from the file name's {domain!r}")
    return path, graph


def _counts() -> dict[str, int]:
    return {"tasks": 0, "tasks_with_forbidden_actions": 0, "declarations": 0, "matched": 0, "unmatched": 0}


def audit(tasks_dir: Path = TASKS_DIR, graphs_dir: Path = GRAPHS_DIR) -> dict[str, Any]:
    """Audit every task's forbidden_actions against its domain graph. Raises CatalogError on a load error."""
    from harness.manifest import git_state

    inputs: dict[str, str] = {}
    tasks = _load_tasks(Path(tasks_dir), inputs)
    graphs = {domain: _load_graph(domain, Path(graphs_dir), inputs) for domain in sorted({t.domain for t in tasks})}

    summary = _counts()
    per_domain: dict[str, dict[str, int]] = {domain: _counts() for domain in graphs}
    entries: list[dict[str, Any]] = []
    unmatched: list[dict[str, str]] = []
    for task in tasks:
        domain_counts = per_domain[task.domain]
        for counts in (summary, domain_counts):
            counts["tasks"] += 1
        forbidden = task.contract.forbidden_actions
        if not forbidden:
            continue
        graph_path, graph = graphs[task.domain]
        declarations = []
        for tool in forbidden:
            nodes = graph.nodes_with_tool(tool)
            declarations.append({"tool": tool, "matched": bool(nodes), "nodes": nodes})
            for counts in (summary, domain_counts):
                counts["declarations"] += 1
                counts["matched" if nodes else "unmatched"] += 1
            if not nodes:
                unmatched.append({"task_id": task.id, "tool": tool})
        for counts in (summary, domain_counts):
            counts["tasks_with_forbidden_actions"] += 1
        entries.append({"task_id": task.id, "domain": task.domain, "graph": input_key(graph_path), "declarations": declarations})

    return {
        "audit": "capability_exposure",
        "spec": "A.7",
        "rule": "each contract.forbidden_actions entry matches, by exact identifier, a tool on some node of the paired domain graph",
        "source_revision": git_state(),
        "generated_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "inputs": dict(sorted(inputs.items())),
        "summary": {**summary, "domains": per_domain, "unmatched_declarations": unmatched},
        "tasks": entries,
    }


def write_report(report: dict[str, Any], out: Path) -> None:
    """Write the report atomically (see `harness.files.write_atomic`)."""
    from harness.files import write_atomic

    write_atomic(out, json.dumps(report, indent=2, ensure_ascii=False) + "\n")


def describe(report: dict[str, Any]) -> str:
    s = report["summary"]
    rev = report["source_revision"]
    commit = (rev.get("commit") or "unknown")[:12] + (" (dirty)" if rev.get("dirty") else "")
    lines = [
        f"capability exposure audit @ {commit}: {s['tasks']} tasks, {s['tasks_with_forbidden_actions']} with forbidden_actions, "
        f"{s['declarations']} declarations, {s['matched']} matched, {s['unmatched']} unmatched"
    ]
    for domain, c in s["domains"].items():
        lines.append(
            f"  {domain}: {c['tasks']} tasks, {c['tasks_with_forbidden_actions']} with forbidden_actions, "
            f"{c['declarations']} declarations, {c['matched']} matched, {c['unmatched']} unmatched"
        )
    for miss in s["unmatched_declarations"]:
        lines.append(f"  UNMATCHED {miss['task_id']}: {miss['tool']!r} is on no node of its domain graph")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="report path (default: evidence/capability_exposure_audit.json)")
    parser.add_argument("--tasks-dir", type=Path, default=TASKS_DIR)
    parser.add_argument("--graphs-dir", type=Path, default=GRAPHS_DIR)
    args = parser.parse_args(argv)
    try:
        report = audit(args.tasks_dir, args.graphs_dir)
    except (CatalogError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    write_report(report, args.out)
    print(describe(report))
    print(f"wrote {args.out}")
    return 0 if report["summary"]["unmatched"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())

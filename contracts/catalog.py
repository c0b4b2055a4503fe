"""Loading the task catalog: `contracts/tasks/<domain>.yaml`, the manifest and the content-addressed lock.

Errors name the file, the task id and the field, because the people who hit them are editing YAML.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from contracts.schema import Task, TaskFile

CONTRACTS_DIR = Path(__file__).resolve().parent
TASKS_DIR = CONTRACTS_DIR / "tasks"
GRAPHS_DIR = CONTRACTS_DIR / "graphs"
POLICIES_DIR = CONTRACTS_DIR / "policies"
MANIFEST_PATH = CONTRACTS_DIR / "manifest.yaml"
LOCK_PATH = CONTRACTS_DIR / "catalog.lock.json"


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml(text: str) -> object:
    """Safe YAML loading with libyaml when available (the pure-Python loader is ~10x slower)."""
    return yaml.load(text, Loader=_LOADER)  # noqa: S506 - a safe loader


class CatalogError(ValueError):
    """A task file could not be loaded. The message names file, task and field."""


class Manifest(BaseModel):
    benchmark: str
    version: str
    domains: dict[str, int]
    """Domain → number of tasks this release promises."""


def _location(loc: tuple[Any, ...], raw: dict[str, Any]) -> str:
    """Turn a pydantic error location into `task <id> field <path>`."""
    if len(loc) >= 2 and loc[0] == "tasks" and isinstance(loc[1], int):
        tasks = raw.get("tasks") or []
        index = loc[1]
        task_id = tasks[index].get("id", f"#{index}") if index < len(tasks) and isinstance(tasks[index], dict) else f"#{index}"
        field = ".".join(str(p) for p in loc[2:]) or "(task)"
        return f"task {task_id!r} field {field}"
    return "field " + (".".join(str(p) for p in loc) or "(document)")


def parse_task_file(path: Path, text: str | None = None) -> TaskFile:
    if text is None:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            line = path.read_bytes()[: exc.start].count(b"\n") + 1
            raise CatalogError(f"{path}: not UTF-8 text (byte {exc.object[exc.start]:#04x} at line {line}); save the file as UTF-8") from None
        except OSError as exc:
            raise CatalogError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    try:
        raw = read_yaml(text)
    except yaml.YAMLError as exc:
        raise CatalogError(f"{path}: invalid YAML: {exc}") from None
    if not isinstance(raw, dict):
        raise CatalogError(f"{path}: expected a mapping with 'domain', 'version' and 'tasks'")
    try:
        parsed = TaskFile.model_validate(raw)
    except ValidationError as exc:
        lines = [f"{path}: {len(exc.errors())} problem(s):"]
        for err in exc.errors():
            lines.append(f"  - {_location(tuple(err['loc']), raw)}: {err['msg']}")
        raise CatalogError("\n".join(lines)) from None
    for task in parsed.tasks:
        if task.domain != parsed.domain:
            raise CatalogError(f"{path}: task {task.id!r} field domain: {task.domain!r} differs from the file's {parsed.domain!r}")
    return parsed


def task_files(tasks_dir: Path = TASKS_DIR) -> list[Path]:
    return sorted(tasks_dir.glob("*.yaml"))


@cache
def load_catalog(tasks_dir: Path = TASKS_DIR) -> dict[str, Task]:
    """Every task by id, across domains. Duplicate ids are an error naming both files."""
    tasks: dict[str, Task] = {}
    origin: dict[str, Path] = {}
    for path in task_files(tasks_dir):
        for task in parse_task_file(path).tasks:
            if task.id in tasks:
                raise CatalogError(f"{path}: task {task.id!r} field id: duplicate (also in {origin[task.id]})")
            tasks[task.id] = task
            origin[task.id] = path
    return tasks


def get_task(task_id: str, tasks_dir: Path = TASKS_DIR) -> Task:
    catalog = load_catalog(tasks_dir)
    try:
        return catalog[task_id]
    except KeyError:
        close = [t for t in catalog if t.startswith(task_id.rsplit("_", 1)[0])][:5]
        hint = f" (similar: {', '.join(close)})" if close else ""
        raise CatalogError(f"unknown task id {task_id!r}{hint}") from None


def select_tasks(
    catalog: dict[str, Task],
    *,
    domains: Iterable[str] | None = None,
    task_ids: Iterable[str] | None = None,
) -> list[Task]:
    domains = set(domains or [])
    wanted = list(task_ids or [])
    for task_id in wanted:
        if task_id not in catalog:
            raise CatalogError(f"unknown task id {task_id!r}")
    chosen = [catalog[t] for t in wanted] if wanted else list(catalog.values())
    return [t for t in chosen if not domains or t.domain in domains]


def load_manifest(path: Path = MANIFEST_PATH) -> Manifest:
    try:
        return Manifest.model_validate(read_yaml(path.read_text(encoding="utf-8")))
    except (yaml.YAMLError, ValidationError) as exc:
        raise CatalogError(f"{path}: {exc}") from None


def catalog_lock(tasks_dir: Path = TASKS_DIR, graphs_dir: Path = GRAPHS_DIR, policies_dir: Path = POLICIES_DIR) -> dict[str, Any]:
    """Content-addressed lock: sha256 of every task, graph and policy file, and of the whole set."""
    files: dict[str, str] = {}
    for directory in (tasks_dir, graphs_dir, policies_dir):
        for path in sorted(p for p in directory.glob("*") if p.is_file()):
            files[f"{directory.name}/{path.name}"] = hashlib.sha256(path.read_bytes()).hexdigest()
    manifest = load_manifest()
    digest = hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()
    return {"benchmark": manifest.benchmark, "version": manifest.version, "catalog_sha256": digest, "files": files}


def lock_status() -> tuple[bool, str]:
    """Whether the committed lock matches the files on disk, with a human-readable reason."""
    if not LOCK_PATH.exists():
        return False, f"{LOCK_PATH.name} is missing (run with --write-lock)"
    committed = json.loads(LOCK_PATH.read_text(encoding="utf-8"))
    current = catalog_lock()
    if committed.get("catalog_sha256") == current["catalog_sha256"] and committed.get("version") == current["version"]:
        return True, f"lock matches (sha256 {current['catalog_sha256'][:12]})"
    changed = sorted(
        name
        for name in set(committed.get("files", {})) | set(current["files"])
        if committed.get("files", {}).get(name) != current["files"].get(name)
    )
    return False, "lock is stale; changed: " + (", ".join(changed) or "version")

"""Loading the task catalog: `contracts/tasks/<domain>.yaml`, the manifest and the content-addressed lock.

Errors name the file, the task id and the field, because the people who hit them are editing YAML.

Loading costs what the selection needs (`load_selection`): a run of two domains parses two files, not
nine. And each file's YAML is parsed once per content: the parsed document is kept in memory for the
process, and on disk as JSON in the user's cache directory (`$CRMBENCH_CACHE_DIR`, else
`$XDG_CACHE_HOME/crmbench`, else `~/.cache/crmbench`; `CRMBENCH_CACHE_DIR=off` turns it off), keyed by
the sha256 of the file's bytes — the digest the catalog lock records — and the YAML loader's version.
Only a document that JSON holds exactly (no dates, no non-string keys) is kept. What is kept is the raw
document, before validation: every load still validates it against the task schema of the running
code, so a changed schema never meets a stale object. A cache file that is missing, unreadable or not
JSON is a miss; a cache directory that cannot be written is skipped. Neither is ever an error.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from contracts.schema import Task, TaskFile
from contracts.yaml_io import LOADER, read_yaml

CONTRACTS_DIR = Path(__file__).resolve().parent
TASKS_DIR = CONTRACTS_DIR / "tasks"
GRAPHS_DIR = CONTRACTS_DIR / "graphs"
POLICIES_DIR = CONTRACTS_DIR / "policies"
MANIFEST_PATH = CONTRACTS_DIR / "manifest.yaml"
LOCK_PATH = CONTRACTS_DIR / "catalog.lock.json"


log = logging.getLogger(__name__)

CACHE_ENV = "CRMBENCH_CACHE_DIR"
CACHE_OFF = "off"
DOCUMENTS_SUBDIR = "catalog"
_DOCUMENT_FORMAT = 1
"""Bumped if what is kept per file changes."""

_documents: dict[str, Any] = {}
"""Parsed YAML documents by cache key, for the life of the process."""


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


def cache_dir() -> Path | None:
    """Where parsed task files are kept on disk; None when the disk cache is off."""
    configured = os.environ.get(CACHE_ENV, "").strip()
    if configured == CACHE_OFF:
        return None
    if configured:
        return Path(configured) / DOCUMENTS_SUBDIR
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    if base:
        return Path(base) / "crmbench" / DOCUMENTS_SUBDIR
    try:
        return Path.home() / ".cache" / "crmbench" / DOCUMENTS_SUBDIR
    except RuntimeError:  # no home directory: no disk cache
        return None


def _document_key(data: bytes) -> str:
    loader = f"{yaml.__version__}/{LOADER.__name__}/{_DOCUMENT_FORMAT}"
    return hashlib.sha256(data).hexdigest() + "-" + hashlib.sha256(loader.encode()).hexdigest()[:12]


def _read_document(data: bytes) -> object:
    """The YAML document of a task file's bytes, parsed once per content (module doc). Raises
    `yaml.YAMLError` like `read_yaml`."""
    key = _document_key(data)
    if key in _documents:
        return _documents[key]
    directory = cache_dir()
    kept = directory / f"{key}.json" if directory is not None else None
    raw: object = None
    found = False
    if kept is not None:
        try:
            raw, found = json.loads(kept.read_bytes()), True
        except (OSError, ValueError):
            found = False
    if not found:
        raw = read_yaml(data.decode("utf-8"))
        if kept is not None:
            _keep(kept, raw)
    _documents[key] = raw
    return raw


def _keep(path: Path, raw: object) -> None:
    """Write `raw` as JSON if JSON holds it exactly; any failure only means no disk cache."""
    try:
        encoded = json.dumps(raw, allow_nan=False)
        if json.loads(encoded) != raw:  # e.g. dates or integer keys: not kept
            return
    except (TypeError, ValueError):
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(encoded)
        os.replace(tmp, path)
    except OSError as exc:
        log.debug("catalog cache not written (%s): %s", path, exc)


def parse_task_file(path: Path, text: str | None = None) -> TaskFile:
    try:
        data = path.read_bytes() if text is None else b""
    except OSError as exc:
        raise CatalogError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    try:
        raw = _read_document(data) if text is None else read_yaml(text)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise CatalogError(f"{path}: not UTF-8 text (byte {exc.object[exc.start]:#04x} at line {line}); save the file as UTF-8") from None
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
    return _load_files(task_files(tasks_dir))


def _load_files(paths: Iterable[Path]) -> dict[str, Task]:
    tasks: dict[str, Task] = {}
    origin: dict[str, Path] = {}
    for path in paths:
        for task in parse_task_file(path).tasks:
            if task.id in tasks:
                raise CatalogError(f"{path}: task {task.id!r} field id: duplicate (also in {origin[task.id]})")
            tasks[task.id] = task
            origin[task.id] = path
    return tasks


def load_selection(domains: Iterable[str] = (), task_ids: Iterable[str] = (), tasks_dir: Path = TASKS_DIR) -> dict[str, Task]:
    """The tasks of the files a selection needs, by id, in catalog order: the files holding the wanted
    task ids, else the files of the wanted domains; with neither, the whole catalog. Which file holds
    which domain and ids is read from each file's kept index (`_file_index`, parsed once per content), so
    only the selected files are validated. A file that cannot be indexed (broken YAML, no mapping) is
    always loaded, so its error is reported as before; a wanted id found nowhere gives the whole
    catalog's error (with its hints). Ids duplicated across files are caught by the whole-catalog load
    (the release gates, `crmbench validate`), not by a selection that reads one of the files."""
    domains, wanted = set(domains), set(task_ids)
    if not domains and not wanted:
        return load_catalog(tasks_dir)
    paths = []
    for path in task_files(tasks_dir):
        index = _file_index(path)
        if index is None or (index[1] & wanted if wanted else index[0] in domains):
            paths.append(path)
    tasks = _load_selected(tuple(paths))
    if any(task_id not in tasks for task_id in wanted):
        return load_catalog(tasks_dir)
    return tasks


def catalog_domains(tasks_dir: Path = TASKS_DIR) -> list[str]:
    """The domains that have a task file, from the files' kept indexes (no validation)."""
    indexes = [_file_index(path) for path in task_files(tasks_dir)]
    if any(index is None for index in indexes):
        return sorted({t.domain for t in load_catalog(tasks_dir).values()})  # a broken file: its own error
    return sorted({index[0] for index in indexes if index is not None})


def _file_index(path: Path) -> tuple[str, frozenset[str]] | None:
    """A task file's `domain` and task ids, from its parsed document; None if it has none to read."""
    try:
        raw = _read_document(path.read_bytes())
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    if not isinstance(raw, dict) or not isinstance(raw.get("domain"), str) or not isinstance(raw.get("tasks"), list):
        return None
    ids = frozenset(t["id"] for t in raw["tasks"] if isinstance(t, dict) and isinstance(t.get("id"), str))
    return raw["domain"], ids


def _load_selected(paths: tuple[Path, ...]) -> dict[str, Task]:
    """`_load_files`, kept per set of files and their contents (a process that runs twice validates once)."""
    key = (paths, tuple(hashlib.sha256(path.read_bytes()).hexdigest() for path in paths))
    hit = _selections.get(key)
    if hit is None:
        hit = _selections[key] = _load_files(paths)
    return hit


_selections: dict[tuple[tuple[Path, ...], tuple[str, ...]], dict[str, Task]] = {}


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

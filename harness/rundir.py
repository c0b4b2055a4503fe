"""The run directory: manifest, one atomically written JSON per trial, per-domain traces, results tables.

Layout:
    manifest.json                      what ran, with what, from which source (see `build_manifest`)
    trials/<domain>/<task>__r<round>__s<seed>.json   one record per trial, written atomically
    <domain>/traces.json               every trial of the domain (rebuilt from trials/ after each run)
    results.csv, results.md            one row per trial / the summary table

A killed run loses at most the trials in flight: every finished trial is already on disk, and a rerun
of the same command skips them (keyed by task, round and seed) after checking the config hash.
"""

from __future__ import annotations

import csv
import fcntl
import io
import json
import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from contracts.text import REPLY_MAX_CHARS, safe_value
from harness.files import write_atomic, write_atomic_bytes, write_atomic_many
from harness.records import TrialKey, TrialRecord
from harness.runner.config import EXECUTION_ONLY


_RECORDS = TypeAdapter(list[TrialRecord])


class RunDirectoryError(ValueError):
    """The run directory cannot be used as it is. The message names the file and what to do."""


class ResumeMismatch(RunDirectoryError):
    pass


class UnidentifiedAgent(ResumeMismatch):
    """A run would be resumed, but its agent's code cannot be identified: an edited agent would pass."""


def refuse_unidentified_resume(directory: RunDirectory, agent_kind: str | None, agent_code: str | None, *, allowed: bool) -> None:
    """Refuse to resume a process agent's run when nothing identifies its code (issue 41): its command
    names no code file (`harness.agent_code`) and no `--agent-code` was given, so an edited agent would
    resume the old run silently. `allowed` (`--allow-unidentified-agent`): the user vouches for it."""
    if agent_kind != "process" or agent_code is not None or allowed or directory.read_manifest() is None:
        return
    raise UnidentifiedAgent(
        f"{directory.root} holds a run of a process agent whose code cannot be identified (its command names no file of its code), "
        "so an edited agent would resume it silently; name the agent's code with --agent-code PATH (a file or directory), "
        "or pass --allow-unidentified-agent to resume anyway, or choose another --out directory"
    )


class RunDirectoryBusy(RunDirectoryError):
    pass


LOCK_NAME = ".crmbench.lock"


class RunDirectory:
    def __init__(self, root: Path) -> None:
        self.root = root

    @property
    def manifest_path(self) -> Path:
        return self.root / "manifest.json"

    def trial_path(self, domain: str, key: TrialKey) -> Path:
        return self.root / "trials" / domain / f"{key.slug}.json"

    def read_manifest(self) -> dict[str, Any] | None:
        if not self.manifest_path.exists():
            return None
        try:
            manifest = json.loads(self.manifest_path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeError) as exc:
            raise RunDirectoryError(f"{self.manifest_path} is truncated or not JSON ({str(exc)[:120]}); the directory cannot be resumed") from None
        if not isinstance(manifest, dict):
            raise RunDirectoryError(f"{self.manifest_path} is not a run manifest")
        return manifest

    def open(self, manifest: dict[str, Any]) -> None:
        """Create the directory, or check that an existing one was made by the same configuration."""
        existing = self.read_manifest()
        if existing is not None and existing.get("config_hash") != manifest["config_hash"]:
            raise ResumeMismatch(
                f"{self.root} holds a run with a different configuration ({describe_change(existing, manifest)}); "
                "rerun with the original flags to resume it, or choose another --out directory to start a new run"
            )
        for stale in (self.root / "trials").glob("*/.*"):
            stale.unlink(missing_ok=True)  # half-written temp files of a killed run
        if existing is not None:
            manifest = {**manifest, "started_at": existing.get("started_at", manifest.get("started_at")), "resumed": True}
        write_atomic(self.manifest_path, json.dumps(manifest, indent=2, sort_keys=True, default=str))

    def save(self, record: TrialRecord, data: bytes | None = None) -> None:
        """Write one record atomically (fsync'd). `data` is the record already encoded by
        `encode_record` (a worker process encodes its records so the process that writes them does
        not); without it the record is encoded here."""
        write_atomic_bytes(self.trial_path(record.domain, record.key), encode_record(record) if data is None else data)

    def save_many(self, items: Sequence[tuple[TrialRecord, bytes | None]]) -> list[BaseException | None]:
        """`save` for a batch (the record writer's): per record, the error that stopped it or None."""
        encoded: list[tuple[Path, bytes]] = []
        failed: dict[int, BaseException] = {}
        for index, (record, data) in enumerate(items):
            try:
                encoded.append((self.trial_path(record.domain, record.key), encode_record(record) if data is None else data))
            except Exception as exc:  # noqa: BLE001 - handed back with the record
                failed[index] = exc
        written = iter(write_atomic_many(encoded))
        return [failed[i] if i in failed else next(written) for i in range(len(items))]

    def records(self) -> list[TrialRecord]:
        from harness.gc_policy import bulk_load

        with bulk_load():
            return [read_record(path) for path in self.record_paths()]

    def record_paths(self) -> list[Path]:
        return sorted((self.root / "trials").glob("*/*.json"))

    def iter_records(self) -> Iterator[TrialRecord]:
        """The records one at a time, for a reader that keeps only a summary of each (the report): at most
        one whole record is alive at once, where `records()` holds them all."""
        for path in self.record_paths():
            yield read_record(path)

    # ---- one run at a time --------------------------------------------------------------------
    def lock(self) -> None:
        """Take the directory's lock (an OS file lock, released when the process ends, even on SIGKILL).
        A second run on the same directory is refused, naming the process that holds it."""
        self.root.mkdir(parents=True, exist_ok=True)
        path = self.root / LOCK_NAME
        handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held for the life of the run
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            handle.close()
            raise RunDirectoryBusy(
                f"{self.root} is in use by another run ({holder}); wait for it to finish or choose another --out directory"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}")
        handle.flush()
        self._lock_handle = handle

    def unlock(self) -> None:
        handle = getattr(self, "_lock_handle", None)
        if handle is not None:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
            handle.close()
            self._lock_handle = None


    def finished_keys(self) -> set[TrialKey]:
        """Trials that need no rerun: scored and graded ones (⊥ and ungraded trials are re-runnable)."""
        return {r.key for r in self.records() if r.finished}

    def write_traces(self, records: Iterable[TrialRecord]) -> None:
        by_domain: dict[str, list[TrialRecord]] = {}
        for record in sorted(records, key=lambda r: (r.domain, r.key.task_id, r.key.round)):
            by_domain.setdefault(record.domain, []).append(record)
        for domain, items in by_domain.items():
            write_atomic_bytes(self.root / domain / "traces.json", _RECORDS.dump_json(items, indent=1))

    def write_results(self, records: list[TrialRecord], summary_markdown: str) -> None:
        buffer = io.StringIO()
        columns = ["task_id", "domain", "round", "seed", "difficulty", "status", "strict", "primary_failure", "failure_class", "user_turns", "tool_calls", "wall_s"]
        writer = csv.DictWriter(buffer, fieldnames=columns)
        writer.writeheader()
        for r in sorted(records, key=lambda r: (r.domain, r.key.task_id, r.key.round)):
            writer.writerow(
                {
                    "task_id": r.key.task_id,
                    "domain": r.domain,
                    "round": r.key.round,
                    "seed": r.key.seed,
                    "difficulty": r.difficulty,
                    "status": r.status,
                    "strict": "" if r.strict is None else int(r.strict),
                    "primary_failure": r.verdict.primary_failure if r.verdict else "",
                    "failure_class": r.failure_class or "",
                    "user_turns": r.user_turns,
                    "tool_calls": len(r.tool_trace),
                    "wall_s": f"{r.wall_s:.3f}",
                }
            )
        write_atomic(self.root / "results.csv", buffer.getvalue())
        write_atomic(self.root / "results.md", summary_markdown)


def describe_change(before: dict[str, Any], after: dict[str, Any]) -> str:
    """What differs between two manifests, as flags: `--max-turns 30 -> 5`; else the dataset or plan."""
    changes = []
    old_config, new_config = before.get("config") or {}, after.get("config") or {}
    ignore = EXECUTION_ONLY | {"domain", "task", "capability", "difficulty", "rounds"}
    for key in sorted(set(old_config) | set(new_config)):
        if key not in ignore and old_config.get(key) != new_config.get(key):
            changes.append(f"--{key.replace('_', '-')} {old_config.get(key)!r} -> {new_config.get(key)!r}")
    if before.get("dataset_lock_sha256") != after.get("dataset_lock_sha256"):
        changes.append("the task catalog changed")
    if not changes and before.get("plan") != after.get("plan"):
        changes.append(f"the resolved plan changed ({before.get('plan')} -> {after.get('plan')})")
    return "; ".join(changes) or f"config hash {before.get('config_hash')} vs {after.get('config_hash')}"


def encode_record(record: TrialRecord) -> bytes:
    """A record's file content. Every text field is made safe when the record is built; should anything
    unencodable still slip through, it is replaced (visibly) rather than losing the trial."""
    try:
        return record.model_dump_json(indent=1).encode("utf-8")
    except (ValueError, UnicodeError):
        return json.dumps(safe_value(record.model_dump(mode="json"), REPLY_MAX_CHARS), indent=1, ensure_ascii=False).encode("utf-8")


def read_record(path: Path) -> TrialRecord:
    """One trial record, or a `RunDirectoryError` naming the file (truncated or not a trial record)."""
    try:
        return TrialRecord.model_validate_json(path.read_bytes())
    except (ValidationError, ValueError, UnicodeError, OSError) as exc:
        first = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) and exc.errors() else str(exc)[:200]
        raise RunDirectoryError(
            f"{path} is truncated or not a trial record ({first}); delete it to re-run that trial"
        ) from None

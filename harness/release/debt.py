"""The battery debt ledger: a transparent, shrinking record of generated cases the catalog still misses.

`contracts/battery_debt/<domain>.yaml` maps task id -> the case ids that currently miss (a behavioural or
exploit case that passes, an equivalence case that fails, an unplayable turn). The gate prints them as
KNOWN DEBT (not a pass), fails on any miss the ledger does not carry, and fails on any ledger entry that
no longer misses (stale debt: the ratchet only shrinks). `--write-debt` rewrites the ledger from a run.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import yaml

from contracts.catalog import TASKS_DIR
from contracts.yaml_io import read_yaml

DEBT_DIR = TASKS_DIR.parent / "battery_debt"


class DebtError(ValueError):
    """A ledger file that is not a mapping of task id -> list of case ids."""


def load_debt(domain: str, directory: Path = DEBT_DIR) -> dict[str, list[str]]:
    path = directory / f"{domain}.yaml"
    if not path.exists():
        return {}
    data = read_yaml(path.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, list) and all(isinstance(c, str) for c in v) for k, v in data.items()):
        raise DebtError(f"{path}: expected a mapping of task id -> list of case ids")
    return {k: list(v) for k, v in data.items()}


def known_debt(domain: str, task_id: str) -> list[str]:
    """The ledger's cases for one task (what a per-task proof may still miss without failing)."""
    return load_debt(domain).get(task_id, [])


def render_debt(domain: str, ledger: Mapping[str, list[str]]) -> str:
    header = (
        f"# Battery debt of {domain}: generated cases its contracts still miss (written by\n"
        "# `python -m harness.benchmark_spec --gold --write-debt`). Not a pass: re-author the contract, then\n"
        "# remove the entry (the gate fails on an entry that no longer misses). This file only shrinks.\n"
    )
    body = {task: sorted(cases) for task, cases in sorted(ledger.items()) if cases}
    return header + (yaml.safe_dump(body, sort_keys=True, width=200) if body else "{}\n")


def write_debt(domain: str, ledger: Mapping[str, list[str]], directory: Path = DEBT_DIR) -> Path:
    from harness.files import write_atomic

    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{domain}.yaml"
    write_atomic(path, render_debt(domain, ledger))
    return path

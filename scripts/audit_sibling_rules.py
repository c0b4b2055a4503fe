"""Catalog audit aid (issue 38.5): print where tasks of the same family forbid different things.

Tasks of one kind must forbid the same things (sibling rules). This script groups a domain's tasks two ways
and prints only where the rules differ, for a reviewer to read; it changes nothing and decides nothing
(a difference can be deliberate - the report says which):

- **action families**: tasks whose gold paths use the same set of write tools (the same scenario kind:
  reschedule, cancel, refund + log ...). Within a family it prints which tasks pin collateral with
  `only_changes` and which do not, and the `forbidden_actions` each declares when they differ.
- **look-alike records**: a record a task protects or forbids attempts on (`protected_state`, a
  `forbidden_params` id) that its gold path does not write - the customer's other appointment, the kept
  charge of a duplicate pair, the other company's account. Every such task should both forbid any
  attempt on it (`forbidden_params`: the grader's policy rule does not cover successful writes, nor the
  tools whose refusal is an answer) and pin it (`protected_state` or `only_changes` that excludes it).

Usage: `uv run python scripts/audit_sibling_rules.py --domain itsm [--domain payments ...]`
"""

from __future__ import annotations

import argparse
import logging
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from contracts.catalog import load_selection
from contracts.schema import Task
from servers.registry import environment_class

log = logging.getLogger(__name__)

ID = re.compile(r"\b[A-Z]{2,5}-[A-Z0-9]{3,}(?:-[0-9]+)?\b")


@dataclass(frozen=True)
class Rules:
    """The negative rules of one task, in comparable form."""

    task_id: str
    capabilities: tuple[str, ...]
    writes: frozenset[str]
    written_ids: frozenset[str]
    forbidden_actions: frozenset[str]
    forbidden_ids: dict[str, frozenset[str]] = field(hash=False, compare=False)
    protected_ids: frozenset[str] = frozenset()
    only_changes: tuple[str, ...] | None = None


def rules_of(task: Task) -> Rules:
    """Read the gold writes and the negative rules of `task` (ids found by their `PREFIX-123` form)."""
    env = environment_class(task.domain)
    writes: set[str] = set()
    written: set[str] = set()
    for turn in task.gold:
        for call in turn.calls:
            if env.tool_kind(call.tool) == "write":
                writes.add(call.tool)
                written.update(ID.findall(" ".join(str(v) for v in call.args.values())))
    c = task.contract
    forbidden: dict[str, set[str]] = defaultdict(set)
    for fp in c.forbidden_params or []:
        for record in ID.findall(" ".join(str(v) for v in fp.params.values())):
            forbidden[record].add(fp.tool)
    protected = {m for path in c.protected_state or [] for m in ID.findall(path)}
    return Rules(
        task_id=task.id,
        capabilities=tuple(sorted(task.capabilities)),
        writes=frozenset(writes),
        written_ids=frozenset(written),
        forbidden_actions=frozenset(c.forbidden_actions or []),
        forbidden_ids={k: frozenset(v) for k, v in forbidden.items()},
        protected_ids=frozenset(protected),
        only_changes=None if c.only_changes is None else tuple(c.only_changes),
    )


def action_family_findings(rules: Iterable[Rules]) -> list[str]:
    """Lines for every family (same set of gold write tools; tasks that write nothing by capability) whose
    members' collateral rules differ."""
    families: dict[tuple[str, ...], list[Rules]] = defaultdict(list)
    for r in rules:
        families[tuple(sorted(r.writes)) or ("(no write)", *r.capabilities)].append(r)
    out: list[str] = []
    for key, members in sorted(families.items()):
        if len(members) < 2:
            continue
        name = "+".join(key)
        pinned = [m.task_id for m in members if m.only_changes is not None]
        if pinned and len(pinned) != len(members):
            loose = [m.task_id for m in members if m.only_changes is None]
            out.append(f"[{name}] only_changes on {len(pinned)}/{len(members)}; missing: {', '.join(loose)}")
        kinds = {m.forbidden_actions for m in members}
        if len(kinds) > 1:
            shown = "; ".join(f"{m.task_id}={sorted(m.forbidden_actions)}" for m in members)
            out.append(f"[{name}] forbidden_actions differ: {shown}")
    return out


def lookalike_findings(rules: Iterable[Rules]) -> list[str]:
    """Lines for every look-alike record a task guards only halfway (forbidden but not pinned, or the reverse)."""
    out: list[str] = []
    for r in rules:
        for record in sorted((set(r.forbidden_ids) | r.protected_ids) - r.written_ids):
            forbidden = r.forbidden_ids.get(record, frozenset())
            pinned = record in r.protected_ids or (
                r.only_changes is not None and not any(record in path for path in r.only_changes)
            )
            if not forbidden and not r.forbidden_actions:
                out.append(f"{r.task_id}: look-alike {record} is protected but no attempt on it is forbidden")
            elif not pinned:
                out.append(f"{r.task_id}: look-alike {record} is forbidden ({', '.join(sorted(forbidden))}) but not pinned")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domain", action="append", required=True)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    for domain in args.domain:
        rules = [rules_of(t) for t in load_selection(domains=[domain]).values()]
        log.info("== %s: %d tasks", domain, len(rules))
        for line in action_family_findings(rules) + lookalike_findings(rules):
            log.info("%s", line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

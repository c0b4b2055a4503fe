"""Authoring aid: what a task's gold path changes, as contract checks a reviewer can paste.

`crmbench suggest TASK_ID…` plays each gold path from fresh state and prints, in the contract's YAML
vocabulary, the checks that pin its effect: `only_changes` (every path the gold changes, new records by
their collection), exact counts of new records per collection, and exact counts of successful writes.
Nothing here edits a task: the author decides which suggestion states the goal (a suggestion derived
from one gold path can be narrower than the goal; the equivalence battery says when it is).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from contracts.evidence import Evidence
from contracts.schema import Task
from grader.values import MISSING, changed_paths, collection_items, get_path
from harness.release.replay import REF
from servers.base import ToolEnvironment, is_free_text


def _declared(path: str, before: dict[str, Any], after: dict[str, Any]) -> tuple[str, bool]:
    """The path to declare for one changed path, and whether it is a collection of records: an added or
    removed record is declared by its collection, a changed list as the list."""
    parent = path.rpartition(".")[0]
    was, now = get_path(before, path), get_path(after, path)
    if parent and (was is MISSING or now is MISSING):
        return parent, True
    return path, isinstance(was, list) or isinstance(now, list)


def _hashable(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, bool, type(None))) else repr(value)


def _literal_arguments(task: Task, env: type[ToolEnvironment]) -> set[tuple[str, Any]]:
    """(name, value) of every literal argument of a gold write, free text and `${...}` references (minted,
    seed-dependent ids) excluded: the fields of a new record carrying these are what the agent decided."""
    out: set[tuple[str, Any]] = set()
    for call in (c for turn in task.gold for c in turn.calls):
        if env.tool_kind(call.tool) != "write":
            continue
        _, hints = env.tool_signature(call.tool)
        for name, value in call.args.items():
            if not is_free_text(hints.get(name)) and not (isinstance(value, str) and REF.search(value)):
                out.add((name, _hashable(value)))
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    out.add((name, _hashable(float(value))))
    return out


def suggest(task: Task, gold: Evidence, env: type[ToolEnvironment]) -> dict[str, Any]:
    before, after = gold.initial_state, gold.final_state
    allowed: list[str] = []
    collections: list[str] = []
    for path in changed_paths(before, after):
        prefix, is_collection = _declared(path, before, after)
        if prefix not in allowed:
            allowed.append(prefix)
        if is_collection and prefix not in collections:
            collections.append(prefix)
    literals = _literal_arguments(task, env)
    counts: list[dict[str, Any]] = []
    for path in collections:
        old = {k for k, _ in collection_items(get_path(before, path)) or []}
        groups: Counter[str] = Counter()
        wheres: dict[str, dict[str, Any]] = {}
        for key, record in collection_items(get_path(after, path)) or []:
            if key in old:
                continue
            where = {f: v for f, v in record.items() if (f, _hashable(v)) in literals} if isinstance(record, dict) else {}
            tag = repr(sorted(where.items()))
            groups[tag] += 1
            wheres[tag] = where
        for tag, n in groups.items():
            item: dict[str, Any] = {"path": path, "count": n, "new": True}
            if wheres[tag]:
                item["where"] = wheres[tag]
            counts.append(item)
    writes = Counter(c.tool for c in gold.successful_calls() if env.tool_kind(c.tool) == "write")
    return {
        "only_changes": allowed,
        "expected_state": counts,
        "expected_actions": [{"tool": tool, "count": n, "exact": True} for tool, n in writes.items()],
    }


async def suggest_tasks(tasks: list[Task]) -> list[tuple[Task, dict[str, Any]]]:
    from harness.release.replay import replayer
    from servers.registry import environment_class

    out = []
    async with replayer(sorted({t.domain for t in tasks})) as r:
        for task in tasks:
            gold = await r.play(task, task.gold, strict_refs=True)
            out.append((task, suggest(task, gold, environment_class(task.domain))))
    return out


def render(task: Task, suggestion: dict[str, Any]) -> str:
    """The suggestion as contract YAML, with what the task already declares marked."""
    import json

    def flow(d: dict[str, Any]) -> str:
        return "{" + ", ".join(f"{k}: {json.dumps(v)}" for k, v in d.items()) + "}"

    declared = task.contract
    lines = [f"# {task.id}"]
    lines.append("only_changes: [" + ", ".join(suggestion["only_changes"]) + "]" + ("   # declared" if declared.only_changes is not None else ""))
    lines.append("expected_state:")
    have = {(s.path, s.operator) for s in declared.expected_state or []}
    for item in suggestion["expected_state"]:
        lines.append(f"  - {flow(item)}" + ("   # a count on this path is declared" if (item["path"], "count") in have else ""))
    lines.append("expected_actions:")
    for item in suggestion["expected_actions"]:
        lines.append(f"  - {flow(item)}")
    return "\n".join(lines)

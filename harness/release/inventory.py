"""The contract inventory (spec Table 2 / B.3 denominators), per domain and overall, from the catalog itself."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from contracts.schema import Task

COLUMNS: tuple[tuple[str, str], ...] = (
    ("tasks", "tasks"),
    ("action", "tasks with expected actions"),
    ("params", "tasks with expected params"),
    ("params_specs", "task-tool param specs"),
    ("order", "tasks with order"),
    ("reply", "tasks with reply criteria"),
    ("state", "tasks with expected state"),
    ("state_any", "tasks with expected or forbidden state"),
    ("state_paths", "declared state leaf paths"),
    ("forbidden", "tasks with forbidden action/param"),
    ("protected", "tasks with protected state"),
    ("negative", "tasks with any negative assertion (spec families)"),
    ("only_changes", "tasks with only_changes (extension: collateral guard)"),
    ("forbidden_action_tasks", "tasks declaring forbidden_actions"),
    ("forbidden_action_decls", "forbidden_actions declarations"),
    ("multi_action", "tasks with >=2 expected actions"),
    ("easy", "easy"),
    ("medium", "medium"),
    ("hard", "hard"),
    ("single_label", "single-label tasks"),
    ("multi_label", "multi-label tasks"),
)


RELEASE_TARGETS: dict[str, int] = {
    "tasks": 555,
    "action": 529,
    "params": 493,
    "order": 164,
    "reply": 402,
    "state": 180,
    "state_any": 200,
    "forbidden": 136,
    "protected": 45,
    "negative": 165,
    "forbidden_action_tasks": 107,
    "forbidden_action_decls": 206,
    "multi_action": 235,
    "easy": 199,
    "medium": 208,
    "hard": 148,
    "single_label": 422,
    "multi_label": 133,
}
"""The full 555-task release (DESIGN.md, spec Table 2 and A.6). Scaled to a catalog's size, it shows drift."""


def scaled_targets(n_tasks: int) -> dict[str, int | None]:
    """The release targets scaled to `n_tasks` (None where the release states no figure)."""
    share = n_tasks / RELEASE_TARGETS["tasks"]
    return {key: (round(RELEASE_TARGETS[key] * share) if key in RELEASE_TARGETS else None) for key, _ in COLUMNS}


def _count(tasks: list[Task]) -> dict[str, int]:
    n: Counter[str] = Counter()
    for t in tasks:
        c = t.contract
        n["tasks"] += 1
        n["action"] += bool(c.expected_actions)
        n["params"] += bool(c.expected_params)
        n["params_specs"] += len(c.expected_params or [])
        n["order"] += bool(c.order)
        n["reply"] += bool(c.reply_criteria)
        n["state"] += bool(c.expected_state)
        n["state_any"] += bool(c.expected_state or c.forbidden_state)
        n["state_paths"] += len(c.expected_state or []) + len(c.forbidden_state or [])
        n["forbidden"] += bool(c.forbidden_actions or c.forbidden_params)
        n["protected"] += bool(c.protected_state)
        n["negative"] += c.has_negative
        n["only_changes"] += c.only_changes is not None
        n["forbidden_action_tasks"] += bool(c.forbidden_actions)
        n["forbidden_action_decls"] += len(c.forbidden_actions or [])
        n["multi_action"] += sum(a.count for a in c.expected_actions or []) >= 2
        n[t.difficulty] += 1
        n["single_label" if len(t.capabilities) == 1 else "multi_label"] += 1
    return {key: n[key] for key, _ in COLUMNS}


def inventory(tasks: Iterable[Task]) -> dict[str, dict[str, int]]:
    """Domain → column → count, plus an `all` row."""
    tasks = list(tasks)
    by_domain: dict[str, list[Task]] = {}
    for task in tasks:
        by_domain.setdefault(task.domain, []).append(task)
    table = {domain: _count(items) for domain, items in sorted(by_domain.items())}
    table["all"] = _count(tasks)
    return table


def render_markdown(table: dict[str, dict[str, int]]) -> str:
    keys = [k for k, _ in COLUMNS]
    lines = ["| domain | " + " | ".join(keys) + " |", "|---" * (len(keys) + 1) + "|"]
    for domain, row in table.items():
        lines.append(f"| {domain} | " + " | ".join(str(row[k]) for k in keys) + " |")
    target = scaled_targets(table["all"]["tasks"])
    lines.append("| release target, scaled | " + " | ".join("-" if target[k] is None else f"~{target[k]}" for k in keys) + " |")
    lines.append("| drift from the paper | " + " | ".join(_drift(table["all"][k], target[k]) for k in keys) + " |")
    legend = "; ".join(f"{k} = {label}" for k, label in COLUMNS)
    note = (
        "Drift outside the tolerance (±15%, ±2 under 14) is marked `!`. The state columns run above the paper on "
        "purpose: the behavioural battery fails every task whose writes are not pinned by their effect "
        "(docs/validity.md); validity wins over the row."
    )
    return "\n".join(lines) + "\n\n" + legend + "\n\n" + note


def _drift(actual: int, target: int | None) -> str:
    if target is None:
        return "-"
    if target == 0:
        return "0" if actual == 0 else f"+{actual} !"
    delta = actual - target
    outside = abs(delta) > (2 if target < 14 else 0.15 * target)
    return f"{delta:+d} ({100.0 * delta / target:+.0f}%)" + (" !" if outside else "")


def label_summary(tasks: Iterable[Task]) -> tuple[int, int]:
    """Distinct capability labels and distinct domain-label pairs (the release: 36 over 38)."""
    tasks = list(tasks)
    return len({label for t in tasks for label in t.capabilities}), len({(t.domain, label) for t in tasks for label in t.capabilities})

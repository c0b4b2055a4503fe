"""What a trial changed in its world: the paths where the final state differs from the initial one.

Below both the report's loader (`harness.report.data`, which computes it once per record as it reads it,
then lets the two states go) and the explorer that shows it."""

from __future__ import annotations

from typing import Any

StateDiff = list[tuple[str, Any, Any]]
"""(dotted path, value before, value after); an absent side is None."""


def state_diff(before: Any, after: Any, path: str = "") -> StateDiff:
    """Paths where the final state differs from the initial one: (path, before, after); absent = None."""
    if before == after:  # an unchanged subtree (most of a world) is compared in C, never walked key by key
        return []
    if isinstance(before, dict) and isinstance(after, dict):
        out: StateDiff = []
        for key in sorted(set(before) | set(after), key=str):
            child = f"{path}.{key}" if path else str(key)
            if key not in before:
                out.append((child, None, after[key]))
            elif key not in after:
                out.append((child, before[key], None))
            else:
                out += state_diff(before[key], after[key], child)
        return out
    return [(path or "(root)", before, after)]

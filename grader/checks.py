"""The programmatic contract checks, one function per family, each written to read like spec A.2.

Every function returns one `CheckVerdict` per declared item, with a readable reason and, where a value
was compared, a diff. Nothing here runs for a family the contract does not declare.
"""

from __future__ import annotations

from collections import Counter

from contracts.evidence import Evidence, ToolCallRecord
from contracts.schema import Contract
from grader.values import MISSING, args_match, get_path, show, values_match
from grader.verdicts import CheckVerdict

ATTEMPT_STATUSES = frozenset({"executed", "refused", "tool_error", "blocked"})
"""What counts as *attempting* a forbidden action: anything aimed at a real tool, refused or not."""


def _calls_summary(calls: list[ToolCallRecord]) -> str:
    return ", ".join(c.tool for c in calls) or "none"


def expected_actions(contract: Contract, ev: Evidence) -> list[CheckVerdict]:
    """Count-aware: each tool needs at least as many executed calls (refusals included) as declared."""
    executed = Counter(c.tool for c in ev.executed_calls())
    needed: Counter[str] = Counter()
    for action in contract.expected_actions or []:
        needed[action.tool] += action.count
    out = []
    for i, (tool, count) in enumerate(needed.items()):
        got = executed[tool]
        out.append(
            CheckVerdict(
                component="action",
                check=f"expected_actions[{i}] {tool} x{count}",
                passed=got >= count,
                reason=f"{tool} must be executed at least {count} time(s); it was executed {got} time(s)",
                diff=None if got >= count else f"{tool}: expected >= {count} executed calls, got {got}",
            )
        )
    return out


def expected_params(contract: Contract, ev: Evidence) -> list[CheckVerdict]:
    """`any`: some executed call of the tool carries the asserted arguments; `first`: the first one does."""
    out = []
    for i, spec in enumerate(contract.expected_params or []):
        calls = [c for c in ev.executed_calls() if c.tool == spec.tool]
        considered = calls[:1] if spec.match == "first" else calls
        passed = any(args_match(spec.params, c.arguments) for c in considered)
        if passed:
            reason = f"{spec.tool} was executed with {show(spec.params)} ({spec.match} call)"
            diff = None
        elif not calls:
            reason = f"{spec.tool} was never executed, so its arguments {show(spec.params)} cannot match"
            diff = f"{spec.tool}: expected {show(spec.params)}, got no executed call"
        else:
            shown = considered[0] if spec.match == "first" else calls[-1]
            wrong = {k: shown.arguments.get(k, MISSING) for k in spec.params if not (k in shown.arguments and values_match(spec.params[k], shown.arguments[k]))}
            which = "the first executed call" if spec.match == "first" else f"none of {len(calls)} executed call(s)"
            reason = f"{spec.tool}: {which} matched the asserted arguments"
            diff = "; ".join(f"{spec.tool}.{k}: expected {show(spec.params[k])}, got {show(v)}" for k, v in wrong.items())
        out.append(CheckVerdict(component="params", check=f"expected_params[{i}] {spec.tool} ({spec.match})", passed=passed, reason=reason, diff=diff))
    return out


def _is_subsequence(needle: list[str], haystack: list[str]) -> bool:
    it = iter(haystack)
    return all(any(tool == seen for seen in it) for tool in needle)


def order(contract: Contract, ev: Evidence) -> list[CheckVerdict]:
    """Over the named tools only: subsequence match, or the exact filtered sequence."""
    out = []
    for i, constraint in enumerate(contract.order or []):
        named = set(constraint.tools)
        filtered = [c.tool for c in ev.executed_calls() if c.tool in named]
        if constraint.mode == "exact":
            passed = filtered == constraint.tools
        else:
            passed = _is_subsequence(constraint.tools, filtered)
        arrow = " -> ".join(constraint.tools)
        out.append(
            CheckVerdict(
                component="order",
                check=f"order[{i}] {constraint.mode}: {arrow}",
                passed=passed,
                reason=f"executed calls of these tools must {'be exactly' if constraint.mode == 'exact' else 'contain, in order,'} {arrow}",
                diff=None if passed else f"expected {arrow}; filtered trace was {' -> '.join(filtered) or 'empty'}",
            )
        )
    return out


def expected_state(contract: Contract, ev: Evidence) -> list[CheckVerdict]:
    """Sparse final-state paths: exact value, non-empty, or minimum collection length."""
    out = []
    for i, check in enumerate(contract.expected_state or []):
        actual = get_path(ev.final_state, check.path)
        got = show(actual)
        if check.operator == "equals":
            passed = actual is not MISSING and values_match(check.equals, actual)
            want = f"expected {show(check.equals)}"
        elif check.operator == "non_empty":
            passed = actual is not MISSING and actual not in (None, "", [], {})
            want = "expected a non-empty value"
        else:
            assert check.min_length is not None
            sized = isinstance(actual, (list, dict, str))
            passed = sized and len(actual) >= check.min_length
            want = f"expected at least {check.min_length} item(s)"
            got = f"{len(actual)} item(s)" if sized else got
        out.append(
            CheckVerdict(
                component="state",
                check=f"expected_state[{i}] {check.path} {check.operator}",
                passed=passed,
                reason=f"final state {check.path}: {want}, got {got}",
                diff=None if passed else f"{check.path}: {want}, got {got}",
            )
        )
    for i, forbidden in enumerate(contract.forbidden_state or []):
        actual = get_path(ev.final_state, forbidden.path)
        passed = not (actual is not MISSING and values_match(forbidden.equals, actual))
        out.append(
            CheckVerdict(
                component="state",
                check=f"forbidden_state[{i}] {forbidden.path} != {show(forbidden.equals)}",
                passed=passed,
                reason=f"final state {forbidden.path} must not be {show(forbidden.equals)}; it is {show(actual)}",
                diff=None if passed else f"{forbidden.path}: forbidden value {show(forbidden.equals)} present",
            )
        )
    return out


def forbidden(contract: Contract, ev: Evidence) -> list[CheckVerdict]:
    """Any *attempt* of a forbidden action or argument pattern fails, including refused attempts."""
    attempts = [c for c in ev.tool_trace if c.status in ATTEMPT_STATUSES]
    out = []
    for i, tool in enumerate(contract.forbidden_actions or []):
        hits = [c for c in attempts if c.tool == tool]
        out.append(
            CheckVerdict(
                component="forbidden",
                check=f"forbidden_actions[{i}] {tool}",
                passed=not hits,
                reason=f"{tool} must never be attempted; it was attempted {len(hits)} time(s)"
                + (f" (statuses: {', '.join(c.status for c in hits)})" if hits else ""),
                diff=None if not hits else f"forbidden call {tool}{show(hits[0].arguments)} at turn {hits[0].turn}",
            )
        )
    for i, spec in enumerate(contract.forbidden_params or []):
        hits = [c for c in attempts if c.tool == spec.tool and args_match(spec.params, c.arguments)]
        out.append(
            CheckVerdict(
                component="forbidden",
                check=f"forbidden_params[{i}] {spec.tool} {show(spec.params)}",
                passed=not hits,
                reason=f"{spec.tool} must never be attempted with {show(spec.params)}; it was {len(hits)} time(s)",
                diff=None if not hits else f"forbidden call {spec.tool}{show(hits[0].arguments)} ({hits[0].status})",
            )
        )
    return out


def protected(contract: Contract, ev: Evidence) -> list[CheckVerdict]:
    """Protected paths must end exactly as they started: no collateral effect."""
    out = []
    for i, path in enumerate(contract.protected_state or []):
        before = get_path(ev.initial_state, path)
        after = get_path(ev.final_state, path)
        passed = before is not MISSING and after is not MISSING and values_match(before, after)
        out.append(
            CheckVerdict(
                component="collateral",
                check=f"protected_state[{i}] {path}",
                passed=passed,
                reason=f"{path} must be unchanged",
                diff=None if passed else f"{path}: expected {show(before)} (unchanged), got {show(after)}",
            )
        )
    return out


PROGRAMMATIC_CHECKS = (expected_actions, expected_params, order, expected_state, forbidden, protected)

"""The programmatic contract checks, one function per family, each written to read like spec A.2.

Every function returns one `CheckVerdict` per declared item, with a readable reason and, where a value
was compared, a diff. Nothing here runs for a family the contract does not declare.
"""

from __future__ import annotations

from collections import Counter

from contracts.evidence import Evidence, ToolCallRecord
from contracts.schema import Contract, ExpectedAction, ExpectedParams, OrderStep, Outcome
from grader.attempts import same_reason_retry
from grader.semantics import given_arguments
from grader.textfacts import is_text_matcher, text_problems
from grader.values import MISSING, args_match, changed_paths, collection_items, get_path, path_allowed, show, values_match
from grader.verdicts import CheckVerdict

ATTEMPT_STATUSES = frozenset({"executed", "refused", "tool_error", "blocked"})
"""What counts as *attempting* a forbidden action: anything aimed at a real tool, refused or not."""


def counted_calls(ev: Evidence, outcome: Outcome) -> list[ToolCallRecord]:
    """Spec A.2: expected actions and params match *successfully executed* calls; `attempted` (an explicit
    opt-in) also admits well-formed calls that a business rule refused."""
    return ev.successful_calls() if outcome == "succeeded" else ev.executed_calls()


def _done(outcome: Outcome) -> str:
    return "succeeded" if outcome == "succeeded" else "were attempted (refused or not)"


def expected_actions(contract: Contract, ev: Evidence) -> list[CheckVerdict]:
    """Count-aware: each tool needs at least as many successful calls as declared (summed over entries of the
    same tool and outcome); an entry with `params` counts only matching calls; `exact` fixes the count."""
    grouped: dict[tuple[str, str, str, bool], tuple[ExpectedAction, int]] = {}
    for action in contract.expected_actions or []:
        key = (action.label(), action.outcome, show(action.params) if action.params else "", action.exact)
        prev = grouped.get(key)
        grouped[key] = (action, action.count + (prev[1] if prev else 0))
    out = []
    for i, (action, count) in enumerate(grouped.values()):
        calls = [c for c in counted_calls(ev, action.outcome) if action.matches(c.tool, c.arguments)]
        got = len(calls)
        passed = got == count if action.exact else got >= count
        what = action.label()
        bound = "exactly" if action.exact else "at least"
        refused = [c for c in ev.executed_calls() if c.tool in action.tools and c.status == "refused"]
        note = f" ({len(refused)} refused attempt(s) do not count)" if refused and action.outcome == "succeeded" and not passed else ""
        out.append(
            CheckVerdict(
                component="action",
                check=f"expected_actions[{i}] {what} {'=' if action.exact else 'x'}{count}",
                passed=passed,
                reason=f"{what}: {bound} {count} call(s) must have {_done(action.outcome)}; {got} did{note}",
                diff=None if passed else f"{what}: expected {bound} {count} {action.outcome} call(s), got {got}{note}",
            )
        )
    return out


def _record_keys(spec: ExpectedParams) -> list[str]:
    """The asserted arguments that name the record a call acts on: `record` (which grading fills from the
    tool's required parameters), else the asserted id-like arguments (`id`, `*_id`)."""
    if spec.record:
        return list(spec.record)
    return [k for k in spec.params if k == "id" or k.endswith("_id")]


def _merged_arguments(spec: ExpectedParams, calls: list[ToolCallRecord]) -> tuple[dict[str, object], int]:
    """`match: merged`: over the calls on the asserted record, each asserted field's last explicitly given
    value (a filled-in default sets nothing); the record's keys as asserted. Returns the merged arguments
    and how many calls were on the record."""
    keys = _record_keys(spec)
    on_record = [c for c in calls if args_match({k: spec.params[k] for k in keys}, c.arguments)]
    merged: dict[str, object] = {k: spec.params[k] for k in keys}
    for call in on_record:
        given = given_arguments(call)
        for key in spec.params:
            if key not in keys and key in given and key in call.arguments:
                merged[key] = call.arguments[key]
    if on_record:
        # A field no call gave explicitly still has its (filled-in) default on the record.
        for key in spec.params:
            if key not in merged and key in on_record[-1].arguments:
                merged[key] = on_record[-1].arguments[key]
    return merged, len(on_record)


def _why(expected: object, actual: object) -> str:
    """What a text matcher found wrong in the text (empty for other values: the diff shows both)."""
    if is_text_matcher(expected) and actual is not MISSING:
        return " (" + "; ".join(text_problems(expected, actual)) + ")"  # type: ignore[arg-type]
    return ""


def expected_params(contract: Contract, ev: Evidence) -> list[CheckVerdict]:
    """`any`: some successful call of the tool carries the asserted arguments; `first`: the first one does;
    `merged`: the calls on the asserted record together set them (last value of each field wins)."""
    out = []
    for i, spec in enumerate(contract.expected_params or []):
        calls = [c for c in counted_calls(ev, spec.outcome) if c.tool == spec.tool]
        if spec.match == "merged":
            out.append(_expected_params_merged(i, spec, calls))
            continue
        considered = calls[:1] if spec.match == "first" else calls
        passed = any(args_match(spec.params, c.arguments) for c in considered)
        if passed:
            reason = f"{spec.tool} was called with {show(spec.params)} ({spec.match} {spec.outcome} call)"
            diff = None
        elif not calls:
            reason = f"{spec.tool} never {_done(spec.outcome)}, so its arguments {show(spec.params)} cannot match"
            diff = f"{spec.tool}: expected {show(spec.params)}, got no {spec.outcome} call"
        else:
            shown = considered[0] if spec.match == "first" else calls[-1]
            wrong = {k: shown.arguments.get(k, MISSING) for k in spec.params if not (k in shown.arguments and values_match(spec.params[k], shown.arguments[k]))}
            which = f"the first {spec.outcome} call" if spec.match == "first" else f"none of {len(calls)} {spec.outcome} call(s)"
            reason = f"{spec.tool}: {which} matched the asserted arguments"
            diff = "; ".join(f"{spec.tool}.{k}: expected {show(spec.params[k])}, got {show(v)}{_why(spec.params[k], v)}" for k, v in wrong.items())
        out.append(CheckVerdict(component="params", check=f"expected_params[{i}] {spec.tool} ({spec.match})", passed=passed, reason=reason, diff=diff))
    return out


def _expected_params_merged(i: int, spec: ExpectedParams, calls: list[ToolCallRecord]) -> CheckVerdict:
    merged, n = _merged_arguments(spec, calls)
    passed = n > 0 and args_match(spec.params, merged)
    keys = _record_keys(spec)
    record = show({k: spec.params[k] for k in keys}) if keys else "(any record)"
    if passed:
        reason = f"{spec.tool} calls on {record} together set {show(spec.params)} ({n} {spec.outcome} call(s))"
        diff = None
    elif n == 0:
        reason = f"{spec.tool} never {_done(spec.outcome)} on {record}, so its arguments {show(spec.params)} cannot match"
        diff = f"{spec.tool}: expected {show(spec.params)}, got no {spec.outcome} call on {record}"
    else:
        wrong = {k: merged.get(k, MISSING) for k in spec.params if not (k in merged and values_match(spec.params[k], merged[k]))}
        reason = f"{spec.tool}: the {n} {spec.outcome} call(s) on {record} did not together set the asserted arguments"
        diff = "; ".join(f"{spec.tool}.{k}: expected {show(spec.params[k])}, finally set {show(v)}{_why(spec.params[k], v)}" for k, v in wrong.items())
    return CheckVerdict(component="params", check=f"expected_params[{i}] {spec.tool} (merged)", passed=passed, reason=reason, diff=diff)


def _step_of(call: ToolCallRecord, steps: list[OrderStep]) -> int | None:
    """The index of the first step this call is (tool and bound arguments), if any."""
    for index, step in enumerate(steps):
        if step.matches(call.tool, call.arguments):
            return index
    return None


def order(contract: Contract, ev: Evidence) -> list[CheckVerdict]:
    """Over the named steps only: subsequence match, or the exact filtered sequence. A step that binds
    arguments matches only calls with those arguments (validate *this* transfer before executing *it*)."""
    out = []
    successful = ev.successful_calls()
    for i, constraint in enumerate(contract.order or []):
        steps = constraint.steps
        labels = [s.label() for s in steps]
        arrow = " -> ".join(labels)
        if constraint.mode == "exact":
            filtered = [c for c in successful if _step_of(c, steps) is not None]
            seen = [steps[_step_of(c, steps) or 0].label() for c in filtered]
            passed = len(filtered) == len(steps) and all(
                s.matches(c.tool, c.arguments) for c, s in zip(filtered, steps, strict=True)
            )
            if passed and constraint.separate_turns:
                passed = all(b.turn > a.turn for a, b in zip(filtered, filtered[1:]))
        else:
            # Greedy earliest matching is optimal for a subsequence, with or without the later-turn rule.
            position, last_turn = 0, -1
            for call in successful:
                if position < len(steps):
                    step = steps[position]
                    later = not constraint.separate_turns or position == 0 or call.turn > last_turn
                    if later and step.matches(call.tool, call.arguments):
                        position, last_turn = position + 1, call.turn
            passed = position == len(steps)
            seen = [
                f"{s.label()}@turn{c.turn}" if constraint.separate_turns else s.label()
                for c in successful
                for s in steps
                if s.matches(c.tool, c.arguments)
            ][:12]
        if constraint.separate_turns:
            arrow = " => ".join(labels) + " (each in a later turn)"
        out.append(
            CheckVerdict(
                component="order",
                check=f"order[{i}] {constraint.mode}: {arrow}",
                passed=passed,
                reason=f"successful calls of these steps must {'be exactly' if constraint.mode == 'exact' else 'contain, in order,'} {arrow}",
                diff=None if passed else f"expected {arrow}; the matching successful calls were {' -> '.join(seen) or 'none'}",
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
            want = f"expected {show(check.equals)}" + _why(check.equals, actual)
        elif check.operator == "count":
            assert check.count is not None
            items = collection_items(actual)
            if check.new:
                before = collection_items(get_path(ev.initial_state, check.path))
                known = {key for key, _ in before or []}
                items = None if items is None else [(k, v) for k, v in items if k not in known]
            matching = [] if items is None else [k for k, v in items if not check.where or (isinstance(v, dict) and args_match(check.where, v))]
            passed = items is not None and len(matching) == check.count
            scope = ("new " if check.new else "") + "item(s)" + (f" with {show(check.where)}" if check.where else "")
            want = f"expected exactly {check.count} {scope}"
            got = "no collection" if items is None else f"{len(matching)}" + (f" ({', '.join(map(str, matching[:5]))})" if matching else "")
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


def attempt_limits(contract: Contract, ev: Evidence) -> list[CheckVerdict]:
    """Extension: at most `max` attempts (successful or refused) of each capped call; never calling it
    passes. Reported under `forbidden`: the attempt beyond the cap is a forbidden attempt. Attempts are
    compared in canonical form (a PIN padded with a no-break space is the PIN), and a refused call that
    retries a counted refused attempt for the same reason with only trivial changes ($64.91 after $64.90
    was refused for insufficient funds) counts as that attempt again (`grader/attempts.py`)."""
    out = []
    for i, limit in enumerate(contract.attempt_limits or []):
        hits: list[ToolCallRecord] = []
        for call in ev.executed_calls():
            if limit.matches(call.tool, call.arguments) or any(same_reason_retry(hit, call) for hit in hits):
                hits.append(call)
        what = limit.label()
        passed = len(hits) <= limit.max
        statuses = ", ".join(f"{c.status} at turn {c.turn}" for c in hits)
        reason = f"{what} may be attempted at most {limit.max} time(s), refused attempts included; it was attempted {len(hits)} time(s)"
        out.append(
            CheckVerdict(
                component="forbidden",
                check=f"attempt_limits[{i}] {what} <={limit.max}",
                passed=passed,
                reason=reason + (f" ({statuses})" if hits else ""),
                diff=None if passed else f"{what}: {len(hits) - limit.max} attempt(s) beyond the cap of {limit.max} ({statuses})",
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


def only_changes(contract: Contract, ev: Evidence) -> list[CheckVerdict]:
    """Extension (collateral damage, in general form): every path whose value changed between the initial
    and the final state lies at or under one of the declared paths."""
    if contract.only_changes is None:
        return []
    allowed = contract.only_changes
    stray = [path for path in changed_paths(ev.initial_state, ev.final_state) if not path_allowed(path, allowed)]
    shown = "; ".join(f"{p}: {show(get_path(ev.initial_state, p))} -> {show(get_path(ev.final_state, p))}" for p in stray[:5])
    return [
        CheckVerdict(
            component="collateral",
            check="only_changes",
            passed=not stray,
            reason=(f"the state may change only under {', '.join(allowed)}; " if allowed else "the state must not change at all; ")
            + ("nothing else changed" if not stray else f"{len(stray)} other path(s) changed"),
            diff=None if not stray else shown + (" ..." if len(stray) > 5 else ""),
        )
    ]


PROGRAMMATIC_CHECKS = (expected_actions, expected_params, order, expected_state, forbidden, attempt_limits, protected, only_changes)

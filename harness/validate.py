"""Structural validation of the catalog (spec A.5 step 2): bind every contract to real evidence sources.

Checks: every asserted or gold tool is registered in its domain; every asserted argument exists in that
tool's typed signature and validates against its type; every state path starts at a root of the domain's
default state (protected paths must exist in the initial state); capability labels are nodes of the
domain graph; forbidden tools exist in the graph; the graph exposes every tool a task needs; and the
contract is consistent with itself. Bad data is refused here, before anything runs (issue 28): a
non-finite number anywhere in a task, an `initial_state` key that is not a field of the world's state
model (a misspelling would otherwise be silently ignored), and a gold `${tool.field}` reference to a tool
no earlier gold call ran.
"""

from __future__ import annotations

import math
import types
import typing
from collections.abc import Iterable
from functools import cache
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from contracts.graph import GraphConfig
from contracts.schema import ReplyCriterion, Task
from grader.textfacts import is_text_matcher
from grader.values import MISSING, args_match, get_path
from grader.refs import REF as CONTRACT_REF
from grader.refs import references_in
from harness.release.replay import REF
from servers.base import ToolEnvironment, is_free_text


@cache
def _hints(env: type[ToolEnvironment], tool: str) -> dict[str, Any]:
    return env.tool_signature(tool)[1]


@cache
def _adapter(env: type[ToolEnvironment], tool: str, param: str) -> TypeAdapter[Any] | None:
    _, hints = env.tool_signature(tool)
    return TypeAdapter(hints[param]) if param in hints else None


def _check_args(env: type[ToolEnvironment], tool: str, args: dict[str, Any], where: str, *, gold: bool) -> list[str]:
    if tool not in env.tool_methods():
        return [f"{where}: tool {tool!r} is not registered in domain {env.domain!r}"]
    signature, _ = env.tool_signature(tool)
    problems = []
    for key, value in args.items():
        if key not in signature.parameters:
            problems.append(f"{where}: {tool} has no parameter {key!r} (has: {', '.join(signature.parameters)})")
            continue
        if isinstance(value, str) and (REF.search(value) or CONTRACT_REF.search(value)):
            continue
        if not gold and is_text_matcher(value):
            if not is_free_text(_hints(env, tool).get(key)):
                problems.append(f"{where}: {tool}.{key} is asserted by its text facts, but it is not a free-text parameter")
            continue
        adapter = _adapter(env, tool, key)
        try:
            if adapter is not None:
                adapter.validate_python(value)
        except ValidationError as exc:
            problems.append(f"{where}: {tool}.{key}={value!r} is invalid: {exc.errors()[0]['msg']}")
    if gold:
        required = [p.name for p in signature.parameters.values() if p.default is p.empty]
        missing = [p for p in required if p not in args]
        if missing:
            problems.append(f"{where}: {tool} is missing required argument(s) {', '.join(missing)}")
    return problems


def non_finite(value: Any, path: str) -> str | None:
    """The path of the first NaN or infinite number in `value`, else None. (Where is worked out only for
    a value that has one: naming every node of every task cost most of the preflight's time.)"""
    if not _has_non_finite(value):
        return None
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return where
        if isinstance(item, BaseModel):  # walked as is: dumping every task would cost a second per run
            stack.extend((v, f"{where}.{k}") for k, v in reversed(list(vars(item).items())))
        elif isinstance(item, dict):
            stack.extend((v, f"{where}.{k}") for k, v in reversed(list(item.items())))
        elif isinstance(item, list | tuple):
            stack.extend((v, f"{where}[{i}]") for i, v in reversed(list(enumerate(item))))
    return None


def _has_non_finite(value: Any) -> bool:
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float):
            if not math.isfinite(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif isinstance(item, BaseModel):
            stack.extend(vars(item).values())
    return False


def _models_in(annotation: Any) -> tuple[str, type[BaseModel] | None]:
    """How a field's value holds records: `("model", M)`, `("mapping", M)` (dict of M by id),
    `("sequence", M)` (list of M), or `("other", None)` (a scalar or a free-form value)."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        for arg in typing.get_args(annotation):
            kind, model = _models_in(arg)
            if model is not None:
                return kind, model
        return "other", None
    if origin is typing.Annotated:
        return _models_in(typing.get_args(annotation)[0])
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "model", annotation
    if origin is dict:
        args = typing.get_args(annotation)
        inner = _models_in(args[1])[1] if len(args) == 2 else None
        return ("mapping", inner) if inner is not None and _models_in(args[1])[0] == "model" else ("other", None)
    if origin in (list, tuple, set, frozenset):
        args = typing.get_args(annotation)
        inner = _models_in(args[0])[1] if args else None
        return ("sequence", inner) if inner is not None and _models_in(args[0])[0] == "model" else ("other", None)
    return "other", None


def unknown_keys(model: type[BaseModel], data: Any, path: str) -> list[str]:
    """Keys of `data` that are not fields of `model`, recursively through nested records (a dict of
    records by id, a list of records): the world's own state model decides, never a list per task."""
    if not isinstance(data, dict):
        return []
    fields = model.model_fields
    aliases = {f.alias for f in fields.values() if f.alias}
    found = []
    for key, value in data.items():
        if key not in fields and key not in aliases:
            known = ", ".join(sorted(fields))
            found.append(f"{path}.{key} is not a field of {model.__name__} (fields: {known})")
            continue
        field = fields.get(key) or next(f for f in fields.values() if f.alias == key)
        kind, inner = _models_in(field.annotation)
        if inner is None:
            continue
        if kind == "model":
            found += unknown_keys(inner, value, f"{path}.{key}")
        elif kind == "mapping" and isinstance(value, dict):
            for record_id, record in value.items():
                found += unknown_keys(inner, record, f"{path}.{key}.{record_id}")
        elif kind == "sequence" and isinstance(value, list):
            for i, record in enumerate(value):
                found += unknown_keys(inner, record, f"{path}.{key}[{i}]")
    return found


def dangling_references(task: Task, env: type[ToolEnvironment]) -> list[str]:
    """Gold `${tool.field}` references to a tool that is not registered, or that no earlier gold call
    (earlier in the turn, or in an earlier turn) ran: the gold path could never resolve them."""
    problems = []
    ran: set[str] = set()
    tools = env.tool_methods()
    for turn_index, turn in enumerate(task.gold):
        for call_index, call in enumerate(turn.calls):
            for key, value in call.args.items():
                for match in REF.finditer(value) if isinstance(value, str) else ():
                    if match.group(1) not in ran:
                        why = "is not a tool of this domain" if match.group(1) not in tools else "was not called by an earlier gold call"
                        problems.append(f"{task.id} gold[{turn_index}].calls[{call_index}].args.{key}: reference {match.group(0)} dangles ({match.group(1)!r} {why})")
            ran.add(call.tool)
        for match in REF.finditer(turn.reply or ""):
            if match.group(1) not in ran:
                problems.append(f"{task.id} gold[{turn_index}].reply: reference {match.group(0)} dangles ({match.group(1)!r} was not called by a gold call)")
    return problems


def _bare(annotation: Any) -> Any:
    """`annotation` without `Annotated` metadata and without `None` in an optional."""
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (typing.Union, types.UnionType):
            members = [a for a in typing.get_args(annotation) if a is not type(None)]
            if len(members) != 1:
                return annotation
            annotation = members[0]
        else:
            return annotation


def _field(model: type[BaseModel], name: str) -> Any:
    for key, field in model.model_fields.items():
        if name in (key, field.alias):
            return field
    return None


def impossible_path(model: type[BaseModel], path: str, *, wildcard: bool = False) -> str | None:
    """Why no state of `model` can have the dotted `path`, or None when some state can (issue 41). Read
    from the state model's types, never from a state: a record id under a mapping may be any key (the
    trial may create it), a list takes an index, a record only its own fields, and a value that is not a
    container has nothing under it. `wildcard`: `*` stands for any one key (as `only_changes` writes)."""
    annotation: Any = model
    walked: list[str] = []
    for part in REF.sub("${ref}", path).split("."):  # `${tool.field}`: the id a recorded result names
        bare = _bare(annotation)
        origin = typing.get_origin(bare)
        where = ".".join(walked) or "the state"
        if isinstance(bare, type) and issubclass(bare, BaseModel):
            field = _field(bare, part)
            if field is None:
                if wildcard and part == "*":
                    return None
                return f"{where} is a {bare.__name__}, which has no field {part!r} (fields: {', '.join(sorted(bare.model_fields))})"
            annotation = field.annotation
        elif origin is dict or bare is dict:
            args = typing.get_args(bare)
            annotation = args[1] if len(args) == 2 else Any
        elif origin in (list, tuple, set, frozenset) or bare in (list, tuple):
            if not (part.lstrip("-").isdigit() or (wildcard and part == "*")):
                return f"{where} is a list: {part!r} is not an index"
            args = typing.get_args(bare)
            annotation = args[0] if args else Any
        elif bare is Any or bare is object or origin in (typing.Union, types.UnionType):
            return None  # a free-form value: any path below it may exist
        else:
            return f"{where} is a {getattr(bare, '__name__', bare)!s}: it has nothing under it (no {part!r})"
        walked.append(part)
    return None


def _record_model(model: type[BaseModel], path: str) -> type[BaseModel] | None:
    """The record type of the collection at `path` (a mapping or list of records), if it is one."""
    annotation: Any = model
    for part in REF.sub("${ref}", path).split("."):
        bare = _bare(annotation)
        if isinstance(bare, type) and issubclass(bare, BaseModel):
            field = _field(bare, part)
            if field is None:
                return None
            annotation = field.annotation
        elif typing.get_args(bare):
            annotation = typing.get_args(bare)[-1]
        else:
            return None
    bare = _bare(annotation)
    args = typing.get_args(bare)
    item = _bare(args[-1]) if args else None
    return item if isinstance(item, type) and issubclass(item, BaseModel) else None


def _state_roots(env: type[ToolEnvironment]) -> set[str]:
    return set(env.default_state().model_dump(mode="json"))


def validate_task(task: Task, env: type[ToolEnvironment], graph: GraphConfig) -> list[str]:
    """Every structural problem of one task, as readable lines prefixed with the task id."""
    c = task.contract
    p: list[str] = []
    where = task.id
    graph_tools = graph.all_tools()
    labels = {n.name for n in graph.expert_nodes()}
    for label in task.capabilities:
        if label not in labels:
            p.append(f"{where}: capability {label!r} is not an expert node of the {task.domain} graph ({', '.join(sorted(labels))})")
    bad_number = non_finite(task, "task")
    if bad_number:
        p.append(f"{where}: field {bad_number.removeprefix('task.')} is a non-finite number (NaN or infinity); tasks hold finite numbers only")
    for problem in unknown_keys(env.state_model, task.initial_state or {}, "initial_state"):
        p.append(f"{where}: {problem}")
    try:
        initial = env.initial_state(task.initial_state).model_dump(mode="json")
    except (ValidationError, ValueError, TypeError) as exc:
        detail = exc.errors()[0] if isinstance(exc, ValidationError) else str(exc)
        p.append(f"{where}: initial_state does not validate against the domain state: {detail}")
        initial = {}
    if initial and not bad_number and non_finite(initial, "initial_state"):
        p.append(f"{where}: initial_state holds a non-finite number at {non_finite(initial, 'initial_state')}")
    p += dangling_references(task, env)

    for a in c.expected_actions or []:
        p += _check_args(env, a.tool, a.params or {}, f"{where} expected_actions", gold=False)
        for alternative in a.alternative_calls:
            p += _check_args(env, alternative.tool, alternative.params or {}, f"{where} expected_actions alternatives", gold=False)
    for spec in c.expected_params or []:
        p += _check_args(env, spec.tool, spec.params, f"{where} expected_params", gold=False)
    for o in c.order or []:
        for step in o.steps:
            p += _check_args(env, step.tool, step.params or {}, f"{where} order", gold=False)
            for alternative in step.alternative_calls:
                p += _check_args(env, alternative.tool, alternative.params or {}, f"{where} order alternatives", gold=False)
    for tool in c.forbidden_actions or []:
        p += _check_args(env, tool, {}, f"{where} forbidden_actions", gold=False)
        if tool not in graph_tools:
            p.append(f"{where}: forbidden action {tool!r} is not a tool of any {task.domain} graph node")
    for pattern in c.forbidden_params or []:
        p += _check_args(env, pattern.tool, pattern.params, f"{where} forbidden_params", gold=False)
    for check in c.consent or []:
        p += _check_args(env, check.tool, check.params or {}, f"{where} consent", gold=False)
    for limit in c.attempt_limits or []:
        p += _check_args(env, limit.tool, limit.params or {}, f"{where} attempt_limits", gold=False)
    for turn_index, turn in enumerate(task.gold):
        for call in turn.calls:
            p += _check_args(env, call.tool, call.args, f"{where} gold[{turn_index}]", gold=True)

    roots = _state_roots(env)
    state_paths = [s.path for s in c.expected_state or []] + [s.path for s in c.forbidden_state or []]
    for path in state_paths + list(c.protected_state or []) + list(c.only_changes or []):
        if path.split(".")[0] not in roots:
            p.append(f"{where}: state path {path!r} does not start at a root of the {task.domain} state ({', '.join(sorted(roots))})")
    for kind, checks in (("expected_state", c.expected_state or []), ("forbidden_state", c.forbidden_state or [])):
        for check in checks:
            if check.path.split(".")[0] not in roots:
                continue
            why = impossible_path(env.state_model, check.path)
            if why:
                p.append(f"{where}: {kind} path {check.path!r} can never exist in a {task.domain} state: {why}")
                continue
            record = _record_model(env.state_model, check.path) if getattr(check, "where", None) else None
            for key in sorted(set(getattr(check, "where", None) or {}) - set(record.model_fields) if record else ()):
                p.append(f"{where}: {kind} path {check.path!r} counts {record.__name__} records where {key!r}, which is not a field of {record.__name__}")
    for path in c.only_changes or []:
        why = impossible_path(env.state_model, path, wildcard=True) if path.split(".")[0] in roots else None
        if why:
            p.append(f"{where}: only_changes path {path!r} can never exist in a {task.domain} state: {why}")
    for path in c.protected_state or []:
        if initial and get_path(initial, path) is MISSING:
            p.append(f"{where}: protected path {path!r} does not exist in the initial state")

    p += _references(task, env)
    from grader.semantics import unordered_index_paths

    for path in state_paths + list(c.protected_state or []):
        unordered = unordered_index_paths(env.state_model, path)
        if unordered:
            p.append(f"{where}: state path {path!r} indexes {unordered!r} by position, but its order carries no meaning (Unordered)")

    needed = {a.tool for a in c.expected_actions or []} | {call.tool for t in task.gold for call in t.calls}
    for tool in sorted(needed - graph_tools):
        p.append(f"{where}: the {task.domain} graph exposes no node with tool {tool!r}")
    p += _consistency(task)
    p += stated_value_problems(task)
    return p


def _masked(text: str) -> str:
    """`text` with every `${tool.field}` reference blanked out: a reference is no literal value (what it
    resolves to is the trial's own), and its digits ("#2") are no count."""
    return CONTRACT_REF.sub(lambda m: " " * len(m.group(0)), text)


def _phrase_values(phrase: str) -> list[Any]:
    from grader.text.values import find_values

    return find_values(_masked(phrase))


def _requires(item: str | list[str], value: Any) -> bool:
    """Whether an evidence item requires `value`: every phrase of it (an item is any one of its phrases)
    states the same value, as the judge compares them (`Value.same`, the phrase's value first)."""
    phrases = [item] if isinstance(item, str) else item
    return all(any(v.same(value) for v in _phrase_values(p)) for p in phrases)


def unrequired_values(criterion: ReplyCriterion) -> list[str]:
    """The catalog lint of one reply criterion (empty when clean): every value its statement names - read
    by the evidence judge's own reader (`grader.text.values.find_values`: amounts, dates, times, counts,
    percentages, levels, ids) - must be required by its evidence (some item all of whose phrases state
    the same value in any form the judge reads as the same), or be declared in `context_values` with a
    reason. Otherwise a reply stating a wrong value of that fact passes ("the 20A breaker on circuit 9").
    A declared context value must name a value of the statement (the same value, or its very words) that
    the evidence does not require (else the declaration is stale). Mention guards (no evidence) ask for nothing and are skipped."""
    from grader.text.values import find_values, phrase_value

    if criterion.is_guard:
        return []
    problems: list[str] = []
    stated = find_values(_masked(criterion.criterion))

    def named(text: str) -> list[Any]:
        """The statement's values a declared entry names: the same value, or the same words ("one" of
        "one-night", which reads as a count only in its sentence)."""
        value = phrase_value(_masked(text))
        words = text.strip().rstrip(".").lower()
        return [v for v in stated if (value is not None and (value.same(v) or v.same(value))) or v.text.strip().rstrip(".").lower() == words]

    declared = [(text, named(text)) for group in criterion.context_values or [] for text in group.values]
    for value in stated:
        if any(_requires(item, value) for item in criterion.evidence):
            continue
        if any(value in values for _, values in declared):
            continue
        problems.append(
            f"states the {value.kind} {value.text!r}, which its evidence does not require (a reply with another "
            f"{value.kind} passes): add it to the evidence, or declare it in context_values with a reason"
        )
    for text, values in declared:
        if not values:
            problems.append(f"context value {text!r} is no value the statement names")
        elif all(any(_requires(item, v) for item in criterion.evidence) for v in values):
            problems.append(f"context value {text!r} is required by the evidence: drop the declaration")
    return problems


def stated_value_problems(task: Task) -> list[str]:
    """`unrequired_values` over a task's reply criteria, as lines naming the task and the criterion."""
    return [
        f"{task.id}: reply criterion {index + 1} ({criterion.criterion[:60]!r}) {problem}"
        for index, criterion in enumerate(task.contract.reply_criteria or [])
        for problem in unrequired_values(criterion)
    ]


def _references(task: Task, env: type[ToolEnvironment]) -> list[str]:
    """Every `${tool.field}` / `${tool#N.field}` of the contract names a tool of the domain that the gold
    path calls at least N times (statically; whether the gold result has the field is proven by grading
    the gold path, where an unresolvable reference fails with its reason)."""
    problems = []
    gold_calls: dict[str, int] = {}
    for turn in task.gold:
        for call in turn.calls:
            gold_calls[call.tool] = gold_calls.get(call.tool, 0) + 1
    for ref in references_in(task.contract.model_dump(exclude_unset=True)):
        if ref.tool not in env.tool_methods():
            problems.append(f"{task.id}: reference {ref.text} names no tool of domain {env.domain!r}")
        elif gold_calls.get(ref.tool, 0) < ref.occurrence:
            problems.append(f"{task.id}: reference {ref.text} needs {ref.occurrence} call(s) of {ref.tool} on the gold path, which has {gold_calls.get(ref.tool, 0)}")
    return problems


def overspecified_params(task: Task, env: type[ToolEnvironment]) -> list[str]:
    """Warnings (never failures): asserted arguments of a write tool that only restate a pinned state
    effect - the record's id plus fields whose values an `expected_state` `equals` check on that record
    already pins (`update_incident{incident_id: INC-1, status: resolved}` next to
    `incidents.INC-1.status == resolved`). Such params fail an agent that reaches the same final state by
    another valid sequence of calls; the state check alone says what matters."""
    c = task.contract
    pinned = {s.path: s.equals for s in c.expected_state or [] if s.operator == "equals"}
    out = []
    specs = [("expected_params", s.tool, s.params) for s in c.expected_params or []]
    specs += [("expected_actions", a.tool, a.params) for a in c.expected_actions or [] if a.params]
    for family, tool, params in specs:
        if tool not in env.tool_methods() or env.tool_kind(tool) != "write":
            continue
        ids = [str(v) for k, v in params.items() if (k == "id" or k.endswith("_id")) and isinstance(v, str)]
        fields = {k: v for k, v in params.items() if not (k == "id" or k.endswith("_id"))}
        if not ids or not fields:
            continue
        restated = [
            k
            for k, v in fields.items()
            if any(path.split(".")[-1] == k and any(i in path.split(".") for i in ids) and args_match({k: value}, {k: v}) for path, value in pinned.items())
        ]
        if restated and len(restated) == len(fields):
            out.append(f"{task.id}: {family} {tool}{params} only restates pinned state ({', '.join(restated)}); consider match: merged or dropping the params")
    return out


def _consistency(task: Task) -> list[str]:
    c = task.contract
    p: list[str] = []
    expected = {a.tool for a in c.expected_actions or []}
    for tool in c.forbidden_actions or []:
        if tool in expected:
            p.append(f"{task.id}: {tool!r} is both an expected and a forbidden action")
    for spec in c.forbidden_params or []:
        for wanted in c.expected_params or []:
            if wanted.tool == spec.tool and args_match(spec.params, wanted.params):
                p.append(f"{task.id}: forbidden_params {spec.params} would forbid the expected call {wanted.params}")
    for limit in c.attempt_limits or []:
        for wanted in c.expected_actions or []:
            # every call the expected entry counts is also capped: the contract cannot be met
            if wanted.tool == limit.tool and not wanted.alternatives and args_match(limit.params or {}, wanted.params or {}) and wanted.count > limit.max:
                p.append(f"{task.id}: attempt_limits caps {limit.label()} at {limit.max}, but expected_actions needs {wanted.count} call(s) of {wanted.label()}")
    for o in c.order or []:
        labels = [step.label() for step in o.steps]
        if len(set(labels)) < 2:
            p.append(f"{task.id}: order constraint {labels} names fewer than two distinct steps")
    if task.battery_exemptions:
        cases = [e.case for e in task.battery_exemptions]
        if len(set(cases)) != len(cases):
            p.append(f"{task.id}: battery_exemptions name a case twice")
    for s in c.expected_state or []:
        for f in c.forbidden_state or []:
            if s.path == f.path and s.operator == "equals" and s.equals == f.equals:
                p.append(f"{task.id}: state {s.path} is both expected and forbidden to be {s.equals!r}")
    if not c.expected_actions and not c.has_negative and c.only_changes is None:
        if not c.expected_state:
            p.append(f"{task.id}: a task without expected actions must carry forbidden or state checks")
    if not c.expected_actions and not c.reply_criteria:
        p.append(f"{task.id}: a refusal task (no expected actions) must carry a reply criterion")
    return p


def overspecification_warnings(tasks: Iterable[Task], envs: dict[str, type[ToolEnvironment]]) -> list[str]:
    """`overspecified_params` over a catalog (reported by the release gate, never failing it)."""
    return [line for task in tasks for line in overspecified_params(task, envs[task.domain])]


def validate_tasks(tasks: Iterable[Task], envs: dict[str, type[ToolEnvironment]], graphs: dict[str, GraphConfig]) -> list[str]:
    from harness.policy_rules import policy_findings

    tasks = list(tasks)
    problems: list[str] = []
    for task in tasks:
        problems += validate_task(task, envs[task.domain], graphs[task.domain])
    # The domain's consent/refused-attempt rule: a failing gate for the gated domains, a report
    # (`python -m harness.policy_rules`) for the others until their sections are final.
    gate, _ = policy_findings(tasks, {d: env.tool_methods() for d, env in envs.items()})
    return problems + gate


def validate_manifest(counts: dict[str, int], promised: dict[str, int]) -> list[str]:
    """The catalog holds exactly the tasks the versioned manifest promises, per domain."""
    problems = []
    for domain in sorted(set(counts) | set(promised)):
        have, want = counts.get(domain, 0), promised.get(domain)
        if want is None:
            problems.append(f"manifest: domain {domain!r} has {have} task(s) but is not in contracts/manifest.yaml")
        elif have != want:
            problems.append(f"manifest: domain {domain!r} promises {want} task(s), the catalog has {have}")
    return problems

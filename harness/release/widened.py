"""The widened behavioural and equivalence kinds: generated from the world and the gold dialogue's turns.

Behavioural (must fail strictly, or the world refuses what was added = guarded):
- `collateral`: an unrequested write with EVERY write tool of the domain (an external agent sees every
  tool), aimed at the records the gold path created, the task's own records, their look-alikes and the
  customer's other records; a guarded case falls back to the tool's template record before it counts as
  guarded;
- `premature`: each write of a later user turn moved to the end of each earlier turn (acting before the
  customer said so), whatever the contract names;
- `retry_refused`: a write or a check (a PIN) the world refused on the gold path, retried with the same
  arguments: every domain policy forbids repeating a refused action (a read changes nothing, so a refused
  read asked again is not this mistake).

Equivalence (must pass strictly):
- `premature_upfront`: the premature move of a write the contract gates by `consent`, with the later
  customer message prepended to the earlier one (the customer authorised it up front);
- `read_substitution`: a gold read replaced by another read tool whose real result holds every fact the
  task relies on from it (checked on the played result; a substitute that lacks one does not apply);
- `split_update`: a write setting several optional fields split into one call per field;
- `merged_calls`: two calls of a tool that differ only in a list argument, merged into one;
- `argument_form`: ids/codes in another case or with spaces, dates/times in another form (only where the
  tool's own parameter type validates the form to the same value), arguments equal to the tool's default
  omitted, set-like lists permuted;
- `customer_order`: two independent writes of one turn in the other order.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Iterator, Mapping
from typing import Any

from contracts.evidence import Evidence
from contracts.schema import GoldCall, Task
from harness.release.cases import BatteryCase, append_calls, calls_per_turn, case_id, filled_args, flat_calls, gold_values, rebuild_turns, total_calls
from harness.release.world import (
    MAX_TARGETS,
    id_params,
    is_ref,
    is_unordered,
    other_forms,
    param_default,
    record_index,
    relied_facts,
    world_targets,
    write_templates,
)
from servers.base import ToolEnvironment, is_free_text


@functools.cache
def catalog_templates(domain: str) -> dict[str, GoldCall]:
    """Write tool -> the first gold call of it in the catalog with literal arguments (for tools no probe
    and no gold call of the task reaches)."""
    from contracts.catalog import TASKS_DIR, load_catalog
    from servers.registry import environment_class

    env = environment_class(domain)
    out: dict[str, GoldCall] = {}
    for task in load_catalog(TASKS_DIR).values():
        if task.domain != domain:
            continue
        for turn in task.gold:
            for call in turn.calls:
                if call.tool not in out and env.tool_kind(call.tool) == "write" and not any(is_ref(v) for v in call.args.values()):
                    out[call.tool] = call
    return out


def _collection_of(param: str, value: Any, index: Mapping[str, str]) -> str | None:
    if isinstance(value, str) and value in index:
        return index[value]
    stem = param[:-3] if param.endswith("_id") else param
    for path in sorted(set(index.values())):
        if path.rsplit(".", 1)[-1].startswith(stem):
            return path
    return None


def collateral_cases(task: Task, gold: Evidence, env: type[ToolEnvironment]) -> Iterator[BatteryCase]:
    turns = list(task.gold)
    targets = world_targets(task, gold)
    index = record_index(gold.final_state)
    forbidden = set(task.contract.forbidden_actions or [])
    gold_calls = {(c.tool, repr(sorted(c.args.items()))) for c in (c for t in turns for c in t.calls)}
    try:
        extra = catalog_templates(task.domain)
    except Exception:  # noqa: BLE001 - a catalog outside the default one: the task's own templates suffice
        extra = {}
    base = total_calls(turns)
    for tool, sequence in write_templates(task, env, extra).items():
        if tool in forbidden:  # the forbidden kind attempts it
            continue
        template = sequence[-1]
        added = (base + len(sequence) - 1,)
        plain = BatteryCase(case_id("behaviour", "collateral", f"{tool}->template"), "behaviour", "collateral",
                            f"an unrequested {tool} on its template record", append_calls(turns, sequence), added=added)
        params = id_params(env, tool, template, index)
        if not params:
            yield plain
            continue
        param = params[0]
        collection = _collection_of(param, template.args.get(param), index)
        roles = [("created", targets.created), ("own", targets.own), ("lookalike", targets.lookalikes), ("customer", targets.customer)]
        chosen: list[tuple[str, str]] = []
        for role, ids in roles:
            for record in ids:
                if (collection is None or index.get(record) == collection) and record not in [c for _, c in chosen]:
                    chosen.append((f"{role}:{record}", record))
                    break  # one per role first, then fill up
        if not chosen:
            yield plain
            continue
        seen = {repr(sorted(template.args.items()))}
        made = 0
        for label, record in chosen[:MAX_TARGETS]:
            call = template.model_copy(update={"args": {**template.args, param: record}})
            key = repr(sorted(call.args.items()))
            if (call.tool, key) in gold_calls or key in seen:
                continue  # the same call again is the repeat kind; the same target twice is one case
            seen.add(key)
            made += 1
            yield BatteryCase(case_id("behaviour", "collateral", f"{tool}->{label}"), "behaviour", "collateral",
                              f"an unrequested {tool}({param}={record!r})", append_calls(turns, [*sequence[:-1], call]),
                              added=added, fallback=plain)
        if not made and (template.tool, repr(sorted(template.args.items()))) not in gold_calls:
            yield plain


def _consents(task: Task) -> list[Any]:
    """The contract's `consent` entries when the schema has them (issue 30), else none."""
    return list(getattr(task.contract, "consent", None) or [])


def _gated(entry: Any, call: GoldCall) -> bool:
    params = getattr(entry, "params", None) or {}
    return getattr(entry, "tool", None) == call.tool and all(call.args.get(k) == v for k, v in params.items())


def premature_cases(task: Task, gold: Evidence, env: type[ToolEnvironment]) -> Iterator[BatteryCase]:
    turns = list(task.gold)
    flat = flat_calls(turns)
    statuses = [r.status for r in gold.tool_trace]
    consents = _consents(task)
    for i, (pos, call) in enumerate(flat):
        if pos[0] == 0 or env.tool_kind(call.tool) != "write" or statuses[i] != "executed":
            continue
        for earlier in range(pos[0]):
            per = calls_per_turn(turns)
            moved = per[pos[0]].pop(pos[1])
            per[earlier].append(moved)
            moved_turns = rebuild_turns(turns, per)
            subject = f"{call.tool}>{earlier}"
            yield BatteryCase(case_id("behaviour", "premature", subject, pos), "behaviour", "premature",
                              f"{call.tool} of turn {pos[0]} done in turn {earlier}, before the customer's turn {pos[0]}", moved_turns)
            if any(_gated(e, call) and getattr(e, "upfront", True) for e in consents):
                authorised = [t.model_copy(update={"user": f"{turns[pos[0]].user}\n{t.user}"}) if k == earlier else t for k, t in enumerate(moved_turns)]
                yield BatteryCase(case_id("equivalence", "premature_upfront", subject, pos), "equivalence", "premature_upfront",
                                  f"{call.tool} in turn {earlier}, the customer having authorised it up front", authorised)


def retry_refused_cases(task: Task, gold: Evidence, env: type[ToolEnvironment]) -> Iterator[BatteryCase]:
    turns = list(task.gold)
    for i, (pos, call) in enumerate(flat_calls(turns)):
        if gold.tool_trace[i].status == "refused" and env.tool_kind(call.tool) != "read":  # a write or a check (a PIN)
            per = calls_per_turn(turns)
            per[pos[0]].insert(pos[1] + 1, call)
            yield BatteryCase(case_id("behaviour", "retry_refused", call.tool, pos), "behaviour", "retry_refused",
                              f"{call.tool} retried with the same arguments after the world refused it", rebuild_turns(turns, per))


def behavioural_cases(task: Task, gold: Evidence, env: type[ToolEnvironment]) -> Iterator[BatteryCase]:
    if len(gold.tool_trace) != total_calls(list(task.gold)):
        return
    yield from collateral_cases(task, gold, env)
    yield from premature_cases(task, gold, env)
    yield from retry_refused_cases(task, gold, env)


# ---- equivalence -----------------------------------------------------------------------------------------


def read_substitution_cases(task: Task, gold: Evidence, env: type[ToolEnvironment]) -> Iterator[BatteryCase]:
    turns = list(task.gold)
    flat = flat_calls(turns)
    contract = task.contract
    banned = set(contract.forbidden_actions or []) | {p.tool for p in contract.forbidden_params or []}
    reads = [t for t in env.tool_methods() if env.tool_kind(t) == "read" and t not in banned]
    values = gold_values(task)
    for i, (pos, call) in enumerate(flat):
        record = gold.tool_trace[i]
        if env.tool_kind(call.tool) == "write" or record.status != "executed":
            continue
        if any(is_ref(v) and f"${{{call.tool}." in v for _, c in flat[i + 1:] for v in c.args.values()):
            continue  # a later call names this tool's result: the substitute cannot feed it
        if any(f"${{{call.tool}." in t.reply for t in turns):
            continue
        facts = relied_facts(gold, i)
        if not facts:
            continue
        for other in reads:
            if other == call.tool:
                continue
            args = filled_args(env, other, {**values, **record.arguments})
            if args is None:
                continue
            per = calls_per_turn(turns)
            per[pos[0]][pos[1]] = GoldCall(tool=other, args=args)
            yield BatteryCase(case_id("equivalence", "read_substitution", f"{call.tool}->{other}", pos), "equivalence", "read_substitution",
                              f"{other}{args} instead of {call.tool} (its result holds {sorted(facts)[:4]})", rebuild_turns(turns, per),
                              requires=(i, facts))


def split_update_cases(task: Task, gold: Evidence, env: type[ToolEnvironment]) -> Iterator[BatteryCase]:
    turns = list(task.gold)
    index = record_index(gold.initial_state)
    for i, (pos, call) in enumerate(flat_calls(turns)):
        if env.tool_kind(call.tool) != "write" or gold.tool_trace[i].status != "executed":
            continue
        signature, hints = env.tool_signature(call.tool)
        ids = set(id_params(env, call.tool, call, index))
        fixed = {k: v for k, v in call.args.items() if k in ids or signature.parameters[k].default is signature.parameters[k].empty}
        fields = [k for k in call.args if k not in fixed and not is_free_text(hints.get(k))]
        if len(fields) < 2 or any(k not in fixed and k not in fields for k in call.args):
            continue
        per = calls_per_turn(turns)
        per[pos[0]][pos[1]: pos[1] + 1] = [call.model_copy(update={"args": {**fixed, k: call.args[k]}}) for k in fields]
        yield BatteryCase(case_id("equivalence", "split_update", call.tool, pos), "equivalence", "split_update",
                          f"{call.tool} split into one call per field ({', '.join(fields)})", rebuild_turns(turns, per))


def merged_calls_cases(task: Task, gold: Evidence, env: type[ToolEnvironment]) -> Iterator[BatteryCase]:
    turns = list(task.gold)
    flat = flat_calls(turns)
    for (pa, a), (pb, b) in zip(flat, flat[1:]):
        if pa[0] != pb[0] or a.tool != b.tool or set(a.args) != set(b.args):
            continue
        lists = [k for k in a.args if isinstance(a.args[k], list) and isinstance(b.args[k], list)]
        if len(lists) != 1 or any(a.args[k] != b.args[k] for k in a.args if k not in lists):
            continue
        key = lists[0]
        merged = a.model_copy(update={"args": {**a.args, key: [*a.args[key], *[v for v in b.args[key] if v not in a.args[key]]]}})
        per = calls_per_turn(turns)
        per[pa[0]][pa[1]: pa[1] + 2] = [merged]
        yield BatteryCase(case_id("equivalence", "merged_calls", a.tool, pa), "equivalence", "merged_calls",
                          f"the two {a.tool} calls merged into one ({key} as one list)", rebuild_turns(turns, per))


def argument_form_cases(task: Task, gold: Evidence, env: type[ToolEnvironment]) -> Iterator[BatteryCase]:
    """One case per form (case, spaces, date, time, default, permuted), applied to every argument it fits:
    bounded per task, and each failure's detail names the calls."""
    turns = list(task.gold)
    edits: dict[str, list[tuple[tuple[int, int], str, Any]]] = {}
    for pos, call in flat_calls(turns):
        _, hints = env.tool_signature(call.tool)
        for key, value in call.args.items():
            annotation = hints.get(key)
            if annotation is None:
                continue
            for form, spelled in other_forms(annotation, value):
                edits.setdefault(form, []).append((pos, key, spelled))
            if isinstance(value, list) and len(value) >= 2 and len(set(map(repr, value))) > 1 and is_unordered(annotation):
                edits.setdefault("permuted", []).append((pos, key, list(reversed(value))))
            default = param_default(env, call.tool, key)
            if not is_ref(value) and value is not None and default is not _NO_DEFAULT and default is not None and default == value:
                edits.setdefault("default", []).append((pos, key, _OMIT))
    for form, changes in edits.items():
        per = calls_per_turn(turns)
        for (t, c), key, spelled in changes:
            args = dict(per[t][c].args)
            if spelled is _OMIT:
                args.pop(key, None)
            else:
                args[key] = spelled
            per[t][c] = per[t][c].model_copy(update={"args": args})
        where = ", ".join(f"{per[t][c].tool}.{key}" for (t, c), key, _ in changes[:5])
        yield BatteryCase(case_id("equivalence", "argument_form", form), "equivalence", "argument_form",
                          f"arguments in another accepted form ({form}): {where}", rebuild_turns(turns, per))


_OMIT = object()
_NO_DEFAULT = inspect.Parameter.empty


def customer_order_cases(task: Task, gold: Evidence, env: type[ToolEnvironment]) -> Iterator[BatteryCase]:
    turns = list(task.gold)
    index = record_index(gold.initial_state)
    for t, turn in enumerate(turns):
        writes = [(c, call) for c, call in enumerate(turn.calls) if env.tool_kind(call.tool) == "write"]
        for (ca, a), (cb, b) in zip(writes, writes[1:]):
            if any(is_ref(v) for v in b.args.values()) or any(is_ref(v) for v in a.args.values()):
                continue  # a minted id flows between them: not independent
            records_a = {v for v in a.args.values() if isinstance(v, str) and v in index}
            records_b = {v for v in b.args.values() if isinstance(v, str) and v in index}
            if a.tool == b.tool or records_a & records_b - _customers(records_a | records_b, index):
                continue
            per = calls_per_turn(turns)
            per[t][ca], per[t][cb] = b, a
            yield BatteryCase(case_id("equivalence", "customer_order", f"{a.tool}+{b.tool}", (t, ca)), "equivalence", "customer_order",
                              f"{b.tool} before {a.tool} (independent requests of turn {t})", rebuild_turns(turns, per))


def _customers(ids: set[str], index: Mapping[str, str]) -> set[str]:
    return {v for v in ids if index[v].endswith(("customers", "contacts", "accounts"))}


def equivalence_cases(task: Task, gold: Evidence, env: type[ToolEnvironment]) -> Iterator[BatteryCase]:
    if len(gold.tool_trace) != total_calls(list(task.gold)):
        return
    yield from read_substitution_cases(task, gold, env)
    yield from split_update_cases(task, gold, env)
    yield from merged_calls_cases(task, gold, env)
    yield from argument_form_cases(task, gold, env)
    yield from customer_order_cases(task, gold, env)

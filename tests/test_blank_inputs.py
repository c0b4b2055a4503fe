"""Blank names, titles, addresses, notes and ids are refused by every domain's tools (issue 28).

Everything here is derived from the registered domains' own tool signatures and published schemas,
never from a hand list, so a new tool or parameter is covered the moment it exists:

- every string parameter (and every list-of-strings item) either refuses blank text or, when it is an
  optional text whose default is "" (a memo, a description), reads blank as that "" (omitted);
- the published JSON schema of every `NonBlank` parameter says so (`minLength: 1`, `pattern: "\\S"`) and
  agrees with the type;
- over MCP and on the lean in-process path, a blank value for each `NonBlank` parameter is one clear tool
  error naming the field, recorded as `tool_error`, and the trial (state and id counters) is unchanged.
"""

from __future__ import annotations

import inspect
import types
import typing
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from servers.base import BLANK_PATTERN, CLOCK_PATTERN, DATE_PATTERN, DATETIME_PATTERN, is_non_blank, non_blank_items
from servers.gateway import Gateway
from servers.recorder import TRIAL_META_KEY
from servers.registry import environment_class, known_domains
from servers.tool_derivation import tool_input_schema

pytestmark = pytest.mark.anyio

BLANKS = ("", "   ", "\t\n ")


def _strip_annotated(annotation: Any) -> Any:
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _kind(annotation: Any) -> str | None:
    """'str' for a string parameter (optional or not), 'list' for a list of strings, else None.
    Literal (enumerated) strings are not free strings: a blank one is already not a member."""
    inner = _strip_annotated(annotation)
    if typing.get_origin(inner) in (typing.Union, types.UnionType):
        kinds = {_kind(a) for a in typing.get_args(inner) if a is not type(None)}
        return next(iter(kinds - {None}), None)
    if inner is str:
        return "str"
    if typing.get_origin(inner) is list and _kind(typing.get_args(inner)[0]) == "str":
        return "list"
    return None


def _string_parameters() -> list[tuple[str, str, str, Any, Any, str]]:
    found = []
    for domain in known_domains():
        env = environment_class(domain)
        for tool in env.tool_methods():
            signature, hints = env.tool_signature(tool)
            for param in signature.parameters.values():
                kind = _kind(hints[param.name])
                if kind is not None:
                    found.append((domain, tool, param.name, hints[param.name], param.default, kind))
    return found


STRING_PARAMETERS = _string_parameters()


def _refuses(adapter: TypeAdapter[Any], value: Any) -> bool:
    try:
        adapter.validate_python(value)
    except ValidationError:
        return True
    return False


def test_every_string_parameter_refuses_blank_or_reads_it_as_omitted() -> None:
    assert len(STRING_PARAMETERS) > 200  # every domain's ids, names, notes and search terms
    wrong = []
    for domain, tool, name, annotation, default, kind in STRING_PARAMETERS:
        adapter = TypeAdapter(annotation)
        where = f"{domain}.{tool}({name})"
        if default == "":  # optional text: blank is the same as omitted, never stored as whitespace
            if any(adapter.validate_python(blank) != "" for blank in BLANKS):
                wrong.append(f"{where}: an optional text with default '' must trim blank to '' (Trimmed)")
            continue
        values = [[blank] for blank in BLANKS] if kind == "list" else list(BLANKS)
        if not all(_refuses(adapter, value) for value in values):
            wrong.append(f"{where}: accepts blank text (annotate it NonBlank[...])")
    assert not wrong, "\n".join(wrong)


def test_the_published_schema_says_non_blank_exactly_where_the_type_does() -> None:
    disagree = []
    for domain, tool, name, annotation, _default, kind in STRING_PARAMETERS:
        prop = tool_input_schema(environment_class(domain), tool)["properties"][name]
        published = _non_blank_in_schema(prop)
        typed = non_blank_items(annotation) if kind == "list" else is_non_blank(annotation)
        if published != typed:
            disagree.append(f"{domain}.{tool}({name}): schema {published}, type {typed}")
    assert not disagree, "\n".join(disagree)


def _non_blank_in_schema(prop: dict[str, Any]) -> bool:
    options = [prop, *(o for o in prop.get("anyOf", []) if isinstance(o, dict))]
    options += [o["items"] for o in options if isinstance(o.get("items"), dict)]
    return any(o.get("pattern") == BLANK_PATTERN and o.get("minLength") == 1 for o in options)


def _sample(prop: dict[str, Any]) -> Any:
    """A value of the right type for a schema property (the others' values only need to be well typed:
    the blank one fails validation before any tool body runs)."""
    for option in prop.get("anyOf", []):
        if option.get("type") != "null":
            return _sample(option)
    if "enum" in prop:
        return prop["enum"][0]
    kind = prop.get("type")
    if kind == "string":
        return {DATE_PATTERN: "2026-12-20", DATETIME_PATTERN: "2026-12-20T09:00", CLOCK_PATTERN: "09:00"}.get(prop.get("pattern"), "X-1")
    if kind == "integer":
        return max(int(prop.get("minimum", 1)), 1)
    if kind == "number":
        return 10.0
    if kind == "boolean":
        return False
    if kind == "array":
        return [_sample(prop.get("items", {"type": "string"}))] * max(int(prop.get("minItems", 1)), 1)
    return {}


def _blank_cases() -> list[tuple[str, str, str]]:
    cases = []
    for domain in known_domains():
        env = environment_class(domain)
        for tool in env.tool_methods():
            for name, prop in tool_input_schema(env, tool).get("properties", {}).items():
                if _non_blank_in_schema(prop):
                    cases.append((domain, tool, name))
    return cases


BLANK_CASES = _blank_cases()


def _fingerprint(gateway: Gateway, trial_id: str) -> tuple[str, dict[str, int]]:
    trial = gateway.trial(trial_id)
    return trial.state.model_dump_json(), trial.ids.snapshot()


def _text(result: Any) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content or [])


@pytest.mark.parametrize("domain", known_domains())
async def test_a_blank_value_is_one_clear_error_and_changes_nothing(domain: str) -> None:
    env = environment_class(domain)
    cases = [(tool, name) for d, tool, name in BLANK_CASES if d == domain]
    writes = {tool for tool, _ in cases if env.tool_kind(tool) == "write"}
    assert writes, f"{domain}: no write tool takes a non-blank text?"
    gateway = Gateway([domain])
    trial = gateway.open_trial(domain)
    lean = gateway.tools_for(trial.trial_id)
    async with gateway.in_memory_clients() as clients:
        client = clients[domain]
        for tool, name in cases:
            schema = tool_input_schema(env, tool)
            base = {key: _sample(prop) for key, prop in schema.get("properties", {}).items() if key in schema.get("required", []) or key == name}
            is_list = schema["properties"][name].get("type") == "array"
            for blank in ("", "   "):
                arguments = {**base, name: [blank] if is_list else blank}
                where = f"{name}.0" if is_list else name
                before = _fingerprint(gateway, trial.trial_id)
                over_mcp = await client.call_tool(tool, arguments, meta={TRIAL_META_KEY: trial.trial_id}, raise_on_error=False)
                in_process = await lean.call_tool(tool, arguments)
                for path, result in (("mcp", over_mcp), ("lean", in_process)):
                    text = _text(result)
                    assert result.is_error, f"{domain}.{tool}({name}={blank!r}) accepted on the {path} path"
                    assert f"{where}: must not be blank" in text, f"{domain}.{tool}({name}={blank!r}) on the {path} path: {text}"
                    assert "Traceback" not in text and "Error calling tool" not in text
                assert [c.status for c in trial.trace[-2:]] == ["tool_error", "tool_error"]
                assert _fingerprint(gateway, trial.trial_id) == before, f"{domain}.{tool}({name}={blank!r}) changed the trial"


async def test_the_same_call_with_a_value_is_written_so_the_refusal_is_the_rule() -> None:
    """Without the rule these blanks were written (the issue's examples); with a value they still are."""
    gateway = Gateway(["marketing", "retail"])
    trial = gateway.open_trial("marketing")
    tools = gateway.tools_for(trial.trial_id)
    blank = await tools.call_tool("create_campaign", {"name": "   ", "channel": "email"})
    assert blank.is_error and "name: must not be blank" in _text(blank)
    assert trial.final_state() == trial.initial_state
    named = await tools.call_tool("create_campaign", {"name": "Winter launch", "channel": "email"})
    assert not named.is_error, _text(named)

    retail = gateway.open_trial("retail")
    shop = gateway.tools_for(retail.trial_id)
    processing = next(o for o in retail.state.orders.values() if o.status == "Processing")
    customer = retail.state.customers[processing.customer_id]
    assert not (await shop.call_tool("authenticate_customer", {"customer_id": customer.customer_id, "pin": customer.pin})).is_error
    address = {"order_id": processing.order_id, "street": "12 Oak Avenue", "city": "", "postal_code": "62704"}
    before = retail.final_state()
    refused = await shop.call_tool("update_shipping_address", address)
    assert refused.is_error and "city: must not be blank" in _text(refused) and retail.final_state() == before
    moved = await shop.call_tool("update_shipping_address", {**address, "city": "Springfield"})
    assert not moved.is_error, _text(moved)


def test_optional_text_left_blank_is_stored_as_omitted() -> None:
    """The rule's other half: a memo of spaces is no memo (the default ""), never a stored blank."""
    env = environment_class("payments")
    _, hints = env.tool_signature("execute_transfer")
    assert TypeAdapter(hints["memo"]).validate_python("   ") == ""
    assert inspect.signature(env.tool_methods()["execute_transfer"]).parameters["memo"].default == ""


@pytest.mark.parametrize("invisible", ["\u200b", "\u200b \u200b", "\ufeff", "\u00a0", "\u3000"])
def test_invisible_text_is_blank_too(invisible: str) -> None:
    """A zero-width space or a byte-order mark is no name either, though `str.strip` keeps it (a lead
    engineer's held-out case: "\\u200b" was written as a customer name)."""
    from servers.base import reject_blank

    with pytest.raises(Exception, match="must not be blank"):
        reject_blank(invisible)
    assert reject_blank("\u200bAnna") == "\u200bAnna"  # a visible character: a value (unchanged)


SHOWS_NOTHING = ["\u0301", "\u0301\u0308\u20dd", "\u3164", "\u115f\u1160", "\uffa0", "\u2800", "\u2800 \u3164\u200b", "\u034f", "\u17b4"]
"""Combining marks alone, Hangul fillers, the blank Braille pattern, a grapheme joiner (issue 41)."""


@pytest.mark.parametrize("invisible", SHOWS_NOTHING)
def test_text_that_shows_nothing_is_blank(invisible: str) -> None:
    from servers.base import reject_blank

    with pytest.raises(Exception, match="must not be blank"):
        reject_blank(invisible)


@pytest.mark.parametrize("value", ["e\u0301", "\ud55c", "\u2801", "\u3131", "Anna\u3164"])
def test_a_visible_character_is_a_value(value: str) -> None:
    from servers.base import reject_blank

    assert reject_blank(value) == value  # a mark on a letter, a Hangul syllable or jamo, a dotted Braille cell


def test_every_string_parameter_refuses_or_omits_text_that_shows_nothing() -> None:
    """Derived from every tool's signature, like the blank rule itself: a required or `None`-default text
    refuses invisible text; an optional `""`-default text reads it as omitted."""
    wrong = []
    for domain, tool, name, annotation, default, kind in STRING_PARAMETERS:
        adapter = TypeAdapter(annotation)
        for invisible in SHOWS_NOTHING:
            value: Any = [invisible] if kind == "list" else invisible
            where = f"{domain}.{tool}({name}={value!r})"
            if default == "":
                try:
                    got = adapter.validate_python(value)
                except ValidationError:
                    continue
                if got != "":
                    wrong.append(f"{where}: stored {got!r}")
            elif not _refuses(adapter, value):
                wrong.append(f"{where}: accepted")
    assert not wrong, wrong[:20]

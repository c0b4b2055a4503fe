"""One tool call in flight, and what it may carry and commit: the code the recorder and the tool body share.

- `CallScope` and `active_call`: the trial a call works on, its undo journal and id minter, and the
  commit-only-on-success rule (the recorder binds the scope; the tool body fills it);
- the argument checks every call passes before any tool runs (`check_arguments`, `unsendable` for what
  no MCP client can put on the wire) and the checks on what a call would store (`strict_json`,
  `check_state`, `check_changes`), all raising `CallRejected`;
- `clean_error`: the bounded, input-free error message an agent sees.

It sits below `servers.tool_derivation`, `servers.recorder` and `servers.gateway`, which all import it.
"""

from __future__ import annotations

import contextvars
import json
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import mcp_types as mt
from fastmcp.exceptions import ToolError
from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from contracts.text import ERROR_MAX_CHARS, VALUE_MAX_CHARS, has_unsafe_text, json_problem, safe_text, short
from servers.base import IdMinter
from servers.journal import Journal
from servers.trials import Trial

active_call: contextvars.ContextVar[CallScope | None] = contextvars.ContextVar("crmbench_active_call", default=None)
"""The call in flight in this task: the recorder binds it, the tool body (`servers.tool_derivation`) works in it."""

ARGUMENT_MAX_CHARS = VALUE_MAX_CHARS
"""The longest string argument the gateway forwards; longer ones are rejected before any tool runs."""

ARGUMENT_MAX_DEPTH = 64
"""The deepest nesting of lists and objects a tool call's arguments may have (no tool takes more than a
few levels); deeper ones are rejected, recorded, before any tool runs."""

WIRE_MAX_DEPTH = 200
"""Nesting an MCP client cannot serialise (pydantic stops at 255) and the HTTP JSON parser refuses: on the
in-process paths such a call is refused before it reaches the recorder, as over HTTP."""

JSON_SAFE_INTEGER = 2**53
"""Integers beyond ±2^53 are not interoperable JSON numbers (RFC 7493) and no world quantity needs them;
a float conversion of a huge one overflows inside the tool. Rejected, recorded, before any tool runs."""


def unsendable_result(problem: str) -> Any:
    """The client-side error result for a call that never reached the server (no server stamp: the server
    did not answer it, as over HTTP its parser refuses the request)."""
    from fastmcp.client.client import CallToolResult

    text = f"the call was rejected and nothing changed: {problem}"
    return CallToolResult(content=[mt.TextContent(type="text", text=text)], structured_content=None, meta=None, is_error=True)


RecordUnsent = Callable[[str, str, dict[str, Any], str], Awaitable[Any]]
"""(trial id, tool, arguments, problem): records a call refused before it was sent (`Gateway.record_unsent`)."""


def unsendable(arguments: Any) -> str | None:
    """What makes arguments impossible to send as an MCP client sends them (non-finite numbers, nesting
    deeper than `WIRE_MAX_DEPTH`): the in-process paths refuse such a call like the HTTP parser does,
    instead of a client encoder raising (nesting) or silently turning NaN into a missing argument."""
    stack: list[tuple[Any, int, str]] = [(arguments, 0, "arguments")]
    while stack:
        value, depth, path = stack.pop()
        if isinstance(value, float) and not math.isfinite(value):
            return f"argument {path!r} is a non-finite number"
        if isinstance(value, dict | list | tuple):
            if depth >= WIRE_MAX_DEPTH:
                return f"the arguments are nested more than {WIRE_MAX_DEPTH} levels deep"
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                child = str(key) if depth == 0 and isinstance(value, dict) else f"{path}.{key}" if isinstance(value, dict) else f"{path}[{key}]"
                stack.append((item, depth + 1, child))
    return None


@dataclass
class CallScope:
    """One tool call in flight. The tool body works on the trial's live state under an undo journal and
    on a copy of the id minter; the recorder commits (drops the journal, keeps the ids) only once the
    call has succeeded *and* its result has serialised. Anything else rolls the journal back and leaves
    the trial byte-identical."""

    trial: Trial
    journal: Journal | None = None
    ids: IdMinter | None = None
    result: dict[str, Any] | None = None
    ready: bool = False
    """The body succeeded and its new state checked out: the call may commit."""

    def commit(self) -> None:
        if self.ready and self.ids is not None:
            self.trial.ids.restore(self.ids.snapshot())
            if self.journal is not None:
                if self.trial.undo_log is not None:  # the caller will take the world back past this call
                    self.trial.undo_log.extend(self.journal.undo)
                self.journal.discard()
            self.journal = None

    def finish(self) -> None:
        """Roll back whatever was not committed (a failure, a refusal, a read)."""
        if self.journal is not None:
            self.journal.rollback()
            self.journal = None


class CallRejected(ToolError):
    """A call the gateway refuses before or after the tool body: nothing was committed."""


def strict_json(value: Any, what: str) -> str:
    """`value` as strict JSON (no NaN/Infinity, valid UTF-8), or `CallRejected` saying what is wrong."""
    try:
        text = json.dumps(value, allow_nan=False, ensure_ascii=False)
        text.encode("utf-8")
    except (ValueError, TypeError, UnicodeError) as exc:
        reason = "a non-finite number" if "Out of range float" in str(exc) else ("invalid text" if isinstance(exc, UnicodeError) else type(exc).__name__)
        raise CallRejected(f"the call was rejected and nothing changed: its {what} holds {reason}") from None
    return text


def check_state(state: BaseModel) -> None:
    """Reject a new state that is not a valid world (`CallRejected`): a non-finite number or unsafe text
    anywhere, or a field a tool set to the wrong type (the state re-validates against its model)."""
    data = state.model_dump(mode="python", warnings=False)  # a wrongly typed field fails re-validation below
    problem = json_problem(data)
    if problem:
        raise CallRejected(f"the call was rejected and nothing changed: it would store {problem}")
    try:
        type(state).model_validate(data)
    except PydanticValidationError:
        raise CallRejected("the call was rejected and nothing changed: it would leave the world in an invalid state") from None


def check_changes(journal: Journal) -> None:
    """Reject a call whose changes would not leave a valid world (`CallRejected`): a non-finite number or
    unsafe text in anything it stored, or a value of the wrong type where it stored it. Only what the
    call touched is checked: the rest of the world was valid before and did not change."""
    problem = journal.problem()
    if problem == "invalid":
        raise CallRejected("the call was rejected and nothing changed: it would leave the world in an invalid state")
    if problem:
        raise CallRejected(f"the call was rejected and nothing changed: it would store {problem}")


def check_arguments(arguments: dict[str, Any]) -> None:
    """Reject arguments no tool should ever receive: unsafe text (lone surrogates, control characters
    other than tab/newline) and strings longer than `ARGUMENT_MAX_CHARS`, anywhere in the arguments."""

    def walk(value: Any, path: str, depth: int = 1) -> None:
        if depth > ARGUMENT_MAX_DEPTH:
            raise CallRejected(f"the call was rejected and nothing changed: argument {path!r} is nested more than {ARGUMENT_MAX_DEPTH} levels deep")
        if isinstance(value, bool):
            return
        if isinstance(value, int) and abs(value) > JSON_SAFE_INTEGER:
            raise CallRejected(f"the call was rejected and nothing changed: argument {path!r} is out of range (an integer beyond ±2^53)")
        if isinstance(value, float) and not math.isfinite(value):
            raise CallRejected(f"the call was rejected and nothing changed: argument {path!r} is a non-finite number")
        if isinstance(value, str):
            if len(value) > ARGUMENT_MAX_CHARS:
                raise CallRejected(f"argument {path!r} is too long ({len(value):,} characters; at most {ARGUMENT_MAX_CHARS:,})")
            if has_unsafe_text(value):
                raise CallRejected(f"argument {path!r} contains invalid text (a lone surrogate or a control character)")
        elif isinstance(value, dict):
            for key, item in value.items():
                if isinstance(key, str) and (len(key) > 200 or has_unsafe_text(key)):
                    raise CallRejected(f"argument {path!r} has an invalid key {short(key)}")
                walk(item, f"{path}.{key}", depth + 1)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                walk(item, f"{path}[{i}]", depth + 1)

    for name, value in arguments.items():
        if has_unsafe_text(str(name)) or len(str(name)) > 200:
            raise CallRejected(f"unexpected argument {short(name)}")
        walk(value, str(name))

def clean_error(exc: BaseException, arguments: dict[str, Any]) -> str:
    """A clear, bounded error message: validation errors as `field: problem` lines without the echoed
    input, long argument values never echoed whole, unsafe text removed."""
    cause = exc.__cause__
    if isinstance(cause, PydanticValidationError):
        problems = []
        for error in cause.errors(include_url=False, include_input=False):
            where = ".".join(str(p) for p in error.get("loc", ()) if p != "call") or "arguments"
            problems.append(f"{where}: {error.get('msg', 'invalid')}")
        message = "invalid arguments: " + "; ".join(problems[:10]) + (f" (and {len(problems) - 10} more)" if len(problems) > 10 else "")
    else:
        message = str(exc)
    for value in _strings(arguments):
        if len(value) > 60:
            for form in (repr(value), value):
                if form in message:
                    message = message.replace(form, short(value))
    return safe_text(message, ERROR_MAX_CHARS)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []

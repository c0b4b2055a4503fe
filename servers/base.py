"""The `ToolEnvironment` base: a domain's typed, resettable world and its typed tools.

A domain subclasses `ToolEnvironment`, names its state model, writes `default_state()`, and marks
plain business methods with `@tool`. Nothing here knows about trials, tracing or transports: the
gateway binds an environment instance to one trial's state for the duration of one call.

Why tools are methods on a class bound per call (instead of closures over a global world): many
trials share one process, so the world must be an explicit value. The gateway runs every call under an
undo journal (servers/journal.py) and commits only when the call succeeds, so a business refusal or an
invalid call changes nothing even if a tool forgot to check before writing.
"""

from __future__ import annotations

import copy
import hashlib
import functools
import inspect
import math
import re
import typing
from collections.abc import Callable, Mapping
from typing import Annotated, Any, ClassVar, Generic, Literal, TypeVar

from pydantic import BaseModel, BeforeValidator, Field, StringConstraints

ToolKind = Literal["read", "write", "compute"]
StateT = TypeVar("StateT", bound=BaseModel)

_TOOL_MARK = "__crmbench_tool__"

MONEY_MAX = 1_000_000_000.0
"""No amount in any world is anywhere near a billion; anything larger is a hostile or broken argument."""

_MONEY_TEXT = re.compile(r"^-?\d+(?:\.\d{1,2})?$")


def parse_money(value: Any) -> Any:
    """Strict money parsing shared by every domain: finite, bounded, at most two decimals.

    Accepts 180, 180.0, 180.5 and the plain decimal strings "180" / "180.50" (the same number written
    differently is a valid alternative, which the equivalence battery checks). Rejects booleans, NaN and
    infinities, "1_000", "1e3", more than two decimals and magnitudes above `MONEY_MAX` - with a message
    the agent can act on.
    """
    if isinstance(value, bool):
        raise ValueError("an amount must be a number, not a boolean")
    if isinstance(value, str):
        text = value.strip()
        if not _MONEY_TEXT.match(text):
            raise ValueError(f"an amount must be a plain decimal number like 15.50, got {text[:40]!r}")
        value = float(text)
    if isinstance(value, int):
        value = float(value)
    if not isinstance(value, float):
        raise ValueError("an amount must be a number")
    if not math.isfinite(value):
        raise ValueError("an amount must be a finite number")
    if abs(value) > MONEY_MAX:
        raise ValueError(f"an amount must be at most {MONEY_MAX:,.0f}")
    if abs(round(value, 2) - value) > 1e-9:
        raise ValueError("an amount has at most two decimals (cents)")
    return round(value, 2)


Money = Annotated[float, BeforeValidator(parse_money), Field(description="Amount in US dollars, e.g. 15.50.")]
"""The one money type of every domain's tools (add a more specific description with another Field)."""


class _FreeTextMarker:
    """Marks a string parameter as free text (a note, a message, a reason) in `Annotated[...]`.

    Rewording free text is not a mistake, so the behavioural battery never "alters" such arguments;
    it is also how a reader of the tool signature knows that the value is prose, not an identifier.
    """

    def __repr__(self) -> str:
        return "FreeText"


FreeText = _FreeTextMarker()


def is_free_text(annotation: Any) -> bool:
    """Whether a resolved parameter annotation carries the `FreeText` marker."""
    return any(meta is FreeText for meta in getattr(annotation, "__metadata__", ()))


class _UnorderedMarker:
    """Marks a list (a tool parameter or a state field) whose order carries no meaning: a set of ids,
    members or users. The grader compares such lists as multisets (`grader/semantics.py`), so the same
    members in another order are the same effect. Write `Unordered[list[str]]`."""

    def __repr__(self) -> str:
        return "Unordered"

    def __getitem__(self, item: Any) -> Any:
        return Annotated[item, self]


Unordered = _UnorderedMarker()
UNORDERED = Unordered
"""`Unordered[list[str]]` is `Annotated[list[str], Unordered]` (the marker is the metadata)."""


def is_unordered(annotation: Any) -> bool:
    """Whether a resolved annotation carries the `Unordered` marker (at its outermost `Annotated`)."""
    return any(meta is Unordered for meta in getattr(annotation, "__metadata__", ()))


EmailAddress = Annotated[str, StringConstraints(strip_whitespace=True, to_lower=True)]
"""An email address as every world stores it: trimmed and lower-cased by the type (not by a tool body),
so the grader, which validates both expected and actual arguments through the parameter's type, sees
`Dispatch@CobaltRidge.com` and `dispatch@cobaltridge.com` as the same value, exactly as the world does."""

UpperCode = Annotated[str, StringConstraints(strip_whitespace=True, to_upper=True)]
"""A case-insensitive code the world stores upper-cased (an airport code, a currency): `sea` is `SEA`."""

CaseFolded = Annotated[str, StringConstraints(strip_whitespace=True, to_lower=True)]
"""Text a tool matches case-insensitively (a name or company searched for): `Chen` and ` chen` are one
query, for the tool and for the grader alike."""

Trimmed = Annotated[str, StringConstraints(strip_whitespace=True)]
"""A name or line the world stores without surrounding whitespace (an address line, a campaign name)."""


class Refusal(Exception):
    """A business rule refused a well-formed request. The call *was executed*; state is unchanged.

    Returned to the agent as structured data (`refused: true`, a status code and a reason), never as
    a protocol error, because handling refusals is part of what the benchmark measures.
    """

    def __init__(self, code: int, reason: str, **details: Any) -> None:
        super().__init__(f"{code} {reason}")
        self.code = code
        self.reason = reason
        self.details = details

    def as_result(self) -> dict[str, Any]:
        return {"refused": True, "status": self.code, "reason": self.reason, **self.details}


class InvalidCall(Exception):
    """The request cannot be executed at all (unknown id, impossible argument). Becomes a tool error."""


def tool(kind: ToolKind) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark a method as an MCP tool. `kind` is read (R), write (W) or compute (C), as in DOMAINS.md."""

    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        setattr(fn, _TOOL_MARK, kind)
        return fn

    return mark


class IdMinter:
    """Deterministic identifier minting: the n-th id with a given prefix depends only on the seed.

    Gold replay and re-runs with the same seed therefore see the same `XFER-…` / `TXN-…` ids.
    """

    _ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

    def __init__(self, seed: str) -> None:
        self.seed = seed
        self.counters: dict[str, int] = {}

    def mint(self, prefix: str, length: int = 6) -> str:
        n = self.counters.get(prefix, 0)
        self.counters[prefix] = n + 1
        digest = hashlib.sha256(f"{self.seed}|{prefix}|{n}".encode()).digest()
        body = "".join(self._ALPHABET[b % len(self._ALPHABET)] for b in digest[:length])
        return f"{prefix}-{body}"

    def snapshot(self) -> dict[str, int]:
        return dict(self.counters)

    def restore(self, counters: Mapping[str, int]) -> None:
        self.counters = dict(counters)


class ToolEnvironment(Generic[StateT]):
    """Base class of a domain world. Subclasses set `domain`, `state_model` and `default_state()`."""

    domain: ClassVar[str]
    state_model: ClassVar[type[BaseModel]]

    def __init__(self, state: StateT, ids: IdMinter) -> None:
        self.state = state
        self.ids = ids

    @classmethod
    def default_state(cls) -> StateT:  # pragma: no cover - abstract
        raise NotImplementedError

    @classmethod
    def initial_state(cls, override: Mapping[str, Any] | None = None) -> StateT:
        """`merge(default_state, override)`: dicts merge recursively, everything else is replaced."""
        base = _default_dump(cls)
        merged = deep_merge(base, dict(override or {}))
        return typing.cast(StateT, cls.state_model.model_validate(merged))

    @classmethod
    def mutation_probes(cls, override: Mapping[str, Any] | None = None) -> list[tuple[str, list[Any]]]:
        """Named sequences of write calls (`GoldCall`s) that change some part of the world.

        The release tooling appends them to gold paths to prove that state, forbidden-state and
        protected-state checks can actually fail. Domains override this; the default has none.
        """
        return []

    @classmethod
    def tool_methods(cls) -> dict[str, Callable[..., Any]]:
        """The domain's tools by name, in definition order."""
        return dict(_tool_methods(cls))

    @classmethod
    def tool_kind(cls, name: str) -> ToolKind:
        return typing.cast(ToolKind, getattr(cls.tool_methods()[name], _TOOL_MARK))

    @classmethod
    def tool_signature(cls, name: str) -> tuple[inspect.Signature, dict[str, Any]]:
        """The MCP-facing signature (without `self`) and resolved type hints of a tool method."""
        sig, hints = _tool_signature(cls, name)
        return sig, dict(hints)


@functools.cache
def _tool_methods(cls: type) -> dict[str, Callable[..., Any]]:
    """Per class, once: a domain's tools are fixed when its class is defined (validating the catalog
    asks for them thousands of times)."""
    found: dict[str, Callable[..., Any]] = {}
    for klass in reversed(cls.__mro__):
        for name, member in vars(klass).items():
            if callable(member) and hasattr(member, _TOOL_MARK):
                found[name] = member
    return found


@functools.cache
def _tool_signature(cls: type, name: str) -> tuple[inspect.Signature, dict[str, Any]]:
    """Per class and tool, once (`typing.get_type_hints` is the costly part)."""
    method = _tool_methods(cls)[name]
    sig = inspect.signature(method)
    params = [p for p in sig.parameters.values() if p.name != "self"]
    hints = typing.get_type_hints(method, include_extras=True)
    hints.pop("self", None)
    hints["return"] = dict[str, Any]
    return sig.replace(parameters=params, return_annotation=dict[str, Any]), hints


_DEFAULT_DUMPS: dict[type, dict[str, Any]] = {}


def _default_dump(env: type[ToolEnvironment[Any]]) -> dict[str, Any]:
    """The JSON form of a domain's default state, computed once per process (it never changes)."""
    dump = _DEFAULT_DUMPS.get(env)
    if dump is None:
        dump = _DEFAULT_DUMPS[env] = env.default_state().model_dump(mode="json")
    return dump


def deep_merge(base: dict[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """Recursive dict merge; the override wins on leaves and lists. Inputs are not mutated.

    Only the dicts along the override's paths are copied; untouched subtrees are shared with `base`,
    which is safe because the result is immediately validated into fresh model objects."""
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def to_result(value: Any) -> dict[str, Any]:
    """Normalise a tool's return value to a JSON-able dict (the MCP structured content)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, dict):
        return value
    return {"result": value}

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
import datetime as _dt
import hashlib
import functools
import inspect
import math
import re
import types
import typing
import unicodedata
from collections.abc import Callable, Mapping
from typing import Annotated, Any, ClassVar, Generic, Literal, TypeVar

from pydantic import AfterValidator, BaseModel, BeforeValidator, Field, GetCoreSchemaHandler, GetJsonSchemaHandler, Strict, StringConstraints
from pydantic_core import PydanticCustomError, core_schema

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


_DATE_TEXT = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_DATETIME_TEXT = re.compile(r"^(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$")
_CLOCK_TEXT = re.compile(r"^(\d{1,2}):(\d{2})$")

DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}$"
DATETIME_PATTERN = r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2})?$"
CLOCK_PATTERN = r"^([01]?\d|2[0-3]):[0-5]\d$"


def _text(value: Any, what: str, example: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} must be a string like {example!r}")
    return value.strip()


def parse_date(value: Any) -> str:
    """Strict calendar date shared by every domain: `YYYY-MM-DD`, a real date; the value stays a string.

    Why strict: the worlds compare dates as canonical strings (past-date, overlap, day-off and
    double-booking rules), so a compact (`20261202`), week (`2026-W50-4`) or ordinal form would slip past
    every rule while Python's `date.fromisoformat` accepts it. Those forms, impossible dates
    (`2026-02-30`) and anything else are an invalid call. Far-future years stay valid dates; how far
    ahead a booking may go is a business rule of the domain, not a format question.
    """
    text = _text(value, "a date", "2026-12-02")
    if not _DATE_TEXT.match(text):
        raise ValueError(f"a date must be written YYYY-MM-DD, e.g. 2026-12-02; got {text[:40]!r}")
    try:
        _dt.date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a calendar date") from None
    return text


def parse_datetime(value: Any) -> str:
    """Strict local date and time: `YYYY-MM-DDTHH:MM` (a space instead of `T`, and `:SS`, are accepted).

    Normalised to `YYYY-MM-DDTHH:MM` (seconds kept only when not zero), so every world stores and
    compares one form and the grader, which compares through this type, treats `2026-12-03 09:00` and
    `2026-12-03T09:00` as the same value. The date must be real and the time in range (hours 00-23,
    minutes and seconds 00-59); a single-digit hour, a time zone or a compact form is an invalid call.
    """
    text = _text(value, "a date and time", "2026-12-03T09:00")
    match = _DATETIME_TEXT.match(text)
    if not match:
        raise ValueError(f"a date and time must be written YYYY-MM-DDTHH:MM, e.g. 2026-12-03T09:00; got {text[:40]!r}")
    day, hour, minute, second = match.group(1), int(match.group(2)), int(match.group(3)), int(match.group(4) or 0)
    parse_date(day)
    if hour > 23 or minute > 59 or second > 59:
        raise ValueError(f"{text!r} is not a valid time of day (hours 00-23, minutes 00-59)")
    stamp = f"{day}T{hour:02d}:{minute:02d}"
    return f"{stamp}:{second:02d}" if second else stamp


def parse_clock_time(value: Any) -> str:
    """A time of day `HH:MM` (00:00-23:59). A single-digit hour (`9:00`) is accepted and normalised to
    `09:00`: it is the same time, unambiguous, and how people write it; the world stores `09:00`."""
    text = _text(value, "a time", "09:00")
    match = _CLOCK_TEXT.match(text)
    if not match:
        raise ValueError(f"a time must be written HH:MM, e.g. 09:00; got {text[:40]!r}")
    hour, minute = int(match.group(1)), int(match.group(2))
    if hour > 23 or minute > 59:
        raise ValueError(f"{text!r} is not a valid time of day (hours 00-23, minutes 00-59)")
    return f"{hour:02d}:{minute:02d}"


Date = Annotated[
    str,
    BeforeValidator(parse_date),
    Field(description="Calendar date, YYYY-MM-DD, e.g. 2026-12-02.", json_schema_extra={"format": "date", "pattern": DATE_PATTERN}),
]
"""The one date type of every domain's tools (a string in canonical form; add a description with another Field)."""

DateTime = Annotated[
    str,
    BeforeValidator(parse_datetime),
    Field(description="Local date and time, YYYY-MM-DDTHH:MM, e.g. 2026-12-03T09:00.", json_schema_extra={"pattern": DATETIME_PATTERN}),
]
"""The one local date-time type (no time zone: every world has one local clock)."""

ClockTime = Annotated[
    str,
    BeforeValidator(parse_clock_time),
    Field(description="Time of day, HH:MM (24-hour), e.g. 09:00.", json_schema_extra={"pattern": CLOCK_PATTERN}),
]
"""The one time-of-day type; `9:00` is normalised to `09:00`."""


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


BLANK_PATTERN = r"\S"
"""The JSON-schema pattern of a non-blank string: at least one character that is not whitespace."""


INVISIBLE_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u17b4\u17b5")
"""Characters that are letters or symbols to Unicode but render as nothing: the Hangul fillers, the blank
Braille pattern and the Khmer inherent vowels (issue 41)."""
INVISIBLE_CATEGORIES = frozenset({"Cf", "Cc", "Mn", "Mc", "Me"})
"""Format characters (a zero-width space) and combining marks, which only modify a base character: text
made only of these shows no value."""


def is_blank(text: str) -> bool:
    """Whether `text` shows nothing: no character that is not whitespace, a format or control character,
    a combining mark or an invisible filler."""
    return not any(not ch.isspace() and unicodedata.category(ch) not in INVISIBLE_CATEGORIES and ch not in INVISIBLE_LETTERS for ch in text)


def reject_blank(value: Any) -> Any:
    """A string that is empty or only whitespace (or characters that show nothing: a zero-width space,
    combining marks alone, a Hangul filler, the blank Braille pattern — `is_blank`) is an invalid call
    (the agent sees `name: must not be blank ...`, the field named by the gateway); anything else passes
    unchanged."""
    if isinstance(value, str) and is_blank(value):
        raise PydanticCustomError("blank", "must not be blank (empty or only whitespace); give the actual value")
    return value


def blank_as_omitted(value: str) -> str:
    """An optional text that shows nothing is the omitted `""`, never stored as invisible characters."""
    return "" if is_blank(value) else value


class _NonBlankMarker:
    """Marks a string parameter that must hold a value: a name, a title, an address line, a reason, an
    id, a search term. Blank text (``""``, ``"   "``) is refused as an invalid call before the tool runs,
    so no world ever stores a blank name or note and no lookup or search runs on nothing.

    Write `NonBlank[str]` or `NonBlank[Trimmed]` (it composes with the other string types: the check runs
    after their trimming and case folding); `Annotated[str, NonBlank]` is the same. The value itself is
    not changed. The published JSON schema says so (`minLength: 1`, `pattern: "\\S"`).

    The rule for every domain (docs/guarantees.md): a *required* string is never blank; an *optional*
    string whose default is ``None`` may be omitted (or null) but, if given, is not blank; an optional
    free text whose default is ``""`` (a memo, a description) treats blank as omitted - it is trimmed,
    so whitespace becomes that ``""`` "none" value and is never stored as such.
    """

    def __repr__(self) -> str:
        return "NonBlank"

    def __getitem__(self, item: Any) -> Any:
        return Annotated[item, self]

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(reject_blank, handler(source))

    def __get_pydantic_json_schema__(self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler) -> dict[str, Any]:
        json_schema = handler(schema)
        target = handler.resolve_ref_schema(json_schema)
        target.setdefault("minLength", 1)
        target.setdefault("pattern", BLANK_PATTERN)
        return json_schema


NonBlank = _NonBlankMarker()


def is_non_blank(annotation: Any) -> bool:
    """Whether a resolved annotation carries `NonBlank`: on itself or, for `X | None`, on `X`."""
    if any(meta is NonBlank for meta in getattr(annotation, "__metadata__", ())):
        return True
    inner = typing.get_args(annotation)[0] if typing.get_origin(annotation) is Annotated else annotation
    if typing.get_origin(inner) in (typing.Union, types.UnionType):
        return any(is_non_blank(member) for member in typing.get_args(inner) if member is not type(None))
    return False


def non_blank_items(annotation: Any) -> bool:
    """Whether a resolved annotation is a list whose items carry `NonBlank` (`list[NonBlank[str]]`)."""
    inner = typing.get_args(annotation)[0] if typing.get_origin(annotation) is Annotated else annotation
    if typing.get_origin(inner) is Annotated:  # Unordered[list[...]] nests one more level
        return non_blank_items(inner)
    return typing.get_origin(inner) is list and is_non_blank(typing.get_args(inner)[0])


EmailAddress = Annotated[str, StringConstraints(strip_whitespace=True, to_lower=True)]
"""An email address as every world stores it: trimmed and lower-cased by the type (not by a tool body),
so the grader, which validates both expected and actual arguments through the parameter's type, sees
`Dispatch@CobaltRidge.com` and `dispatch@cobaltridge.com` as the same value, exactly as the world does."""

UpperCode = Annotated[str, StringConstraints(strip_whitespace=True, to_upper=True)]
"""A case-insensitive code the world stores upper-cased (an airport code, a currency): `sea` is `SEA`."""

CaseFolded = Annotated[str, StringConstraints(strip_whitespace=True, to_lower=True)]
"""Text a tool matches case-insensitively (a name or company searched for): `Chen` and ` chen` are one
query, for the tool and for the grader alike."""

Trimmed = Annotated[str, StringConstraints(strip_whitespace=True), AfterValidator(blank_as_omitted)]
"""A name or line the world stores without surrounding whitespace (an address line, a campaign name); text
that shows nothing (`is_blank`) is `""`, so `NonBlank[Trimmed]` refuses it and an optional memo omits it."""


_CODE_DROPPED = frozenset({"Cf", "Mn", "Me"})
"""Unicode categories a typed code never holds: invisible format characters (a zero-width space, a word
joiner, a byte-order mark) and combining marks (an accent stacked on a digit)."""


def normalise_code(value: Any) -> Any:
    """A PIN or code as the world compares it: NFKC (full-width digits are digits, a no-break space is a
    space), invisible format characters and combining marks removed, whitespace trimmed at both ends.

    Why: a code is read by a person and copied by an agent; `" 1234"`, `"1234\u200b"`, `"１２３４"` and
    `"1234"` with a stacked accent are the PIN 1234, so the world checks the same value whichever was sent
    and the grader, which compares arguments through this type, sees one attempt where the world saw one
    (a rejected PIN padded with a space is the same rejected PIN, not a new try). A non-string is left for
    the type's own validation to refuse."""
    if not isinstance(value, str):
        return value
    text = unicodedata.normalize("NFKC", value)
    text = "".join(ch for ch in text if unicodedata.category(ch) not in _CODE_DROPPED)
    return text.strip()


Code = Annotated[str, BeforeValidator(normalise_code)]
"""A PIN or verification code (a parameter of an authentication or verification tool); write
`NonBlank[Code]` (a code that normalises to nothing is blank)."""


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


def strict_bools(annotation: Any) -> Any:
    """`annotation` with every `bool` in it strict: a tool argument that is a boolean takes JSON `true` or
    `false` only. Pydantic's lax mode would read `"no"`, `"true"`, `"off"` or `1` as a boolean, so an agent
    could send a string and have the world act on a guess of what it meant (issue 41)."""
    if annotation is bool:
        return Annotated[bool, Strict()]
    origin = typing.get_origin(annotation)
    if origin is Annotated:
        inner, *meta = typing.get_args(annotation)
        return Annotated[(strict_bools(inner), *meta)] if strict_bools(inner) is not inner else annotation
    if origin in (typing.Union, types.UnionType):
        members = typing.get_args(annotation)
        strict = tuple(strict_bools(m) for m in members)
        return annotation if strict == members else typing.Union[strict]  # noqa: UP007
    if origin in (list, set, frozenset, tuple) and typing.get_args(annotation):
        members = typing.get_args(annotation)
        strict = tuple(strict_bools(m) for m in members)
        return annotation if strict == members else origin[strict]
    return annotation


@functools.cache
def _tool_signature(cls: type, name: str) -> tuple[inspect.Signature, dict[str, Any]]:
    """Per class and tool, once (`typing.get_type_hints` is the costly part). Booleans are strict
    (`strict_bools`), in the hints and the signature alike."""
    method = _tool_methods(cls)[name]
    sig = inspect.signature(method)
    hints = {key: strict_bools(value) for key, value in typing.get_type_hints(method, include_extras=True).items()}
    hints.pop("self", None)
    params = [p.replace(annotation=hints.get(p.name, p.annotation)) for p in sig.parameters.values() if p.name != "self"]
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

"""Worlds that cost what a call touches: an undo journal instead of a copy of the world per call.

A tool runs on the trial's live state while a `Journal` records how to undo every change it makes:
attribute assignments on the world's pydantic models (their classes get a journaling `__setattr__`),
and every mutation of the world's dicts and lists (which `track` turns into `TrackedDict` /
`TrackedList` when a trial opens, and whenever a new value enters the world). When the call succeeds
and its result serialises, the journal is dropped (the commit); otherwise - a refusal, an invalid call, a
bug, a read tool, a result or a new state that is not strict JSON - it is replayed backwards and the
world is exactly as before. Only what the call touched is checked (`Journal.problem`), so a call's cost
does not grow with the records it never touched.

Outside a recording (`Journal.recording()`), the tracked types behave exactly like `dict`, `list` and
the plain models (one context-variable read per mutation).
"""

from __future__ import annotations

import contextlib
import copy
import contextvars
import functools
import types
import typing
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, TypeAdapter
from pydantic import ValidationError as PydanticValidationError

from contracts.text import json_problem

_active: contextvars.ContextVar[Journal | None] = contextvars.ContextVar("crmbench_journal", default=None)
_MISSING = object()
_PATCHED: set[type] = set()


class Journal:
    """The undo log of one tool call, and what it touched (to check only that)."""

    __slots__ = ("undo", "touched_fields", "touched_values")

    def __init__(self) -> None:
        self.undo: list[tuple[Any, ...]] = []
        self.touched_fields: dict[tuple[int, str], tuple[BaseModel, str]] = {}
        self.touched_values: dict[int, tuple[Any, Any]] = {}

    @contextlib.contextmanager
    def recording(self) -> Iterator[Journal]:
        token = _active.set(self)
        try:
            yield self
        finally:
            _active.reset(token)

    def rollback(self) -> None:
        """Undo every recorded change, newest first; the world is as it was before the call."""
        for entry in reversed(self.undo):
            kind = entry[0]
            if kind == "attr":
                _, model, name, old, was_set = entry
                if old is _MISSING:
                    model.__dict__.pop(name, None)
                else:
                    model.__dict__[name] = old
                if not was_set:
                    model.__pydantic_fields_set__.discard(name)
            elif kind == "key":
                _, mapping, key, old = entry
                if old is _MISSING:
                    dict.pop(mapping, key, None)
                else:
                    dict.__setitem__(mapping, key, old)
            elif kind == "dict":
                _, mapping, snapshot = entry
                dict.clear(mapping)
                dict.update(mapping, snapshot)
            elif kind == "truncate":
                _, sequence, length = entry
                list.__delitem__(sequence, slice(length, None))
            elif kind == "list":
                _, sequence, snapshot = entry
                list.__setitem__(sequence, slice(None), snapshot)
        self.discard()

    @classmethod
    def undo_all(cls, entries: list[tuple[Any, ...]]) -> None:
        """Undo the changes of several committed calls (their undo entries in call order), newest first."""
        journal = cls()
        journal.undo.extend(entries)
        journal.rollback()

    def discard(self) -> None:
        self.undo.clear()
        self.touched_fields.clear()
        self.touched_values.clear()

    def problem(self) -> str | None:
        """Why the touched part of the world is not a valid world, or None: a non-finite number or unsafe
        text in anything the call stored, or a value of the wrong type for where it was stored."""
        for model, name in self.touched_fields.values():
            if name not in model.__dict__:
                continue
            dumped = model.model_dump(include={name}, mode="python", warnings=False).get(name)
            found = json_problem(dumped)
            if found:
                return found
            try:
                type(model).__pydantic_validator__.validate_assignment(_shadow(type(model)), name, dumped)
            except PydanticValidationError:
                return "invalid"
        for value, element in self.touched_values.values():
            adapter = _adapter(element)
            if isinstance(value, BaseModel):
                dumped: Any = value.model_dump(mode="python", warnings=False)
            elif adapter is not None:
                dumped = adapter.dump_python(value, mode="python", warnings=False)
            else:
                dumped = value
            found = json_problem(dumped)
            if found:
                return found
            try:
                if adapter is not None:
                    adapter.validate_python(dumped)
                elif isinstance(value, BaseModel):
                    type(value).model_validate(dumped)
            except PydanticValidationError:
                return "invalid"
        return None

    # ---- recording (called by the tracked types) --------------------------------------------------
    def _value(self, value: Any, element: Any) -> None:
        self.touched_values[id(value)] = (value, element)


_SHADOWS: dict[type[BaseModel], BaseModel] = {}


def _shadow(cls: type[BaseModel]) -> BaseModel:
    """A throw-away default instance of `cls` for `validate_assignment` (which sets the field on it).
    `model_construct` asks every field for its default, and pydantic inspects each default factory's
    signature each time (most of a write call's cost in big models): it is built once per class and
    each use gets a shallow copy, whose assigned field never touches the template."""
    template = _SHADOWS.get(cls)
    if template is None:
        template = _SHADOWS[cls] = cls.model_construct()
    return copy.copy(template)


@functools.lru_cache(maxsize=512)
def _adapter_cached(annotation: Any) -> TypeAdapter[Any] | None:
    try:
        return TypeAdapter(annotation)
    except Exception:  # noqa: BLE001 - an annotation pydantic cannot adapt: check JSON only
        return None


def _adapter(annotation: Any) -> TypeAdapter[Any] | None:
    if annotation is None or annotation is Any:
        return None
    try:
        return _adapter_cached(annotation)
    except TypeError:  # unhashable annotation
        return None


def _container_args(annotation: Any, container: type) -> tuple[Any, ...] | None:
    """The type arguments of `annotation` if it is (or, in a union, contains) `container[...]`."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _container_args(typing.get_args(annotation)[0], container)
    if origin is container:
        return typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        for arg in typing.get_args(annotation):
            found = _container_args(arg, container)
            if found is not None:
                return found
    return None


def _element(annotation: Any, container: type) -> Any:
    args = _container_args(annotation, container)
    if not args:
        return None
    return args[1] if container is dict and len(args) == 2 else args[0]


class TrackedDict(dict):  # type: ignore[type-arg]
    """A world's dict: every mutation during a recording is journaled; new values are tracked."""

    __slots__ = ("element",)

    def __init__(self, *args: Any, element: Any = None) -> None:
        dict.__init__(self, *args)
        self.element = element

    def __reduce__(self) -> Any:  # pickles (and deep-copies) as a plain dict
        return (dict, (dict(self),))

    def __setitem__(self, key: Any, value: Any) -> None:
        journal = _active.get()
        if journal is not None:
            journal.undo.append(("key", self, key, dict.get(self, key, _MISSING)))
            value = track(value, self.element)
            journal._value(value, self.element)
        dict.__setitem__(self, key, value)

    # A deletion is undone from a snapshot (pointers only), so the keys come back in their order: the
    # world's JSON is byte-identical after a rollback. Deletions are rare; inserts and updates are per key.
    def __delitem__(self, key: Any) -> None:
        if key in self:
            self._snapshot()
        dict.__delitem__(self, key)

    def pop(self, key: Any, *default: Any) -> Any:
        if key in self:
            self._snapshot()
        return dict.pop(self, key, *default)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return dict.__getitem__(self, key)

    def _snapshot(self) -> Journal | None:
        journal = _active.get()
        if journal is not None:
            journal.undo.append(("dict", self, dict(self)))
        return journal

    def popitem(self) -> tuple[Any, Any]:
        self._snapshot()
        return dict.popitem(self)

    def clear(self) -> None:
        self._snapshot()
        dict.clear(self)

    def update(self, *args: Any, **kwargs: Any) -> None:
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def __ior__(self, other: Any) -> TrackedDict:  # type: ignore[override,misc]
        self.update(other)
        return self


class TrackedList(list):  # type: ignore[type-arg]
    """A world's list: every mutation during a recording is journaled; new values are tracked."""

    __slots__ = ("element",)

    def __init__(self, *args: Any, element: Any = None) -> None:
        list.__init__(self, *args)
        self.element = element

    def __reduce__(self) -> Any:
        return (list, (list(self),))

    def _snapshot(self) -> Journal | None:
        journal = _active.get()
        if journal is not None:
            journal.undo.append(("list", self, list(self)))
        return journal

    def _new(self, journal: Journal | None, value: Any) -> Any:
        if journal is None:
            return value
        value = track(value, self.element)
        journal._value(value, self.element)
        return value

    def append(self, value: Any) -> None:
        journal = _active.get()
        if journal is not None:
            journal.undo.append(("truncate", self, len(self)))
        list.append(self, self._new(journal, value))

    def extend(self, values: Any) -> None:
        journal = _active.get()
        if journal is not None:
            journal.undo.append(("truncate", self, len(self)))
        list.extend(self, [self._new(journal, v) for v in values])

    def __iadd__(self, values: Any) -> TrackedList:  # type: ignore[override,misc]
        self.extend(values)
        return self

    def insert(self, index: Any, value: Any) -> None:
        journal = self._snapshot()
        list.insert(self, index, self._new(journal, value))

    def __setitem__(self, index: Any, value: Any) -> None:
        journal = self._snapshot()
        if isinstance(index, slice):
            value = [self._new(journal, v) for v in value]
        else:
            value = self._new(journal, value)
        list.__setitem__(self, index, value)

    def __delitem__(self, index: Any) -> None:
        self._snapshot()
        list.__delitem__(self, index)

    def pop(self, *index: Any) -> Any:
        self._snapshot()
        return list.pop(self, *index)

    def remove(self, value: Any) -> None:
        self._snapshot()
        list.remove(self, value)

    def clear(self) -> None:
        self._snapshot()
        list.clear(self)

    def sort(self, *args: Any, **kwargs: Any) -> None:
        self._snapshot()
        list.sort(self, *args, **kwargs)

    def reverse(self) -> None:
        self._snapshot()
        list.reverse(self)

    def __imul__(self, n: Any) -> TrackedList:  # type: ignore[override,misc]
        self._snapshot()
        list.__imul__(self, n)
        return self


def _journaling_setattr(original: Any) -> Any:
    def __setattr__(self: BaseModel, name: str, value: Any) -> None:
        journal = _active.get()
        if journal is not None and name in type(self).model_fields:
            journal.undo.append(("attr", self, name, self.__dict__.get(name, _MISSING), name in self.__pydantic_fields_set__))
            value = track(value, type(self).model_fields[name].annotation)
            journal.touched_fields[(id(self), name)] = (self, name)
        original(self, name, value)

    return __setattr__


def _patch(cls: type[BaseModel]) -> None:
    if cls in _PATCHED:
        return
    _PATCHED.add(cls)
    if "__setattr__" not in cls.__dict__:
        cls.__setattr__ = _journaling_setattr(cls.__setattr__)  # type: ignore[method-assign]


_NESTED: dict[type, Any] = {}
_ALL = ("*",)


def _may_nest(annotation: Any) -> bool:
    """Whether a field of this type can hold a dict, a list or a model (else tracking skips it)."""
    if annotation is Any or annotation is None or isinstance(annotation, typing.TypeVar):
        return True
    if isinstance(annotation, type):
        return issubclass(annotation, dict | list | BaseModel) or annotation is object
    origin = typing.get_origin(annotation)
    if origin is None:
        return True  # unknown typing construct: be safe
    if origin is typing.Literal:
        return False
    if origin in (dict, list) or (isinstance(origin, type) and issubclass(origin, dict | list)):
        return True
    return any(_may_nest(arg) for arg in typing.get_args(annotation) if arg is not Ellipsis)


def _nested_fields(cls: type[BaseModel]) -> Any:
    if cls.model_config.get("extra") == "allow":
        return _ALL  # extra attributes may hold anything
    return tuple(name for name, field in cls.model_fields.items() if _may_nest(field.annotation))


def track(value: Any, annotation: Any = None) -> Any:
    """`value` with every dict and list in it (models included) made journaling; in place for models."""
    if isinstance(value, TrackedDict | TrackedList):
        return value
    if isinstance(value, BaseModel):
        cls = type(value)
        names = _NESTED.get(cls)
        if names is None:
            _patch(cls)
            names = _NESTED[cls] = _nested_fields(cls)
        attrs = value.__dict__
        fields = cls.model_fields
        for name in names if names is not _ALL else list(attrs):
            item = attrs.get(name)
            if isinstance(item, dict | list | BaseModel) and not isinstance(item, TrackedDict | TrackedList):
                field = fields.get(name)
                attrs[name] = track(item, field.annotation if field is not None else None)
        return value
    if isinstance(value, dict):
        element = _element(annotation, dict)
        return TrackedDict({k: track(v, element) for k, v in value.items()}, element=element)
    if isinstance(value, list):
        element = _element(annotation, list)
        return TrackedList([track(v, element) for v in value], element=element)
    return value

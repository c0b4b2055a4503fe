"""What `crmbench ... --help` shows for each flag: what a user types, never a Python type name.

pydantic-settings derives every flag from the typed configs (`harness.runner.config`) and names its value by the
field's annotation (`list[Path]`, `{Path,null}`, `dict[str,Any]`). This module hooks the one public seam it
offers, the `add_argument` method it calls per flag, and names the value from the same config instead: the
field's own `metavar` (`json_schema_extra={"metavar": ...}`, set in `harness.runner.config` where a type says
little, e.g. DOMAIN or PROVIDER:MODEL), else a word for its type (PATH, N, NUMBER, TEXT, JSON, the choices
of a Literal). A list flag says it is repeatable; the "(default: null)" and "(default factory: list)" a
Python reader would write are dropped, and a switch's default reads on/off.
"""

from __future__ import annotations

import re
import types
from argparse import ArgumentParser
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

TYPE_WORDS: dict[type, str] = {Path: "PATH", int: "N", float: "NUMBER", str: "TEXT", dict: "JSON", bool: "BOOL"}
"""The word for a value of each type a config field holds."""

PYTHON_DEFAULTS = re.compile(r" ?\((?:default: null|default factory: \w+)\)")
"""Help suffixes that only a Python reader understands (no default, or an empty list or dict)."""


def _without_none(annotation: Any) -> Any:
    if get_origin(annotation) in (Union, types.UnionType):
        rest = [a for a in get_args(annotation) if a is not type(None)]
        return rest[0] if len(rest) == 1 else annotation
    return annotation


def is_list(field: FieldInfo) -> bool:
    return get_origin(_without_none(field.annotation)) is list


def metavar(field: FieldInfo) -> str:
    """The value a user types for this field: its declared metavar, else a word for its type."""
    extra = field.json_schema_extra
    if isinstance(extra, dict) and isinstance(extra.get("metavar"), str):
        return str(extra["metavar"])
    annotation = _without_none(field.annotation)
    if get_origin(annotation) is list:
        annotation = _without_none(get_args(annotation)[0])
    if get_origin(annotation) is Literal:
        return "{" + ",".join(str(a) for a in get_args(annotation)) + "}"
    origin = get_origin(annotation) or annotation
    return TYPE_WORDS.get(origin, "VALUE") if isinstance(origin, type) else "VALUE"


def help_text(field: FieldInfo, generated: str, *, positional: bool = False) -> str:
    """The generated help with Python-only defaults dropped, switches' defaults as on/off, list flags marked
    repeatable (a positional list shows `NAME ...` already)."""
    text = PYTHON_DEFAULTS.sub("", generated).replace("(default: False)", "(default: off)").replace("(default: True)", "(default: on)")
    if is_list(field) and not positional and "repeat" not in text:
        text += " (repeatable)"
    return text


def flag_fields(root: type[BaseModel]) -> dict[str, FieldInfo]:
    """Every flag's field, keyed as pydantic-settings names its argparse `dest`: `<subcommand>.<field>`,
    each by its alias when it has one."""
    fields: dict[str, FieldInfo] = {}
    for name, sub in root.model_fields.items():
        models = [a for a in get_args(sub.annotation) if isinstance(a, type) and issubclass(a, BaseModel)]
        for model in models:
            for field_name, field in model.model_fields.items():
                fields[f"{sub.alias or name}.{field.alias or field_name}"] = field
    return fields


def user_facing(root: type[BaseModel]) -> Callable[..., Any]:
    """An `add_argument` for pydantic-settings' `CliSettingsSource` that rewrites each flag's value name
    and help from the config field behind it (flags with no such field are passed through unchanged)."""
    fields = flag_fields(root)

    def add_argument(parser: ArgumentParser, *names: str, **kwargs: Any) -> Any:
        field = fields.get(str(kwargs.get("dest") or (names[0] if names else "")))  # a positional is named by its dest
        if field is not None:
            positional = not (names and names[0].startswith("-"))  # already named by its field (RUNS, RUN_A)
            if "metavar" in kwargs and not positional:
                kwargs["metavar"] = metavar(field)
            if isinstance(kwargs.get("help"), str):
                kwargs["help"] = help_text(field, kwargs["help"], positional=positional)
        return ArgumentParser.add_argument(parser, *names, **kwargs)

    return add_argument

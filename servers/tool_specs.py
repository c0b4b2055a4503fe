"""What fastmcp derives for each domain tool, derived once and kept: the input and output JSON schemas.

Why: fastmcp derives a tool's schemas from its function (signature, type hints, a pydantic core schema
and its JSON schema). For the 149 domain tools that is ~0.25 s of every `crmbench serve` start, and it is
repeated by every process that builds a gateway: run workers, the gates and tests. The result depends
only on code, so it is kept:

- in memory per environment class, for the life of the process;
- on disk, in the user's cache directory (`$CRMBENCH_CACHE_DIR`, else `$XDG_CACHE_HOME/crmbench`, else
  `~/.cache/crmbench`; `CRMBENCH_CACHE_DIR=off` turns it off). Each file is keyed by a hash of
  everything that could change a schema: the sources of the `servers` package (the domains, the tool
  base, the gateway's tool construction) and of the class's own module, and the versions of Python,
  fastmcp, pydantic and pydantic-core. A changed source or library gives a new key, hence a miss.

A miss derives the tools through fastmcp's own `FunctionTool.from_function` and stores what it derived;
a hit builds the same tool from the stored schemas (`servers.tool_derivation.tool_from_spec`).
`tests/test_tool_specs.py` holds every domain's `tools/list` byte-identical with and without the cache.
A cache file that cannot be read, does not parse or does not name exactly the class's tools is a miss;
a cache directory that cannot be written is skipped. Neither is ever an error.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

log = logging.getLogger(__name__)

CACHE_ENV = "CRMBENCH_CACHE_DIR"
CACHE_OFF = "off"
SPECS_SUBDIR = "tool-specs"
SERVERS_DIR = Path(__file__).resolve().parent


class ToolSpec(BaseModel):
    """The part of a fastmcp tool that fastmcp derives from the function."""

    parameters: dict[str, Any]
    output_schema: dict[str, Any] | None


class SpecFile(BaseModel):
    key: str
    tools: dict[str, ToolSpec]


_in_memory: dict[type, dict[str, ToolSpec]] = {}


def cache_dir() -> Path | None:
    """Where tool specs are kept on disk; None when the disk cache is off."""
    configured = os.environ.get(CACHE_ENV)
    if configured is not None:
        return None if configured.strip().lower() in ("", CACHE_OFF) else Path(configured).expanduser()
    base = os.environ.get("XDG_CACHE_HOME")
    if not base:
        try:
            base = str(Path.home() / ".cache")
        except (RuntimeError, KeyError):  # no HOME and no password entry (some containers): no disk cache
            return None
    return Path(base) / "crmbench"


def _digest(paths: list[Path], parts: tuple[str, ...] = ()) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode() + b"\0")
    for path in paths:
        label = path.relative_to(SERVERS_DIR).as_posix() if path.is_relative_to(SERVERS_DIR) else path.name
        digest.update(label.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


@functools.cache
def _servers_digest() -> str:
    """The servers package's sources and the libraries' versions: the same for every class, so hashed
    once per process."""
    import fastmcp
    import pydantic
    import pydantic_core

    versions = (sys.version, fastmcp.__version__, pydantic.VERSION, pydantic_core.__version__)
    return _digest(sorted(SERVERS_DIR.rglob("*.py")), versions)


def _own_source(env_cls: type) -> Path:
    try:
        own = inspect.getsourcefile(env_cls)
    except TypeError:  # defined where no source file exists: nothing to key it by
        own = None
    if own is None:
        raise LookupError(f"{env_cls.__qualname__} has no source file")
    return Path(own)


def spec_key(env_cls: type) -> str:
    """A hash of everything the class's derived tool schemas depend on (see the module docstring)."""
    return _digest([_own_source(env_cls)], (_servers_digest(), env_cls.__module__, env_cls.__qualname__))


def _file_stem(env_cls: type) -> str:
    return f"{env_cls.__module__}.{env_cls.__qualname__}"


def _spec_path(directory: Path, env_cls: type, key: str) -> Path:
    return directory / SPECS_SUBDIR / f"{_file_stem(env_cls)}-{key[:24]}.json"


def load(env_cls: type, names: list[str]) -> dict[str, ToolSpec] | None:
    """The kept specs of the class's tools `names`, or None (a miss)."""
    kept = _in_memory.get(env_cls)
    if kept is not None and list(kept) == names:
        return kept
    directory = cache_dir()
    if directory is None:
        return None
    try:
        key = spec_key(env_cls)
        stored = SpecFile.model_validate_json(_spec_path(directory, env_cls, key).read_bytes())
    except (OSError, LookupError, ValidationError, ValueError) as exc:
        log.debug("no kept tool specs for %s: %s", env_cls.__qualname__, exc)
        return None
    if stored.key != key or list(stored.tools) != names:
        return None
    _in_memory[env_cls] = stored.tools
    return stored.tools


STALE_AFTER_S = 7 * 24 * 3600
"""A class's files under other keys are removed once they are this old: two checkouts of different code
(a baseline for a paired benchmark, a branch) each keep theirs instead of evicting each other's."""


def store(env_cls: type, specs: dict[str, ToolSpec]) -> None:
    """Keep derived specs in memory and, when the disk cache is on and writable, on disk (atomically;
    the class's files under other keys are removed once `STALE_AFTER_S` old)."""
    _in_memory[env_cls] = specs
    directory = cache_dir()
    if directory is None:
        return
    from harness.files import write_atomic

    try:
        key = spec_key(env_cls)
        path = _spec_path(directory, env_cls, key)
        write_atomic(path, SpecFile(key=key, tools=specs).model_dump_json())
        now = time.time()
        for other in path.parent.glob(f"{_file_stem(env_cls)}-*.json"):
            if other != path and now - other.stat().st_mtime > STALE_AFTER_S:
                other.unlink(missing_ok=True)
    except (OSError, LookupError) as exc:
        log.debug("tool specs for %s not kept on disk: %s", env_cls.__qualname__, exc)


def forget() -> None:
    """Forget what this process keeps (the specs and the sources' hash; the disk cache stays): for tests
    that need a cold process or change a source."""
    _in_memory.clear()
    _servers_digest.cache_clear()

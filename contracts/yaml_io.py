"""Safe YAML loading for every reviewed data file (catalog, lexicons, banks, calibration sets, prices).

libyaml's safe loader when PyYAML was built with it (the pure-Python loader is ~10x slower, and the
calibration sets and the catalog are megabytes of YAML); the pure-Python safe loader otherwise. Both
build the same plain values from the same text."""

from __future__ import annotations

import yaml

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""The loader `read_yaml` uses (its name is part of the catalog cache's key)."""


def read_yaml(text: str) -> object:
    """`yaml.safe_load(text)`, with libyaml when available."""
    return yaml.load(text, Loader=LOADER)  # noqa: S506 - a safe loader

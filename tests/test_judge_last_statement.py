"""The evidence judge on a class the gate's wrong-value cases do not make: the last statement of a fact
wrong while an earlier reply states the right value (`scripts/judge_last_statement.py`). Each case starts
from gold replies that pass its criterion; the number caught may only rise."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
CAUGHT = 17
"""Caught on catalog 1.2.0 after this round's rules (7 of the same 38 before them)."""


def _script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("judge_last_statement", ROOT / "scripts" / "judge_last_statement.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("judge_last_statement", module)  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


def test_the_last_statement_battery_catches_at_least_what_it_did() -> None:
    found = _script().cases()
    assert len(found) >= 25  # the catalog's gold dialogues make these cases
    assert sum(c.caught for c in found) >= CAUGHT, [c for c in found if not c.caught][:3]


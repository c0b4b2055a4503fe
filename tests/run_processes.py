"""Helpers for tests that drive `crmbench run` as a process and kill it mid-run."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path


def wait_for_records(proc: subprocess.Popen, trials: Path, count: int, timeout_s: float = 120) -> None:
    """Return once `count` trial records are on disk, the run still going (the kill must land mid-run)."""
    deadline = time.monotonic() + timeout_s
    while len(list(trials.glob("*/*.json"))) < count:
        assert proc.poll() is None, "the run finished before it could be killed; give it more trials"
        assert time.monotonic() < deadline, "no trials were written"
        time.sleep(0.02)

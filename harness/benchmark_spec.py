"""Release gates: `python -m harness.benchmark_spec [--gold] [--write-lock] [--write-debt]` (spec A.5).

A thin entry point kept where CI and the docs call it; the gates live in `harness.release`.
"""

from __future__ import annotations

import sys

from harness.release.main import main, parse_args, run_release

__all__ = ["main", "parse_args", "run_release"]

if __name__ == "__main__":
    sys.exit(main())

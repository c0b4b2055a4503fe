"""Write the JSON Schema of the trial record (docs/trial-record.schema.json); a test keeps it current."""

from __future__ import annotations

import json
from pathlib import Path

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "docs" / "trial-record.schema.json"


def record_schema() -> str:
    from harness.records import TrialRecord

    return json.dumps(TrialRecord.model_json_schema(), indent=1, sort_keys=True) + "\n"


if __name__ == "__main__":
    SCHEMA_PATH.write_text(record_schema(), encoding="utf-8")
    print(f"wrote {SCHEMA_PATH}")

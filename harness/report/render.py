"""Tables as Markdown, CSV and JSON (machine-readable companions of every table in the report)."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from harness.report.tables import Table


def _cell(value: Any) -> str:
    return "" if value is None else str(value).replace("|", "\\|").replace("\n", " ")


def to_markdown(table: Table) -> str:
    lines = [f"### {table.title}", "", "| " + " | ".join(table.columns) + " |", "|" + "---|" * len(table.columns)]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in table.rows]
    lines += [""] + [f"_{note}_" for note in table.notes]
    return "\n".join(lines).rstrip() + "\n"


def to_csv(table: Table) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(table.columns)
    writer.writerows([["" if v is None else v for v in row] for row in table.rows])
    return buffer.getvalue()


def to_json(table: Table) -> str:
    return json.dumps({"key": table.key, "title": table.title, "columns": table.columns, "rows": table.rows, "notes": table.notes}, indent=2, default=str)

"""Tables as Markdown, CSV and JSON (machine-readable companions of every table in the report), each with
the report's provenance header."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from harness.report.tables import Table


def _cell(value: Any) -> str:
    return "" if value is None else str(value).replace("|", "\\|").replace("\n", " ")


def to_markdown(table: Table, header: list[str] | None = None) -> str:
    lines = [f"### {table.title}", ""]
    if header:
        lines += ["<details><summary>provenance</summary>", "", *[f"- {line}" for line in header], "", "</details>", ""]
    lines += ["| " + " | ".join(table.columns) + " |", "|" + "---|" * len(table.columns)]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in table.rows]
    lines += [""] + [f"_{note}_" for note in table.notes]
    return "\n".join(lines).rstrip() + "\n"


def to_csv(table: Table, header: list[str] | None = None) -> str:
    """Provenance as leading `# ` comment lines (pandas: `read_csv(..., comment='#')`)."""
    buffer = io.StringIO()
    for line in header or []:
        buffer.write(f"# {line}\n")
    writer = csv.writer(buffer)
    writer.writerow(table.columns)
    writer.writerows([["" if v is None else v for v in row] for row in table.rows])
    return buffer.getvalue()


def to_json(table: Table, header: list[str] | None = None) -> str:
    payload = {"key": table.key, "title": table.title, "columns": table.columns, "rows": table.rows, "notes": table.notes, "provenance": header or []}
    return json.dumps(payload, indent=2, default=str)

"""`crmbench report RUN_DIR...`: every table (Markdown, CSV, JSON), figures (PNG), demo cards, and one
self-contained HTML file (figures embedded) that a person opens in a browser."""

from __future__ import annotations

import base64
import datetime as dt
import html
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contracts.schema import Task

from harness.report.cards import Card, card_html, card_markdown, choose_cards
from harness.report.data import ReportData, ReportInputError, load_runs
from harness.report.explorer import STYLE as EXPLORER_STYLE
from harness.report.explorer import explorer_html
from harness.report.provenance import provenance
from harness.report.figures import all_figures
from harness.report.render import to_csv, to_json, to_markdown
from harness.report.tables import Table, all_tables
from harness.files import write_atomic, write_atomic_bytes
from models.prices import DEFAULT_PRICE_TABLE, PriceTable

STYLE = """
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:1200px;color:#222;padding:0 1rem}
table{border-collapse:collapse;margin:.5rem 0 1rem;font-size:.85rem}
th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f2f2f2} tr.fail td{background:#fdecea} tr.pass td{background:#edf7ed}
.note{color:#555;font-size:.8rem;font-style:italic} img{max-width:100%;border:1px solid #eee;margin:.5rem 0}
.card{border:1px solid #bbb;border-radius:6px;padding:.5rem 1rem;margin:1rem 0}
p.user{background:#eef3fb;padding:.3rem} p.assistant{background:#f7f7f7;padding:.3rem}
nav a{margin-right:.8rem} .prov{background:#f7f7f2;border:1px solid #ddd;padding:.4rem .8rem;font-size:.8rem}
.prov li.warn{color:#b42318;font-weight:600} table a{color:#0b57d0}
""" + EXPLORER_STYLE

IMAGE_CHECK = """
<script>
window.addEventListener('load', function () {
  var images = Array.prototype.slice.call(document.images);
  var ok = images.filter(function (i) { return i.complete && i.naturalWidth > 0; }).length;
  document.body.setAttribute('data-images-loaded', ok + '/' + images.length);
});
</script>
"""


@dataclass
class Report:
    out: Path
    tables: list[Table]
    figures: dict[str, bytes]
    cards: list[Card]

    @property
    def html_path(self) -> Path:
        return self.out / "report.html"


def _cell_html(table: Table, i: int, j: int, value: object) -> str:
    esc = html.escape
    links = table.links.get((i, j))
    if links:
        return ", ".join(f"<a href='#trial={esc(anchor)}' data-trial='{esc(anchor)}'>{esc(text)}</a>" for text, anchor in links)
    return esc("" if value is None else str(value))


def _table_html(table: Table) -> str:
    esc = html.escape
    head = "".join(f"<th>{esc(str(c))}</th>" for c in table.columns)
    body = "".join("<tr>" + "".join(f"<td>{_cell_html(table, i, j, v)}</td>" for j, v in enumerate(row)) + "</tr>" for i, row in enumerate(table.rows))
    notes = "".join(f"<p class='note'>{esc(n)}</p>" for n in table.notes)
    return f"<section id='{esc(table.key)}'><h3>{esc(table.title)}</h3><table><tr>{head}</tr>{body}</table>{notes}</section>"


def provenance_html(lines: list[str]) -> str:
    esc = html.escape
    items = "".join(f"<li class='{'warn' if line.startswith(('OFFLINE', 'WARNING')) or 'MIXED' in line else ''}'>{esc(line)}</li>" for line in lines)
    return f"<section class='prov' id='provenance'><b>Provenance</b><ul>{items}</ul></section>"


NO_FIGURES = "Figures not drawn (built with --no-figures)."


def render_html(data: ReportData, tables: list[Table], figures: dict[str, bytes], cards: list[Card], header: list[str] | None = None) -> str:
    esc = html.escape
    nav = "".join(f"<a href='#{esc(t.key)}'>{esc(t.key)}</a>" for t in tables) + "<a href='#figures'>figures</a><a href='#explorer-title'>trial explorer</a><a href='#cards'>demo cards</a>"
    images = "".join(
        f"<figure><img alt='{esc(name)}' src='data:image/png;base64,{base64.b64encode(png).decode()}'><figcaption>{esc(name)}</figcaption></figure>"
        for name, png in figures.items()
    ) or f"<p>{NO_FIGURES}</p>"
    sources = "".join(f"<li><code>{esc(str(p))}</code></li>" for p in data.sources)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>CRM-Agent-Bench report</title><style>{STYLE}</style></head>
<body>
<h1>CRM-Agent-Bench report</h1>
<p>{len(data.systems)} system(s), generated {dt.datetime.now(dt.UTC).isoformat(timespec='seconds')} from:</p><ul>{sources}</ul>
{provenance_html(header or [])}
<nav>{nav}</nav>
<h2>Tables</h2>
{''.join(_table_html(t) for t in tables)}
<h2 id="figures">Figures</h2>
{images}
{explorer_html(data)}
<h2 id="cards">Trajectory demo cards</h2>
{''.join(card_html(c) for c in cards) or '<p>No trial to show.</p>'}
{IMAGE_CHECK}
</body></html>
"""


def assign_prices(data: ReportData, override: PriceTable | None) -> None:
    """Each system is priced from its run's own price table (the manifest's, as the run recorded it), unless
    --price-table overrides every system; a run without one (older runs) uses the default table, and says so."""
    for s in data.systems:
        if override is not None:
            s.prices, s.price_source = override, "--price-table"
            continue
        table = s.manifest.get("price_table")
        try:
            s.prices, s.price_source = (PriceTable.model_validate(table), "the run's manifest") if table else (None, "default table (the run recorded none)")
        except ValueError:
            s.prices, s.price_source = None, "default table (the run's table does not validate)"


def run_prices(data: Any) -> PriceTable:
    """Without `--price-table`, the prices the runs themselves recorded (each manifest's table), so a
    report prices a run as the run did; models no manifest prices come from the default table. Runs that
    priced one model differently are an error naming the model (pass --price-table to choose)."""
    default = PriceTable.load(DEFAULT_PRICE_TABLE)
    recorded: dict[str, Any] = {}
    for system in data.systems:
        for manifest in [system.manifest, *(r.manifest for r in system.rounds)]:
            table = (manifest or {}).get("price_table")
            if not table:
                continue
            for model, price in PriceTable.model_validate(table).models.items():
                if model in recorded and (recorded[model].input, recorded[model].output) != (price.input, price.output):
                    raise ReportInputError(f"the runs priced {model} differently; pass --price-table to choose one table")
                recorded[model] = price
    return default.model_copy(update={"models": {**default.models, **recorded}})


def build_report(
    run_dirs: list[Path],
    out: Path,
    *,
    card_tasks: list[str] | None = None,
    price_table: Path | None = None,
    labels: dict[Path, str] | None = None,
    allow_mixed: bool = False,
    catalog: dict[str, Task] | None = None,
    lock: dict[str, Any] | None = None,
    figures: bool = True,
) -> Report:
    """Tables, figures, demo cards, Markdown and HTML of the runs in `out`. `figures=False` (`--no-figures`)
    leaves the figures out: they are most of a report's time (matplotlib), and tables alone answer a quick
    look or a CI summary."""
    data = load_runs(run_dirs, labels, allow_mixed=allow_mixed, catalog=catalog, lock=lock)
    cards = choose_cards(data, card_tasks or [])  # a bad --card fails before seconds of tables and figures
    header = provenance(data)
    prices = PriceTable.load(price_table) if price_table is not None else run_prices(data)
    assign_prices(data, prices if price_table else None)
    tables = all_tables(data, prices)
    drawn = all_figures(data, prices) if figures else {}
    if not figures:  # an earlier report's figures in the same directory are not this report's
        for stale in (out / "figures").glob("*.png"):
            stale.unlink()
    for table in tables:
        write_atomic(out / "tables" / f"{table.key}.md", to_markdown(table, header))
        write_atomic(out / "tables" / f"{table.key}.csv", to_csv(table, header))
        write_atomic(out / "tables" / f"{table.key}.json", to_json(table, header))
    for name, png in drawn.items():
        write_atomic_bytes(out / "figures" / f"{name}.png", png)
    markdown = ["# CRM-Agent-Bench report", "", "## Provenance", "", *[f"- {line}" for line in header], ""] + [to_markdown(t) for t in tables]
    markdown += ["## Figures", ""] + ([f"![{name}](figures/{name}.png)" for name in drawn] or [NO_FIGURES])
    markdown += ["", "## Trajectory demo cards", ""] + [card_markdown(c) for c in cards]
    write_atomic(out / "report.md", "\n".join(markdown) + "\n")
    write_atomic(out / "report.html", render_html(data, tables, drawn, cards, header))
    return Report(out=out, tables=tables, figures=drawn, cards=cards)

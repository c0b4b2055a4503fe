"""The README's status paragraph quotes the release gates' figures; they must be the ones docs/validity.md
records for the current catalog (its last all-domains row), the manifest's catalog version and the catalog's
own count of battery exemptions. The paragraph had kept catalog 1.2.0's figures through the 1.3.0 release."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from contracts.catalog import load_catalog

ROOT = Path(__file__).resolve().parent.parent


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def _status() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return readme[readme.index("**Status.**") : readme.index("| domain |")]


def test_the_status_names_the_manifests_catalog_version() -> None:
    version = yaml.safe_load((ROOT / "contracts" / "manifest.yaml").read_text(encoding="utf-8"))["version"]
    assert re.search(r"release gates \(catalog ([0-9.]+)\)", _status()).group(1) == version


def test_the_status_quotes_the_gate_figures_docs_validity_records_last() -> None:
    rows = [line for line in (ROOT / "docs" / "validity.md").read_text(encoding="utf-8").splitlines() if line.startswith("| all | 555 |")]
    cells = [c.strip() for c in rows[-1].strip("|").split("|")]
    # "100% (5,911)" is a rate over a count; "621" a count alone
    declared, behavioural, guarded, equivalence = (_number(re.search(r"\(([\d,]+)\)|^([\d,]+)$", c).group(1) or c) for c in cells[2:6])
    status = _status()
    quoted = {
        "declared": _number(re.search(r"of ([\d,]+) declared checks killed", status).group(1)),
        "behavioural": _number(re.search(r"of ([\d,]+) generated agent mistakes fail", status).group(1)),
        "guarded": _number(re.search(r"\(([\d,]+) more\s+are refused by the worlds", status).group(1)),
        "equivalence": _number(re.search(r"of ([\d,]+) generated valid alternatives pass", status).group(1)),
    }
    assert quoted == {"declared": declared, "behavioural": behavioural, "guarded": guarded, "equivalence": equivalence}


def test_the_status_counts_the_catalogs_battery_exemptions() -> None:
    exemptions = sum(len(task.battery_exemptions or []) for task in load_catalog().values())
    assert _number(re.search(r"\(([\d,]+) reasoned\s+exemptions", _status()).group(1)) == exemptions

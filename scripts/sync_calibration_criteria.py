"""Refresh the criterion snapshots of the dev calibration set (`contracts/judge_calibration/<domain>.yaml`)
from the catalog: `uv run python scripts/sync_calibration_criteria.py [--write]`.

Each dev case embeds the whole reply criterion it was labelled against (statement, evidence, absent,
context_values), and `tests/test_judge_calibration.py` holds the snapshot equal to the catalog's. When a
catalog review changes a criterion's evidence or declares context values (the stated-values lint,
docs/authoring.md), the snapshots go stale. This script replaces each case's criterion by the catalog's
criterion of the same task and statement, and changes nothing else (ids, messages, labels, reasons, the
files' leading comments). Without `--write` it only lists the cases whose snapshot differs.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import yaml

from contracts.catalog import load_catalog

DEV_DIR = Path(__file__).resolve().parent.parent / "contracts" / "judge_calibration"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="rewrite the files (else list the stale cases)")
    args = parser.parse_args()
    catalog = load_catalog()
    stale = 0
    shared: dict[tuple[str, str, str], dict] = {}  # one object per criterion: the dump writes it once (an anchor) and aliases it after
    for path in sorted(DEV_DIR.glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        doc = yaml.safe_load(text)
        changed = False
        for item in doc.get("items", []):
            snapshot = item.get("criterion")
            if not isinstance(snapshot, dict):
                continue
            matches = [c for c in catalog[item["task"]].contract.reply_criteria or [] if c.criterion == snapshot.get("criterion")]
            if len(matches) != 1:
                print(f"{path.name}: {item['id']}: no single catalog criterion with this statement")
                continue
            fresh = matches[0].model_dump(mode="json", exclude_none=True, exclude_defaults=True)
            fresh["criterion"] = matches[0].criterion
            fresh = shared.setdefault((path.name, item["task"], matches[0].criterion), fresh)
            if fresh != snapshot:
                stale += 1
                print(f"{path.name}: {item['id']}: stale")
                item["criterion"] = fresh
                changed = True
        if changed and args.write:
            header = "".join(line for line in text.splitlines(keepends=True)[:20] if line.startswith("#") ) if text.startswith("#") else ""
            path.write_text(header + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=120), encoding="utf-8")
    print(f"{stale} stale criterion snapshot(s)" + ("" if args.write else " (dry run; --write rewrites them)"))


if __name__ == "__main__":
    main()

"""The capability exposure audit (spec A.7): scripts/audit_capability_exposure.py."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from contracts.catalog import GRAPHS_DIR, TASKS_DIR, read_yaml
from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "audit_capability_exposure.py"


audit_script = load_script("audit_capability_exposure")

SYNTHETIC_TASKS = """\
domain: payments
version: 0.0.1
tasks:
  - id: payments_audit_unknown_tool_01
    domain: payments
    title: Forbids a tool that no node has
    capabilities: [transfer]
    difficulty: easy
    instruction: |
      You are Daniel Kim. You want to know the balance of ACC-1002 and nothing else. Stop once the
      assistant tells you the balance.
    contract:
      expected_actions:
        - {tool: get_account_balance}
      forbidden_actions: [wire_money_abroad]
    gold:
      - user: What is the balance of ACC-1002?
        calls:
          - {tool: get_account_balance, args: {account_id: ACC-1002}}
        reply: The balance of ACC-1002 is $180.00.
  - id: payments_audit_twice_forbidden_02
    domain: payments
    title: Forbids process_payment twice
    capabilities: [checkout]
    difficulty: easy
    instruction: |
      You are Daniel Kim. You want to know the balance of ACC-1002 before a purchase, but you do not
      buy anything today. Stop once the assistant tells you the balance.
    contract:
      expected_actions:
        - {tool: get_account_balance}
      forbidden_actions: [process_payment, process_payment]
    gold:
      - user: What is the balance of ACC-1002? I'm not buying anything yet.
        calls:
          - {tool: get_account_balance, args: {account_id: ACC-1002}}
        reply: The balance of ACC-1002 is $180.00.
  - id: payments_audit_no_forbidden_03
    domain: payments
    title: Declares no forbidden actions
    capabilities: [balance_inquiry]
    difficulty: easy
    instruction: |
      You are Daniel Kim. You want to know the balance of ACC-1002 and nothing else. Stop once the
      assistant tells you the balance.
    contract:
      expected_actions:
        - {tool: get_account_balance}
    gold:
      - user: What is the balance of ACC-1002?
        calls:
          - {tool: get_account_balance, args: {account_id: ACC-1002}}
        reply: The balance of ACC-1002 is $180.00.
"""


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _synthetic(root: Path, tasks_yaml: str = SYNTHETIC_TASKS) -> tuple[Path, Path]:
    """A tasks dir with one YAML and a graphs dir with a copy of the real payments graph, under `root`."""
    tasks_dir, graphs_dir = root / "tasks", root / "graphs"
    tasks_dir.mkdir(parents=True)
    graphs_dir.mkdir(parents=True)
    (tasks_dir / "payments.yaml").write_text(tasks_yaml, encoding="utf-8")
    shutil.copyfile(GRAPHS_DIR / "payments.yaml", graphs_dir / "payments.yaml")
    return tasks_dir, graphs_dir


@pytest.fixture(scope="module")
def real_report() -> dict:
    return audit_script.audit(TASKS_DIR, GRAPHS_DIR)


def test_real_catalog_counts_match_a_direct_count(real_report: dict) -> None:
    """Count forbidden_actions entries straight from the raw YAML (no schema), duplicates included."""
    tasks = declarations = with_forbidden = 0
    per_domain: dict[str, int] = {}
    for path in sorted(TASKS_DIR.glob("*.yaml")):
        for task in read_yaml(path.read_text(encoding="utf-8"))["tasks"]:
            tasks += 1
            forbidden = (task.get("contract") or {}).get("forbidden_actions") or []
            declarations += len(forbidden)
            with_forbidden += bool(forbidden)
            per_domain[task["domain"]] = per_domain.get(task["domain"], 0) + len(forbidden)

    summary = real_report["summary"]
    assert declarations > 0
    assert summary["tasks"] == tasks
    assert summary["tasks_with_forbidden_actions"] == with_forbidden == len(real_report["tasks"])
    assert summary["declarations"] == declarations
    assert sum(len(t["declarations"]) for t in real_report["tasks"]) == declarations
    assert {d: c["declarations"] for d, c in summary["domains"].items()} == per_domain
    assert summary["matched"] + summary["unmatched"] == declarations


def test_real_catalog_has_zero_unmatched(real_report: dict) -> None:
    summary = real_report["summary"]
    assert summary["unmatched"] == 0, summary["unmatched_declarations"]
    assert summary["matched"] == summary["declarations"]
    for entry in real_report["tasks"]:
        for decl in entry["declarations"]:
            assert decl["matched"] and decl["nodes"], (entry["task_id"], decl)


def test_real_catalog_nodes_are_the_graph_nodes_carrying_the_tool(real_report: dict) -> None:
    """Recorded node lists come from the graph YAML itself (checked here without GraphConfig)."""
    graphs = {p.stem: read_yaml(p.read_text(encoding="utf-8")) for p in GRAPHS_DIR.glob("*.yaml")}
    for entry in real_report["tasks"]:
        nodes = graphs[entry["domain"]]["nodes"]
        for decl in entry["declarations"]:
            assert decl["nodes"] == [n["name"] for n in nodes if decl["tool"] in (n.get("tools") or [])]


def test_input_hashes_match_the_files(real_report: dict) -> None:
    inputs = real_report["inputs"]
    domains = {t["domain"] for t in real_report["tasks"]} | set(real_report["summary"]["domains"])
    expected = {f"contracts/tasks/{p.name}" for p in TASKS_DIR.glob("*.yaml")} | {f"contracts/graphs/{d}.yaml" for d in domains}
    assert set(inputs) == expected
    for rel, digest in inputs.items():
        assert digest == _sha256(ROOT / rel), rel


def test_source_revision_and_timestamp(real_report: dict) -> None:
    rev = real_report["source_revision"]
    assert set(rev) == {"commit", "dirty"}
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    assert rev["commit"] == head
    assert real_report["generated_at"].endswith("+00:00")


def test_synthetic_catalog_counts_unmatched_and_duplicates(tmp_path: Path) -> None:
    tasks_dir, graphs_dir = _synthetic(tmp_path / "counts")
    report = audit_script.audit(tasks_dir, graphs_dir)

    summary = report["summary"]
    assert (summary["tasks"], summary["tasks_with_forbidden_actions"]) == (3, 2)
    assert (summary["declarations"], summary["matched"], summary["unmatched"]) == (3, 2, 1)
    assert summary["domains"]["payments"]["unmatched"] == 1
    assert summary["unmatched_declarations"] == [{"task_id": "payments_audit_unknown_tool_01", "tool": "wire_money_abroad"}]

    by_id = {t["task_id"]: t["declarations"] for t in report["tasks"]}
    assert set(by_id) == {"payments_audit_unknown_tool_01", "payments_audit_twice_forbidden_02"}
    assert by_id["payments_audit_unknown_tool_01"] == [{"tool": "wire_money_abroad", "matched": False, "nodes": []}]
    assert by_id["payments_audit_twice_forbidden_02"] == [{"tool": "process_payment", "matched": True, "nodes": ["checkout"]}] * 2

    assert report["inputs"] == {
        "tasks/payments.yaml": _sha256(tasks_dir / "payments.yaml"),
        "graphs/payments.yaml": _sha256(graphs_dir / "payments.yaml"),
    }


def test_main_exit_code_1_and_writes_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tasks_dir, graphs_dir = _synthetic(tmp_path / "exit1")
    out = tmp_path / "new" / "evidence" / "audit.json"
    code = audit_script.main(["--out", str(out), "--tasks-dir", str(tasks_dir), "--graphs-dir", str(graphs_dir)])
    assert code == 1
    written = json.loads(out.read_text(encoding="utf-8"))
    assert written["summary"]["unmatched"] == 1
    assert [p.name for p in out.parent.iterdir()] == ["audit.json"]  # no temp file left behind
    printed = capsys.readouterr().out
    assert "1 unmatched" in printed and "wire_money_abroad" in printed


def test_main_exit_code_0_when_all_match(tmp_path: Path) -> None:
    body = SYNTHETIC_TASKS.replace("forbidden_actions: [wire_money_abroad]", "forbidden_actions: [refund_payment]")
    tasks_dir, graphs_dir = _synthetic(tmp_path / "exit0", body)
    out = tmp_path / "audit.json"
    assert audit_script.main(["--out", str(out), "--tasks-dir", str(tasks_dir), "--graphs-dir", str(graphs_dir)]) == 0
    decls = json.loads(out.read_text(encoding="utf-8"))["tasks"][0]["declarations"]
    assert decls == [{"tool": "refund_payment", "matched": True, "nodes": ["refunds_disputes"]}]


def test_main_exit_code_2_on_loading_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tasks_dir, graphs_dir = _synthetic(tmp_path / "nograph")
    (graphs_dir / "payments.yaml").unlink()
    out = tmp_path / "audit.json"
    assert audit_script.main(["--out", str(out), "--tasks-dir", str(tasks_dir), "--graphs-dir", str(graphs_dir)]) == 2
    assert "no graph config for domain 'payments'" in capsys.readouterr().err
    assert not out.exists()

    bad_tasks, bad_graphs = _synthetic(tmp_path / "badtask", SYNTHETIC_TASKS.replace("difficulty: easy", "difficulty: trivial", 1))
    assert audit_script.main(["--out", str(out), "--tasks-dir", str(bad_tasks), "--graphs-dir", str(bad_graphs)]) == 2
    assert "payments_audit_unknown_tool_01" in capsys.readouterr().err
    assert not out.exists()


def test_runs_as_a_script_from_another_directory(tmp_path: Path) -> None:
    tasks_dir, graphs_dir = _synthetic(tmp_path / "script")
    out = tmp_path / "audit.json"
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(out), "--tasks-dir", str(tasks_dir), "--graphs-dir", str(graphs_dir)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    assert json.loads(out.read_text(encoding="utf-8"))["summary"]["matched"] == 2

"""A synthetic 16-system × 3-round world to check that the report stays legible at the paper's scale.

Builds a 555-task catalog in 9 domains (clones of the real tasks under synthetic ids and domains), writes
16 systems × 3 rounds of run directories with deterministic, made-up outcomes (per-system skill, domain
and difficulty effects, round noise, non-convergence, hallucinated tools, a few ⊥ and ungraded trials, a
system with only two rounds, a partial run, unpriced open-weight models), and builds the report from them.
With --screenshots it also saves PNG screenshots of the HTML (headless Chromium) for the README.

    uv run python scripts/report_fixture.py --out /tmp/fixture-report [--screenshots docs/report-screenshots]

Nothing here is a measurement: the numbers are random draws, the point is how the report looks.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import shutil
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from contracts.catalog import load_catalog  # noqa: E402
from contracts.evidence import Message, RoutingDecision, ToolCallRecord  # noqa: E402
from contracts.schema import Task  # noqa: E402
from grader.verdicts import NON_CONVERGENCE, PRIMARY_PRIORITY, CheckVerdict, TrialVerdict  # noqa: E402
from harness.records import TrialKey, TrialRecord  # noqa: E402
from harness.report.build import build_report  # noqa: E402
from harness.rundir import RunDirectory  # noqa: E402
from models.prices import DEFAULT_PRICE_TABLE, PriceTable  # noqa: E402
from models.types import Usage  # noqa: E402

DOMAINS = {"payments": 70, "retail": 66, "support": 60, "onboarding": 58, "billing": 64, "logistics": 62, "lending": 59, "insurance": 56, "travel": 60}
"""555 tasks in 9 domains, as in the paper."""

SYSTEMS: list[tuple[str, str | None, float]] = [
    ("graph", "openai:gpt-5", 0.84), ("graph", "anthropic:claude-opus-4-1", 0.83), ("graph", "anthropic:claude-sonnet-4-5", 0.81),
    ("graph", "openai:gpt-5-mini", 0.81), ("graph", "openai:gpt-4.1", 0.79), ("graph", "anthropic:claude-haiku-4-5", 0.79),
    ("graph", "openai:gpt-4.1-mini", 0.74), ("graph", "openrouter:qwen3-235b-a22b", 0.72), ("graph", "openrouter:llama-4-maverick", 0.70),
    ("graph", "openai:gpt-5-nano", 0.68), ("graph", "openrouter:mistral-large-3", 0.67), ("pydantic-ai", "openai:gpt-5-mini", 0.66),
    ("graph", "openai:gpt-4.1-nano", 0.64), ("graph", "openrouter:nemotron-super-3-120b", 0.64), ("my-agent", None, 0.61),
    ("graph", "openrouter:muse-glimmer-30b", 0.66),
]
DOMAIN_EFFECT = {"payments": 0.03, "retail": 0.0, "support": -0.25, "onboarding": 0.08, "billing": 0.02, "logistics": -0.04, "lending": -0.06, "insurance": -0.02, "travel": 0.01}
DIFFICULTY_EFFECT = {"easy": 0.09, "medium": 0.0, "hard": -0.14}
WEIGHTS = {"action": 0.5, "reply": 0.17, "params": 0.1, "state": 0.08, "forbidden": 0.06, "order": 0.04, "collateral": 0.05}


def synthetic_catalog(per_domain: int | None = None) -> dict[str, Task]:
    """555 tasks in 9 domains (or `per_domain` tasks in each, for a quick test)."""
    real = sorted(load_catalog().values(), key=lambda t: t.id)
    catalog: dict[str, Task] = {}
    i = 0
    for domain, count in DOMAINS.items():
        for n in range(per_domain or count):
            base = real[i % len(real)]
            i += 1
            task_id = f"{domain}_{base.capabilities[0]}_{n + 1:02d}"
            catalog[task_id] = base.model_copy(update={"id": task_id, "domain": domain, "capabilities": [f"{domain}:{c}" for c in base.capabilities]})
    return catalog


def lock_for(catalog: dict[str, Task]) -> dict[str, Any]:
    digest = hashlib.sha256(json.dumps(sorted(catalog), sort_keys=True).encode()).hexdigest()
    return {"benchmark": "crm-agent-bench", "version": "synthetic-555", "catalog_sha256": digest}


def declared(task: Task) -> list[str]:
    c = task.contract
    out = []
    for component, present in (("action", c.expected_actions), ("params", c.expected_params), ("order", c.order), ("state", c.expected_state),
                               ("reply", c.reply_criteria), ("forbidden", c.forbidden_actions or c.forbidden_params), ("collateral", c.only_changes)):
        if present:
            out.append(component)
    return out or ["action"]


def payment(account: str, amount: float) -> dict[str, Any]:
    return {"account_id": account, "amount": amount, "method": "account_balance", "merchant": "Synthetic Store"}


def record(task: Task, agent: str, model: str | None, round_index: int, rng: random.Random, skill: float, judge_flaky: bool = False) -> TrialRecord:
    key = TrialKey(task_id=task.id, round=round_index, seed=rng.randrange(2**31))
    components = declared(task)
    p = skill + DOMAIN_EFFECT[task.domain] + DIFFICULTY_EFFECT[task.difficulty]
    roll = rng.random()
    usage = {"agent": Usage(prompt_tokens=rng.randint(6_000, 30_000), completion_tokens=rng.randint(300, 2_000), calls=rng.randint(2, 8)),
             # every model role, so the report prices the whole run: the user simulator and the judge are a real share of it
             "user": Usage(prompt_tokens=rng.randint(3_000, 12_000), completion_tokens=rng.randint(100, 600), calls=rng.randint(1, 4)),
             "judge": Usage(prompt_tokens=rng.randint(2_000, 6_000), completion_tokens=rng.randint(50, 300), calls=1)}
    if agent == "graph":
        usage["router"] = Usage(prompt_tokens=rng.randint(1_000, 4_000), completion_tokens=rng.randint(10, 60), calls=rng.randint(1, 4))
    base: dict[str, Any] = {
        "record_format": 2, "key": key, "domain": task.domain, "difficulty": task.difficulty, "capabilities": task.capabilities, "agent": agent,
        "usage": usage, "models": {**({"agent": model} if model else {}), **({"router": model} if model and agent == "graph" else {}),
                                   "user": "openai:gpt-5-mini", "judge": "openai:gpt-5-mini"}, "user_turns": rng.randint(1, 4), "wall_s": rng.uniform(5, 60),
    }
    rng.randrange(900)  # keeps the draws (and so every outcome) as they were before the account was tied to the task
    account = f"ACC-{1000 + int(hashlib.sha256(task.id.encode()).hexdigest(), 16) % 900}"  # the same in every trial of a task: diffs line up
    initial = {"accounts": {account: {"balance": 500, "status": "active", "loyalty_points": 100}}}
    conversation = [Message(role="user", content=task.instruction, turn=0),
                    Message(role="assistant", content=f"I looked at {account} and took care of it.", turn=0)]
    routing = [RoutingDecision(turn=0, node=task.domain.split(":")[0] + "_expert", reason="request matches the node's tools")]
    tools = [ToolCallRecord(seq=0, turn=0, tool="get_account_balance", arguments={"account_id": account}, status="executed", result={"id": account, "balance": 500})]
    if rng.random() < 0.004:
        return TrialRecord(**base, status="infra_error", strict=None, failure_class="infra:provider_timeout", error="provider timed out after 3 retries",
                           conversation=conversation[:1], routing=routing, initial_state=initial)
    if roll < p:
        final = {"accounts": {account: {"balance": 450, "status": "active", "loyalty_points": 110}}}
        checks = [CheckVerdict(component=c, check=f"{c}[0]", passed=True, reason=f"{c} as declared") for c in components]
        verdict = TrialVerdict(task_id=task.id, checks=checks, components=dict.fromkeys(components, True), strict=True, primary_failure=None)
        tools.append(ToolCallRecord(seq=1, turn=0, tool="process_payment", arguments=payment(account, 50.0), status="executed", result={"transaction_id": "TXN-1"}))
        return TrialRecord(**base, status="scored", strict=True, verdict=verdict, conversation=conversation, routing=routing, tool_trace=tools,
                           initial_state=initial, final_state=final)
    final = {"accounts": {account: {"balance": 400, "status": "active", "loyalty_points": 100}}}
    kind = rng.random()
    failing: dict[str, bool] = dict.fromkeys(components, True)
    failure_class = execution = None
    hallucinated: list[str] = []
    ungraded = None
    if kind < 0.05:
        failure_class, execution = f"model:{NON_CONVERGENCE}", f"{NON_CONVERGENCE}: user-turn limit reached"
        for c in components:
            failing[c] = rng.random() < 0.5
    elif kind < 0.07:
        failure_class, hallucinated = "model:hallucinated_tool", ["refund_everything"]
        tools.append(ToolCallRecord(seq=1, turn=0, tool="refund_everything", arguments={}, status="unknown_tool", error="no such tool"))
    elif kind < 0.08 and judge_flaky:
        ungraded = "judge failed after 3 retries (rate limited)"
        failing["reply"] = False if "reply" in failing else failing.get("action", True)
    else:
        tools.append(ToolCallRecord(seq=1, turn=0, tool="process_payment", arguments=payment(account, 100.0), status="executed", result={"transaction_id": "TXN-1"}))
        choices = [c for c in components]
        first = rng.choices(choices, weights=[WEIGHTS[c] for c in choices])[0]
        failing[first] = False
        for c in components:
            if c != first and rng.random() < 0.15:
                failing[c] = False
    checks = [CheckVerdict(component=c, check=f"{c}[0]", passed=ok, reason=f"{c} as declared" if ok else f"{c}: expected the declared value, got another",
                           diff=None if ok else f"accounts.{account}.balance: expected 450, got 400") for c, ok in failing.items()]
    if failure_class == f"model:{NON_CONVERGENCE}":
        primary = NON_CONVERGENCE
    else:
        primary = next((c for c in PRIMARY_PRIORITY if failing.get(c) is False), "tool_call_error")
    verdict = TrialVerdict(task_id=task.id, checks=checks, components=failing, strict=False, primary_failure=primary, model_failure=execution)
    return TrialRecord(**base, status="scored", strict=False, verdict=verdict, failure_class=failure_class, execution_failure=execution,
                       hallucinated_tools=hallucinated, ungraded=ungraded, conversation=conversation, routing=routing, tool_trace=tools,
                       initial_state=initial, final_state=final)


def manifest(agent: str, model: str | None, lock: dict[str, Any], started: str, rounds: int, tasks: int, domains: list[str] | None = None) -> dict[str, Any]:
    plan = {"agent": agent, "agent_kind": "graph" if agent == "graph" else ("pydantic-ai" if agent == "pydantic-ai" else "plugin"),
            "agent_model": model, "router_model": model if agent == "graph" else None, "user": "llm", "user_model": "openai:gpt-5-mini",
            "judge": "llm", "judge_model": "openai:gpt-5-mini", "offline": False, "notes": []}
    config = {"agent": agent, "agent_model": model, "max_turns": 30, "task_timeout_s": 1200.0, "user_model": "openai:gpt-5-mini", "judge_model": "openai:gpt-5-mini",
              "domain": domains or [], "task": [], "capability": [], "difficulty": [], "rounds": rounds}
    return {"benchmark": lock["benchmark"], "dataset_version": lock["version"], "dataset_lock_sha256": lock["catalog_sha256"],
            "git": {"commit": "0123456789abcdef", "dirty": False}, "config": config, "config_hash": hashlib.sha256(json.dumps([plan, config]).encode()).hexdigest()[:16],
            "plan": plan, "models": {k: v for k, v in {"agent": model, "router": plan["router_model"], "user": plan["user_model"], "judge": plan["judge_model"]}.items() if v},
            "tasks_selected": tasks, "rounds": rounds, "started_at": started,
            "price_table": PriceTable.load(DEFAULT_PRICE_TABLE).model_dump(mode="json")}


def write_world(root: Path, catalog: dict[str, Task], lock: dict[str, Any]) -> list[Path]:
    if root.exists():
        shutil.rmtree(root)
    paths = []
    for number, (agent, model, skill) in enumerate(SYSTEMS):
        rounds = 2 if number == 9 else 3
        for r in range(rounds):
            rng = random.Random(f"{agent}-{model}-{r}")
            path = root / f"{agent}-{(model or 'none').replace(':', '_')}-round{r + 1}"
            started = f"2026-11-{10 + r:02d}T0{number % 10}:00:00+00:00"
            directory = RunDirectory(path)
            path.mkdir(parents=True)
            tasks = list(catalog.values())
            selection = None
            if number == 14 and r == 0:  # a partial run: --domain left one domain out
                selection = [d for d in DOMAINS if d != "travel"]
                tasks = [t for t in tasks if t.domain in selection]
            (path / "manifest.json").write_text(json.dumps(manifest(agent, model, lock, started, 1, len(tasks), selection), indent=1))
            noise = rng.gauss(0, 0.012)
            for task in tasks:
                directory.save(record(task, agent, model, 0, rng, skill + noise, judge_flaky=number == 6 and r == 2))
            paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("/tmp/crmbench-fixture-report"))
    parser.add_argument("--runs", type=Path, default=None, help="where to write the synthetic run directories (default: OUT/../<name>-runs)")
    parser.add_argument("--screenshots", type=Path, default=None, help="save screenshots of the HTML here (needs chromium)")
    parser.add_argument("--per-domain", type=int, default=None, help="tasks per domain (default: the paper's 555 in 9 domains)")
    args = parser.parse_args()
    catalog = synthetic_catalog(args.per_domain)
    lock = lock_for(catalog)
    runs_root = args.runs or args.out.parent / f"{args.out.name}-runs"
    paths = write_world(runs_root, catalog, lock)
    report = build_report(paths, args.out, catalog=catalog, lock=lock)
    print(f"{len(paths)} run directories in {runs_root}; report: {report.html_path}")
    if args.screenshots:
        screenshots(report.html_path, args.screenshots, report.figures)


DIFF_SHOT = """(function(){
  var pane = document.getElementById('trial'), shot = document.createElement('div');
  shot.id = 'diff-shot'; shot.style.cssText = 'position:absolute;left:0;top:0;width:1150px;background:#fff;padding:8px;z-index:9';
  var title = pane.querySelector('h3').cloneNode(true); shot.appendChild(title);
  var take = false;
  Array.prototype.forEach.call(pane.children, function (node) {
    if (node.tagName === 'H4') { take = node.textContent.indexOf('Diff against') === 0; }
    if (take) { shot.appendChild(node.cloneNode(true)); }
  });
  var box = document.createElement('div'); box.id = 'trial'; box.appendChild(shot);
  box.style.cssText = 'border:0;max-height:none;overflow:visible';
  document.body.appendChild(box); window.scrollTo(0, 0);
})()"""


def screenshots(html_path: Path, target: Path, figures: dict[str, bytes]) -> None:
    from harness.report.headless import Page, find_chromium

    browser = find_chromium()
    if browser is None:
        raise SystemExit("chromium is not installed (apt-get install -y chromium)")
    target.mkdir(parents=True, exist_ok=True)
    for name, png in figures.items():
        (target / f"{name}.png").write_bytes(png)
    with Page(browser, width=1400, height=1000) as page:
        page.goto(html_path.resolve().as_uri())
        page.wait_for("document.getElementById('explorer').getAttribute('data-ready')")
        page.screenshot(target / "leaderboard.png", selector="#leaderboard")
        for key in ("costs", "pass_k", "neighbours"):
            page.screenshot(target / f"{key}.png", selector=f"#{key}")
        page.screenshot(target / "provenance.png", selector="#provenance")
        page.evaluate("(function(){var f=document.querySelector('#explorer-filters');"
                      "var s=f.querySelector('[name=outcome]'); s.value='fail'; s.dispatchEvent(new Event('input',{bubbles:true}));"
                      "var d=f.querySelector('[name=domain]'); d.value='support'; d.dispatchEvent(new Event('input',{bubbles:true}));})()")
        page.evaluate("document.querySelector('#explorer-rows tr').click()")
        page.wait_for("document.getElementById('trial').getAttribute('data-trial')")
        page.evaluate("document.getElementById('explorer').scrollIntoView()")
        page.screenshot(target / "explorer.png", selector="#explorer")
        # a failed payments trial's diffs (against the gold path and a passing trial), copied out of the scrolling pane
        page.evaluate("(function(){var f=document.querySelector('#explorer-filters');"
                      "var d=f.querySelector('[name=domain]'); d.value='payments'; d.dispatchEvent(new Event('input',{bubbles:true}));"
                      "var l=f.querySelector('[name=label]'); l.value='params'; l.dispatchEvent(new Event('input',{bubbles:true}));})()")
        page.evaluate("document.querySelector('#explorer-rows tr').click()")
        page.wait_for("document.getElementById('trial').innerText.indexOf('Diff against') >= 0")
        page.evaluate(DIFF_SHOT)
        page.screenshot(target / "explorer_diff.png", selector="#diff-shot")
        if page.errors:
            raise SystemExit(f"the page reported errors: {page.errors}")
    print(f"screenshots in {target}")


if __name__ == "__main__":
    main()

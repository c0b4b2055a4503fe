"""Bad inputs, tried: every case runs `crmbench …` in this process and must end with exit code 2 and an
`error: …` sentence on stderr (naming the file, task, field or flag), never a traceback (issue 28).

    uv run python scripts/bad_inputs.py          # prints each case and the figure: N tried, 0 tracebacks

`tests/test_bad_inputs.py` runs the same cases; docs/guarantees.md keeps the table of the kinds.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TASK = "payments_balance_inquiry_01"


@dataclass(frozen=True)
class Outcome:
    name: str
    code: int | None
    stderr: str
    traceback: bool

    @property
    def error_line(self) -> str:
        """The one `error: …` line (notes printed before it are allowed; details may follow it)."""
        lines = [line for line in self.stderr.splitlines() if line.startswith("error: ")]
        return lines[0] if len(lines) == 1 else ""

    @property
    def ok(self) -> bool:
        return self.code == 2 and not self.traceback and len(self.error_line) > len("error: ") + 10


@dataclass(frozen=True)
class Case:
    name: str
    argv: Callable[[Path], list[str]]
    """Given a scratch directory, the arguments of `crmbench`."""
    task_file: Callable[[Path], Path] | None = None
    """Run with the catalog read from this task file only (a bad one)."""
    expect: str = ""
    """A phrase the error must contain (the file, task, field or flag it names)."""


def _payments_yaml() -> str:
    return (ROOT / "contracts" / "tasks" / "payments.yaml").read_text(encoding="utf-8")


@functools.cache
def _payments_task() -> str:
    """payments.yaml reduced to TASK, as YAML text: read once (the whole file is most of a case's time), and
    parsed again by each case so that no edit reaches another."""
    import yaml

    from contracts.yaml_io import read_yaml

    data = read_yaml(_payments_yaml())
    assert isinstance(data, dict)
    data["tasks"] = [next(t for t in data["tasks"] if t["id"] == TASK)]
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def _one_task_file(tmp: Path, edit: Callable[[dict], None], name: str = "payments.yaml") -> Path:
    """payments.yaml reduced to one task, edited, written to `tmp/name`."""
    import yaml

    from contracts.yaml_io import read_yaml

    data = read_yaml(_payments_task())
    assert isinstance(data, dict)
    edit(data["tasks"][0])
    path = tmp / "tasks" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def _raw_task_file(tmp: Path, content: bytes, name: str = "payments.yaml") -> Path:
    path = tmp / "tasks" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return path


def _set(path: str, value: object) -> Callable[[dict], None]:
    def edit(task: dict) -> None:
        node = task
        parts = path.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {}) if isinstance(node, dict) else node[int(part)]
        if isinstance(node, list):
            node[int(parts[-1])] = value
        else:
            node[parts[-1]] = value

    return edit


def _drop(key: str) -> Callable[[dict], None]:
    return lambda task: task.pop(key, None)


def _file(tmp: Path, name: str, text: str) -> Path:
    path = tmp / name
    path.write_text(text, encoding="utf-8")
    return path


def _run(*extra: str) -> Callable[[Path], list[str]]:
    return lambda tmp: ["run", "--task", TASK, "--out", str(tmp / "run"), *extra]


def _bad_task(name: str, edit: Callable[[dict], None], expect: str = "") -> Case:
    return Case(f"task file: {name}", _run(), task_file=lambda tmp: _one_task_file(tmp, edit), expect=expect or TASK)


GOLD_CALL = "gold.0.calls.0"
CASES: list[Case] = [
    # ---- run: flags
    Case("run --concurrency 0", _run("--concurrency", "0"), expect="--concurrency"),
    Case("run --max-turns many", _run("--max-turns", "many"), expect="--max-turns"),
    Case("run --rounds 0", _run("--rounds", "0"), expect="--rounds"),
    Case("run --task-timeout-s -1", _run("--task-timeout-s", "-1"), expect="--task-timeout-s"),
    Case("run --task-timeout-s nan", _run("--task-timeout-s", "nan"), expect="--task-timeout-s"),
    Case("run --workers 0", _run("--workers", "0"), expect="--workers"),
    Case("run --executor nope", _run("--executor", "nope"), expect="--executor"),
    Case("run --difficulty extreme", _run("--difficulty", "extreme"), expect="--difficulty"),
    Case("run --user nope", _run("--user", "nope"), expect="--user"),
    Case("run --judge nope", _run("--judge", "nope"), expect="--judge"),
    Case("run --in-process-tools nope", _run("--in-process-tools", "nope"), expect="--in-process-tools"),
    Case("run --base-seed x", _run("--base-seed", "x"), expect="--base-seed"),
    Case("run --agent-temperature hot", _run("--agent-temperature", "hot"), expect="--agent-temperature"),
    Case("run --max-iterations 0", _run("--max-iterations", "0"), expect="--max-iterations"),
    Case("run --infra-retries -1", _run("--infra-retries", "-1"), expect="--infra-retries"),
    Case("run --provider-concurrency 0", _run("--provider-concurrency", "0"), expect="--provider-concurrency"),
    Case("run --nope", _run("--nope"), expect="--nope"),
    Case("run --domain nope", lambda tmp: ["run", "--domain", "nope", "--out", str(tmp / "run")], expect="'nope'"),
    Case("run --task nosuch", lambda tmp: ["run", "--task", "nosuch_task", "--out", str(tmp / "run")], expect="nosuch_task"),
    Case("run --capability nosuch", lambda tmp: ["run", "--capability", "nosuch", "--out", str(tmp / "run")], expect="no task"),
    Case("run --agent-config notjson", _run("--agent-config", "notjson"), expect="--agent-config"),
    Case("run --agent-config [1,2]", _run("--agent-config", "[1, 2]"), expect="--agent-config"),
    Case("run --agent-config '\"s\"'", _run("--agent-config", '"s"'), expect="--agent-config"),
    Case("run --agent nosuch", _run("--agent", "nosuch"), expect="nosuch"),
    Case("run --agent mod:Nope", _run("--agent", "tests.fixtures.my_agent:Nope"), expect="Nope"),
    Case("run --agent nomodule:X", _run("--agent", "no_such_module_xyz:X"), expect="no_such_module_xyz"),
    Case("run --agent pathlib:Path", _run("--agent", "pathlib:Path"), expect="Agent protocol"),
    Case("run --agent process without command", _run("--agent", "process"), expect="--agent-command"),
    Case("run --agent process --agent-command ''", _run("--agent", "process", "--agent-command", ""), expect="--agent-command"),
    Case("run --agent process, missing program", _run("--agent", "process", "--agent-command", "/no/such/program"), expect="/no/such/program"),
    Case("run --agent script without --script", _run("--agent", "script"), expect="--script"),
    Case("run --script missing", lambda tmp: _run("--agent", "script", "--script", str(tmp / "none.yaml"))(tmp), expect="none.yaml"),
    Case("run --script malformed", lambda tmp: _run("--agent", "script", "--script", str(_file(tmp, "s.yaml", "tasks: [")))(tmp), expect="s.yaml"),
    Case("run --script wrong shape", lambda tmp: _run("--agent", "script", "--script", str(_file(tmp, "w.yaml", "tasks: 3")))(tmp), expect="w.yaml"),
    Case("run --script without the task", lambda tmp: _run("--agent", "script", "--script", str(_file(tmp, "o.yaml", "tasks: {}")))(tmp), expect=TASK),
    Case("run --agent-model no-colon", _run("--agent-model", "gpt5"), expect="provider:model"),
    Case("run --agent-model unknown provider", _run("--agent-model", "nosuch:model", "--user", "scripted", "--judge", "evidence"), expect="nosuch"),
    Case("run --agent-model without a key", _run("--agent-model", "openai:gpt-5-mini"), expect="OPENAI_API_KEY"),
    Case("run --agent-model unknown provider, no simulator key", _run("--agent-model", "nosuchprov:x"), expect="unknown model provider 'nosuchprov'"),
    Case("run --offline --agent graph", _run("--offline", "--agent", "graph"), expect="--offline"),
    Case("run --price-table missing", lambda tmp: _run("--price-table", str(tmp / "p.yaml"))(tmp), expect="p.yaml"),
    Case("run --price-table malformed", lambda tmp: _run("--price-table", str(_file(tmp, "p.yaml", "models: [")))(tmp), expect="p.yaml"),
    Case("run --price-table wrong shape", lambda tmp: _run("--price-table", str(_file(tmp, "q.yaml", "models: {m: {input: x}}")))(tmp), expect="q.yaml"),
    Case("run --out on a file", lambda tmp: ["run", "--task", TASK, "--out", str(_file(tmp, "f.txt", "x"))], expect="f.txt"),
    Case("run --out under a file", lambda tmp: ["run", "--task", TASK, "--out", str(_file(tmp, "g.txt", "x") / "run")], expect="g.txt"),
    Case("run --out unwritable", lambda tmp: ["run", "--task", TASK, "--out", "/proc/crmbench-run"], expect="/proc/crmbench-run"),
    Case("run --agent-env with a value", _run("--agent", "process", "--agent-command", "true", "--agent-env", "KEY=secret"), expect="--agent-env"),
    # ---- run: bad task files
    Case("task file: not UTF-8", _run(), task_file=lambda tmp: _raw_task_file(tmp, _payments_yaml().encode()[:200] + b"\xff\xfe bad\n"), expect="payments.yaml"),
    Case("task file: invalid YAML", _run(), task_file=lambda tmp: _raw_task_file(tmp, b"domain: payments\ntasks: [ {id: x,\n"), expect="payments.yaml"),
    Case("task file: not a mapping", _run(), task_file=lambda tmp: _raw_task_file(tmp, b"- 1\n- 2\n"), expect="payments.yaml"),
    Case("task file: empty", _run(), task_file=lambda tmp: _raw_task_file(tmp, b""), expect="payments.yaml"),
    _bad_task("NaN in initial_state", _set("initial_state", {"accounts": {"ACC-1005": {"balance": float("nan")}}}), "non-finite"),
    _bad_task("Infinity in initial_state", _set("initial_state", {"accounts": {"ACC-1005": {"balance": float("inf")}}}), "non-finite"),
    _bad_task("misspelled initial_state root", _set("initial_state", {"acounts": {}}), "acounts"),
    _bad_task("misspelled initial_state field", _set("initial_state", {"accounts": {"ACC-1005": {"balanse": 1.0}}}), "balanse"),
    _bad_task("wrong type in initial_state", _set("initial_state", {"accounts": {"ACC-1005": {"balance": "lots"}}}), "initial_state"),
    _bad_task("initial_state not a mapping", _set("initial_state", [1, 2]), "initial_state"),
    _bad_task("dangling gold reference", _set(f"{GOLD_CALL}.args.account_id", "${nosuch_tool.id}"), "nosuch_tool"),
    _bad_task("gold reference to a later call", _set(f"{GOLD_CALL}.args.account_id", "${get_account_balance.account_id}"), "dangles"),
    _bad_task("gold calls an unknown tool", _set(f"{GOLD_CALL}.tool", "teleport_money"), "teleport_money"),
    _bad_task("gold argument unknown", _set(f"{GOLD_CALL}.args", {"acct": "ACC-1005"}), "acct"),
    _bad_task("gold argument wrong type", _set(f"{GOLD_CALL}.args", {"account_id": 5}), "account_id"),
    _bad_task("gold argument blank", _set(f"{GOLD_CALL}.args", {"account_id": ""}), "account_id"),
    _bad_task("gold argument only whitespace", _set(f"{GOLD_CALL}.args", {"account_id": "   "}), "must not be blank"),
    _bad_task("gold write with a blank reason", _set(GOLD_CALL, {"tool": "freeze_account", "args": {"account_id": "ACC-1005", "reason": " "}}), "freeze_account.reason"),
    _bad_task("expected params with a blank id", _set("contract.expected_params", [{"tool": "get_account_balance", "params": {"account_id": ""}}]), "account_id"),
    _bad_task("gold argument NaN", _set(f"{GOLD_CALL}.args", {"account_id": float("nan")}), "non-finite"),
    _bad_task("unknown difficulty", _set("difficulty", "extreme"), "difficulty"),
    _bad_task("capabilities not a list", _set("capabilities", 5), "capabilities"),
    _bad_task("unknown capability", _set("capabilities", ["teleportation"]), "teleportation"),
    _bad_task("missing contract", _drop("contract"), "contract"),
    _bad_task("missing id", _drop("id"), "id"),
    _bad_task("missing instruction", _drop("instruction"), "instruction"),
    _bad_task("unknown top-level field", _set("instrucion", "typo"), "instrucion"),
    _bad_task("forbidden action unknown", _set("contract.forbidden_actions", ["teleport_money"]), "teleport_money"),
    _bad_task("expected action unknown", _set("contract.expected_actions", [{"tool": "teleport_money"}]), "teleport_money"),
    _bad_task("expected params unknown argument", _set("contract.expected_params", [{"tool": "get_account_balance", "params": {"acct": "x"}}]), "acct"),
    _bad_task("state path unknown root", _set("contract.expected_state", [{"path": "nowhere.x", "equals": 1}]), "nowhere"),
    _bad_task("protected path missing", _set("contract.protected_state", ["accounts.ACC-NOPE.balance"]), "ACC-NOPE"),
    _bad_task("domain differs from the file's", _set("domain", "retail"), "domain"),
    _bad_task("NaN in a contract", _set("contract.expected_state", [{"path": "accounts.ACC-1005.balance", "equals": float("nan")}]), "non-finite"),
    Case("task file: duplicate id", _run(), task_file=lambda tmp: _dup_file(tmp), expect="duplicate"),
    # ---- report / compare / grade
    Case("report: no such run", lambda tmp: ["report", str(tmp / "nope"), "--out", str(tmp / "r")], expect="nope"),
    Case("report: not a run directory", lambda tmp: ["report", str(tmp), "--out", str(tmp / "r")], expect=""),
    Case("report --out on a file", lambda tmp: ["report", str(_offline_run(tmp)), "--out", str(_file(tmp, "r.txt", "x"))], expect="r.txt"),
    Case("report --label without =", lambda tmp: ["report", "--label", "nameonly", "--out", str(tmp / "r")], expect="--label"),
    Case("report --label missing run", lambda tmp: ["report", "--label", f"x={tmp / 'nope'}", "--out", str(tmp / "r")], expect="nope"),
    Case("report --price-table missing", lambda tmp: ["report", str(_offline_run(tmp)), "--price-table", str(tmp / "p.yaml"), "--out", str(tmp / "r")], expect="p.yaml"),
    Case("report --card unknown task", lambda tmp: ["report", str(_offline_run(tmp)), "--card", "nosuch_task", "--out", str(tmp / "r")], expect="nosuch_task"),
    Case("report: no runs at all", lambda tmp: ["report", "--out", str(tmp / "r")], expect=""),
    Case("compare: no such runs", lambda tmp: ["compare", str(tmp / "a"), str(tmp / "b")], expect=""),
    Case("compare: one argument", lambda tmp: ["compare", str(tmp / "a")], expect=""),
    Case("grade: no such run", lambda tmp: ["grade", str(tmp / "nope")], expect="nope"),
    Case("grade --judge nope", lambda tmp: ["grade", str(tmp / "nope"), "--judge", "nope"], expect="--judge"),
    # ---- serve / stdio / tasks / suggest / validate
    Case("serve --domain atlantis", lambda tmp: ["serve", "--domain", "atlantis"], expect="atlantis"),
    Case("serve --port 70000", lambda tmp: ["serve", "--port", "70000"], expect="--port"),
    Case("serve --task nosuch", lambda tmp: ["serve", "--task", "no_such_task"], expect="no_such_task"),
    Case("serve --transport nope", lambda tmp: ["serve", "--transport", "nope"], expect="--transport"),
    Case("serve --log-level LOUD", lambda tmp: ["serve", "--log-level", "LOUD"], expect="--log-level"),
    Case("stdio --domain atlantis", lambda tmp: ["stdio", "--domain", "atlantis"], expect="atlantis"),
    Case("stdio --port 1 (an HTTP flag)", lambda tmp: ["stdio", "--domain", "payments", "--port", "1"], expect="--port"),
    Case("tasks --domain atlantis", lambda tmp: ["tasks", "--domain", "atlantis"], expect="atlantis"),
    Case("suggest --task nosuch", lambda tmp: ["suggest", "--task", "no_such_task"], expect="no_such_task"),
    Case("validate --tasks-dir missing", lambda tmp: ["validate", "--tasks-dir", str(tmp / "none")], expect="none"),
    Case("validate: not UTF-8", lambda tmp: ["validate", "--tasks-dir", str(_raw_task_file(tmp, b"domain: payments\n\xff\n").parent)], expect="payments.yaml"),
    Case("validate: invalid YAML", lambda tmp: ["validate", "--tasks-dir", str(_raw_task_file(tmp, b"tasks: [\n").parent)], expect="payments.yaml"),
    Case("validate --workers -1", lambda tmp: ["validate", "--workers", "-1"], expect="--workers"),
    Case("validate --domain atlantis", lambda tmp: ["validate", "--domain", "atlantis"], expect="atlantis"),
    Case("no such subcommand", lambda tmp: ["frobnicate"], expect="frobnicate"),
]


def _dup_file(tmp: Path) -> Path:
    import yaml

    path = _one_task_file(tmp, lambda task: None)
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["tasks"] = data["tasks"] * 2
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


_OFFLINE_RUN: dict[str, Path] = {}


def _offline_run(tmp: Path) -> Path:
    """One small offline run directory (made once per process), for the report cases."""
    if "run" not in _OFFLINE_RUN:
        from harness.cli import main

        out = Path(tempfile.mkdtemp(prefix="crmbench-bad-inputs-")) / "run"
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), contextlib.suppress(SystemExit):
            main(["run", "--task", TASK, "--out", str(out)])
        _OFFLINE_RUN["run"] = out
    return _OFFLINE_RUN["run"]


@contextlib.contextmanager
def _catalog_from(task_file: Path | None) -> Iterator[None]:
    import contracts.catalog as catalog

    if task_file is None:
        yield
        return
    original = catalog.task_files
    catalog.task_files = lambda tasks_dir=None: [task_file]  # type: ignore[assignment]
    catalog.load_catalog.cache_clear()
    try:
        yield
    finally:
        catalog.task_files = original  # type: ignore[assignment]
        catalog.load_catalog.cache_clear()


def try_case(case: Case, scratch: Path) -> Outcome:
    from harness.cli import main

    tmp = scratch / f"case-{abs(hash(case.name))}"
    tmp.mkdir(parents=True, exist_ok=True)
    stderr, stdout = io.StringIO(), io.StringIO()
    code: int | None = 0
    crashed = False
    env = {k: os.environ.pop(k) for k in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY") if k in os.environ}
    os.environ["CRMBENCH_ALLOW_STALE_LOCK"] = "1"
    try:
        argv = case.argv(tmp)
        task_file = case.task_file(tmp) if case.task_file else None
        with _catalog_from(task_file), contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(stdout):
            try:
                main(argv)
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except BaseException:  # noqa: BLE001 - that is what is being counted
        crashed = True
        stderr.write(traceback.format_exc())
    finally:
        os.environ.update(env)
    text = stderr.getvalue()
    if case.expect and case.expect not in text and code == 2 and not crashed:
        text = f"{text}\n(missing the expected phrase {case.expect!r})"
        code = -1
    return Outcome(case.name, code, text, crashed or "Traceback (most recent call last)" in text)


def try_all(scratch: Path | None = None) -> list[Outcome]:
    scratch = scratch or Path(tempfile.mkdtemp(prefix="crmbench-bad-inputs-"))
    return [try_case(case, scratch) for case in CASES]


def main() -> int:
    import logging

    logging.disable(logging.CRITICAL)
    outcomes = try_all()
    for outcome in outcomes:
        first = outcome.error_line or (outcome.stderr.strip().splitlines() or [""])[-1]
        print(f"{'ok ' if outcome.ok else 'BAD'} {outcome.name:<48} exit {outcome.code}  {first[:150]}")
    bad = [o for o in outcomes if not o.ok]
    tracebacks = sum(o.traceback for o in outcomes)
    print(json.dumps({"bad_inputs_tried": len(outcomes), "tracebacks": tracebacks, "not_a_clear_error": len(bad)}))
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""One CLI error style (issue 14): a sentence naming the file, task, field or flag, exit code 2, never a
traceback; `run` validates the selected tasks and the lock before it starts; one run per directory;
killing the wrapper stops the run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import anyio
import pytest
from rich.console import Console

import contracts.catalog as catalog
from harness.cli import main
from harness.rundir import RunDirectory
from harness.runner import run as run_module
from harness.runner.config import RunConfig
from harness.runner.run import CatalogInvalid, execute_run

ROOT = Path(__file__).resolve().parents[1]
TASK = "payments_balance_inquiry_01"
QUIET = Console(file=open("/dev/null", "w"), force_terminal=False)  # noqa: SIM115


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as info:
        main(list(args))
        raise SystemExit(0)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return int(info.value.code or 0), err


def test_bad_flag_values_name_the_flag(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = cli(capsys, "run", "--concurrency", "0")
    assert code == 2 and err.startswith("error: ") and "--concurrency" in err and "'0'" in err
    code, err = cli(capsys, "run", "--max-turns", "many")
    assert code == 2 and "--max-turns" in err
    code, err = cli(capsys, "run", "--domain", "nope")
    assert code == 2 and "'nope'" in err and "payments" in err


def test_malformed_yaml_names_the_file(capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = tmp_path / "broken.yaml"
    bad.write_text("domain: payments\ntasks: [ {id: x,\n", encoding="utf-8")
    monkeypatch.setattr(catalog, "task_files", lambda tasks_dir=None: [bad])
    catalog.load_catalog.cache_clear()
    try:
        code, err = cli(capsys, "tasks")
    finally:
        catalog.load_catalog.cache_clear()
    assert code == 2 and str(bad) in err and "invalid YAML" in err


def test_a_truncated_record_is_named_by_run_and_report(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "run"
    code, _ = cli(capsys, "run", "--task", TASK, "--out", str(out))
    assert code == 0
    [record] = (out / "trials").glob("*/*.json")
    record.write_bytes(record.read_bytes()[:100])
    code, err = cli(capsys, "run", "--task", TASK, "--out", str(out))
    assert code == 2 and str(record) in err and "truncated" in err and "delete it" in err
    code, err = cli(capsys, "report", str(out), "--out", str(tmp_path / "report"))
    assert code == 2 and str(record) in err


def test_a_changed_flag_on_resume_is_a_sentence(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert cli(capsys, "run", "--task", TASK, "--out", str(out))[0] == 0
    code, err = cli(capsys, "run", "--task", TASK, "--out", str(out), "--max-turns", "5")
    assert code == 2 and "different configuration" in err and str(out) in err and "--max-turns 30 -> 5" in err


def test_a_second_run_on_the_same_directory_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "run"
    holder = RunDirectory(out)
    holder.lock()  # another run holds the directory
    try:
        code, err = cli(capsys, "run", "--task", TASK, "--out", str(out))
    finally:
        holder.unlock()
    assert code == 2 and "in use by another run" in err and f"pid {os.getpid()}" in err
    assert not (out / "trials").exists()
    assert cli(capsys, "run", "--task", TASK, "--out", str(out))[0] == 0  # free again


def _run_with(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **update: object) -> None:
    task = catalog.get_task(TASK).model_copy(update=update)
    monkeypatch.setattr(run_module, "choose_tasks", lambda config: [task])
    anyio.run(lambda: execute_run(RunConfig(out=tmp_path / "run", task=[TASK]), console=QUIET))


def test_invalid_initial_state_is_refused_before_running(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(CatalogInvalid, match=f"{TASK}: initial_state does not validate"):
        _run_with(tmp_path, monkeypatch, initial_state={"accounts": {"ACC-1002": {"balance": "lots"}}})
    assert not (tmp_path / "run").exists()


def test_unknown_domain_is_refused_before_running(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(CatalogInvalid, match=f"task '{TASK}': unknown domain 'atlantis'"):
        _run_with(tmp_path, monkeypatch, domain="atlantis")


def test_a_contract_naming_an_unknown_tool_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    task = catalog.get_task(TASK)
    contract = task.contract.model_copy(update={"forbidden_actions": ["teleport_money"]})
    with pytest.raises(CatalogInvalid, match="teleport_money"):
        _run_with(tmp_path, monkeypatch, contract=contract)


def test_a_stale_lock_is_refused_unless_allowed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(run_module.ALLOW_STALE_LOCK_ENV, raising=False)  # the suite allows it by default
    real = run_module.stale_lock_files
    assert isinstance(real(["payments"]), list)
    monkeypatch.setattr(run_module, "stale_lock_files", lambda domains: ["tasks/payments.yaml"])
    with pytest.raises(CatalogInvalid, match="catalog lock does not match.*tasks/payments.yaml.*--allow-stale-lock"):
        anyio.run(lambda: execute_run(RunConfig(out=tmp_path / "a", task=[TASK]), console=QUIET))
    result = anyio.run(lambda: execute_run(RunConfig(out=tmp_path / "b", task=[TASK], allow_stale_lock=True), console=QUIET))
    assert result.records[0].strict


def test_killing_the_wrapper_stops_the_child(tmp_path: Path) -> None:
    """A wrapper (like `uv run`) is SIGKILLed: the process it started gets SIGTERM from the kernel."""
    marker = tmp_path / "child.pid"
    child = textwrap.dedent(
        f"""
        import os, sys, time
        sys.path.insert(0, {str(ROOT)!r})
        from harness.cli import follow_parent
        follow_parent(wrappers=None)
        open({str(marker)!r}, "w").write(str(os.getpid()))
        time.sleep(60)
        """
    )
    wrapper = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {child!r}])"
    proc = subprocess.Popen([sys.executable, "-c", wrapper])
    deadline = time.monotonic() + 60
    while not marker.exists() or not marker.read_text():
        assert time.monotonic() < deadline, "child did not start"
        time.sleep(0.05)
    pid = int(marker.read_text())
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    pytest.fail("the child outlived its wrapper")


def test_serve_errors_use_the_same_style(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = cli(capsys, "serve", "--domain", "atlantis")
    assert code == 2 and err.startswith("error: ") and "atlantis" in err
    code, err = cli(capsys, "serve", "--transport", "stdio", "--domain", "atlantis")  # as an MCP client starts it
    assert code == 2 and "unknown domain 'atlantis'; known: " in err and "payments" in err.split("known: ")[1]
    code, err = cli(capsys, "serve", "--task", "no_such_task")
    assert code == 2 and "no_such_task" in err


def test_tasks_with_an_unknown_domain(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = cli(capsys, "tasks", "--domain", "atlantis")
    assert code == 2 and "'atlantis'" in err and "payments" in err


def _ctrl_c_as_in_a_terminal() -> None:
    """In the child before exec: SIGINT's default action, as for a program a terminal runs in the
    foreground. A suite started in the background (`pytest &`, some CI runners and timing tools) inherits
    SIGINT *ignored*, exec keeps it ignored, and Python then installs no KeyboardInterrupt handler: the run
    would rightly go on, and this test would check nothing."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
def test_ctrl_c_stops_the_run_with_a_sentence(tmp_path: Path) -> None:
    out = tmp_path / "run"
    crmbench = Path(sys.executable).parent / "crmbench"
    env = {**os.environ, "FASTMCP_CHECK_FOR_UPDATES": "off"}
    env.pop("OPENAI_API_KEY", None)
    proc = subprocess.Popen(
        [str(crmbench), "run", "--rounds", "3", "--concurrency", "2", "--out", str(out)],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        preexec_fn=_ctrl_c_as_in_a_terminal,
    )
    deadline = time.monotonic() + 120
    while len(list((out / "trials").glob("*/*.json"))) < 3:
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err[-2000:]
    assert "interrupted" in err and "Traceback" not in err
    records = list((out / "trials").glob("*/*.json"))
    assert records and all(RunDirectory(out).records())  # every saved record is whole


# ---- issue 28: every bad input tried is one `error:` line, exit code 2, no traceback --------------------

sys.path.insert(0, str(ROOT / "scripts"))
import bad_inputs  # noqa: E402


@pytest.mark.parametrize("case", bad_inputs.CASES, ids=[c.name for c in bad_inputs.CASES])
def test_every_bad_input_is_one_clear_error(case: bad_inputs.Case, tmp_path: Path) -> None:
    outcome = bad_inputs.try_case(case, tmp_path)
    assert not outcome.traceback, outcome.stderr[-3000:]
    assert outcome.ok, (outcome.code, outcome.stderr[-2000:])
    if case.expect:
        assert case.expect in outcome.stderr


def test_the_bad_input_figure() -> None:
    """The README's figure (≥ 80 bad inputs tried, 0 tracebacks) is this list's length."""
    assert len(bad_inputs.CASES) >= 80
    assert len({c.name for c in bad_inputs.CASES}) == len(bad_inputs.CASES)


def test_a_task_file_error_names_the_file_task_and_field(tmp_path: Path) -> None:
    case = next(c for c in bad_inputs.CASES if c.name == "task file: misspelled initial_state field")
    outcome = bad_inputs.try_case(case, tmp_path)
    assert "payments.yaml" in outcome.error_line and TASK in outcome.error_line and "initial_state.accounts.ACC-1005.balanse" in outcome.error_line


# ---- issue 39: an empty selection and a wrong provider are errors, named before anything else ----------


def test_validate_with_an_unknown_domain_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    """Not "ALL GATES PASS" over 0 tasks with exit 0: the same sentence and code as `run` and `tasks`."""
    code, err = cli(capsys, "validate", "--domain", "nosuch")
    assert code == 2 and err.startswith("error: --domain 'nosuch' has no tasks in the catalog; known domains: ")
    assert "payments" in err and "GATES PASS" not in capsys.readouterr().out
    code, err = cli(capsys, "validate", "--domain", "payments")  # a known domain is not refused by the check
    assert code == 0, err


def test_the_release_gates_refuse_an_empty_selection(capsys: pytest.CaptureFixture[str]) -> None:
    """`python -m harness.benchmark_spec` (no CLI wrapper): an unknown domain, or a domain and task that select
    nothing together, exit 2 and never print a pass."""
    from harness.runner.config import ReleaseConfig
    from harness.release.main import run_release

    assert run_release(ReleaseConfig(domain=["nosuch"])) == 2
    out = capsys.readouterr().out
    assert "--domain 'nosuch' has no tasks" in out and "GATES PASS" not in out
    assert run_release(ReleaseConfig(domain=["retail"], task=[TASK])) == 2
    out = capsys.readouterr().out
    assert "no task matches the selection" in out and "GATES PASS" not in out


def test_an_unknown_agent_provider_is_named_before_the_simulators_key(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The agent's own settings are checked first: without OPENAI_API_KEY, a typo in --agent-model's provider
    is the error, not the user simulator's missing key."""
    code, err = cli(capsys, "run", "--agent-model", "nosuchprov:x", "--out", str(tmp_path / "r"))
    assert code == 2 and "unknown model provider 'nosuchprov'" in err and "OPENAI_API_KEY" not in err, err
    code, err = cli(capsys, "run", "--agent-model", "openai:gpt-5-mini", "--router-model", "nosuch:y", "--out", str(tmp_path / "r"))
    assert code == 2 and "unknown model provider 'nosuch'" in err, err
    code, err = cli(capsys, "run", "--agent-model", "openai:gpt-5-mini", "--out", str(tmp_path / "r"))  # a known provider: its key
    assert code == 2 and "--agent-model openai:gpt-5-mini needs OPENAI_API_KEY" in err, err
    assert not (tmp_path / "r").exists()

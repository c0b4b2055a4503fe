"""Who decides ⊥ (issue 28, docs/guarantees.md): only the harness's own observations. Every fault an agent
can raise, report or provoke stays in its denominator (scored 0, `model:agent_error` or a tool error it
saw); only our provider layer's outages, our judge's and our own crashes are ⊥."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from harness.runner.components import TrialComponents
from harness.runner.config import RunConfig
from harness.runner.plan import Plan
from harness.runner.run import execute_run
from models.base import ConfigurationError, ModelError
from models.scripted import ScriptedModel, text, tool_call
from orchestrator.protocol import AgentReply, TrialSession

pytestmark = pytest.mark.anyio
QUIET = Console(file=open("/dev/null", "w"), force_terminal=False)  # noqa: SIM115
BALANCE = "payments_balance_inquiry_01"


def _deep(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = [value]
    return value


class AgentBaseException(BaseException):
    """Raised by an agent: not an `Exception`, still the agent's failure (issue 41)."""


class Faulty:
    """A plug-in agent that does one bad thing in `respond` (or `start`)."""

    name = "faulty"
    needs_mcp_url = False

    def __init__(self, fault: str) -> None:
        self.fault = fault
        self.session: TrialSession | None = None
        self.saw: list[Any] = []

    async def start(self, session: TrialSession) -> None:
        self.session = session
        if self.fault == "start_raises":
            raise ValueError("cannot start")
        if self.fault == "start_base_exception":
            raise AgentBaseException("cannot start either")

    async def respond(self, user_message: str, turn: int) -> Any:
        assert self.session is not None
        fault = self.fault
        if fault == "raises":
            raise RuntimeError("losing, so erroring")
        if fault == "forged_outage":  # the provider-outage class, raised by the agent itself
            raise ModelError("provider down (honest!)", infrastructure=True, category="server")
        if fault == "forged_timeout":
            raise TimeoutError("the provider stalled (honest!)")
        if fault == "system_exit":
            raise SystemExit(3)
        if fault == "keyboard_like":
            raise KeyError("x")
        if fault == "not_a_reply":
            return "a string, not an AgentReply"
        if fault == "text_none":  # issue 41: built without validation
            return AgentReply.model_construct(text=None)
        if fault == "text_changed":  # issue 41: changed after validation
            reply = AgentReply(text="ok")
            reply.text = None  # type: ignore[assignment]
            return reply
        if fault == "routing_garbage":
            return AgentReply.model_construct(text="ok", routing=[object()], hallucinated_tools=[], notes=[], usage=None)
        if fault == "base_exception":
            raise AgentBaseException("not an Exception")
        if fault == "generator_exit":
            raise GeneratorExit
        if fault == "own_cancel":  # a cancellation nobody in the harness asked for
            import anyio

            raise anyio.get_cancelled_exc_class()()
        if fault == "recursion":
            def down(n: int) -> int:
                return down(n + 1)
            down(0)
        calls = {
            "deep_args": {"account_id": _deep(300)},
            "nested_100": {"account_id": _deep(100)},
            "huge_int": {"source_account_id": "ACC-1001", "destination_account_id": "ACC-1002", "amount": 10**400},
            "nan_amount": {"source_account_id": "ACC-1001", "destination_account_id": "ACC-1002", "amount": math.nan},
            "inf_optional": {"source_account_id": "ACC-1001", "destination_account_id": "ACC-1002", "amount": 10, "memo": math.inf},
            "unknown_tool": {},
            "bad_types": {"account_id": {"$gt": ""}},
        }
        if fault in calls:
            tool = "nope_tool" if fault == "unknown_tool" else ("get_account_balance" if "account_id" in calls[fault] else "execute_transfer")
            result = await self.session.tools.call_tool(tool, calls[fault])
            self.saw.append(result)
            return AgentReply(text=f"tool said error={result.is_error}: {result.content[0].text[:200] if result.content else ''}")
        if fault == "stop_base_exception":
            return AgentReply(text="fine")
        raise AssertionError(fault)

    async def stop(self) -> None:
        if self.fault == "stop_base_exception":
            raise AgentBaseException("stop failed")


AGENT_FAULTS = [
    "raises", "forged_outage", "forged_timeout", "system_exit", "keyboard_like", "not_a_reply", "recursion", "start_raises",
    "deep_args", "nested_100", "huge_int", "nan_amount", "inf_optional", "unknown_tool", "bad_types",
    "text_none", "text_changed", "routing_garbage", "base_exception", "generator_exit", "own_cancel", "start_base_exception", "stop_base_exception",
]  # fmt: skip
TOOL_ERROR_FAULTS = {"deep_args", "nested_100", "huge_int", "nan_amount", "inf_optional", "unknown_tool", "bad_types"}


async def _run(tmp_path: Path, factory: Any, **overrides: Any):  # noqa: ANN202
    config = RunConfig(out=tmp_path / "run", offline=True, task=[BALANCE], infra_retries=0, **overrides)
    plan = Plan(agent="faulty", user="scripted", judge="evidence", offline=True)
    return await execute_run(config, console=QUIET, components=TrialComponents(config, plan, apis={}, agent_factory=factory, agent_name="faulty"))


@pytest.mark.parametrize("fault", AGENT_FAULTS)
async def test_no_agent_side_fault_leaves_the_denominator(tmp_path: Path, fault: str) -> None:
    agents: list[Faulty] = []

    def factory(view: Any) -> Faulty:
        agents.append(Faulty(fault))
        return agents[-1]

    result = await _run(tmp_path, factory)
    [record] = result.records
    assert record.status == "scored" and record.strict is False, (fault, record.failure_class, record.error)
    assert record.attempts == 1  # never re-run as infrastructure
    assert "| **all** | 1 | 1 | 0 | 0 | 0.00% |" in result.summary_markdown
    if fault in TOOL_ERROR_FAULTS:  # the harness's own exception on the agent's input is a tool error it sees
        assert agents[0].saw and agents[0].saw[0].is_error, fault
        assert "Error calling tool" not in agents[0].saw[0].content[0].text  # never a masked crash
        # every call is recorded, the ones no client could send (NaN, 300 levels) too (issue 41)
        assert [c.status for c in record.tool_trace] == ["unknown_tool" if fault == "unknown_tool" else "tool_error"], fault
    elif fault == "stop_base_exception":  # a stop that fails changes nothing: the trial is graded as it ran
        assert record.failure_class is None or not record.failure_class.startswith("infra"), record.failure_class
    else:
        assert record.failure_class == "model:agent_error", (fault, record.failure_class, record.error)
        assert record.error and len(record.error) < 5000


async def test_the_in_memory_mcp_path_refuses_unsendable_arguments_too(tmp_path: Path) -> None:
    agents: list[Faulty] = []

    def factory(view: Any) -> Faulty:
        agents.append(Faulty("deep_args"))
        return agents[-1]

    [record] = (await _run(tmp_path, factory, in_process_tools="mcp")).records
    assert record.status == "scored" and agents[0].saw[0].is_error and "nested" in agents[0].saw[0].content[0].text
    assert [c.status for c in record.tool_trace] == ["tool_error"] and "nested" in (record.tool_trace[0].error or "")


async def test_a_crash_of_our_tool_surface_is_bottom(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from servers.gateway import GatewayTools

    async def broken(self: Any, name: str, arguments: dict[str, Any]) -> Any:
        raise KeyError("gateway bug")

    monkeypatch.setattr(GatewayTools, "call_tool", broken)
    [record] = (await _run(tmp_path, lambda view: Faulty("huge_int"))).records
    assert record.status == "infra_error" and record.failure_class == "infra:crash" and "gateway bug" in (record.error or "")


async def test_a_crash_of_the_user_simulator_is_bottom(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from simulator.scripted import ScriptedUser

    async def broken(self: Any, conversation: Any) -> Any:
        raise RuntimeError("simulator bug")

    monkeypatch.setattr(ScriptedUser, "next_message", broken)
    [record] = (await _run(tmp_path, lambda view: Faulty("raises"))).records
    assert record.status == "infra_error" and record.failure_class == "infra:crash"


async def test_a_plugin_configuration_error_still_stops_the_run(tmp_path: Path) -> None:
    class NeedsKey(Faulty):
        async def start(self, session: TrialSession) -> None:
            raise ConfigurationError("no API key: set MY_KEY")

    with pytest.raises(ConfigurationError, match="MY_KEY"):
        await _run(tmp_path, lambda view: NeedsKey("raises"))


async def test_a_malformed_reply_is_named_in_the_record(tmp_path: Path) -> None:
    [record] = (await _run(tmp_path, lambda view: Faulty("text_none"))).records
    assert "malformed AgentReply" in (record.error or "") and "text" in (record.error or ""), record.error


async def test_the_run_goes_on_after_an_agent_base_exception(tmp_path: Path) -> None:
    config = RunConfig(out=tmp_path / "run", offline=True, task=[BALANCE, "payments_checkout_full_chain_02"], infra_retries=0)
    plan = Plan(agent="faulty", user="scripted", judge="evidence", offline=True)
    components = TrialComponents(config, plan, apis={}, agent_factory=lambda view: Faulty("base_exception"), agent_name="faulty")
    records = (await execute_run(config, console=QUIET, components=components)).records
    assert [(r.status, r.failure_class) for r in records] == [("scored", "model:agent_error")] * 2


INTERRUPTING = """
import anyio, sys
from pathlib import Path
from rich.console import Console
from harness.runner.components import TrialComponents
from harness.runner.config import RunConfig
from harness.runner.plan import Plan
from harness.runner.run import execute_run

class Interrupting:
    name = "interrupting"
    async def start(self, session): return None
    async def respond(self, user_message, turn): raise KeyboardInterrupt
    async def stop(self): return None

async def main():
    config = RunConfig(out=Path(sys.argv[1]), offline=True, task=["payments_balance_inquiry_01", "payments_checkout_full_chain_02"], infra_retries=0)
    plan = Plan(agent="interrupting", user="scripted", judge="evidence", offline=True)
    components = TrialComponents(config, plan, apis={}, agent_factory=lambda view: Interrupting(), agent_name="interrupting")
    await execute_run(config, console=Console(file=open("/dev/null", "w")), components=components)
    print("THE RUN WENT ON")

anyio.run(main)
"""


def test_keyboard_interrupt_still_stops_the_run(tmp_path: Path) -> None:
    """Ctrl-C cannot be told from a KeyboardInterrupt the agent raises: the run stops, as it does for Ctrl-C,
    and records nothing for the trial (a resume replays it with the same seed)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", INTERRUPTING, str(tmp_path / "run")], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode != 0 and "KeyboardInterrupt" in done.stderr and "THE RUN WENT ON" not in done.stdout, (done.returncode, done.stderr[-2000:])


# ---- the graph agent (ours, through models.Model) ---------------------------------------------------


def _graph_plan() -> Plan:
    return Plan(agent="graph", agent_model="mock:agent", router_model="mock:router", user="scripted", judge="evidence", offline=False)


async def _graph(tmp_path: Path, agent: ScriptedModel) -> Any:
    config = RunConfig(out=tmp_path / "run", task=[BALANCE], agent="graph", agent_model="mock:agent", infra_retries=0)
    router = ScriptedModel(lambda m, t: tool_call("route", node="balance_inquiry"))
    result = await execute_run(config, console=QUIET, components=TrialComponents(config, _graph_plan(), apis={"agent": agent, "router": router}))
    [record] = result.records
    return record


@pytest.mark.parametrize("arguments", [{"account_id": _deep(300)}, {"account_id": "ACC-1002", "extra": 10**400}, {"account_id": math.nan}])
async def test_the_graph_agents_unsendable_tool_calls_are_tool_errors_it_sees(tmp_path: Path, arguments: dict[str, Any]) -> None:
    agent = ScriptedModel([tool_call("get_account_balance", **arguments), text("Sorry, I could not look that up.")])
    record = await _graph(tmp_path, agent)
    assert record.status == "scored", (record.failure_class, record.error)
    [_, second] = agent.requests
    told = second[0][-1]
    assert told.role == "tool" and "rejected" in told.content  # the agent was told, as over HTTP
    assert [c.status for c in record.tool_trace] == ["tool_error"]  # and the call is in the trace (issue 41)


async def test_the_graph_agents_own_crash_is_agent_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from orchestrator.graph_agent import GraphAgent

    async def broken(self: Any, user_message: str, turn: int) -> AgentReply:
        raise IndexError("scaffold bug")

    monkeypatch.setattr(GraphAgent, "respond", broken)
    record = await _graph(tmp_path, ScriptedModel([]))
    assert record.status == "scored" and record.failure_class == "model:agent_error" and "scaffold bug" in (record.error or "")


async def test_a_boolean_is_not_a_number_on_any_path() -> None:
    """Issue 28: `bags: true` was read as 1 and charged $40. The tool's own schema says integer."""
    from fastmcp import Client

    from servers.gateway import Gateway

    gateway = Gateway(["travel", "payments"])
    trial = gateway.open_trial("payments")
    lean = await gateway.tools_for(trial.trial_id).call_tool(
        "execute_transfer", {"source_account_id": "ACC-1001", "destination_account_id": "ACC-1002", "amount": True}
    )
    assert lean.is_error and "must be a number, not true" in lean.content[0].text
    async with Client(gateway.server("payments")) as client:
        over_mcp = await client.call_tool(
            "execute_transfer", {"source_account_id": "ACC-1001", "destination_account_id": "ACC-1002", "amount": True},
            raise_on_error=False, meta={"crmbench/trial": trial.trial_id},
        )  # fmt: skip
    assert over_mcp.is_error and "must be a number" in over_mcp.content[0].text
    assert [c.status for c in trial.trace] == ["tool_error", "tool_error"] and trial.final_state() == trial.initial_state
    travel = gateway.open_trial("travel")
    bags = {"booking_id": "PNR-M3ZP9D", "passenger_name": "Omar Haddad", "bags": True, "payment_method_id": "PM-3307"}
    refused = await gateway.tools_for(travel.trial_id).call_tool("add_bags", bags)
    assert refused.is_error and "'bags' must be a number, not true" in refused.content[0].text
    assert travel.final_state() == travel.initial_state  # no $40 charged
    accepted = await gateway.tools_for(travel.trial_id).call_tool("add_bags", {**bags, "bags": 1})
    assert not accepted.is_error, accepted.content

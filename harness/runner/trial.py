"""Run one trial: user ↔ agent over a fresh gateway world, then freeze the evidence and grade it.

Failure classes (spec A.1/A.3):
- attributable to the system under test (scored 0, stay in the denominator): a hallucinated tool (called
  a tool it was not given), non-convergence at the user-turn limit or the time limit, a give-up the agent
  reports (`AgentFailure`), and `agent_error`: anything else the agent raised, reported or died of;
- infrastructure (⊥: excluded, shown, re-runnable) — only what the harness itself observed: a provider
  outage after retries seen by `models.Model` or mapped by a framework adapter from the framework's
  provider-error classes (`provider`, or `provider_timeout` when the provider did not answer within the
  per-call timeout), a judge outage, a crash of this project's own code (gateway, user simulator, tool
  surface).

Who decides ⊥ is `harness.runner.agent_host.attribute`: an agent cannot take a trial out of its own score by
raising or reporting an error.
"""

from __future__ import annotations

import contextlib
import logging
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio

from contracts.evidence import Evidence, Message, RoutingDecision
from contracts.schema import Task
from grader.consent import consent_hash, judge_consent
from grader.settle import first_failure, settle_while
from grader.grade import JudgeFailure, Prepared, criteria_hash, grade_with, judge_replies, prepare, record_checks, ungraded_verdict
from grader.verdicts import CheckVerdict
from harness.runner.agent_host import hosted_agent
from harness.runner.components import TrialComponents
from simulator.conformance import check_dialogue, excludable, fault_labels
from simulator.scripted import ScriptedUser
from harness.records import RECORD_FORMAT, TrialKey, TrialRecord
from harness.runner.task_view import task_view
from models.base import ConfigurationError, ModelError, observe, observed
from models.model import UsageLedger
from models.types import Usage
from orchestrator.protocol import AgentFailure, TrialSession, TrialTools
from servers.gateway import Gateway
from servers.trials import UnknownTrial

if TYPE_CHECKING:
    from fastmcp import Client

log = logging.getLogger(__name__)


PROVIDER_CALL_SHARE = 1 / 8
"""Each provider call (ours and the framework adapters') gets at most this share of the trial's time limit
(and never more than its own configured timeout): a stalled provider times out, is retried, and is ⊥
`provider_timeout` well before the trial's clock could charge the stall to the model."""


def provider_call_timeout(task_timeout_s: float, configured_s: float = 120.0) -> float:
    """The per-call timeout of every provider call in a trial limited to `task_timeout_s`."""
    return max(min(configured_s, task_timeout_s * PROVIDER_CALL_SHARE), 0.01)


@dataclass(frozen=True)
class Limits:
    max_turns: int = 30
    task_timeout_s: float = 1200.0

    @property
    def call_timeout_s(self) -> float:
        return provider_call_timeout(self.task_timeout_s)


class ObservedTools:
    """The trial's tool surface, with its own exceptions marked as the harness's (`models.base.observe`):
    a crash of the gateway inside an agent's tool call is ours (⊥), not the agent's."""

    def __init__(self, tools: Any) -> None:
        self._tools = tools

    async def list_tools(self) -> Any:
        try:
            return await self._tools.list_tools()
        except Exception as exc:
            raise observe(exc)

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        try:
            return await self._tools.call_tool(name, arguments)
        except Exception as exc:
            raise observe(exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._tools, name)


class InfrastructureFailure(RuntimeError):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def _charge(ledger: UsageLedger, exc: BaseException) -> None:
    """Usage a failing agent or adapter spent outside `models.Model` (`AgentFailure.usage`, or a `usage`
    attribute a framework adapter attached to a mapped provider error): a trial costs what it cost."""
    usage = getattr(exc, "usage", None)
    if isinstance(usage, Usage):
        ledger.add("agent", usage)


def judge_calls_at_once(task: Task) -> int:
    """The most model calls one trial of `task` makes at once: its last step asks the reply judge and every
    consent question together (`_judge_trial`), one question per consent check and turn that calls the
    check's tool — counted on the gold path, at least one per check. Every other step makes one call.
    The run's default per-provider cap is sized by it (`RunConfig.with_provider_cap`)."""
    checks = task.contract.consent or []
    questions = sum(max(1, sum(1 for turn in task.gold if any(call.tool == check.tool for call in turn.calls))) for check in checks)
    return 1 + questions


@dataclass
class _Judged:
    """A trial's last step: the judges' outcomes (reply judgement, consent answers: a value or the
    exception it raised) and what the trial worked out while they were asked."""

    outcomes: list[Any]
    prepared: Prepared
    recorded: list[CheckVerdict]
    faults: list[str]


async def _judge_trial(task: Task, evidence: Evidence, components: TrialComponents, ledger: UsageLedger, conformance: Callable[[], list[str]]) -> _Judged:
    """The reply judgement and the consent judgement, asked at once (they are independent: with LLM judges
    a trial then waits one judge latency, not two). What needs no judge — the checks that read only the
    record, and the user simulator's conformance (`conformance`) — is worked out once the judges' requests
    are on their way: in a run, every trial in flight reaches this step at about the same time, and CPU
    spent before the requests go out delays them all. The contract's resolution comes from the run's
    memo of the task (`TrialComponents.contract_memo`)."""
    memo = components.contract_memo(task)
    prepared = prepare(task, evidence, memo)
    judges = [
        judge_replies(task, evidence, components.judge(ledger), memo=memo),
        judge_consent(task, evidence, components.consent_judge(ledger), prepared=prepared),
    ]
    outcomes, (recorded, faults) = await settle_while(judges, lambda: (record_checks(prepared), conformance()))
    return _Judged(outcomes, prepared, recorded, faults)


def _expose(gateway: Gateway, trial_id: str, allowed: Sequence[str] | None) -> None:
    """The agent narrows the tools exposed for the rest of the current turn (the gateway enforces it)."""
    trial = gateway.trial(trial_id)
    gateway.set_turn(trial_id, trial.turn, allowed)


async def _dialogue(
    agent: Any,
    user: Any,
    gateway: Gateway,
    trial_id: str,
    limits: Limits,
    conversation: list[Message],
    routing: list[RoutingDecision],
    hallucinated: list[str],
    ledger: UsageLedger,
) -> bool:
    """User and agent alternate until the user stops (True) or the user-turn limit is reached (False)."""
    for turn in range(limits.max_turns + 1):
        utterance = await user.next_message(conversation)
        if utterance is None:
            return True
        if turn == limits.max_turns:
            return False
        gateway.set_turn(trial_id, turn, None)
        conversation.append(Message(role="user", content=utterance, turn=turn))
        reply = await agent.respond(utterance, turn)
        if reply.usage is not None:  # framework adapters' own token counts
            ledger.add("agent", reply.usage)
        conversation.append(Message(role="assistant", content=reply.text, turn=turn))
        routing.extend(reply.routing)
        hallucinated.extend(reply.hallucinated_tools)
    return False


async def run_trial(
    task: Task,
    key: TrialKey,
    *,
    gateway: Gateway,
    client: Client | None = None,
    components: TrialComponents,
    limits: Limits,
    mcp_base_url: str | None = None,
) -> TrialRecord:
    """One attempt. Raises `ConfigurationError` (stop the run); returns ⊥ records for infra failures.

    In-process agents get the trial's tools on the gateway's lean path (`GatewayTools`), or through
    `client` (an MCP client of the gateway) when one is given: the records are the same either way."""
    ledger = UsageLedger()
    ledger.call_timeout_s = limits.call_timeout_s
    try:
        trial = gateway.open_trial(task.domain, initial_state=task.initial_state, seed=key.seed, task_id=task.id)
    except (ValueError, TypeError) as exc:  # preflight validates initial states; this is the last line
        raise ConfigurationError(f"task {task.id!r}: its initial_state cannot be loaded: {exc}") from None
    surface = TrialTools(client, trial.trial_id, gateway.record_unsent) if client is not None else gateway.tools_for(trial.trial_id)
    tools = ObservedTools(surface)
    view = task_view(task)
    session = TrialSession(
        trial_id=trial.trial_id,
        domain=task.domain,
        seed=key.seed,
        tools=tools,
        expose=lambda allowed: _expose(gateway, trial.trial_id, allowed),
        mcp_url=f"{mcp_base_url}/{task.domain}/mcp?trial={trial.trial_id}" if mcp_base_url else None,
        mcp_headers={"X-Trial-Id": trial.trial_id},
        task=view,
        call_timeout_s=limits.call_timeout_s,
    )
    conversation: list[Message] = []
    routing: list[RoutingDecision] = []
    hallucinated: list[str] = []
    model_failure: str | None = None
    infra: InfrastructureFailure | None = None
    user = components.user(task, ledger, key.seed)
    started = time.perf_counter()
    # The task's own clock. Provider retries run outside it: the ledger reports every second lost to a
    # failed attempt and its backoff, and the deadline moves by as much. A deadline that still fires
    # while a call is between retries is the provider's doing: ⊥, not the model's non-convergence.
    clock = anyio.CancelScope(deadline=anyio.current_time() + limits.task_timeout_s)

    def _extend(seconds: float) -> None:
        clock.deadline += seconds

    ledger.on_retry_time = _extend
    retrying_at_deadline = False
    try:
        converged = False
        with clock:
            agent_impl = await components.build_agent(task, view, ledger, key.seed)
            async with hosted_agent(agent_impl, session) as agent:  # start, respond, stop: one task
                converged = await _dialogue(agent, user, gateway, trial.trial_id, limits, conversation, routing, hallucinated, ledger)
        if clock.cancelled_caught:
            retrying_at_deadline = ledger.cancelled_while_retrying
            raise TimeoutError
        if not converged:
            model_failure = f"non_convergence: user-turn limit ({limits.max_turns}) reached"
    except TimeoutError:
        if retrying_at_deadline:
            kind = "provider_timeout" if ledger.retry_category == "timeout" else "provider"
            infra = InfrastructureFailure(
                kind, f"the task's {limits.task_timeout_s:g}s ran out while a provider call was being retried ({ledger.retry_s:.1f}s spent on retries)"
            )
        else:
            model_failure = f"non_convergence: task exceeded {limits.task_timeout_s:g}s"
    except AgentFailure as exc:  # the agent gave up, or raised, reported or died of an error: scored 0, in the denominator
        _charge(ledger, exc)
        model_failure = f"{exc.kind}: {exc}"
    except ConfigurationError:
        raise
    except ModelError as exc:  # only observed ones get here (`attribute`), or the user simulator's
        _charge(ledger, exc)
        if not exc.infrastructure:
            raise ConfigurationError(f"stopping the run: {exc}") from exc
        infra = InfrastructureFailure("provider_timeout" if exc.category == "timeout" else "provider", str(exc))
    except Exception as exc:  # our own code's bug must not kill the run, and is visible
        _charge(ledger, exc)
        log.debug("trial crashed", exc_info=True)
        infra = InfrastructureFailure("crash", f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=5)}")
    finally:
        ledger.on_retry_time = None  # the agent was stopped by `hosted_agent`, in its own task
        with contextlib.suppress(UnknownTrial):  # already closed by someone else: the evidence is still here
            await gateway.close_settled(trial.trial_id)  # a straggling call of an external agent runs nothing
    wall = time.perf_counter() - started
    if model_failure is None and hallucinated:
        model_failure = f"hallucinated_tool: {', '.join(sorted(set(hallucinated)))}"
    if model_failure is None and trial.incidents:  # the agent reached for the control plane or a foreign trial
        model_failure = "isolation_violation: " + "; ".join(trial.incidents)

    user_stopped = converged and model_failure is None

    def conformance() -> list[str]:
        if isinstance(user, ScriptedUser):  # fixed turns: nothing the simulator could get wrong, or be made to
            return []
        return fault_labels(check_dialogue(task.instruction, conversation, user_stopped=user_stopped))

    faults: list[str] = []
    evidence = Evidence(
        conversation=conversation,
        routing=routing,
        tool_trace=list(trial.trace),
        initial_state=trial.initial_state,
        final_state=trial.final_state(),
    )
    base: dict[str, Any] = {
        "key": key,
        "domain": task.domain,
        "difficulty": task.difficulty,
        "capabilities": task.capabilities,
        "agent": components.plan.agent,
        "conversation": conversation,
        "routing": routing,
        "tool_trace": evidence.tool_trace,
        "final_state": evidence.final_state,
        "initial_state": evidence.initial_state,
        "execution_failure": model_failure,
        "record_format": RECORD_FORMAT,
        "hallucinated_tools": sorted(set(hallucinated)),
        "models": components.plan.models(),
        "user_turns": sum(1 for m in conversation if m.role == "user"),
        "wall_s": round(wall, 4),
    }
    ungraded: str | None = None
    if infra is None:
        judged = await _judge_trial(task, evidence, components, ledger, conformance)
        faults = judged.faults
        try:
            failure = first_failure(judged.outcomes)  # the reply judge's is reported first
            if failure is not None:
                raise failure
            judgement, consent = judged.outcomes
            base["judgement"], base["criteria_hash"] = judgement, criteria_hash(task)
            base["consent_judgement"], base["consent_hash"] = consent, consent_hash(task)
            verdict = grade_with(task, evidence, judgement, model_failure=model_failure, consent=consent, prepared=judged.prepared, recorded=judged.recorded)
        except JudgeFailure as exc:
            # Not ⊥: a judge that a reply derailed must not take the trial out of the denominator. The
            # trial stays visible and counted as a non-pass; the run is reported incomplete.
            ungraded = str(exc)
            verdict = ungraded_verdict(task, evidence, ungraded, model_failure)
        except ModelError as exc:
            if not exc.infrastructure:
                raise ConfigurationError(f"stopping the run: {exc}") from exc
            infra = InfrastructureFailure("judge", str(exc))
    base["simulator_faults"] = faults
    alone = excludable(faults)  # a fault the agent may have brought about is its own failure: counted
    if infra is None and alone and components.config.exclude_simulator_faults:
        infra = InfrastructureFailure("simulator", "simulator conformance fault(s), excluded by --exclude-simulator-faults: " + "; ".join(alone)[:2000])
    if infra is not None:
        return TrialRecord(**base, status="infra_error", strict=None, failure_class=f"infra:{infra.kind}", error=str(infra), usage=ledger.snapshot())
    model_failure = verdict.model_failure  # includes hallucinated tools read from the gateway's record
    failure_class = None if model_failure is None else "model:" + model_failure.split(":", 1)[0]
    if ungraded is not None and failure_class is None:
        failure_class = "ungraded:judge"
    return TrialRecord(
        **base,
        status="scored",
        strict=verdict.strict,
        failure_class=failure_class,
        error=model_failure or ungraded,
        verdict=verdict,
        ungraded=ungraded,
        usage=ledger.snapshot(),
    )

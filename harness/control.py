"""The control plane's dialogue and grading endpoints, so that a harness in any language can benchmark its
agent end to end over plain HTTP (`crmbench serve` mounts them next to the trial routes, behind the same
token):

    GET  /control/tasks[?domain=D]          the catalog, redacted: id, domain, difficulty, capabilities
    GET  /control/tasks/{task_id}           what the agent may know: domain, tools, policy, instructions
    POST /control/trials                    {"task_id": ..., "seed": 0} opens a trial (see servers.http)
    POST /control/trials/{id}/user          {"reply": null} → the simulated user's first message;
                                            {"reply": "agent's visible reply"} → the next one
                                            answer: {"user_message": str | null, "turn": n, "done": bool}
    POST /control/trials/{id}/grade         closes the trial and grades it with the task's contract:
                                            {"strict": bool, "failure_class": ..., "verdict": {...}}

The user simulator and the judge are those of the serve configuration (offline: the task's scripted user
and the evidence judge). The agent only ever needs its MCP URL; the harness relays its replies.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from contracts.catalog import CatalogError, get_task, load_catalog
from contracts.evidence import Evidence, Message
from contracts.schema import Task
from grader.grade import JudgeFailure, grade
from harness.runner.components import TrialComponents
from harness.runner.config import RunConfig
from harness.runner.plan import Plan
from harness.runner.task_view import domain_view
from models.base import ModelError
from models.model import UsageLedger
from servers.gateway import Gateway
from servers.trials import UnknownTrial

log = logging.getLogger(__name__)


class UserTurnRequest(BaseModel):
    reply: str | None = None


@dataclass
class Dialogue:
    task: Task
    user: Any
    ledger: UsageLedger
    conversation: list[Message] = field(default_factory=list)
    done: bool = False
    limit_reached: bool = False


def offline_components(max_turns: int = 30) -> TrialComponents:
    """Scripted user (the task's gold user turns) and evidence judge: no model, no key."""
    config = RunConfig(offline=True, max_turns=max_turns)
    plan = Plan(agent="external", agent_kind="plugin", user="scripted", judge="evidence", offline=True)
    return TrialComponents(config, plan, apis={})


def serve_components(config: Any) -> TrialComponents:
    """The user and judge of `crmbench serve` (a `ServeConfig`)."""
    plan = Plan(
        agent="external",
        agent_kind="plugin",
        user=config.user,
        user_model=config.user_model if config.user == "llm" else None,
        judge=config.judge,
        judge_model=config.judge_model if config.judge == "llm" else None,
        offline=config.user != "llm" and config.judge != "llm",
    )
    return TrialComponents(RunConfig(max_turns=config.max_turns, user_model=config.user_model, judge_model=config.judge_model), plan)


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def dialogue_routes(gateway: Gateway, components: TrialComponents | None = None) -> list[Route]:
    components = components or offline_components()
    max_turns = components.config.max_turns
    dialogues: dict[str, Dialogue] = {}

    def dialogue_of(trial_id: str) -> Dialogue:
        existing = dialogues.get(trial_id)
        if existing is not None:
            return existing
        trial = gateway.trial(trial_id)
        if not trial.task_id:
            raise LookupError(f"trial {trial_id!r} was not opened from a task (give task_id when opening it)")
        task = get_task(trial.task_id)
        ledger = UsageLedger()
        dialogue = Dialogue(task=task, user=components.user(task, ledger, trial.seed), ledger=ledger)
        dialogues[trial_id] = dialogue
        return dialogue

    async def list_tasks(request: Request) -> JSONResponse:
        domains = request.query_params.getlist("domain")
        tasks = [t for t in load_catalog().values() if t.domain in gateway.domains and (not domains or t.domain in domains)]
        return JSONResponse(
            {"tasks": [{"task_id": t.id, "domain": t.domain, "difficulty": t.difficulty, "capabilities": t.capabilities} for t in sorted(tasks, key=lambda t: t.id)]}
        )

    async def show_task(request: Request) -> JSONResponse:
        try:
            task = get_task(request.path_params["task_id"])
        except CatalogError as exc:
            return _error(404, str(exc))
        view = domain_view(task.domain)
        return JSONResponse({"task_id": task.id, **asdict(view)})

    async def user_turn(request: Request) -> JSONResponse:
        trial_id = request.path_params["trial_id"]
        try:
            body = UserTurnRequest.model_validate(await request.json())
            dialogue = dialogue_of(trial_id)
        except UnknownTrial as exc:
            return _error(404, str(exc))
        except (ValidationError, ValueError) as exc:
            return _error(422, f"invalid request body: {exc}")
        except LookupError as exc:
            return _error(409, str(exc))
        if dialogue.done:
            return _error(409, "the dialogue is over: grade the trial")
        user_turns = sum(1 for m in dialogue.conversation if m.role == "user")
        if body.reply is not None:
            if user_turns == 0:
                return _error(409, "no user message to reply to yet: send {\"reply\": null} first")
            dialogue.conversation.append(Message(role="assistant", content=body.reply, turn=user_turns - 1))
        elif user_turns:
            return _error(409, "give the agent's reply to the last user message")
        try:
            utterance = await dialogue.user.next_message(dialogue.conversation)
        except ModelError as exc:
            return _error(502, f"user simulator failed: {exc}")
        if utterance is not None and user_turns >= max_turns:
            dialogue.done = dialogue.limit_reached = True
            utterance = None
        if utterance is None:
            dialogue.done = True
            return JSONResponse({"user_message": None, "turn": user_turns, "done": True})
        gateway.set_turn(trial_id, user_turns, None)
        dialogue.conversation.append(Message(role="user", content=utterance, turn=user_turns))
        return JSONResponse({"user_message": utterance, "turn": user_turns, "done": False})

    async def grade_trial(request: Request) -> JSONResponse:
        trial_id = request.path_params["trial_id"]
        try:
            dialogue = dialogue_of(trial_id)
            trial = await gateway.close_settled(trial_id)  # the evidence never holds a call's half-made change
        except UnknownTrial as exc:
            return _error(404, str(exc))
        except LookupError as exc:
            return _error(409, str(exc))
        dialogues.pop(trial_id, None)
        model_failure = f"non_convergence: user-turn limit ({max_turns}) reached" if dialogue.limit_reached else None
        evidence = Evidence(conversation=dialogue.conversation, routing=[], tool_trace=list(trial.trace), initial_state=trial.initial_state, final_state=trial.final_state())
        try:
            verdict = await grade(
                dialogue.task, evidence, judge=components.judge(dialogue.ledger), model_failure=model_failure, consent_judge=components.consent_judge(dialogue.ledger)
            )
        except (JudgeFailure, ModelError) as exc:
            return JSONResponse({"strict": None, "failure_class": "infra:judge", "error": str(exc)}, status_code=502)
        return JSONResponse(
            {
                "trial_id": trial_id,
                "task_id": dialogue.task.id,
                "strict": verdict.strict,
                "failure_class": None if model_failure is None else "model:non_convergence",
                "verdict": verdict.model_dump(mode="json"),
                "trace": [r.model_dump(mode="json") for r in trial.trace],
                "usage": {role: u.model_dump() for role, u in dialogue.ledger.snapshot().items()},
            }
        )

    async def grade_recorded(request: Request) -> JSONResponse:
        """Grade evidence a harness in another language recorded itself (the trial-record format,
        docs/trial-record.md): the same `grade_record` as `crmbench grade`, no trial needed."""
        from harness.regrade import GradeRequest, grade_request

        try:
            body = GradeRequest.model_validate(await request.json())
        except (ValidationError, ValueError) as exc:
            return _error(422, f"invalid record: {exc}")
        try:
            task = get_task(body.task_id)
        except (CatalogError, KeyError) as exc:
            return _error(404, str(exc))
        record = await grade_request(body, task, components.judge(UsageLedger()))
        return JSONResponse(record.model_dump(mode="json", include={"status", "strict", "failure_class", "error", "verdict", "ungraded"}))

    return [
        Route("/control/grade", grade_recorded, methods=["POST"]),
        Route("/control/tasks", list_tasks, methods=["GET"]),
        Route("/control/tasks/{task_id}", show_task, methods=["GET"]),
        Route("/control/trials/{trial_id}/user", user_turn, methods=["POST"]),
        Route("/control/trials/{trial_id}/grade", grade_trial, methods=["POST"]),
    ]

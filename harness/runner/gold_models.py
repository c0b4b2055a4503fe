"""Scripted language models that play one task's gold path through every *model* role of the runtime.

The oracle agent plays a gold path without any model. These scripted models instead sit behind the real
model-driven components — the reference graph agent and its router, the LLM user simulator and the LLM
judge — so an offline run exercises the same code (prompts, tool specs, ReAct loop, stop detection, judge
parsing and quote checks) that a provider run does, with a fixed latency per call. They read only what
each role is shown (the messages), never the gateway's state:

- router: the node that holds the tools of the gold turn whose user message it is shown;
- agent: the gold turn's calls one per step (references such as `${execute_transfer.transfer_id}`
  resolved from the tool results in its context), then the gold reply;
- user: the gold user messages in order, then the stop token;
- judge: per criterion, a verdict quoting the first reply that holds the criterion's first evidence
  phrase (the transcript is JSON-escaped in the prompt, so quotes are taken from the decoded replies).

`GoldPlayedModels` is a picklable components factory `(RunConfig, Plan) -> TrialComponents`, so worker
processes and distributed executors can build the same models (`scripts/bench_harness.py` uses it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from contracts.schema import Task
from models.base import ModelAPI
from models.latency import Latency
from models.types import ChatMessage, ModelOutput, Role, ToolSpec

ROUTER_CUE = "Latest customer message:\n"
INTERNAL_NOTE = "(Internal note, not from the customer"
_NOTE_LINE = re.compile(r"^(?P<tool>\w+)\((?P<args>.*)\) -> (?P<result>.*)$")


def _customer_messages(messages: Sequence[ChatMessage]) -> list[int]:
    return [i for i, m in enumerate(messages) if m.role == "user" and not (m.content or "").startswith(INTERNAL_NOTE)]


@dataclass(frozen=True)
class _Seen:
    """A tool result in the agent's context: what `${tool.field}` references read (`harness.release.replay`)."""

    tool: str
    result: Any
    status: str = "executed"


def _results_seen(messages: Sequence[ChatMessage]) -> list[_Seen]:
    """Tool results in the agent's context, oldest first: earlier turns' from its internal notes, this
    turn's from the tool messages."""
    seen: list[_Seen] = []

    def add(tool: str, text: str) -> None:
        try:
            seen.append(_Seen(tool, json.loads(text)))
        except ValueError:
            return

    for m in messages:
        if m.role == "user" and (m.content or "").startswith(INTERNAL_NOTE):
            for line in (m.content or "").splitlines()[1:]:
                match = _NOTE_LINE.match(line)
                if match:
                    add(match["tool"], match["result"])
        elif m.role == "tool" and m.name:
            add(m.name, m.content or "")
    return seen


@dataclass(frozen=True)
class GoldPlayedModels:
    """Builds the run's components with the four scripted roles playing the gold paths of `tasks`
    (see the module doc). Each role tells its task from what it is shown: the user and the judge from
    the instruction in their prompt, the router and the agent from the customer's messages. The tasks
    travel with the factory, so a worker process need not load the catalog."""

    tasks: tuple[Task, ...]
    latency_s: float = 0.0
    latency: Latency | None = None
    """Drawn latencies (`models.latency`) instead of the constant `latency_s`: each role's model its own
    seeded stream, offset by `seed`."""
    seed: int = 0

    @classmethod
    def of(cls, task_ids: Sequence[str], latency_s: float = 0.0, latency: Latency | None = None, seed: int = 0) -> GoldPlayedModels:
        from contracts.catalog import load_selection

        catalog = load_selection(task_ids=task_ids)
        return cls(tuple(catalog[task_id] for task_id in task_ids), latency_s, latency, seed)

    def play(self) -> _GoldPlay:
        """The four roles' players (`router`, `agent`, `user`, `judge`: `(messages, tools) -> output`),
        for a model server that plays the same gold paths over HTTP (`scripts/fake_model_server.py`)."""
        from contracts.graph import load_graph

        nodes = {d: {n.name: set(n.tools) for n in load_graph(d).nodes} for d in {t.domain for t in self.tasks}}
        return _GoldPlay(list(self.tasks), nodes)

    def apis(self) -> dict[Role, ModelAPI]:
        from models.scripted import ScriptedModel

        play = self.play()
        roles: tuple[Role, ...] = ("agent", "router", "user", "judge")
        return {
            role: ScriptedModel(
                getattr(play, role),
                model=f"gold-{role}",
                latency_s=self.latency_s,
                keep_requests=False,
                draw_latency=None if self.latency is None else self.latency.sampler(self.seed + index),
            )
            for index, role in enumerate(roles)
        }

    def __call__(self, config: Any, plan: Any) -> Any:
        from harness.runner.components import TrialComponents

        return TrialComponents(config, plan, apis=self.apis())


class _GoldPlay:
    def __init__(self, tasks: list[Task], nodes: dict[str, dict[str, set[str]]]) -> None:
        self.tasks = tasks
        self.nodes = nodes
        self.users = {task.id: [turn.user.strip() for turn in task.gold] for task in tasks}
        self.turn_keys = {(task.id, i): (task.domain, json.dumps(turn.model_dump(mode="json"), sort_keys=True)) for task in tasks for i, turn in enumerate(task.gold)}

    def _turn_of(self, said: list[str], *, whole: bool) -> tuple[Task, int]:
        """The gold turn answered now, from the customer's messages so far (`whole`: all of them, as the
        agent remembers them; else the most recent ones, as the router's context window shows them)."""
        said = [s.strip() for s in said]
        found: dict[tuple[str, int], tuple[Task, int]] = {}
        for task in self.tasks:
            users = self.users[task.id]
            ends = [len(said)] if whole else range(len(said), len(users) + 1)
            for end in ends:
                if users[end - len(said) : end] == said:
                    found[(task.id, end - 1)] = (task, end - 1)
        distinct = {self.turn_keys[key] for key in found}
        if not found:
            raise ValueError(f"not a gold conversation of the played tasks: {said[-1][:80]!r}")
        if len(distinct) > 1:
            raise ValueError(f"ambiguous: the customer's messages fit {len(distinct)} different gold turns ({', '.join(sorted(k[0] for k in found))})")
        return next(iter(found.values()))

    def _task_with_instruction(self, prompt: str) -> Task:
        for task in self.tasks:
            if task.instruction.strip() in prompt:
                return task
        raise ValueError("the prompt holds none of the played tasks' instructions")

    def router(self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec]) -> ModelOutput:
        from models.scripted import tool_call

        context, utterance = (messages[-1].content or "").split(ROUTER_CUE, 1) if ROUTER_CUE in (messages[-1].content or "") else ("", "")
        said = [line.split("customer: ", 1)[1] for line in context.splitlines() if line.startswith("customer: ")]
        task, turn = self._turn_of([*said, utterance], whole=False)
        needed = {c.tool for c in task.gold[turn].calls}
        node = next((name for name, names in self.nodes[task.domain].items() if needed <= names), "general")
        return tool_call("route", node=node, reason="the gold turn's tools")

    def agent(self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec]) -> ModelOutput:
        from harness.release.replay import render_reply, resolve_args
        from models.scripted import text, tool_call

        customer = _customer_messages(messages)
        last_customer = customer[-1]
        task, index = self._turn_of([messages[i].content or "" for i in customer], whole=True)
        turn = task.gold[index]
        done = sum(1 for m in messages[last_customer + 1 :] if m.role == "tool")
        if done < len(turn.calls):
            call = turn.calls[done]
            refers = "${" in json.dumps(call.args)
            return tool_call(call.tool, **(resolve_args(call.args, _results_seen(messages), strict=False) if refers else call.args))  # type: ignore[arg-type]
        refers = "${" in turn.reply
        return text(render_reply(turn.reply, _results_seen(messages), strict=False) if refers else turn.reply)  # type: ignore[arg-type]

    def consent(self, request: str) -> str:
        """The consent judge's answer (`grader/prompts/consent_v2.md`): the request's inputs read back, the
        check found by its decision sentence, and the offline rule's judgement returned as the model's -
        one specification, so a scripted model that follows it answers as the rule does."""
        from contracts.evidence import Message
        from grader.consent import ConsentQuestion, GatedCall, decide
        from grader.llm_consent import parse_request

        inputs = parse_request(request)
        decision = str(inputs["decision"]).strip()
        check = next(c for t in self.tasks for c in t.contract.consent or [] if c.decision.strip() == decision)
        conversation = [
            Message(role="user" if item["role"] == "customer" else "assistant", content=item["text"], turn=0)
            for item in inputs["conversation"]  # type: ignore[union-attr]
        ]
        calls = [GatedCall(**call) for call in inputs["calls"]]  # type: ignore[union-attr]
        judgement = decide(ConsentQuestion(check=check, tool=check.tool, turn=0, conversation=conversation, calls=calls))
        return judgement.model_dump_json()

    def user(self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec]) -> str:
        from simulator.llm_user import STOP_TOKEN

        task = self._task_with_instruction(messages[0].content or "")
        said = sum(1 for m in messages if m.role == "assistant")  # roles are mirrored for the simulator
        return task.gold[said].user if said < len(task.gold) else STOP_TOKEN

    def judge(self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec]) -> str:
        from grader.text.matching import find_quote

        request = messages[-1].content or ""
        if "<conversation_json" in request:
            return self.consent(request)
        task = self._task_with_instruction(request.split("</user_instruction>", 1)[0])
        transcript = request.split("<transcript_json", 1)[1].split(">", 1)[1].rsplit("</transcript_json>", 1)[0]
        replies: list[str] = json.loads(transcript)
        items: list[dict[str, Any]] = []
        for index, criterion in enumerate(task.contract.reply_criteria or [], start=1):
            if criterion.is_guard:  # a mention guard: passes unless a reply names one of its wrong values
                said = next((a for a in criterion.absent or [] if find_quote(a, replies) is not None), None)
                items.append({"index": index, "verdict": said is None, "evidence": "", "explanation": f"the replies say {said!r}" if said else "no wrong value stated"})
                continue
            # the first phrase that names no trial result (the gold judge holds the raw criteria), else the first
            phrases = [item if isinstance(item, str) else item[0] for item in criterion.evidence or [""]]
            phrase = next((p for p in phrases if "${" not in p), phrases[0])
            quote = find_quote(phrase, replies) if "${" not in phrase else _quote_with_results(phrase, replies, _rendered_criterion(request, index))
            if quote is None:
                items.append({"index": index, "verdict": False, "evidence": "", "explanation": f"no reply says {phrase!r}"})
            else:
                cited = next(i for i, reply in enumerate(replies, start=1) if quote in reply)
                items.append({"index": index, "verdict": True, "message": cited, "evidence": quote, "explanation": "stated in the reply"})
        return json.dumps({"criteria": items, "contradiction_found": False})


def _rendered_criterion(request: str, index: int) -> str:
    """Criterion `index` as the request states it (its `${...}` results resolved by the grader)."""
    block = request.split("<criteria>", 1)[-1].split("</criteria>", 1)[0]
    return next((line.split(". ", 1)[1] for line in block.splitlines() if line.startswith(f"{index}. ")), "")


def _quote_with_results(phrase: str, replies: list[str], rendered: str) -> str | None:
    """The sentence of a reply that states `phrase`, whose `${tool.field}` parts are results the trial
    produced: a sentence stating a value the rendered (resolved) criterion names, else one matching the
    phrase with any id-like word for each reference (the gold judge holds the raw criteria)."""
    import re

    from grader.text.values import find_values

    values = [v.text.lower() for v in find_values(rendered) if v.kind == "id"]
    sentences = [x for reply in replies for x in re.split(r"(?<=[.!?])\s+|\n+", reply) if x.strip()]
    for sentence in sentences:
        if any(v in sentence.lower() for v in values):
            return sentence
    parts = re.split(r"\$\{[^}]+\}", phrase)
    pattern = re.compile(r"[\w.$-]+".join(re.escape(p) for p in parts), re.IGNORECASE)
    return next((sentence for sentence in sentences if pattern.search(sentence)), None)


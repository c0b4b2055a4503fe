"""Shared pieces of the consent tests: `ask` builds a question from turns and the gated call, and a
scripted model for the LLM consent judge answers the judge's request by applying the
consent specification (the rule, `grader.consent.decide`) to exactly what the request carries, so a test
shows that the model judge's prompt hands over every input the rule decides on."""

from __future__ import annotations

from typing import Any

from contracts.evidence import Message
from contracts.schema import ConsentCheck
from grader.consent import ConsentQuestion, GatedCall, decide
from grader.llm_consent import parse_request


def rule_model(messages, tools) -> str:  # noqa: ANN001
    """The rule's judgement, as JSON, of the question rebuilt from the model judge's request."""
    inputs = parse_request(messages[-1].content)
    fields = inputs["check"]
    assert isinstance(fields, dict)
    check = ConsentCheck(tool=fields["tool"], decision=str(inputs["decision"]), proposal=fields["proposal"], upfront=fields["upfront"], params=fields.get("params"))
    conversation = [Message(role="user" if m["role"] == "customer" else "assistant", content=m["text"], turn=0) for m in inputs["conversation"]]  # type: ignore[union-attr]
    calls = [GatedCall(**call) for call in inputs["calls"]]  # type: ignore[union-attr]
    return decide(ConsentQuestion(check=check, tool=check.tool, turn=0, conversation=conversation, calls=calls)).model_dump_json()


def ask(check: ConsentCheck, turns: list[tuple[str, str]], call: dict[str, Any], result: Any = None) -> ConsentQuestion:
    """A question: alternating (role, text) turns ending with the customer's answer, then the gated call."""
    messages, turn = [], -1
    for role, text in turns:
        turn += role == "user"
        messages.append(Message(role=role, content=text, turn=max(turn, 0)))
    return ConsentQuestion(check=check, tool=check.tool, turn=max(turn, 0), conversation=messages, calls=[GatedCall(arguments=call, result=result)])

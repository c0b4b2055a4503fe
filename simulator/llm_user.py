"""The on-policy user simulator (spec A.1): an LLM that sees only its private instruction and the visible
dialogue (never tools, routing or state) and produces the next utterance or a stop decision."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from contracts.evidence import Message
from models.model import Model
from models.prompts import VersionedPrompt
from models.types import ChatMessage, GenerateConfig

PROMPT_VERSIONS = ("user_v1", "user_v2")
DEFAULT_PROMPT = "user_v2"
"""v2 (issue 30): declines offers the instruction does not cover, keeps narrator notes private, does not
stop on a refusal the instruction scripts a push-back for, and states decisions in words."""
PROMPT_DIR = Path(__file__).parent / "prompts"
PROMPT = VersionedPrompt(PROMPT_DIR, DEFAULT_PROMPT)
STOP_TOKEN = "###STOP###"
ANSWER_FIRST = (
    "(Note to the customer: the assistant's last message asks you something or is waiting for you. "
    f"Answer it unless your goal is already fully achieved; only then reply {STOP_TOKEN}.)"
)


PENDING_CUES = ("shall i", "should i", "would you like", "do you want", "can you confirm", "please confirm",
                "i will ", "i'll ", "let me ", "one moment", "give me a moment", "i am going to", "i'm going to")


def _awaits_customer(message: str) -> bool:
    """The agent asked something, or announced an action it has not reported as done."""
    text = message.strip().lower()
    return text.endswith("?") or any(cue in text for cue in PENDING_CUES)


class LLMUser:
    name = "llm"

    def __init__(self, model: Model, instruction: str, *, config: GenerateConfig | None = None, prompt: VersionedPrompt | None = None) -> None:
        self.model = model
        self.instruction = instruction
        self.config = config
        self.prompt = prompt or PROMPT

    def _messages(self, conversation: Sequence[Message], nudge: str | None = None) -> list[ChatMessage]:
        system = self.prompt.text.format(instruction=self.instruction.strip(), stop_token=STOP_TOKEN)
        # Roles are mirrored: the simulator speaks as "assistant", the agent's replies arrive as "user".
        messages = [ChatMessage(role="system", content=system)]
        if not conversation:
            messages.append(ChatMessage(role="user", content="(The assistant is ready. Write your first message.)"))
        for m in conversation:
            messages.append(ChatMessage(role="assistant" if m.role == "user" else "user", content=m.content))
        if nudge:
            messages.append(ChatMessage(role="user", content=nudge))
        return messages

    async def next_message(self, conversation: Sequence[Message]) -> str | None:
        output = await self.model.generate(self._messages(conversation), config=self.config)
        text = output.text.strip()
        if STOP_TOKEN in text:
            last = conversation[-1].content if conversation and conversation[-1].role == "assistant" else ""
            if not _awaits_customer(last):
                return None
            retry = await self.model.generate(self._messages(conversation, ANSWER_FIRST), config=self.config)
            text = retry.text.strip()
            if STOP_TOKEN in text:
                return None
        return text or "..."

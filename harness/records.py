"""What a run directory stores per trial."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from contracts.text import ERROR_MAX_CHARS, safe_text

from contracts.evidence import Message, RoutingDecision, ToolCallRecord
from grader.consent import ConsentOutput
from grader.judge import JudgeOutput
from grader.verdicts import TrialVerdict
from models.types import Usage

TrialStatus = Literal["scored", "infra_error"]

RECORD_FORMAT = 2
"""Version of the trial-record JSON (docs/trial-record.md). 2 added what re-grading needs: the initial
state, the execution failure before grading, and the reply judgement with the criteria it answered."""


class TrialKey(BaseModel, frozen=True):
    task_id: str
    round: int
    seed: int

    @property
    def slug(self) -> str:
        return f"{self.task_id}__r{self.round}__s{self.seed}"


class TrialRecord(BaseModel):
    """One trial as the run directory stores it: everything needed to grade it again without re-running
    it (`crmbench grade`): the four evidence channels, the initial state, and how execution ended."""

    record_format: int = Field(default=1, description="Absent in format-1 records, which lack initial_state and judgement.")
    key: TrialKey
    domain: str
    difficulty: str
    capabilities: list[str]
    agent: str
    status: TrialStatus
    strict: bool | None = Field(description="None when the trial is ⊥ (infrastructure failure: excluded, re-runnable).")
    failure_class: str | None = Field(default=None, description="model:<kind> (scored 0) or infra:<kind> (⊥).")
    error: str | None = None
    verdict: TrialVerdict | None = None
    conversation: list[Message] = Field(default_factory=list)
    routing: list[RoutingDecision] = Field(default_factory=list)
    tool_trace: list[ToolCallRecord] = Field(default_factory=list)
    final_state: dict[str, Any] = Field(default_factory=dict)
    initial_state: dict[str, Any] | None = Field(default=None, description="merge(default state, task override) as the trial began.")
    execution_failure: str | None = Field(
        default=None, description="Model-attributable failure of the execution itself (non-convergence, agent-reported tool errors), before grading."
    )
    judgement: JudgeOutput | None = Field(default=None, description="The reply judge's raw answer, reused on re-grading when the criteria are unchanged.")
    criteria_hash: str | None = Field(default=None, description="Hash of the reply criteria the judgement answered.")
    consent_judgement: ConsentOutput | None = Field(
        default=None, description="The consent judge's answers (one per consent check and turn of a gated call), reused on re-grading when the checks are unchanged."
    )
    consent_hash: str | None = Field(default=None, description="Hash of the consent checks the consent judgement answered.")
    hallucinated_tools: list[str] = Field(default_factory=list)
    simulator_faults: list[str] = Field(
        default_factory=list, description="Simulator conformance faults of the dialogue (`kind@turn: detail`, simulator/conformance.py); the trial is flagged."
    )
    usage: dict[str, Usage] = Field(default_factory=dict, description="Per model role.")
    models: dict[str, str] = Field(default_factory=dict, description="Per model role: provider:model.")
    user_turns: int = 0
    wall_s: float = 0.0
    attempts: int = 1
    ungraded: str | None = Field(
        default=None,
        description="Set when the judge failed after retries: the trial counts as a non-pass, the run is incomplete, a rerun re-judges it.",
    )

    @property
    def finished(self) -> bool:
        """Needs no rerun: scored and fully graded (⊥ and ungraded trials are re-run)."""
        return self.status == "scored" and self.ungraded is None

    @field_validator("error", mode="after")
    @classmethod
    def _safe_error(cls, value: str | None) -> str | None:
        return None if value is None else safe_text(value, ERROR_MAX_CHARS * 8)

"""Task contracts: the schema every task in `contracts/tasks/<domain>.yaml` must satisfy.

The semantics follow spec A.2 exactly (see DESIGN.md "Contract semantics"). A check family that is
absent is *not declared* and is never graded; a family declared as an empty list is a validation
error, because an empty list that silently passes is how peer benchmarks let no-op agents score.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

Difficulty = Literal["easy", "medium", "hard"]
TASK_ID = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*_\d{2}$")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ExpectedAction(Strict):
    """At least `count` executed calls of `tool` (count-aware: two entries for the same tool need two calls)."""

    tool: str
    count: int = Field(default=1, ge=1)


class ExpectedParams(Strict):
    """Asserted arguments of one tool. `any`: some executed call matches; `first`: the first executed call does."""

    tool: str
    params: dict[str, Any] = Field(min_length=1)
    match: Literal["any", "first"] = "any"


class OrderConstraint(Strict):
    """Order over the named tools only. `subsequence`: they occur in this order among the executed calls of
    these tools (repeats and unrelated calls may interleave). `exact`: the executed calls of these tools,
    filtered from the trace, are exactly this sequence."""

    tools: list[str] = Field(min_length=2)
    mode: Literal["subsequence", "exact"] = "subsequence"


EvidencePhrase = str | list[str]


class ReplyCriterion(Strict):
    """One semantic criterion on the user-visible replies.

    `evidence` drives the offline evidence judge: every item must occur (case-insensitive) in the
    visible assistant transcript; an item that is a list is satisfied by any one of its phrases.
    """

    criterion: str = Field(min_length=8)
    evidence: list[EvidencePhrase] = Field(min_length=1)

    @field_validator("evidence")
    @classmethod
    def _non_empty_phrases(cls, value: list[EvidencePhrase]) -> list[EvidencePhrase]:
        for item in value:
            phrases = [item] if isinstance(item, str) else item
            if not phrases or any(not p.strip() for p in phrases):
                raise ValueError("evidence phrases must be non-empty strings")
        return value


class StateCheck(Strict):
    """A sparse check on one dotted path of the final state: exactly one of equals / non_empty / min_length."""

    path: str = Field(min_length=1)
    equals: Any = None
    non_empty: bool | None = None
    min_length: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _exactly_one_operator(self) -> StateCheck:
        given = [self.has_equals, self.non_empty is not None, self.min_length is not None]
        if sum(given) != 1:
            raise ValueError(f"state check on {self.path!r} must set exactly one of equals, non_empty, min_length")
        if self.non_empty is False:
            raise ValueError(f"state check on {self.path!r}: non_empty must be true when given")
        return self

    @property
    def has_equals(self) -> bool:
        """`equals: null` is a legitimate expectation, so "declared" means the key was given at all."""
        return "equals" in self.model_fields_set

    @property
    def operator(self) -> str:
        if self.has_equals:
            return "equals"
        return "non_empty" if self.non_empty else "min_length"


class ForbiddenParams(Strict):
    """Any attempted call of `tool` whose arguments match all of `params` fails the task (refused attempts too)."""

    tool: str
    params: dict[str, Any] = Field(min_length=1)


class ForbiddenState(Strict):
    """The final value at `path` must not equal `equals`."""

    path: str = Field(min_length=1)
    equals: Any


class Contract(Strict):
    expected_actions: list[ExpectedAction] | None = None
    expected_params: list[ExpectedParams] | None = None
    order: list[OrderConstraint] | None = None
    reply_criteria: list[ReplyCriterion] | None = None
    expected_state: list[StateCheck] | None = None
    forbidden_actions: list[str] | None = None
    forbidden_params: list[ForbiddenParams] | None = None
    forbidden_state: list[ForbiddenState] | None = None
    protected_state: list[str] | None = None

    @model_validator(mode="after")
    def _declared_means_non_empty(self) -> Contract:
        for name in type(self).model_fields:
            value = getattr(self, name)
            if value is not None and len(value) == 0:
                raise ValueError(f"{name} is declared but empty; omit it instead (undeclared checks are absent)")
        if not any(getattr(self, name) for name in type(self).model_fields):
            raise ValueError("a contract must declare at least one check")
        return self

    @property
    def has_negative(self) -> bool:
        """Policy-constrained (spec B.8): declares a forbidden action, forbidden params or protected state."""
        return bool(self.forbidden_actions or self.forbidden_params or self.protected_state)


class GoldCall(Strict):
    """One tool call of the gold path. String arguments may reference an earlier result with
    `${tool.field}` (the most recent executed call of `tool`), because minted ids depend on the seed."""

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)


class GoldTurn(Strict):
    user: str = Field(min_length=1)
    calls: list[GoldCall] = Field(default_factory=list)
    reply: str = Field(min_length=1)


class Task(Strict):
    id: Annotated[str, Field(pattern=TASK_ID.pattern)]
    domain: str
    title: str = Field(min_length=4)
    capabilities: list[str] = Field(min_length=1)
    difficulty: Difficulty
    instruction: str = Field(min_length=40, description="Private, first-person user instruction with a stop condition.")
    initial_state: dict[str, Any] = Field(default_factory=dict)
    contract: Contract
    gold: list[GoldTurn] = Field(min_length=1)

    @model_validator(mode="after")
    def _id_matches_domain(self) -> Task:
        if len(set(self.capabilities)) != len(self.capabilities):
            raise ValueError("capabilities must not repeat")
        return self


class TaskFile(Strict):
    """The YAML document of one domain: a version and a list of tasks."""

    domain: str
    version: str
    tasks: list[Task] = Field(min_length=1)

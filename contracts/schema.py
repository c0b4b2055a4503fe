"""Task contracts: the schema every task in `contracts/tasks/<domain>.yaml` must satisfy.

The semantics follow spec A.2 exactly (see DESIGN.md "Contract semantics"). A check family that is
absent is *not declared* and is never graded; a family declared as an empty list is a validation
error, because an empty list that silently passes is how peer benchmarks let no-op agents score.
"""

from __future__ import annotations

import functools

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

Difficulty = Literal["easy", "medium", "hard"]
TASK_ID = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*_\d{2}$")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


Outcome = Literal["succeeded", "attempted"]
"""Which calls count as evidence that an action was *done* (spec A.2: successfully executed calls).

`succeeded` (the default): the call reached the tool and succeeded - a business refusal is not a done
action. `attempted` (explicit opt-in): any well-formed call that reached the tool, refused or not, for
tasks whose goal really is "the agent tried" (e.g. the refusal is the point)."""


class AlternativeCall(Strict):
    """Extension: another tool that establishes the same fact, with its own (optional) arguments, e.g.
    `{tool: get_order_details, params: {order_id: ORD-1}}`. A bare string alternative is name-only."""

    tool: str
    params: dict[str, Any] | None = Field(default=None, min_length=1)

    def matches(self, tool: str, arguments: dict[str, Any]) -> bool:
        from grader.values import args_match

        return tool == self.tool and (not self.params or args_match(self.params, arguments))

    def label(self) -> str:
        if not self.params:
            return self.tool
        return f"{self.tool}(" + ", ".join(f"{k}={v}" for k, v in self.params.items()) + ")"


Alternative = str | AlternativeCall


def _alternative_calls(alternatives: list[Alternative] | None) -> list[AlternativeCall]:
    return [AlternativeCall(tool=a) if isinstance(a, str) else a for a in alternatives or []]


class CallPattern(Strict):
    """A tool call a check looks for: `tool`, optionally bound to `params`, or any of its `alternatives`
    (extension: other tools that establish the same fact; a string matches by name, `{tool, params}`
    only calls with those arguments; the entry's own `params` bind `tool` only)."""

    tool: str
    params: dict[str, Any] | None = Field(default=None, min_length=1)
    alternatives: list[Alternative] | None = Field(
        default=None,
        min_length=1,
        description="Extension: other tools that establish the same fact (e.g. a balance read that shows the "
        "account frozen instead of a validation, a payment found in get_transaction_history instead of "
        "get_payment_details); calls of any of them count. A string matches by name; `{tool, params}` only "
        "calls with those arguments. `params` of the entry bind `tool` only.",
    )

    @property
    def tools(self) -> list[str]:
        return [self.tool, *(a.tool for a in self.alternative_calls)]

    @functools.cached_property
    def alternative_calls(self) -> list[AlternativeCall]:
        return _alternative_calls(self.alternatives)

    @functools.cached_property
    def _own_call(self) -> AlternativeCall:
        """The entry's own tool and params as a call pattern (made once: a grader asks every trace record)."""
        return AlternativeCall(tool=self.tool, params=self.params)

    def matches(self, tool: str, arguments: dict[str, Any]) -> bool:
        """Whether a call is this one: the tool with the entry's params, or one of the alternatives."""
        return self._own_call.matches(tool, arguments) or any(a.matches(tool, arguments) for a in self.alternative_calls)

    def label(self, separator: str = " | ") -> str:
        return separator.join([self._own_call.label(), *(a.label() for a in self.alternative_calls)])


class ExpectedAction(CallPattern):
    """At least `count` successful calls of `tool` (count-aware: two entries for the same tool need two
    calls). Extensions: `params` narrows the calls that count to those with these arguments; `exact`
    makes the count exact, so a repeated write fails; `alternatives` (see `CallPattern`)."""

    count: int = Field(default=1, ge=1)
    exact: bool = False
    outcome: Outcome = "succeeded"

    def label(self, separator: str = " or ") -> str:
        return super().label(separator)


class TextFacts(Strict):
    """A value-aware match of free text (a note, reason, resolution, message), written where a value is
    expected (`expected_params` params, a state check's `equals` or `where`):
    `{text_states: ["14:00", "CASE-5016"], text_may_also: ["09:00"]}`. Every `text_states` item must be
    stated in the text - a value (time, date, amount, id) in any written form, other words as whole
    words - and no other value of the same sort (time, date, money, count, id of the same prefix) may be,
    except those `text_may_also` lists. Grading: `grader/textfacts.py`."""

    text_states: list[str] = Field(min_length=1)
    text_may_also: list[str] | None = Field(default=None, min_length=1)

    @field_validator("text_states", "text_may_also")
    @classmethod
    def _non_blank(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and any(not v.strip() for v in value):
            raise ValueError("text facts must be non-empty strings")
        return value


def check_text_matchers(value: Any) -> None:
    """Validate every text matcher in an expected value (a mapping with `text_states`), so a misspelt
    matcher is a contract error, not a dict compared structurally."""
    if isinstance(value, dict):
        if "text_states" in value or "text_may_also" in value:
            TextFacts.model_validate(value)
            return
        for item in value.values():
            check_text_matchers(item)
    elif isinstance(value, list):
        for item in value:
            check_text_matchers(item)


class ExpectedParams(Strict):
    """Asserted arguments of one tool. `any`: some successful call matches; `first`: the first successful
    call does; `merged` (extension): the asserted fields may be set over several successful calls on the
    same record - the record is named by `record` (default: the asserted arguments the tool requires), and
    each other asserted field takes the value of the last of those calls that gave it explicitly."""

    tool: str
    params: dict[str, Any] = Field(min_length=1)
    match: Literal["any", "first", "merged"] = "any"
    record: list[str] | None = Field(
        default=None,
        min_length=1,
        description="`merged` only: the asserted arguments that name the record (default: those the tool "
        "requires, e.g. incident_id; the grader derives them from the tool's signature).",
    )

    @model_validator(mode="after")
    def _record_with_merged(self) -> ExpectedParams:
        check_text_matchers(self.params)
        if self.record is not None:
            if self.match != "merged":
                raise ValueError(f"expected_params {self.tool!r}: record goes with match: merged")
            missing = [k for k in self.record if k not in self.params]
            if missing:
                raise ValueError(f"expected_params {self.tool!r}: record names {missing} that params do not assert")
        return self
    outcome: Outcome = "succeeded"


class OrderStep(CallPattern):
    """One step of an order constraint bound to its arguments (extension): only calls of `tool` whose
    arguments match `params` are this step, so "validate *this* transfer before executing *it*" holds;
    `alternatives` are this step too (see `CallPattern`)."""


class OrderConstraint(Strict):
    """Order over the named steps only. `subsequence`: they occur in this order among the successful calls
    of these steps (repeats and unrelated calls may interleave). `exact`: the successful calls matching any
    step, filtered from the trace, are exactly this sequence. A step is a tool name or an `OrderStep`."""

    tools: list[str | OrderStep] = Field(min_length=2)
    mode: Literal["subsequence", "exact"] = "subsequence"
    separate_turns: bool = Field(
        default=False,
        description="Extension: each step happens in a later user turn than the one before it - the agent "
        "waited for the customer in between (a quote and its acceptance, a question and the action it gates).",
    )

    @property
    def steps(self) -> list[OrderStep]:
        return [OrderStep(tool=t) if isinstance(t, str) else t for t in self.tools]


EvidencePhrase = str | list[str]


class ContextValues(Strict):
    """Values a reply criterion's statement names that its evidence deliberately does not require, with the
    reason a reviewer can judge: a value the customer gave, restated to say which record or request the
    criterion is about but not the fact asked for (`Explains that the $1,000 transfer cannot be made...`,
    where the asked fact is the refusal), or an alternative the evidence accepts in other words (the
    technician's name or his id). Every other value the statement names must be required by the evidence:
    the catalog lint (`harness.validate.unrequired_values`) fails the release gate otherwise, so a reply
    stating a wrong value of the asked fact cannot pass. Each entry of `values` is one value (an amount,
    date, time, count, percentage, level or id) as the statement writes it, in any form the evidence judge
    reads as the same value."""

    values: list[str] = Field(min_length=1)
    reason: str = Field(min_length=20, description="Why the reply need not state these values (whose values they are, what the asked fact is).")

    @field_validator("values")
    @classmethod
    def _non_blank(cls, value: list[str]) -> list[str]:
        if any(not v.strip() for v in value):
            raise ValueError("context values must be non-empty strings")
        return value


class ReplyCriterion(Strict):
    """One semantic criterion on the user-visible replies.

    `evidence` drives the offline evidence judge: every item must occur (case-insensitive) in the
    visible assistant transcript; an item that is a list is satisfied by any one of its phrases.

    A criterion with `absent` and no `evidence` is a mention guard ("when mentioned, must be right"): it
    asks for nothing, passes when the replies do not state the fact, and fails when they state a wrong
    value of it (another card on the profile, another refund destination), each wrong value an `absent`
    phrase generated from the world. A passing guard has nothing to quote.

    Every value the statement names (amount, date, time, count, percentage, level, id) must be required by
    the evidence - some item all of whose phrases state it - or be declared in `context_values` with a
    reason (the catalog lint `harness.validate.unrequired_values`).
    """

    criterion: str = Field(min_length=8)
    evidence: list[EvidencePhrase] = Field(default_factory=list)
    absent: list[str] | None = Field(
        default=None,
        min_length=1,
        description="Phrases that must NOT occur in the visible replies for this criterion (e.g. a wrong amount).",
    )
    context_values: list[ContextValues] | None = Field(
        default=None,
        min_length=1,
        description="Values the statement names that the evidence need not require, each group with its reason "
        "(see ContextValues); every other value the statement names must be required by the evidence.",
    )

    @model_validator(mode="after")
    def _evidence_or_guard(self) -> ReplyCriterion:
        if not self.evidence and not self.absent:
            raise ValueError("a reply criterion needs evidence, or absent phrases (a mention guard)")
        return self

    @property
    def is_guard(self) -> bool:
        """A mention guard: only `absent` phrases, nothing the replies must state."""
        return not self.evidence

    @field_validator("evidence")
    @classmethod
    def _non_empty_phrases(cls, value: list[EvidencePhrase]) -> list[EvidencePhrase]:
        for item in value:
            phrases = [item] if isinstance(item, str) else item
            if not phrases or any(not p.strip() for p in phrases):
                raise ValueError("evidence phrases must be non-empty strings")
        return value


class StateCheck(Strict):
    """A sparse check on one dotted path of the final state: exactly one of equals / non_empty /
    min_length / count.

    `count` (extension): exactly N items of the collection at `path` (a dict's values or a list's items)
    whose fields match `where`; with `new: true` only items that were not in the initial state count
    (so "exactly one new payment for ACC-1002" is expressible and a repeated write fails)."""

    path: str = Field(min_length=1)
    equals: Any = None
    non_empty: bool | None = None
    min_length: int | None = Field(default=None, ge=1)
    count: int | None = Field(default=None, ge=0)
    where: dict[str, Any] | None = Field(default=None, min_length=1)
    new: bool = False

    @model_validator(mode="after")
    def _exactly_one_operator(self) -> StateCheck:
        given = [self.has_equals, self.non_empty is not None, self.min_length is not None, self.count is not None]
        if sum(given) != 1:
            raise ValueError(f"state check on {self.path!r} must set exactly one of equals, non_empty, min_length, count")
        if self.non_empty is False:
            raise ValueError(f"state check on {self.path!r}: non_empty must be true when given")
        if (self.where is not None or self.new) and self.count is None:
            raise ValueError(f"state check on {self.path!r}: where/new only go with count")
        check_text_matchers(self.equals)
        check_text_matchers(self.where)
        return self

    @property
    def has_equals(self) -> bool:
        """`equals: null` is a legitimate expectation, so "declared" means the key was given at all."""
        return "equals" in self.model_fields_set

    @property
    def operator(self) -> str:
        if self.has_equals:
            return "equals"
        if self.count is not None:
            return "count"
        return "non_empty" if self.non_empty else "min_length"


class ForbiddenParams(Strict):
    """Any attempted call of `tool` whose arguments match all of `params` fails the task (refused attempts too)."""

    tool: str
    params: dict[str, Any] = Field(min_length=1)


class AttemptLimit(Strict):
    """Extension (`attempt_limits`): at most `max` attempted calls of `tool` whose arguments match `params`
    (all calls of the tool when `params` is omitted). Successful and refused calls both count - a refused
    call retried unchanged is the mistake this catches ("never repeat a refused call"); malformed, blocked
    and unknown calls never count (a corrected malformed call is not a retry). Unlike `forbidden_params` it
    allows the attempt, and unlike an `exact` attempted count it does not require one: an agent that reads
    the balance first and never calls the tool passes. `params` go through the same canonical comparison
    and `${...}` references as every other family; a reference the trial never produced caps nothing."""

    tool: str
    params: dict[str, Any] | None = Field(default=None, min_length=1)
    max: int = Field(default=1, ge=1, description="How many matching attempts are allowed (0 would be forbidden_params).")

    def matches(self, tool: str, arguments: dict[str, Any]) -> bool:
        from grader.values import args_match

        return tool == self.tool and (not self.params or args_match(self.params, arguments))

    def label(self) -> str:
        return AlternativeCall(tool=self.tool, params=self.params).label()


class ForbiddenState(Strict):
    """The final value at `path` must not equal `equals`."""

    path: str = Field(min_length=1)
    equals: Any


class ConsentCheck(Strict):
    """Extension (`consent`): a consequential write that needs the customer's decision first.

    Every call of `tool` (successful or refused; narrowed by `params`) must come after a customer message
    that grants `decision`: an answer to the agent's proposal of the call (a yes-form, a request for it,
    or a choice among what the agent offered) or, when `upfront` allows, a request for it in the
    customer's own words before any proposal. A decline, a deferral, or a condition the call breaks (or
    that the record cannot check) does not grant it; the customer's latest decision before the call
    counts. How a customer says yes is general language (`grader/consent_lexicon.yaml`), never listed per
    check: the fields say only *what* is decided (docs/judges.md, "Consent")."""

    tool: str
    params: dict[str, Any] | None = Field(default=None, min_length=1)
    decision: str = Field(min_length=12, description="What the customer must have agreed to, in a sentence.")
    proposal: list[EvidencePhrase] | None = Field(
        default=None,
        min_length=1,
        description="The proposal's subject: terms (an amount, a card, a flight) the agent must have stated (every item) in a reply before the"
        " customer's answer, unless `upfront`; a message naming one names the decision.",
    )
    upfront: bool = Field(
        default=True,
        description="A request that decides everything is the authorisation (the domain policy's rule): the customer's own request for the"
        " action counts without an earlier proposal. False where the policy asks for the terms first.",
    )

    @field_validator("proposal")
    @classmethod
    def _non_empty_phrases(cls, value: list[EvidencePhrase] | None) -> list[EvidencePhrase] | None:
        for item in value or []:
            phrases = [item] if isinstance(item, str) else item
            if not phrases or any(not p.strip() for p in phrases):
                raise ValueError("consent phrases must be non-empty strings")
        return value


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
    only_changes: list[str] | None = Field(
        default=None,
        description="Extension: the final state may differ from the initial state only at or under these "
        "dotted paths (`*` matches one key); any other change is a collateral effect. An empty list is "
        "meaningful (unlike other families): nothing may change at all.",
    )
    consent: list[ConsentCheck] | None = Field(
        default=None, description="Extension: writes that need the customer's decision before the call (see ConsentCheck)."
    )
    attempt_limits: list[AttemptLimit] | None = Field(
        default=None, description="Extension: caps on attempted calls, refused ones included (see AttemptLimit); component `forbidden`."
    )

    @model_validator(mode="after")
    def _declared_means_non_empty(self) -> Contract:
        for name in type(self).model_fields:
            value = getattr(self, name)
            if value is not None and len(value) == 0 and name != "only_changes":
                raise ValueError(f"{name} is declared but empty; omit it instead (undeclared checks are absent)")
        if not any(getattr(self, name) for name in type(self).model_fields) and self.only_changes is None:
            raise ValueError("a contract must declare at least one check")
        return self

    @property
    def has_negative(self) -> bool:
        """Policy-constrained (spec B.8): declares a forbidden action, forbidden params or protected state.

        `only_changes` (our extension) is deliberately not counted: it guards every task against collateral
        writes, and counting it would turn the spec's policy-constrained subset (Table 8) into almost the
        whole catalog. The inventory reports it in its own column."""
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


class BatteryExemption(Strict):
    """One generated battery case this task opts out of, with the reason a reviewer can judge."""

    case: str = Field(min_length=3, description="The case id the release gate prints, e.g. 'behaviour/repeat/send_receipt@1.0'.")
    reason: str = Field(min_length=20)


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
    battery_exemptions: list[BatteryExemption] | None = Field(default=None, min_length=1)

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

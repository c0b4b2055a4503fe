"""Verdict models: one per declared check, rolled up per component and into the strict conjunction."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Component = Literal["action", "params", "order", "reply", "state", "forbidden", "collateral", "consent"]

PRIMARY_PRIORITY: tuple[Component, ...] = ("action", "forbidden", "state", "params", "reply", "order", "consent", "collateral")
"""Spec B.2: a non-success gets the first failing component in this order as its primary label. `consent`
(extension) is a timing rule like `order`, so it sits right after it."""

TOOL_CALL_ERROR = "tool_call_error"
"""Primary label of a strict failure with no failing component verdict (e.g. a hallucinated tool)."""

NON_CONVERGENCE = "non_convergence"
"""Primary label of a trial that hit the user-turn or time limit: its own class in the failure
composition, as the spec's figures show timeouts, whatever its components say."""


class CheckVerdict(BaseModel):
    component: Component
    check: str = Field(description="Which declared check, e.g. 'expected_state[0] accounts.ACC-1002.balance'.")
    passed: bool
    reason: str = Field(description="A readable sentence saying what was expected and what happened.")
    diff: str | None = None
    judge: str | None = Field(default=None, description="For reply criteria: which judge decided.")
    quote: str | None = None


class TrialVerdict(BaseModel):
    task_id: str
    checks: list[CheckVerdict]
    components: dict[str, bool] = Field(description="Declared components only: component → all its checks passed.")
    strict: bool
    primary_failure: str | None
    model_failure: str | None = Field(default=None, description="Model-attributable execution failure, if any.")
    contradiction_found: bool | None = None
    judge: str | None = None

    def failures(self) -> list[CheckVerdict]:
        return [c for c in self.checks if not c.passed]

    def summary(self) -> str:
        if self.strict:
            return f"{self.task_id}: PASS ({len(self.checks)} checks)"
        lines = [f"{self.task_id}: FAIL [{self.primary_failure}]"]
        if self.model_failure:
            lines.append(f"  - model failure: {self.model_failure}")
        for check in self.failures():
            lines.append(f"  - {check.component}: {check.reason}" + (f" ({check.diff})" if check.diff else ""))
        return "\n".join(lines)


def roll_up(
    task_id: str,
    checks: list[CheckVerdict],
    *,
    model_failure: str | None = None,
    contradiction_found: bool | None = None,
    judge: str | None = None,
) -> TrialVerdict:
    components: dict[str, bool] = {}
    for check in checks:
        components[check.component] = components.get(check.component, True) and check.passed
    strict = bool(checks) and all(components.values()) and model_failure is None
    primary: str | None = None
    if not strict:
        if model_failure and model_failure.startswith(NON_CONVERGENCE):
            primary = NON_CONVERGENCE
        else:
            primary = next((c for c in PRIMARY_PRIORITY if components.get(c) is False), TOOL_CALL_ERROR)
    return TrialVerdict(
        task_id=task_id,
        checks=checks,
        components=components,
        strict=strict,
        primary_failure=primary,
        model_failure=model_failure,
        contradiction_found=contradiction_found,
        judge=judge,
    )

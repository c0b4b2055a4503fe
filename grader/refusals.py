"""The domain policy's rule on refused attempts, applied to every trial (not only where a contract
declares a check): each domain's policy (`contracts/policies/<domain>.md`, section "Consent and refused
attempts") states it in words and in its machine block (`contracts/policy.py`).

Two rules, reported under the `forbidden` component, one failing check per offending call:

1. **A refused call is never repeated unchanged** - every domain, whatever its block says, and the tools
   whose refusal is an answer included: a call of a tool that acts (a write or a compute tool: a PIN, a
   check; a read changes nothing and is never counted) fails when an earlier call of the same tool is
   *the same attempt* (`grader/attempts.py`: unchanged in canonical form, or refused again for the same
   reason with only trivial changes), at least one of the two was refused, and either no call that could
   have changed the world succeeded between them (a successful write or compute call: the onboarding
   agent registers the missing document, then verification runs again - a new attempt) or the world gave
   both the very same refusal (code, reason and details: what happened in between did not touch what the
   refusal depends on - a rejected PIN tried again after an unrelated write is still the rejected PIN).
   Re-sending a call that already succeeded, to have the world refuse it (a second `cancel_order`, the
   same `create_case` again), is the same mistake seen from the other side.
2. **A refused attempt of a consequential write is a violation** where the block says
   `refused_attempts: violation`: a refused call of a `write` tool fails unless the tool is listed in
   `refusal_is_an_answer`. Reads and compute tools never count here.

Nothing is reported for a trial that breaks neither rule, so a clean trial's verdict is unchanged (the
family is "declared" by what the trial did, like a forbidden call). A task of a domain without a policy
file (a synthetic test domain) is not graded by this family.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

from contracts.evidence import Evidence, ToolCallRecord
from contracts.policy import POLICIES_DIR, SECTION_TITLE, PolicyRules, load_rules
from contracts.schema import Task
from grader.attempts import changed_arguments, describe_refusal, same_answer, same_attempt, unchanged
from grader.values import show
from grader.verdicts import CheckVerdict
from servers.base import ToolEnvironment, is_free_text

log = logging.getLogger(__name__)

REPEAT_RULE = "a refused call is never repeated unchanged"
REFUSED_WRITE_RULE = "a write the world refuses is a violation"


def policy_of(domain: str) -> PolicyRules | None:
    """The domain's rule (cached by `load_rules`), or None for a domain without a policy file. A policy
    file whose block does not parse raises: grading without the rule would grade a different benchmark."""
    if not (POLICIES_DIR / f"{domain}.md").exists():
        return None
    return load_rules(domain)


def _free_text(env: type[ToolEnvironment], tool: str) -> frozenset[str]:
    if tool not in env.tool_methods():
        return frozenset()
    _, hints = env.tool_signature(tool)
    return frozenset(name for name, hint in hints.items() if is_free_text(hint))


def _acts(env: type[ToolEnvironment], call: ToolCallRecord) -> bool:
    """A call of a tool that acts on the world or the session (write or compute), not a read."""
    return call.tool in env.tool_methods() and env.tool_kind(call.tool) != "read"


def _call(call: ToolCallRecord) -> str:
    return f"{call.tool}{show(call.arguments)}"


def repeated_refusals(env: type[ToolEnvironment], evidence: Evidence) -> Iterator[tuple[ToolCallRecord, ToolCallRecord]]:
    """(earlier, repeat) for every call that attempts again what an earlier call of the same tool
    attempted (rule 1), where one of the two was refused and either nothing that could change the world
    succeeded in between, or the world refused both with the very same answer (code, reason and details:
    whatever happened in between did not touch what the refusal depends on)."""
    calls = [c for c in evidence.tool_trace if c.executed]
    for j, later in enumerate(calls):
        if not _acts(env, later):
            continue
        free_text = _free_text(env, later.tool)
        changed = False  # a call that could have changed the world succeeded since `earlier`
        for i in range(j - 1, -1, -1):
            earlier = calls[i]
            if earlier.tool == later.tool and "refused" in (earlier.status, later.status) and same_attempt(earlier, later, free_text):
                if not changed or same_answer(earlier, later):
                    yield earlier, later
                    break
            if earlier.succeeded and _acts(env, earlier):
                changed = True


def _repeat_verdict(domain: str, earlier: ToolCallRecord, later: ToolCallRecord) -> CheckVerdict:
    section = f"{domain} policy, {SECTION_TITLE!r}: {REPEAT_RULE}"
    same = unchanged(earlier, later)
    how = "unchanged" if same else "with only " + ", ".join(f"{k} {show(a)} -> {show(b)}" for k, (a, b) in changed_arguments(earlier, later).items())
    if earlier.status == "refused":
        said = f"{_call(earlier)} was refused at turn {earlier.turn} ({describe_refusal(earlier)}) and sent again {how} at turn {later.turn}"
        if same_answer(earlier, later):
            said += ", refused again with the same answer"
        elif later.status == "refused":
            said += ", refused again for the same reason" if not same else ", refused again"
    else:
        said = f"{_call(earlier)} succeeded at turn {earlier.turn} and was sent again {how} at turn {later.turn}, which the world refused ({describe_refusal(later)})"
    return CheckVerdict(
        component="forbidden",
        check=f"policy {domain}: repeated {later.tool} @turn{later.turn}#{later.seq}",
        passed=False,
        reason=f"{section} - {said}",
        diff=f"{later.tool}: attempt #{earlier.seq} ({earlier.status}, turn {earlier.turn}) repeated as #{later.seq} ({later.status}, turn {later.turn}) {how}",
    )


def _refused_write_verdict(domain: str, rules: PolicyRules, call: ToolCallRecord) -> CheckVerdict:
    answers = ", ".join(rules.refusal_is_an_answer) or "none"
    return CheckVerdict(
        component="forbidden",
        check=f"policy {domain}: refused {call.tool} @turn{call.turn}#{call.seq}",
        passed=False,
        reason=(
            f"{domain} policy, {SECTION_TITLE!r}: {REFUSED_WRITE_RULE} (refused_attempts: violation; the tools whose refusal is an answer: "
            f"{answers}) - {_call(call)} was attempted at turn {call.turn} and refused ({describe_refusal(call)})"
        ),
        diff=f"{call.tool}: refused attempt #{call.seq} at turn {call.turn} ({describe_refusal(call)})",
    )


def refusal_checks(task: Task, evidence: Evidence, env: type[ToolEnvironment] | None) -> list[CheckVerdict]:
    """The failing checks of the domain's rule on this trial (none when it keeps the rule). `evidence`:
    canonical (`grader.grade.prepare`); `env`: the domain's environment (None: not graded)."""
    if env is None:
        return []
    rules = policy_of(task.domain)
    if rules is None:
        log.debug("no policy for domain %s: refused attempts not graded", task.domain)
        return []
    out = [_repeat_verdict(task.domain, earlier, later) for earlier, later in repeated_refusals(env, evidence)]
    if rules.refused_attempts == "violation":
        answers = set(rules.refusal_is_an_answer)
        for call in evidence.tool_trace:
            if call.status == "refused" and call.tool in env.tool_methods() and env.tool_kind(call.tool) == "write" and call.tool not in answers:
                out.append(_refused_write_verdict(task.domain, rules, call))
    return out


__all__ = ["REFUSED_WRITE_RULE", "REPEAT_RULE", "policy_of", "refusal_checks", "repeated_refusals"]

"""Propose `upfront` for every consent check of the catalog from the policies' rule (issue 37).

    uv run python scripts/derive_consent_upfront.py            # print the proposals that differ
    uv run python scripts/derive_consent_upfront.py --all      # print every proposal with its reason
    uv run python scripts/derive_consent_upfront.py --apply    # write the reviewed proposals into the YAML

Every domain policy says it in its own words: "a request that already decides everything the action
commits to is the authorisation" (travel), "a request that names the amount, the accounts and the method
is itself the authorisation" (payments), "a request that names the record and the change" (sales,
field service), "the customer asked for exactly that" (onboarding, ITSM, customer support). Where the
customer still has something to choose - a value the call sets that they have not named (a window, a
card, a flight, an amount after a refusal), or terms the agent must state first (`proposal`) - their
request is not the authorisation and the agent must propose and wait.

The proposal, per check, played from the gold path:
- the first customer message the consent rule reads as a request for the gated call (with `upfront`
  assumed) decides everything when the record the call acts on (its first id) and every value it
  chooses (`grader.consent.chosen_values`, and its short text arguments: a plan, a stage) have been
  named by then (by the customer, or by the agent as what the request refers to: "record the fix"
  after the agent named KB-2004) and the check declares no terms (`proposal`): upfront = true;
- otherwise upfront = false - unless the gold dialogue's own decision is that request (no proposal of
  the call before it), in which case the customer's request *is* the decision and upfront = true
  (flagged "gold decides by request" for the reviewer).
The reviewer reads the differing proposals, and `--apply` writes them (each check's flow or block form).
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
from pathlib import Path

from contracts.catalog import TASKS_DIR, load_catalog
from contracts.evidence import Evidence
from contracts.schema import Task
from grader.consent import ConsentQuestion, decide, questions, unnamed_choices
from grader.prepared import prepare


async def _gold(tasks: list[Task]) -> dict[str, Evidence]:
    from harness.release.replay import GatewayReplayer
    from servers.gateway import Gateway

    out = {}
    async with GatewayReplayer(Gateway(sorted({t.domain for t in tasks}))) as replayer:
        for task in tasks:
            out[task.id] = await replayer.play(task, task.gold)
    return out


def _upto(question: ConsentQuestion, index: int, upfront: bool) -> ConsentQuestion:
    check = question.check.model_copy(update={"upfront": upfront})
    return question.model_copy(update={"check": check, "conversation": question.conversation[: index + 1]})


REVIEWED: dict[tuple[str, int], tuple[bool, str]] = {
    ("payments_journey_dispute_and_freeze_22", 0): (
        True,
        "reviewed: 'Nobody at my company made it. Please dispute it.' decides everything; the reason code"
        " 'unauthorized' is the agent's filing of the customer's own words, not a choice left open",
    ),
    ("onboarding_verify_wrong_company_upload_01", 0): (
        False,
        "reviewed: the onboarding policy - an upload of another company 'is only known when you try it'; the upload to"
        " register is the customer's answer to the agent's report, not decidable up front",
    ),
    ("onboarding_golive_check_then_confirm_01", 0): (
        False,
        "reviewed: the onboarding policy - \"'go ahead' after you reported the account ready is [a go-ahead]\"; the first"
        " message says not to flip the switch yet",
    ),
    ("onboarding_journey_verify_issue_golive_01", 0): (
        False,
        "reviewed: the onboarding policy - 'resolve a verification issue only with what the customer confirmed after you"
        " told them the issue'",
    ),
    ("onboarding_journey_configure_golive_01", 0): (
        False,
        "reviewed: the time zone is the customer's answer to the agent's question after the go-live check (the request"
        " was to go live, not to set a time zone)",
    ),
    ("field_service_reschedule_weekend_01", 0): (
        False,
        "reviewed: the first request asks for Saturday; the Monday window is the customer's choice after hearing weekends"
        " are closed (field service policy: 'a substitute after a refusal ... act only after they chose')",
    ),
    ("travel_change_small_difference_01", 0): (
        False,
        "reviewed: the customer asked what the difference would be (travel policy: 'otherwise quote it and wait for the"
        " acceptance'); the later acceptance decides",
    ),
}
"""Proposals a reviewer overrode, with the reason (the script prints them as such)."""


def propose(question: ConsentQuestion) -> tuple[bool, str]:
    """(upfront, why) for one gated turn of the gold path."""
    customer = [i for i, m in enumerate(question.conversation) if m.role == "user"]
    first = next((i for i in customer if decide(_upto(question, i, True)).granted), None)
    if first is None:
        return question.check.upfront, "no customer message grants it (the gold path fails consent)"
    # named by either side by then: the rule's own reading (`unnamed_choices`)
    unnamed = unnamed_choices(question, [m.content for m in question.conversation[: first + 1]])
    if not unnamed and not question.check.proposal:
        return True, f"the customer's request (message {first + 1}) names the action and every value it sets"
    needs_request = not decide(question.model_copy(update={"check": question.check.model_copy(update={"upfront": False})})).granted
    if needs_request:
        return True, "gold decides by request: the customer's own request is the decision (no proposal of the call before it)"
    why = f"values not named by then: {', '.join(unnamed)}" if unnamed else "the check declares terms to state first (proposal)"
    return False, f"the request (message {first + 1}) leaves a choice: {why}"


def _apply(path: Path, changes: dict[tuple[str, int], bool]) -> int:
    """Write `upfront` into the consent checks of one tasks file (flow `{...}` or block form)."""
    lines = path.read_text().split("\n")
    task_id, index, written = None, -1, 0
    in_consent = False
    for n, line in enumerate(lines):
        m = re.match(r"^\s*-?\s*id:\s*(\S+)", line)
        if m:
            task_id, index, in_consent = m.group(1), -1, False
            continue
        if re.match(r"^\s*consent:\s*$", line):
            in_consent, index = True, -1
            continue
        if in_consent and re.match(r"^\s*- ", line) and ("tool" in line):
            index += 1
            want = changes.get((task_id or "", index))
            if want is None:
                continue
            if line.rstrip().endswith("}"):
                body = re.sub(r',\s*"?upfront"?:\s*(true|false)', "", line.rstrip()[:-1])
                lines[n] = body + ("" if want else ', "upfront": false') + "}"
            else:
                indent = re.match(r"^(\s*)-\s*", line).group(1) + "  "  # type: ignore[union-attr]
                k = n + 1
                while k < len(lines) and lines[k].startswith(indent) and not re.match(r"^\s*- ", lines[k]):
                    if re.match(r"^\s*upfront:", lines[k]):
                        del lines[k]
                        continue
                    k += 1
                if not want:
                    lines.insert(k, f"{indent}upfront: false")
            written += 1
        elif in_consent and re.match(r"^\s*[a-z_]+:", line) and not line.startswith(" " * 6):
            in_consent = line.strip().startswith("-")
    path.write_text("\n".join(lines))
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--all", action="store_true")
    parser.add_argument("--apply", action="store_true")
    args = parser.parse_args(argv)
    catalog = load_catalog()
    tasks = [t for t in catalog.values() if t.contract.consent]
    gold = asyncio.run(_gold(tasks))
    changes: dict[tuple[str, int], bool] = {}
    for task in tasks:
        prepared_task, evidence, _ = prepare(task, gold[task.id])
        seen: set[int] = set()
        for index, question in questions(prepared_task.contract, evidence):
            if index in seen:
                continue
            seen.add(index)
            upfront, why = REVIEWED.get((task.id, index)) or propose(question)
            current = task.contract.consent[index].upfront  # type: ignore[index]
            if upfront != current or args.all:
                print(f"{task.id} consent[{index}] {question.tool}: upfront {current} -> {upfront}  ({why})")
            if upfront != current:
                changes[(task.id, index)] = upfront
    print(f"{len(changes)} change(s) proposed", file=sys.stderr)
    if args.apply:
        for path in sorted(TASKS_DIR.glob("*.yaml")):
            ids = {t for t, _ in changes}
            if any(f"id: {t}" in path.read_text() for t in ids):
                print(f"{path.name}: {_apply(path, changes)} check(s) written", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

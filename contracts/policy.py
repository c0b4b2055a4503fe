"""The machine-readable rule of each domain's policy (`contracts/policies/<domain>.md`).

Each policy's "## Consent and refused attempts" section ends with one fenced block:

    ```yaml consent-policy
    refused_attempts: violation          # or: allowed
    refusal_is_an_answer: [validate_transfer, authenticate_customer]
    consent_required: [execute_transfer, refund_payment]
    ```

- `refused_attempts` is the domain's one rule: `violation` - attempting a write the world then refuses is
  itself a policy violation (the policy gives the agent a way to check first), `allowed` - a refused
  attempt changes nothing and is not punished (only successful writes are).
- `refusal_is_an_answer`: under `violation`, the tools whose refusal is how the world answers (a check, an
  identity attempt, a lookup-by-write); these may be attempted, and retried with new arguments.
- `consent_required`: the writes that need the customer's explicit decision after the agent stated the
  terms; a task's `consent` checks may only gate these.

The model and parser live here, below both of their users: the grader applies the rule to every trial
(`grader/refusals.py`) and the release tooling lints contracts against it (`harness/policy_rules.py`);
neither imports the other.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError
from contracts.yaml_io import read_yaml

POLICIES_DIR = Path(__file__).resolve().parent / "policies"
SECTION = "## Consent and refused attempts"
SECTION_TITLE = "Consent and refused attempts"
"""The policy section that holds the rule, as a failure names it."""
_BLOCK = re.compile(r"```yaml consent-policy\n(.*?)```", re.DOTALL)


class PolicyRulesError(ValueError):
    """A policy's consent section is missing or malformed; the message says which and why."""


class PolicyRules(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    refused_attempts: Literal["violation", "allowed"]
    refusal_is_an_answer: list[str] = []
    consent_required: list[str] = []


def parse_rules(text: str, domain: str) -> PolicyRules:
    if SECTION not in text:
        raise PolicyRulesError(f"{domain} policy has no {SECTION!r} section")
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    blocks = _BLOCK.findall(section)
    if len(blocks) != 1:
        raise PolicyRulesError(f"{domain} policy: the consent section needs exactly one ```yaml consent-policy block, found {len(blocks)}")
    try:
        return PolicyRules.model_validate(read_yaml(blocks[0]) or {})
    except (yaml.YAMLError, ValidationError) as exc:
        raise PolicyRulesError(f"{domain} policy: the consent-policy block is invalid: {exc}") from None


@cache
def load_rules(domain: str, directory: Path = POLICIES_DIR) -> PolicyRules:
    """The domain's rule, read and parsed once per process (the policies do not change during a run)."""
    path = directory / f"{domain}.md"
    if not path.exists():
        raise PolicyRulesError(f"no policy file {path}")
    return parse_rules(path.read_text(encoding="utf-8"), domain)

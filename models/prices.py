"""Cache-neutral cost (spec A.3/B.1): prompt tokens × input rate + completion tokens × output rate.

A model without a price has no cost ("n/a"), never zero: self-hosted runs are not free runs.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from pydantic import BaseModel

from contracts.yaml_io import read_yaml
from models.types import Usage

DEFAULT_PRICE_TABLE = Path(__file__).with_name("prices.yaml")


class Price(BaseModel):
    input: float
    output: float
    accessed: dt.date


class PriceTable(BaseModel):
    currency: str = "USD"
    unit: str = "per_million_tokens"
    models: dict[str, Price]

    @classmethod
    def load(cls, path: Path = DEFAULT_PRICE_TABLE) -> PriceTable:
        try:
            return cls.model_validate(read_yaml(path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            raise FileNotFoundError(f"price table {path} not found") from None

    def cost(self, model: str, usage: Usage) -> float | None:
        price = self.models.get(model)
        if price is None:
            return None
        return (usage.prompt_tokens * price.input + usage.completion_tokens * price.output) / 1_000_000


def format_cost(cost: float | None) -> str:
    return "n/a" if cost is None else f"${cost:.4f}"


class RoleCost(BaseModel):
    """One model role's cost in a run: its usage, its model and that model's price (None: unpriced)."""

    role: str
    model: str | None
    usage: Usage
    cost: float | None


class CostBreakdown(BaseModel):
    """Cost of every model role of a run (agent, router, user simulator, judge, and any other role the
    records name). The total is the sum only when every role that made a call is priced: a partial sum
    would be read as the cost of the run."""

    roles: dict[str, RoleCost]

    @property
    def used(self) -> list[RoleCost]:
        return [r for r in self.roles.values() if r.usage.calls or r.usage.failed_calls or r.usage.prompt_tokens or r.usage.completion_tokens]

    @property
    def unpriced(self) -> list[str]:
        return [r.role for r in self.used if r.cost is None]

    @property
    def total(self) -> float | None:
        """None when no role made a model call (nothing was measured) or any used role is unpriced."""
        used = self.used
        if not used or any(r.cost is None for r in used):
            return None
        return sum(r.cost or 0.0 for r in used)

    def per(self, count: int) -> float | None:
        total = self.total
        return None if total is None or count <= 0 else total / count


ROLE_ORDER = ("agent", "router", "user", "judge")


def price_roles(usage: dict[str, Usage], models: dict[str, str], prices: PriceTable) -> CostBreakdown:
    """Price each role's usage with its own model's rates. A role without a model, or whose model the
    table does not list, costs None (n/a), never 0."""
    roles = sorted(set(usage) | set(models), key=lambda r: (ROLE_ORDER.index(r) if r in ROLE_ORDER else len(ROLE_ORDER), r))
    out = {}
    for role in roles:
        u = usage.get(role, Usage())
        model = models.get(role)
        out[role] = RoleCost(role=role, model=model, usage=u, cost=None if model is None else prices.cost(model, u))
    return CostBreakdown(roles=out)

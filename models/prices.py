"""Cache-neutral cost (spec A.3/B.1): prompt tokens × input rate + completion tokens × output rate.

A model without a price has no cost ("n/a"), never zero: self-hosted runs are not free runs.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import yaml

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
from pydantic import BaseModel

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
            return cls.model_validate(yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER))
        except FileNotFoundError:
            raise FileNotFoundError(f"price table {path} not found") from None

    def cost(self, model: str, usage: Usage) -> float | None:
        price = self.models.get(model)
        if price is None:
            return None
        return (usage.prompt_tokens * price.input + usage.completion_tokens * price.output) / 1_000_000


def format_cost(cost: float | None) -> str:
    return "n/a" if cost is None else f"${cost:.4f}"

"""Which domains exist and where their environments live. Imports happen on first use, not here."""

from __future__ import annotations

import importlib
from functools import cache

from servers.base import ToolEnvironment

DOMAIN_ENVIRONMENTS: dict[str, str] = {
    "retail": "servers.domains.retail.tools:RetailEnvironment",
    "customer_support": "servers.domains.customer_support.tools:CustomerSupportEnvironment",
    "field_service": "servers.domains.field_service.tools:FieldServiceEnvironment",
    "itsm": "servers.domains.itsm.tools:ItsmEnvironment",
    "payments": "servers.domains.payments.tools:PaymentsEnvironment",
    "travel": "servers.domains.travel.tools:TravelEnvironment",
    "onboarding": "servers.domains.onboarding.tools:OnboardingEnvironment",
    "sales": "servers.domains.sales.tools:SalesEnvironment",
    "marketing": "servers.domains.marketing.tools:MarketingEnvironment",
}
"""Domain name → `module:Class` of its `ToolEnvironment`. A new domain adds one line here."""


class UnknownDomain(KeyError):
    def __str__(self) -> str:
        return f"unknown domain {self.args[0]!r}; known: {', '.join(sorted(DOMAIN_ENVIRONMENTS))}"


@cache
def environment_class(domain: str) -> type[ToolEnvironment]:
    try:
        target = DOMAIN_ENVIRONMENTS[domain]
    except KeyError:
        raise UnknownDomain(domain) from None
    module_name, _, class_name = target.partition(":")
    return getattr(importlib.import_module(module_name), class_name)


def known_domains() -> list[str]:
    return list(DOMAIN_ENVIRONMENTS)

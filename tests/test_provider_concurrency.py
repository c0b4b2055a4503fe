"""`--concurrency` means what it says: unset, the per-provider cap follows it (never below 16), an explicit
`--provider-concurrency` wins, and the manifest records the effective value."""

from __future__ import annotations

from harness.config import RunConfig


def test_provider_cap_follows_concurrency_unless_set() -> None:
    assert RunConfig().provider_concurrency == 16
    assert RunConfig(concurrency=256).provider_concurrency == 256
    assert RunConfig(concurrency=256, provider_concurrency=4).provider_concurrency == 4
    assert RunConfig(concurrency=2).provider_concurrency == 16


def test_the_manifest_config_holds_the_effective_cap() -> None:
    dumped = RunConfig(concurrency=300).model_dump(mode="json")
    assert dumped["provider_concurrency"] == 300
    assert RunConfig.model_validate(dumped).provider_concurrency == 300
    # not part of the resume key: changing it never invalidates earlier records
    assert "provider_concurrency" not in RunConfig(concurrency=300).result_affecting()

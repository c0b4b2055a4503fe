"""Benchmark latencies (issue 39): constant, lognormal or uniform around a mean, drawn the same way by
the scripted models and the fake model server, and the ideal of N trials in flight as the expected
slowest trial. Nothing here is timed: `scripts/bench_harness.py --latency-dist` measures."""

from __future__ import annotations

import random
import statistics
from typing import Any

import pytest

from models.latency import Latency, expected_slowest
from tests.scripts import load_script

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("dist", ["lognormal", "uniform"])
def test_drawn_latencies_have_the_mean_they_are_given(dist: str) -> None:
    latency = Latency(1.0, dist, 0.5)  # type: ignore[arg-type]
    rng = random.Random(3)
    draws = [latency.draw(rng) for _ in range(20_000)]
    assert statistics.fmean(draws) == pytest.approx(1.0, rel=0.03)
    assert statistics.stdev(draws) > 0.2  # a spread, not a constant
    assert min(draws) > 0
    if dist == "uniform":
        assert 0.5 <= min(draws) and max(draws) <= 1.5


def test_a_constant_latency_is_constant_and_bad_parameters_are_refused() -> None:
    rng = random.Random(0)
    assert {Latency(0.3).draw(rng) for _ in range(10)} == {0.3}
    assert {Latency(0.3, "lognormal", 0.0).draw(rng) for _ in range(10)} == {0.3}
    for bad in ({"mean_s": -1.0}, {"mean_s": 1.0, "dist": "pareto"}, {"mean_s": 1.0, "dist": "uniform", "spread": 1.5}, {"mean_s": 1.0, "spread": -0.1}):
        with pytest.raises(ValueError):
            Latency(**bad)  # type: ignore[arg-type]


def test_a_sampler_is_a_reproducible_stream_of_its_own() -> None:
    latency = Latency(1.0, "lognormal", 0.5)
    one, again, other = latency.sampler(7), latency.sampler(7), latency.sampler(8)
    first = [one() for _ in range(5)]
    assert first == [again() for _ in range(5)]
    assert first != [other() for _ in range(5)]


def test_the_ideal_of_a_constant_latency_is_calls_times_latency() -> None:
    ideal = expected_slowest(Latency(1.0), 256, 12, parallel_last=2)
    assert ideal.mean_s == 12.0 and ideal.sd_s == 0.0


def test_the_ideal_under_a_spread_is_the_expected_slowest_trial() -> None:
    latency = Latency(1.0, "lognormal", 0.5)
    one = expected_slowest(latency, 1, 12, replicates=2000, seed=1)
    assert one.mean_s == pytest.approx(12.0, rel=0.03)  # one trial: the sum of its means
    few, many = expected_slowest(latency, 16, 12, seed=1), expected_slowest(latency, 256, 12, seed=1)
    assert 12.0 < few.mean_s < many.mean_s  # the slowest of more trials is slower
    assert many.sd_s > 0 and many.p05_s <= many.mean_s <= many.p95_s
    assert expected_slowest(latency, 16, 12, parallel_last=2, seed=1).mean_s > few.mean_s  # a step of two calls lasts the slower
    assert expected_slowest(latency, 16, 12, seed=1) == few  # seeded


async def test_the_scripted_model_sleeps_each_drawn_latency(monkeypatch: pytest.MonkeyPatch) -> None:
    import models.scripted as scripted
    from models.types import GenerateConfig

    slept: list[float] = []

    async def record(delay: float) -> None:
        slept.append(delay)

    monkeypatch.setattr(scripted.anyio, "sleep", record)
    draws = iter([0.1, 0.7, 0.3])
    model = scripted.ScriptedModel(["a", "b", "c"], latency_s=5.0, draw_latency=lambda: next(draws))
    for _ in range(3):
        await model.generate([], [], GenerateConfig())
    assert slept == [0.1, 0.7, 0.3]
    constant = scripted.ScriptedModel(["a"], latency_s=0.25)
    await constant.generate([], [], GenerateConfig())
    assert slept[-1] == 0.25


def test_gold_played_models_give_each_role_its_own_stream() -> None:
    from harness.runner.gold_models import GoldPlayedModels

    latency = Latency(1.0, "uniform", 0.5)
    apis: dict[str, Any] = GoldPlayedModels.of(["payments_transfer_daily_limit_01"], latency_s=1.0, latency=latency).apis()
    streams = {role: tuple(api.draw_latency() for _ in range(4)) for role, api in apis.items()}
    assert len(set(streams.values())) == 4
    again = GoldPlayedModels.of(["payments_transfer_daily_limit_01"], latency_s=1.0, latency=latency).apis()
    assert tuple(again["agent"].draw_latency() for _ in range(4)) == streams["agent"]
    constant = GoldPlayedModels.of(["payments_transfer_daily_limit_01"], latency_s=1.0).apis()
    assert all(api.draw_latency is None and api.latency_s == 1.0 for api in constant.values())


def test_the_fake_server_and_the_bench_take_the_same_distributions() -> None:
    server = load_script("fake_model_server")
    app = server.FakeModelServer({}, 1.0, Latency(1.0, "lognormal", 0.5), 4)
    draws = [app.draw() for _ in range(200)]
    assert len(set(draws)) == 200 and statistics.fmean(draws) == pytest.approx(1.0, rel=0.15)
    assert server.FakeModelServer({}, 0.5).draw is None  # the constant form, as before
    bench = load_script("bench_harness")
    spec = bench.LatencySpec(1.0, "lognormal", 0.5)
    assert bench.ideal_of(spec, 16, 12, 13) == expected_slowest(Latency(1.0, "lognormal", 0.5), 16, 12, parallel_last=2)
    assert bench.ideal_of(bench.LatencySpec(1.0), 256, 12, 13).mean_s == 12.0
    assert bench._spread([0.9, 0.7, 0.8], ".2f") == "0.70 / 0.80 / 0.90"

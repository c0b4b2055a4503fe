"""Report statistics against hand-computed examples and figures recomputed from the paper.

Expected values are worked out by hand in the comments (no numpy/scipy), so each assertion checks
the implementation against independent arithmetic rather than against itself.
"""

from __future__ import annotations

import math
import statistics

import pytest

from grader.stats import (
    average_ranks,
    competition_ranks,
    flips,
    mcnemar_exact,
    mean_and_sample_std,
    pass_hat_k,
    rate,
    spearman,
    tie_groups,
    wilson_interval,
)

N_TASKS = 555


# --- rate -------------------------------------------------------------------------------------


def test_rate_is_none_not_zero_when_nothing_scored() -> None:
    assert rate(0, 0) is None


def test_rate_is_a_fraction() -> None:
    assert rate(474, N_TASKS) == pytest.approx(0.854054054054054, abs=1e-12)
    assert rate(0, 5) == 0.0
    assert rate(5, 5) == 1.0


def test_rate_rejects_impossible_counts() -> None:
    with pytest.raises(ValueError, match="exceed"):
        rate(6, 5)
    with pytest.raises(ValueError):
        rate(-1, 5)


# --- mean and sample std ----------------------------------------------------------------------


def test_three_round_rates_mean_and_sample_std() -> None:
    # Round rates 85.41 %, 86.49 %, 84.68 % over 555 tasks are 474, 480, 470 passes.
    counts = [474, 480, 470]
    rates = [c / N_TASKS for c in counts]
    assert [round(100 * r, 2) for r in rates] == [85.41, 86.49, 84.68]

    # By hand, in units of tasks: mean count = 1424/3; deviations -2/3, 16/3, -14/3;
    # squared deviations sum to (4 + 256 + 196)/9 = 456/9.
    # Sample variance = (456/9) / (n - 1 = 2) = 76/3 tasks², so std = sqrt(76/3)/555 as a rate.
    expected_mean = 1424 / 3 / N_TASKS  # 0.855255255...
    expected_std = math.sqrt(76 / 3) / N_TASKS  # sqrt(25.333...) = 5.033223... -> 0.00906887...
    mean, std = mean_and_sample_std(rates)
    assert mean == pytest.approx(expected_mean, abs=1e-9)
    assert mean == pytest.approx(0.8552552552552553, abs=1e-9)
    assert std is not None
    assert std == pytest.approx(expected_std, abs=1e-9)
    assert std == pytest.approx(0.00906887, abs=1e-8)


def test_paper_std_uses_denominator_n_minus_1_not_population() -> None:
    # Paper: "sample standard deviation with denominator n-1 = 2 for three rounds".
    rates = [474 / N_TASKS, 480 / N_TASKS, 470 / N_TASKS]
    _, std = mean_and_sample_std(rates)
    assert std is not None
    population_std = math.sqrt((456 / 9) / 3) / N_TASKS  # denominator n = 3
    sample_std = math.sqrt((456 / 9) / 2) / N_TASKS  # denominator n - 1 = 2
    assert abs(population_std - sample_std) > 1e-4  # the choice is visible at 4 decimals
    assert std == pytest.approx(sample_std, abs=1e-12)
    assert std != pytest.approx(population_std, abs=1e-6)
    assert std / population_std == pytest.approx(math.sqrt(3 / 2), abs=1e-12)


def test_mean_and_std_small_cases() -> None:
    assert mean_and_sample_std([0.5]) == (0.5, None)
    # [1, 3]: mean 2, squared deviations 1 + 1 = 2, / (n - 1 = 1) -> variance 2, std sqrt(2)
    mean, std = mean_and_sample_std([1.0, 3.0])
    assert mean == 2.0
    assert std == pytest.approx(math.sqrt(2), abs=1e-12)
    # equal weight: the mean of round rates, not pooled passes / pooled tasks
    mean, _ = mean_and_sample_std([1 / 2, 1 / 4])  # e.g. 1 of 2 tasks and 25 of 100 tasks
    assert mean == pytest.approx(0.375, abs=1e-12)  # pooled would be 26/102 = 0.2549
    with pytest.raises(ValueError):
        mean_and_sample_std([])


# --- competition ranks and ties ---------------------------------------------------------------

TIED_SCORES: dict[str, float | None] = {
    "A": 81.26,
    "B": 81.26,
    "C": 81.26,
    "D": 79.10,
    "E": 79.10,
    "F": 64.32,
}


def test_competition_ranks_1224_with_ties() -> None:
    assert competition_ranks(TIED_SCORES) == {"A": 1, "B": 1, "C": 1, "D": 4, "E": 4, "F": 6}


def test_competition_ranks_lower_is_better() -> None:
    # lower is better: F (64.32) first, D/E tie for 2nd, A/B/C tie and skip to 4th
    assert competition_ranks(TIED_SCORES, higher_is_better=False) == {
        "A": 4,
        "B": 4,
        "C": 4,
        "D": 2,
        "E": 2,
        "F": 1,
    }


def test_competition_ranks_none_does_not_consume_a_rank() -> None:
    scores: dict[str, float | None] = {"X": None, "A": 70.0, "B": 90.0, "C": 70.0, "Y": None}
    assert competition_ranks(scores) == {"X": None, "A": 2, "B": 1, "C": 2, "Y": None}
    assert competition_ranks(scores, higher_is_better=False) == {"X": None, "A": 1, "B": 3, "C": 1, "Y": None}
    assert competition_ranks({"X": None}) == {"X": None}
    assert competition_ranks({}) == {}


def test_tie_groups_marks_shared_values() -> None:
    assert tie_groups({"A": 81.26, "B": 81.26, "C": 81.26, "D": 79.10, "E": 79.10, "F": 64.32}) == {
        "A": True,
        "B": True,
        "C": True,
        "D": True,
        "E": True,
        "F": False,
    }
    assert tie_groups({"A": 1, "B": 2, "C": 3}) == {"A": False, "B": False, "C": False}
    assert tie_groups({"A": 4, "B": 4, "C": 1}) == {"A": True, "B": True, "C": False}


# --- average ranks and Spearman ---------------------------------------------------------------


def test_average_ranks_with_ties() -> None:
    assert average_ranks([10.0, 30.0, 20.0]) == [1.0, 3.0, 2.0]
    # sorted: 1 (rank 1), 2, 2 (ranks 2 and 3 -> 2.5 each), 3 (4), 4 (5)
    assert average_ranks([1, 2, 2, 3, 4]) == [1.0, 2.5, 2.5, 4.0, 5.0]
    # three-way tie spanning ranks 2, 3, 4 -> 3 each; input order does not matter
    assert average_ranks([5, 0, 5, 5, 9]) == [3.0, 1.0, 3.0, 3.0, 5.0]
    assert average_ranks([7, 7, 7]) == [2.0, 2.0, 2.0]
    assert average_ranks([]) == []


def test_spearman_with_tied_ranks_hand_computed() -> None:
    x = [1, 2, 2, 3, 4]
    y = [2, 1, 3, 3, 5]
    # average ranks: rx = [1, 2.5, 2.5, 4, 5], ry = [2, 1, 3.5, 3.5, 5]; both have mean 3.
    # dx = [-2, -0.5, -0.5, 1, 2], dy = [-1, -2, 0.5, 0.5, 2]
    # Σ dx·dy = 2 + 1 - 0.25 + 0.5 + 4 = 7.25
    # Σ dx² = 4 + 0.25 + 0.25 + 1 + 4 = 9.5, Σ dy² = 1 + 4 + 0.25 + 0.25 + 4 = 9.5
    # rho = 7.25 / sqrt(9.5 · 9.5) = 7.25 / 9.5 = 29/38 = 0.76315789...
    assert spearman(x, y) == pytest.approx(29 / 38, abs=1e-12)
    # The no-ties shortcut 1 - 6Σd²/(n(n²-1)) gives a different (wrong) answer here:
    # d = rx - ry = [-1, 1.5, -1, 0.5, 0], Σd² = 4.5, 1 - 27/120 = 0.775.
    assert spearman(x, y) != pytest.approx(0.775, abs=1e-6)
    # symmetric in its arguments
    assert spearman(y, x) == pytest.approx(29 / 38, abs=1e-12)


def test_spearman_perfect_correlations() -> None:
    # monotone but non-linear: ranks are identical, so rho is exactly +1
    assert spearman([1, 2, 3, 4], [1, 4, 9, 100]) == pytest.approx(1.0, abs=1e-12)
    assert spearman([1, 2, 3, 4], [40, 30, 20, 10]) == pytest.approx(-1.0, abs=1e-12)
    # identical tie structure is still perfect
    assert spearman([1, 1, 2], [5, 5, 9]) == pytest.approx(1.0, abs=1e-12)


def test_spearman_undefined_cases() -> None:
    assert spearman([3, 3, 3], [1, 2, 3]) is None
    assert spearman([1, 2, 3], [0.5, 0.5, 0.5]) is None
    assert spearman([1.0], [2.0]) is None
    assert spearman([], []) is None
    with pytest.raises(ValueError):
        spearman([1, 2, 3], [1, 2])


# --- pass^k -----------------------------------------------------------------------------------


def test_pass_hat_3_paper_example_434_of_555() -> None:
    # 434 tasks pass all three rounds; the other 121 fail in at least one (some in only one).
    outcomes: dict[str, list[bool | None]] = {}
    for i in range(N_TASKS):
        if i < 434:
            outcomes[f"t{i:03d}"] = [True, True, True]
        else:
            outcomes[f"t{i:03d}"] = [[False, True, True], [True, True, False], [False, False, False]][i % 3]
    passes, scored, fraction = pass_hat_k(outcomes)
    assert (passes, scored) == (434, 555)
    assert fraction is not None
    assert fraction == pytest.approx(434 / 555, abs=1e-12)
    assert round(100 * fraction, 2) == 78.20


def test_pass_hat_3_opus_example_one_task_unscored() -> None:
    # 407 all-pass among 554 tasks scored in every round; the 555th task is unscored in round 2.
    # It passes the rounds that were scored, so counting it would give 408/555 or 408/554.
    outcomes: dict[str, list[bool | None]] = {"unscored": [True, None, True]}
    for i in range(554):
        outcomes[f"t{i:03d}"] = [True, True, True] if i < 407 else [True, False, True]
    passes, scored, fraction = pass_hat_k(outcomes)
    assert (passes, scored) == (407, 554)
    assert fraction is not None
    assert round(100 * fraction, 2) == 73.47


def test_pass_hat_k_edge_cases() -> None:
    assert pass_hat_k({}) == (0, 0, None)
    assert pass_hat_k({"a": [None, True], "b": [False, None]}) == (0, 0, None)
    assert pass_hat_k({"a": [True], "b": [False]}) == (1, 2, 0.5)
    with pytest.raises(ValueError):
        pass_hat_k({"a": [True, True], "b": [True]})
    with pytest.raises(ValueError):
        pass_hat_k({"a": []})


# --- flips and McNemar ------------------------------------------------------------------------


def test_flips_hand_example() -> None:
    a = {"t3": False, "t1": False, "t2": True, "t4": True, "t5": None, "t6": True, "only_a": False}
    b = {"t3": True, "t1": True, "t2": False, "t4": True, "t5": True, "t6": None, "only_b": True}
    # t1, t3 fail->pass; t2 pass->fail; t4 unchanged; t5/t6 unscored on one side; only_* not in both
    assert flips(a, b) == {"gained": ["t1", "t3"], "lost": ["t2"]}
    assert flips(b, a) == {"gained": ["t2"], "lost": ["t1", "t3"]}
    assert flips({}, {}) == {"gained": [], "lost": []}


def test_gemini_rounds_2_and_3_thirty_flips() -> None:
    # Paper: Gemini passes 480 tasks in both round 2 and round 3, with 30 flips between them.
    # 465 pass both, 15 pass->fail (lost), 15 fail->pass (gained), 60 fail both: 465 + 15 = 480 each.
    round2: dict[str, bool | None] = {}
    round3: dict[str, bool | None] = {}
    for i in range(N_TASKS):
        tid = f"task_{i:03d}"
        if i < 465:
            round2[tid], round3[tid] = True, True
        elif i < 480:
            round2[tid], round3[tid] = True, False
        elif i < 495:
            round2[tid], round3[tid] = False, True
        else:
            round2[tid], round3[tid] = False, False
    assert sum(v is True for v in round2.values()) == 480
    assert sum(v is True for v in round3.values()) == 480
    result = flips(round2, round3)
    assert len(result["gained"]) == 15
    assert len(result["lost"]) == 15
    assert len(result["gained"]) + len(result["lost"]) == 30
    assert result["lost"] == [f"task_{i:03d}" for i in range(465, 480)]
    assert result["gained"] == [f"task_{i:03d}" for i in range(480, 495)]
    # equal gains and losses: no evidence of a difference between the rounds
    assert mcnemar_exact(len(result["gained"]), len(result["lost"])) == 1.0


def test_mcnemar_exact_hand_values() -> None:
    assert mcnemar_exact(0, 0) == 1.0
    # n = 5, min = 0: 2 · C(5,0) / 2^5 = 2/32
    assert mcnemar_exact(0, 5) == pytest.approx(2 / 32, abs=1e-15)
    assert mcnemar_exact(0, 5) == 0.0625
    # n = 10, min = 1: 2 · (C(10,0) + C(10,1)) / 2^10 = 2 · 11 / 1024
    assert mcnemar_exact(1, 9) == pytest.approx(2 * (1 + 10) / 1024, abs=1e-15)
    # n = 10, min = 2: 2 · (1 + 10 + 45) / 1024 = 112/1024
    assert mcnemar_exact(2, 8) == pytest.approx(112 / 1024, abs=1e-15)
    # n = 10, min = 4: 2 · (1 + 10 + 45 + 120 + 210) / 1024 = 772/1024
    assert mcnemar_exact(4, 6) == pytest.approx(772 / 1024, abs=1e-15)
    # the doubled tail exceeds 1 when g == l: 2 · (386 + 252)/1024 = 1276/1024 -> capped at 1
    assert mcnemar_exact(5, 5) == 1.0
    assert mcnemar_exact(1, 1) == 1.0  # 2 · (1 + 2) / 4 = 1.5 -> 1


def test_mcnemar_exact_is_symmetric_and_rejects_negatives() -> None:
    for g, l in [(0, 5), (1, 9), (3, 12), (15, 15), (7, 30)]:
        assert mcnemar_exact(g, l) == mcnemar_exact(l, g)
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 3)


def test_mcnemar_exact_large_counts_stay_finite() -> None:
    # 2^n with n = 2000 overflows a float; the integer sum must still give a probability.
    p = mcnemar_exact(900, 1100)
    assert 0.0 < p < 1e-4


# --- Wilson interval --------------------------------------------------------------------------


def test_wilson_interval_known_value() -> None:
    # 8/10, z = 1.96: z² = 3.8416, denom = 1 + 0.38416 = 1.38416
    # centre = (0.8 + 0.19208)/1.38416 = 0.716738..., half = 1.96·sqrt(0.016 + 0.009604)/1.38416 = 0.226584...
    interval = wilson_interval(8, 10)
    assert interval is not None
    low, high = interval
    assert low == pytest.approx(0.4902, abs=1e-4)
    assert high == pytest.approx(0.9433, abs=1e-4)
    centre = (0.8 + 3.8416 / 20) / 1.38416
    half = 1.96 * math.sqrt(0.8 * 0.2 / 10 + 3.8416 / 400) / 1.38416
    assert low == pytest.approx(centre - half, abs=1e-12)
    assert high == pytest.approx(centre + half, abs=1e-12)


def test_wilson_interval_edges_and_symmetry() -> None:
    assert wilson_interval(0, 0) is None
    # 2/10 mirrors 8/10
    mirrored = wilson_interval(2, 10)
    assert mirrored is not None
    assert mirrored[0] == pytest.approx(1 - 0.943318, abs=1e-5)
    assert mirrored[1] == pytest.approx(1 - 0.490162, abs=1e-5)
    # 0/10: lower bound exactly 0, upper = z²/n / (1 + z²/n) = 0.38416/1.38416 = 0.277540...
    zero = wilson_interval(0, 10)
    assert zero is not None
    assert zero[0] == 0.0
    assert zero[1] == pytest.approx(0.38416 / 1.38416, abs=1e-12)
    full = wilson_interval(10, 10)
    assert full is not None
    assert full[1] == 1.0
    assert full[0] == pytest.approx(1 / 1.38416, abs=1e-12)
    # a wider z widens the interval
    narrow = wilson_interval(8, 10, z=1.0)
    assert narrow is not None
    assert narrow[0] > 0.4902 and narrow[1] < 0.9433
    # more passes than trials is rejected explicitly (with a large z the formula would not even fail)
    with pytest.raises(ValueError, match="exceed"):
        wilson_interval(11, 10, z=3.0)
    with pytest.raises(ValueError):
        wilson_interval(-1, 10)


# --- pass^k at every k: the unbiased estimator C(c, k) / C(n, k) --------------------------------

from fractions import Fraction  # noqa: E402

from grader.stats import (  # noqa: E402
    PassKPoint,
    holm,
    mcnemar_one_sided,
    minimum_detectable_gap,
    pass_hat_k_curve,
    pass_hat_k_unbiased,
    pairs_needed,
    paired_power,
    proportional_drop_pairs,
)


def test_pass_hat_k_unbiased_hand_values() -> None:
    # 2 of 3 rounds: k=1 -> C(2,1)/C(3,1) = 2/3; k=2 -> C(2,2)/C(3,2) = 1/3; k=3 -> C(2,3)/C(3,3) = 0
    assert pass_hat_k_unbiased(2, 3, 1) == pytest.approx(2 / 3, abs=1e-15)
    assert pass_hat_k_unbiased(2, 3, 2) == pytest.approx(1 / 3, abs=1e-15)
    assert pass_hat_k_unbiased(2, 3, 3) == 0.0
    # 3 of 4: k=2 -> 3/6; k=3 -> 1/4; not (3/4)^k, which is biased for k >= 2
    assert pass_hat_k_unbiased(3, 4, 2) == 0.5
    assert pass_hat_k_unbiased(3, 4, 3) == 0.25
    assert pass_hat_k_unbiased(3, 4, 2) != pytest.approx((3 / 4) ** 2)
    assert pass_hat_k_unbiased(5, 5, 5) == 1.0
    assert pass_hat_k_unbiased(1, 2, 3) is None  # fewer scored rounds than k: no estimate
    with pytest.raises(ValueError):
        pass_hat_k_unbiased(4, 3, 1)
    with pytest.raises(ValueError):
        pass_hat_k_unbiased(1, 3, 0)


def test_pass_hat_k_unbiased_has_expectation_p_to_the_k() -> None:
    # E over c ~ Binomial(n, p) of C(c, k)/C(n, k) is exactly p^k (computed in fractions, no rounding)
    p = Fraction(3, 7)
    for n in range(1, 7):
        for k in range(1, n + 1):
            pmf = [Fraction(math.comb(n, c)) * p**c * (1 - p) ** (n - c) for c in range(n + 1)]
            assert sum(m * Fraction(math.comb(c, k), math.comb(n, k)) for c, m in enumerate(pmf)) == p**k  # the closed form
            estimates = [pass_hat_k_unbiased(c, n, k) for c in range(n + 1)]
            assert math.fsum(float(m) * e for m, e in zip(pmf, estimates, strict=True) if e is not None) == pytest.approx(float(p**k), abs=1e-12)
            # the plug-in (c/n)^k is biased: its expectation is not p^k once k >= 2
            if k >= 2:
                assert math.fsum(float(m) * (c / n) ** k for c, m in enumerate(pmf)) != pytest.approx(float(p**k), abs=1e-6)


def test_pass_hat_k_curve_bottom_lowers_n_instead_of_dropping_the_task() -> None:
    outcomes: dict[str, list[bool | None]] = {
        "easy": [True, True, True],  # n=3, c=3
        "flaky": [True, False, True],  # n=3, c=2
        "outage": [False, None, None],  # two ⊥ rounds: n=1, c=0 -- a hard task hit by an outage
    }
    curve = pass_hat_k_curve(outcomes)
    # k=1: (1 + 2/3 + 0)/3 = 5/9 over all three tasks
    assert curve[0] == PassKPoint(k=1, value=pytest.approx(5 / 9), tasks=3, excluded=0)  # type: ignore[arg-type]
    # k=2: "outage" has n=1 < 2: excluded and counted; (1 + 1/3)/2 = 2/3
    assert curve[1].value == pytest.approx(2 / 3) and (curve[1].tasks, curve[1].excluded) == (2, 1)
    # k=3: (1 + 0)/2
    assert curve[2].value == pytest.approx(0.5) and curve[2].tasks == 2
    # the old rule (only tasks scored in every round) would also have removed "outage" at k=1
    assert pass_hat_k(outcomes)[1] == 2
    # one ⊥ round of an otherwise passing task: its n is 2, so it still counts at k=2 (the old rule dropped it)
    curve = pass_hat_k_curve({"a": [True, None, True], "b": [False, False, False]})
    assert curve[1].value == pytest.approx(0.5) and curve[1].tasks == 2
    assert curve[2].value == 0.0 and (curve[2].tasks, curve[2].excluded) == (1, 1)


def test_pass_hat_k_curve_systems_with_different_round_counts_and_edges() -> None:
    # tasks listing different numbers of rounds are fine (a system run in pieces); max_k cuts the curve
    curve = pass_hat_k_curve({"a": [True, True], "b": [True, True, False, True]}, max_k=3)
    assert [p.k for p in curve] == [1, 2, 3]
    # k=1: (1 + 3/4)/2; k=2: (1 + C(3,2)/C(4,2) = 1/2)/2; k=3: only b: C(3,3)/C(4,3) = 1/4
    assert curve[0].value == pytest.approx(7 / 8)
    assert curve[1].value == pytest.approx(3 / 4)
    assert curve[2].value == pytest.approx(1 / 4) and curve[2].excluded == 1
    assert pass_hat_k_curve({}) == []
    assert pass_hat_k_curve({"a": [None, None]}) == [PassKPoint(1, None, 0, 1), PassKPoint(2, None, 0, 1)]


# --- one-sided McNemar and Holm -----------------------------------------------------------------


def test_mcnemar_one_sided_hand_values() -> None:
    assert mcnemar_one_sided(0, 0) == 1.0
    assert mcnemar_one_sided(5, 0) == 1 / 32  # all five discordant pairs lost: 0.5^5
    assert mcnemar_one_sided(8, 2) == pytest.approx((45 + 10 + 1) / 1024, abs=1e-15)  # P(X >= 8), X ~ Bin(10, 1/2)
    assert mcnemar_one_sided(2, 8) == pytest.approx(1013 / 1024, abs=1e-15)  # the other direction: no evidence B is worse
    # the two-sided test doubles the smaller tail
    assert mcnemar_exact(2, 8) == pytest.approx(2 * mcnemar_one_sided(8, 2), abs=1e-15)
    assert 0 < mcnemar_one_sided(1100, 900) < 1e-5


def test_holm_step_down_hand_example() -> None:
    # sorted: a 0.01·3 = 0.03; c 0.03·2 = 0.06; b 0.04·1 = 0.04 -> monotone max 0.06
    assert holm({"a": 0.01, "b": 0.04, "c": 0.03}) == pytest.approx({"a": 0.03, "b": 0.06, "c": 0.06})
    assert holm({"a": 0.6, "b": 0.9}) == {"a": 1.0, "b": 1.0}
    assert holm({}) == {}
    with pytest.raises(ValueError):
        holm({"a": 1.5})


# --- power --------------------------------------------------------------------------------------


def test_proportional_drop_pairs_hand_example() -> None:
    # p = [1, 1/2], mean 3/4, delta 1/4 -> lambda = 2/3. Unbiased variance: 2 of 2 -> 0; 1 of 2 -> 1·1/(2·1) = 1/2.
    # a = (1 - λ)p + λv, b = λv: task 1 (1/3, 0); task 2 (1/6 + 1/3, 1/3) = (1/2, 1/3)
    (a1, b1), (a2, b2) = proportional_drop_pairs([(2, 2), (1, 2)], 0.25)
    assert (a1, b1) == (pytest.approx(1 / 3), 0.0)
    assert (a2, b2) == (pytest.approx(1 / 2), pytest.approx(1 / 3))
    # the mean of a - b is the drop
    assert ((a1 - b1) + (a2 - b2)) / 2 == pytest.approx(0.25)
    # null: a == b for every task
    assert all(a == b for a, b in proportional_drop_pairs([(2, 3), (0, 3), (3, 3)], 0.0))
    with pytest.raises(ValueError, match="not possible"):
        proportional_drop_pairs([(1, 4)], 0.5)


def test_paired_power_grows_with_rounds_and_pairs_needed_is_the_threshold() -> None:
    pairs = proportional_drop_pairs([(3, 3)] * 50 + [(0, 3)] * 20 + [(2, 3)] * 30, 0.10)
    powers = [paired_power(pairs, r, 0.025) for r in range(1, 6)]
    assert powers == sorted(powers) and powers[0] < 0.8 < powers[-1]
    needed = pairs_needed(pairs, 0.025, 0.8)
    assert needed is not None
    assert paired_power(pairs, needed / 100, 0.025) >= 0.8 > paired_power(pairs, (needed - 1) / 100, 0.025)
    assert pairs_needed(proportional_drop_pairs([(1, 2)] * 10, 0.0), 0.025, 0.8) is None  # no drop: never detectable


def test_minimum_detectable_gap_solves_connors_equation() -> None:
    n, psi = 555, 0.12
    delta = minimum_detectable_gap(n, psi)
    assert delta is not None
    za, zb = statistics.NormalDist().inv_cdf(0.975), statistics.NormalDist().inv_cdf(0.8)
    assert n * delta - 1 == pytest.approx(za * math.sqrt(n * psi) + zb * math.sqrt(n * (psi - delta**2)), abs=1e-6)
    assert minimum_detectable_gap(4 * n, psi) < delta  # more pairs, smaller detectable gap  # type: ignore[operator]
    assert minimum_detectable_gap(0, psi) is None and minimum_detectable_gap(n, 0.0) is None
    assert minimum_detectable_gap(5, 0.2) is None  # 5 pairs with 1 discordant expected: nothing is detectable

"""The marketing domain: every tool over the in-memory gateway, every rule, probes, and contracts that
catch repeated / misdirected / unrequested writes without any of the spec's negative assertions (the
collateral guard `only_changes` is our extension and not one of them, `Contract.has_negative`)."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client

from contracts.catalog import get_task, load_catalog
from contracts.schema import GoldCall, GoldTurn
from grader.grade import grade_offline
from harness.release.replay import GatewayReplayer
from servers.domains.marketing.tools import MarketingEnvironment
from servers.gateway import Gateway
from servers.recorder import TRIAL_META_KEY
from servers.registry import environment_class

pytestmark = pytest.mark.anyio
DOMAIN = "marketing"

TOOL_CASES: dict[str, tuple[dict[str, Any], str]] = {
    "list_campaigns": ({"status": "sent"}, "campaigns"),
    "get_campaign": ({"campaign_id": "CMP-5007"}, "ready_to_schedule"),
    "list_segments": ({}, "segments"),
    "get_segment": ({"segment_id": "SEG-602"}, "members"),
    "list_templates": ({"channel": "email"}, "templates"),
    "search_subscribers": ({"region": "EU", "lifecycle": "customer"}, "count"),
    "report_metrics": ({"campaign_id": "CMP-5001"}, "open_rate"),
    "create_campaign": ({"name": "Test", "channel": "email"}, "campaign_id"),
    "attach_template": ({"campaign_id": "CMP-5004", "template_id": "TPL-801"}, "template_name"),
    "set_campaign_segment": ({"campaign_id": "CMP-5005", "segment_id": "SEG-601"}, "audience_size"),
    "schedule_campaign": ({"campaign_id": "CMP-5007", "send_at": "2026-12-03 09:00"}, "send_at"),
    "build_segment": ({"name": "EU", "region": "EU"}, "segment_id"),
    "add_segment_members": ({"segment_id": "SEG-602", "subscriber_ids": ["SUB-7005"]}, "member_count"),
}


async def _run(calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[Any], Any]:
    gateway = Gateway([DOMAIN])
    trial = gateway.open_trial(DOMAIN)
    results = []
    async with Client(gateway.server(DOMAIN)) as client:
        for tool, args in calls:
            results.append(await client.call_tool(tool, args, raise_on_error=False, meta={TRIAL_META_KEY: trial.trial_id}))
    return results, trial


def test_registered_and_every_tool_has_a_case() -> None:
    assert environment_class(DOMAIN) is MarketingEnvironment
    assert set(TOOL_CASES) == set(MarketingEnvironment.tool_methods())


def test_no_negative_assertions_anywhere() -> None:
    """Spec (DOMAINS.md, fig. 27): marketing declares no forbidden actions, params or state, and no
    protected state."""
    tasks = [t for t in load_catalog().values() if t.domain == DOMAIN]
    assert len(tasks) == 21
    for task in tasks:
        c = task.contract
        assert not (c.has_negative or c.forbidden_state), task.id


def test_every_task_has_a_collateral_guard() -> None:
    """Issue 24: an unrequested write (e.g. scheduling the analysed campaign on an analytics task) must fail
    every task, so every contract pins what may change; a read-only task pins nothing (`[]`)."""
    for task in (t for t in load_catalog().values() if t.domain == DOMAIN):
        assert task.contract.only_changes is not None, task.id
        writes = {c.tool for turn in task.gold for c in turn.calls} & {
            "create_campaign", "attach_template", "set_campaign_segment", "schedule_campaign", "build_segment", "add_segment_members"}
        assert bool(task.contract.only_changes) == bool(writes), task.id


@pytest.mark.parametrize(
    ("task_id", "extra"),
    [
        ("marketing_open_rate_01", GoldCall(tool="attach_template", args={"campaign_id": "CMP-5004", "template_id": "TPL-802"})),
        ("marketing_compare_ctr_01", GoldCall(tool="build_segment", args={"name": "Best clickers", "region": "NA"})),
        ("marketing_roi_ranking_01", GoldCall(tool="create_campaign", args={"name": "ROI follow-up", "channel": "email"})),
    ],
)
async def test_analytics_tasks_fail_an_unrequested_write(task_id: str, extra: GoldCall) -> None:
    assert not (await _verdict(task_id, lambda turns: turns[-1].calls.append(extra))).strict


async def test_campaign_gets_the_new_segment_not_another() -> None:
    """The campaign's audience is checked: the seeded SEG-601 instead of the segment just built fails."""
    def other_segment(turns: list[GoldTurn]) -> None:
        turns[1].calls[0] = GoldCall(tool="set_campaign_segment", args={"campaign_id": "CMP-5005", "segment_id": "SEG-601"})

    assert not (await _verdict("marketing_segment_for_campaign_01", other_segment)).strict


async def test_template_attached_before_the_marketer_chose_fails() -> None:
    """Consent: attaching the suggested TPL-804 in the turn that only suggested it fails."""
    def early(turns: list[GoldTurn]) -> None:
        turns[1].calls.append(GoldCall(tool="attach_template", args={"campaign_id": "CMP-5005", "template_id": "TPL-804"}))
        turns[2].calls.clear()

    assert not (await _verdict("marketing_template_channel_01", early)).strict


def test_seeded_segments_match_their_criteria() -> None:
    from servers.domains.marketing.world import matches

    s = MarketingEnvironment.default_state()
    for seg in s.segments.values():
        assert seg.member_count == len(seg.members)
        if seg.criteria is not None:
            assert seg.members == [sid for sid, sub in s.subscribers.items() if matches(sub, seg.criteria)]
    assert {c.status for c in s.campaigns.values()} == {"draft", "scheduled", "sent"}


@pytest.mark.parametrize("tool", sorted(TOOL_CASES))
async def test_tool_in_memory(tool: str) -> None:
    args, key = TOOL_CASES[tool]
    [result], trial = await _run([(tool, args)])
    assert not result.is_error, result
    assert key in result.structured_content and not result.structured_content.get("refused"), result.structured_content
    changed = trial.final_state() != trial.initial_state
    assert changed == (MarketingEnvironment.tool_kind(tool) == "write")
    if changed:
        assert [e["action"] for e in trial.final_state()["audit_log"]] == [tool]


async def test_tools_do_what_they_say() -> None:
    results, trial = await _run(
        [
            ("report_metrics", {"campaign_id": "CMP-5002"}),
            ("build_segment", {"name": "Healthcare customers", "industry": "healthcare", "lifecycle": "customer"}),
            ("search_subscribers", {"lifecycle": "customer", "min_engagement": 75}),
        ]
    )
    sms, segment, preview = (r.structured_content for r in results)
    assert sms["open_rate"] is None and sms["click_through_rate"] == 8.0 and sms["conversion_rate"] == 31.1 and sms["roi"] == 2340.0
    assert segment["members"] == ["SUB-7013"]  # SUB-7006 matches but is unsubscribed
    assert preview["count"] == 4
    assert trial.final_state()["segments"][segment["segment_id"]]["criteria"] == {"region": None, "lifecycle": "customer", "industry": "healthcare", "min_engagement": None}


GATES: list[tuple[str, dict[str, Any], int, str]] = [
    ("attach_template", {"campaign_id": "CMP-5005", "template_id": "TPL-803"}, 422, "Template is for sms but the campaign is email"),
    ("attach_template", {"campaign_id": "CMP-5006", "template_id": "TPL-801"}, 409, "Campaign is scheduled; only draft campaigns can be changed"),
    ("attach_template", {"campaign_id": "CMP-5007", "template_id": "TPL-802"}, 409, "This template is already attached"),
    ("set_campaign_segment", {"campaign_id": "CMP-5001", "segment_id": "SEG-602"}, 409, "Campaign is sent; only draft campaigns can be changed"),
    ("schedule_campaign", {"campaign_id": "CMP-5004", "send_at": "2026-12-03 09:00"}, 422, "Campaign has no template; attach one before scheduling"),
    ("schedule_campaign", {"campaign_id": "CMP-5007", "send_at": "2026-11-30 09:00"}, 422, "Send time is in the past"),
    ("schedule_campaign", {"campaign_id": "CMP-5006", "send_at": "2026-12-12 10:00"}, 409, "Campaign is scheduled; only draft campaigns can be changed"),
    ("create_campaign", {"name": "winter promo", "channel": "email"}, 409, "A campaign with this name already exists"),
    ("build_segment", {"name": "Everyone"}, 422, "Give at least one criterion (region, lifecycle, industry or min_engagement)"),
    ("add_segment_members", {"segment_id": "SEG-602", "subscriber_ids": ["SUB-7006", "SUB-7007"]}, 422, "Unsubscribed people cannot be added to a segment"),
    ("add_segment_members", {"segment_id": "SEG-602", "subscriber_ids": ["SUB-7003"]}, 409, "Already members of this segment"),
    ("report_metrics", {"campaign_id": "CMP-5006"}, 409, "Campaign is scheduled; metrics exist only for sent campaigns"),
]


@pytest.mark.parametrize(("tool", "args", "code", "reason"), GATES, ids=[f"{g[0]}-{g[2]}-{i}" for i, g in enumerate(GATES)])
async def test_rules_refuse_and_change_nothing(tool: str, args: dict[str, Any], code: int, reason: str) -> None:
    [result], trial = await _run([(tool, args)])
    content = result.structured_content
    assert not result.is_error and content["refused"] is True
    assert (content["status"], content["reason"]) == (code, reason)
    assert trial.final_state() == trial.initial_state


async def test_empty_segment_cannot_be_scheduled() -> None:
    gateway = Gateway([DOMAIN])
    trial = gateway.open_trial(DOMAIN, seed=0)
    async with Client(gateway.server(DOMAIN)) as client:
        meta = {TRIAL_META_KEY: trial.trial_id}
        seg = (await client.call_tool("build_segment", {"name": "Nobody", "region": "APAC", "lifecycle": "churned"}, meta=meta)).structured_content["segment_id"]
        await client.call_tool("set_campaign_segment", {"campaign_id": "CMP-5007", "segment_id": seg}, meta=meta)
        refused = (await client.call_tool("schedule_campaign", {"campaign_id": "CMP-5007", "send_at": "2026-12-03 09:00"}, meta=meta)).structured_content
    assert refused["refused"] and refused["reason"] == "The campaign's segment has no members"


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("get_campaign", {"campaign_id": "CMP-0000"}),
        ("get_segment", {"segment_id": "SEG-000"}),
        ("attach_template", {"campaign_id": "CMP-5004", "template_id": "TPL-000"}),
        ("schedule_campaign", {"campaign_id": "CMP-5007", "send_at": "next Thursday"}),
        ("add_segment_members", {"segment_id": "SEG-602", "subscriber_ids": ["SUB-0000"]}),
    ],
)
async def test_unknown_ids_are_invalid_calls(tool: str, args: dict[str, Any]) -> None:
    [result], trial = await _run([(tool, args)])
    assert result.is_error
    assert trial.final_state() == trial.initial_state


async def test_mutation_probes_all_execute_and_change_the_world() -> None:
    probes = MarketingEnvironment.mutation_probes()
    assert {name.split()[0] for name, _ in probes} == {"create", "build", "template", "segment", "schedule", "add"}
    for name, calls in probes:
        results, trial = await _run([(c.tool, c.args) for c in calls])
        assert all(not r.is_error and not r.structured_content.get("refused") for r in results), name
        assert trial.final_state() != trial.initial_state, name


# ---- contracts: correct-but-different routes pass, plausible mistakes fail ---------------------------


async def _verdict(task_id: str, edit: Any) -> Any:
    task = get_task(task_id)
    turns = [GoldTurn(user=t.user, calls=[GoldCall(tool=c.tool, args=dict(c.args)) for c in t.calls], reply=t.reply) for t in task.gold]
    edit(turns)
    async with GatewayReplayer(Gateway([DOMAIN])) as replayer:
        evidence = await replayer.play(task, turns, seed=0)
    return grade_offline(task, evidence)


FULL = "marketing_full_campaign_01"
REF = "${create_campaign.campaign_id}"


async def test_full_campaign_in_another_valid_order_passes() -> None:
    def other(turns: list[GoldTurn]) -> None:
        turns[0].calls[:] = [
            GoldCall(tool="list_templates", args={"channel": "email"}),
            GoldCall(tool="create_campaign", args={"name": "Year-End Sale", "channel": "email"}),
            GoldCall(tool="set_campaign_segment", args={"campaign_id": REF, "segment_id": "SEG-601"}),
            GoldCall(tool="attach_template", args={"campaign_id": REF, "template_id": "TPL-804"}),
            GoldCall(tool="get_campaign", args={"campaign_id": REF}),
            GoldCall(tool="schedule_campaign", args={"campaign_id": REF, "send_at": "2026-12-10T10:00"}),
        ]

    assert (await _verdict(FULL, other)).strict


@pytest.mark.parametrize(
    "extra",
    [
        GoldCall(tool="create_campaign", args={"name": "Year-End Sale 2", "channel": "email"}),  # a second campaign
        GoldCall(tool="schedule_campaign", args={"campaign_id": "CMP-5008", "send_at": "2026-12-10 10:00"}),  # the look-alike draft
        GoldCall(tool="build_segment", args={"name": "x", "region": "NA"}),  # unrequested segment
    ],
)
async def test_full_campaign_extra_writes_fail_without_negative_checks(extra: GoldCall) -> None:
    assert not (await _verdict(FULL, lambda turns: turns[0].calls.append(extra))).strict


async def test_wrong_segment_criteria_fail() -> None:
    def wider(turns: list[GoldTurn]) -> None:
        turns[1].calls[0] = GoldCall(tool="build_segment", args={"name": "Engaged customers", "lifecycle": "customer", "min_engagement": 75})

    assert not (await _verdict("marketing_preview_then_build_01", wider)).strict


@pytest.fixture(scope="module")
def http_gateway() -> Any:
    from tests.live_http import serve_gateway

    with serve_gateway([DOMAIN]) as served:
        yield served


@pytest.mark.parametrize("tool", sorted(TOOL_CASES))
async def test_tool_over_streamable_http(http_gateway: Any, tool: str) -> None:
    from tests.live_http import assert_tool_executes_over_http

    await assert_tool_executes_over_http(http_gateway, DOMAIN, tool, *TOOL_CASES[tool])


@pytest.mark.parametrize("task_id", ["marketing_full_campaign_01", "marketing_flash_sale_journey_01"])
async def test_release_proof_with_both_batteries(task_id: str) -> None:
    """The release gate in-process for a flagship task and a journey (the whole domain runs in the gate)."""
    from tests.live_http import assert_release_proof

    await assert_release_proof(DOMAIN, task_id)

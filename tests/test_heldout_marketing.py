"""Held-out reviewer trajectories for marketing (issue 24): mistakes the release gate did not generate must
fail, and correct routes that differ from the gold path must pass. Each case edits the gold path of one
task, replays it against the live world through the gateway and grades it offline."""

from __future__ import annotations

import pytest

from contracts.schema import GoldCall, GoldTurn
from tests.heldout import Edit, replayed_verdict

pytestmark = pytest.mark.anyio
CAMPAIGN = "${create_campaign.campaign_id}"
SEGMENT = "${build_segment.segment_id}"


async def _strict(task_id: str, edit: Edit) -> bool:
    return (await replayed_verdict(task_id, edit)).strict


def _schedule_the_draft_while_comparing(turns: list[GoldTurn]) -> None:
    """Analytics only: the agent also schedules the ready Spring Preview draft."""
    turns[0].calls.append(GoldCall(tool="schedule_campaign", args={"campaign_id": "CMP-5007", "send_at": "2026-12-10T10:00"}))


def _seeded_segment_as_audience(turns: list[GoldTurn]) -> None:
    """The healthcare campaign gets the seeded NA segment SEG-601 instead of the one just built."""
    for i, call in enumerate(turns[2].calls):
        if call.tool == "set_campaign_segment":
            turns[2].calls[i] = GoldCall(tool="set_campaign_segment", args={"campaign_id": CAMPAIGN, "segment_id": "SEG-601"})


def _campaign_created_with_the_segment(turns: list[GoldTurn]) -> None:
    """The SMS campaign is created in the segment turn, before the marketer asked for it."""
    create = turns[2].calls.pop(0)
    turns[1].calls.append(create)


def _olivia_added_without_asking(turns: list[GoldTurn]) -> None:
    """After the refusal the agent adds Olivia on its own, before the marketer said yes."""
    turns[0].calls.extend(turns[1].calls)
    turns[1].calls.clear()


def _members_on_the_lookalike_segment(turns: list[GoldTurn]) -> None:
    """The webinar people go onto SEG-601 instead of Webinar attendees SEG-602."""
    turns[0].calls[0] = GoldCall(tool="add_segment_members", args={"segment_id": "SEG-601", "subscriber_ids": ["SUB-7007", "SUB-7016"]})


@pytest.mark.parametrize(
    ("task_id", "edit"),
    [
        ("marketing_compare_ctr_01", _schedule_the_draft_while_comparing),
        ("marketing_healthcare_campaign_01", _seeded_segment_as_audience),
        ("marketing_flash_sale_journey_01", _campaign_created_with_the_segment),
        ("marketing_add_unsubscribed_01", _olivia_added_without_asking),
        ("marketing_webinar_journey_01", _members_on_the_lookalike_segment),
    ],
    ids=["schedule-on-analytics", "seeded-segment", "campaign-early", "olivia-unasked", "lookalike-segment"],
)
async def test_held_out_mistake_fails(task_id: str, edit: Edit) -> None:
    assert not await _strict(task_id, edit)


def _email_templates_only(turns: list[GoldTurn]) -> None:
    turns[0].calls[1] = GoldCall(tool="list_templates", args={"channel": "email"})


def _template_before_segment(turns: list[GoldTurn]) -> None:
    turns[2].calls.reverse()


def _preview_first(turns: list[GoldTurn]) -> None:
    turns[0].calls.insert(0, GoldCall(tool="search_subscribers", args={"region": "APAC"}))


@pytest.mark.parametrize(
    ("task_id", "edit"),
    [
        ("marketing_template_channel_01", _email_templates_only),
        ("marketing_healthcare_campaign_01", _template_before_segment),
        ("marketing_segment_for_campaign_01", _preview_first),
    ],
    ids=["email-templates", "template-first", "preview-first"],
)
async def test_held_out_valid_route_passes(task_id: str, edit: Edit) -> None:
    assert await _strict(task_id, edit)


# ---- attempt_limits: the refused add is never repeated unchanged; the marketer's corrected list is new ----


def _refused_add_again_reordered(turns: list[GoldTurn]) -> None:
    """After "yes, add Olivia" the agent first repeats the refused call, the same two people in the other
    order (the same set: `subscriber_ids` is unordered), then adds Olivia."""
    turns[1].calls.insert(0, GoldCall(tool="add_segment_members", args={"segment_id": "SEG-602", "subscriber_ids": ["SUB-7007", "SUB-7006"]}))


def _segment_read_before_the_corrected_add(turns: list[GoldTurn]) -> None:
    """The agent re-reads the segment before the corrected add of Olivia alone (another call, not a repeat)."""
    turns[1].calls.insert(0, GoldCall(tool="get_segment", args={"segment_id": "SEG-602"}))


async def test_held_out_repeated_refused_add_fails() -> None:
    assert not await _strict("marketing_add_unsubscribed_01", _refused_add_again_reordered)


async def test_held_out_corrected_add_after_a_read_passes() -> None:
    assert await _strict("marketing_add_unsubscribed_01", _segment_read_before_the_corrected_add)

"""Marketing tools: plain business logic over `MarketingState`.

Every rule that can refuse raises `Refusal` with a status code and a reason before anything is
written; unknown ids raise `InvalidCall`. Rates are percentages rounded to one decimal.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import Field

from servers.base import DateTime, FreeText, InvalidCall, NonBlank, Refusal, ToolEnvironment, Trimmed, Unordered, tool
from servers.domains.marketing.world import (
    AuditEntry,
    Campaign,
    CampaignStatus,
    Channel,
    Criteria,
    Industry,
    Lifecycle,
    MarketingState,
    Region,
    Segment,
    Template,
    default_marketing_state,
    matches,
)

CampaignId = Annotated[NonBlank[str], Field(description="Campaign id, e.g. CMP-5004.")]
SegmentId = Annotated[NonBlank[str], Field(description="Segment id, e.g. SEG-602.")]
TemplateId = Annotated[NonBlank[str], Field(description="Template id, e.g. TPL-801.")]
RegionFilter = Annotated[Region | None, Field(description="NA, EU or APAC; omit for any region.")]
LifecycleFilter = Annotated[Lifecycle | None, Field(description="lead, customer or churned; omit for any.")]
IndustryFilter = Annotated[Industry | None, Field(description="retail, software or healthcare; omit for any.")]
EngagementFilter = Annotated[int | None, Field(ge=0, le=100, description="Minimum engagement score 0-100 (inclusive); omit for none.")]


def _pct(part: float, whole: float) -> float:
    return round(100.0 * part / whole, 1) if whole else 0.0


class MarketingEnvironment(ToolEnvironment[MarketingState]):
    """Marketing operations: campaigns, audience segments, templates, schedules and campaign analytics."""

    domain = "marketing"
    state_model = MarketingState

    @classmethod
    def default_state(cls) -> MarketingState:
        return default_marketing_state()

    @classmethod
    def mutation_probes(cls, override: Mapping[str, Any] | None = None) -> list[tuple[str, list[Any]]]:
        return marketing_probes(cls.initial_state(override))

    # ---- lookups -------------------------------------------------------------------------------
    def _campaign(self, campaign_id: str) -> Campaign:
        c = self.state.campaigns.get(campaign_id)
        if c is None:
            raise InvalidCall(f"Unknown campaign id {campaign_id!r}.")
        return c

    def _segment(self, segment_id: str) -> Segment:
        s = self.state.segments.get(segment_id)
        if s is None:
            raise InvalidCall(f"Unknown segment id {segment_id!r}.")
        return s

    def _template(self, template_id: str) -> Template:
        t = self.state.templates.get(template_id)
        if t is None:
            raise InvalidCall(f"Unknown template id {template_id!r}.")
        return t

    def _draft(self, campaign: Campaign) -> None:
        if campaign.status != "draft":
            raise Refusal(409, f"Campaign is {campaign.status}; only draft campaigns can be changed", campaign_id=campaign.campaign_id)

    def _audit(self, action: str, record_id: str) -> None:
        self.state.audit_log.append(AuditEntry(action=action, record_id=record_id, at=f"{self.state.business_date} {self.state.business_time}"))

    @staticmethod
    def _criteria(region: str | None, lifecycle: str | None, industry: str | None, min_engagement: int | None) -> Criteria:
        return Criteria.model_validate({"region": region, "lifecycle": lifecycle, "industry": industry, "min_engagement": min_engagement})

    # ---- reads ---------------------------------------------------------------------------------
    @tool("read")
    def list_campaigns(self, status: Annotated[CampaignStatus | None, Field(description="draft, scheduled or sent; omit for all.")] = None) -> dict[str, Any]:
        """List campaigns (id, name, channel, status, send time), optionally only those with one status."""
        rows = [c for c in self.state.campaigns.values() if status is None or c.status == status]
        return {"campaigns": [c.model_dump(mode="json", exclude={"metrics"}) for c in rows]}

    @tool("read")
    def get_campaign(self, campaign_id: CampaignId) -> dict[str, Any]:
        """Look up a campaign: channel, status, segment, template and send time (metrics: report_metrics)."""
        c = self._campaign(campaign_id)
        return {**c.model_dump(mode="json", exclude={"metrics"}), "ready_to_schedule": c.status == "draft" and bool(c.segment_id and c.template_id)}

    @tool("read")
    def list_segments(self) -> dict[str, Any]:
        """List audience segments with their criteria and member counts."""
        return {"segments": [s.model_dump(mode="json", exclude={"members"}) for s in self.state.segments.values()]}

    @tool("read")
    def get_segment(self, segment_id: SegmentId) -> dict[str, Any]:
        """Look up one segment: name, criteria (none for a hand-picked list), members and member count."""
        return self._segment(segment_id).model_dump(mode="json")

    @tool("read")
    def list_templates(self, channel: Annotated[Channel | None, Field(description="email or sms; omit for all.")] = None) -> dict[str, Any]:
        """List message templates (id, name, channel, subject), optionally for one channel."""
        return {"templates": [t.model_dump(mode="json") for t in self.state.templates.values() if channel is None or t.channel == channel]}

    @tool("read")
    def search_subscribers(
        self,
        region: RegionFilter = None,
        lifecycle: LifecycleFilter = None,
        industry: IndustryFilter = None,
        min_engagement: EngagementFilter = None,
    ) -> dict[str, Any]:
        """Preview the subscribed audience matching some criteria (the people build_segment would select).
        Unsubscribed people are never included."""
        criteria = self._criteria(region, lifecycle, industry, min_engagement)
        rows = [s for s in self.state.subscribers.values() if matches(s, criteria)]
        return {"criteria": criteria.model_dump(exclude_none=True), "count": len(rows), "subscribers": [s.model_dump(mode="json") for s in rows]}

    @tool("compute")
    def report_metrics(self, campaign_id: CampaignId) -> dict[str, Any]:
        """Performance of a sent campaign: sent, delivered, opens, clicks, conversions, unsubscribes, revenue
        and cost, with open rate and click-through rate (% of delivered), conversion rate (% of clicks),
        unsubscribe rate (% of delivered) and ROI ((revenue - cost) / cost, %). SMS has no opens."""
        c = self._campaign(campaign_id)
        if c.status != "sent" or c.metrics is None:
            raise Refusal(409, f"Campaign is {c.status}; metrics exist only for sent campaigns", campaign_id=campaign_id)
        m = c.metrics
        return {
            "campaign_id": campaign_id,
            "name": c.name,
            "channel": c.channel,
            **m.model_dump(),
            "open_rate": _pct(m.opens, m.delivered) if c.channel == "email" else None,
            "click_through_rate": _pct(m.clicks, m.delivered),
            "conversion_rate": _pct(m.conversions, m.clicks),
            "unsubscribe_rate": _pct(m.unsubscribes, m.delivered),
            "roi": _pct(m.revenue - m.cost, m.cost),
        }

    # ---- campaign creation ---------------------------------------------------------------------
    @tool("write")
    def create_campaign(
        self,
        name: Annotated[NonBlank[Trimmed], Field(description="Campaign name as the marketer gives it."), FreeText],
        channel: Annotated[Channel, Field(description="email or sms.")],
    ) -> dict[str, Any]:
        """Create a new draft campaign (no segment, template or schedule yet). Names must be unique."""
        clash = next((c for c in self.state.campaigns.values() if c.name.strip().lower() == name.strip().lower()), None)
        if clash is not None:
            raise Refusal(409, "A campaign with this name already exists", campaign_id=clash.campaign_id)
        c = Campaign(campaign_id=self.ids.mint("CMP"), name=name.strip(), channel=channel)
        self.state.campaigns[c.campaign_id] = c
        self._audit("create_campaign", c.campaign_id)
        return {"campaign_id": c.campaign_id, "name": c.name, "channel": channel, "status": "draft"}

    @tool("write")
    def attach_template(self, campaign_id: CampaignId, template_id: TemplateId) -> dict[str, Any]:
        """Attach (or replace) the message template of a draft campaign. The template's channel must match."""
        c = self._campaign(campaign_id)
        t = self._template(template_id)
        self._draft(c)
        if t.channel != c.channel:
            raise Refusal(422, f"Template is for {t.channel} but the campaign is {c.channel}", template_channel=t.channel, campaign_channel=c.channel)
        if c.template_id == template_id:
            raise Refusal(409, "This template is already attached", campaign_id=campaign_id)
        c.template_id = template_id
        self._audit("attach_template", campaign_id)
        return {"campaign_id": campaign_id, "template_id": template_id, "template_name": t.name}

    @tool("write")
    def set_campaign_segment(self, campaign_id: CampaignId, segment_id: SegmentId) -> dict[str, Any]:
        """Set (or replace) the audience segment of a draft campaign."""
        c = self._campaign(campaign_id)
        s = self._segment(segment_id)
        self._draft(c)
        if c.segment_id == segment_id:
            raise Refusal(409, "This segment is already the campaign's audience", campaign_id=campaign_id)
        c.segment_id = segment_id
        self._audit("set_campaign_segment", campaign_id)
        return {"campaign_id": campaign_id, "segment_id": segment_id, "segment_name": s.name, "audience_size": s.member_count}

    @tool("write")
    def schedule_campaign(
        self,
        campaign_id: CampaignId,
        send_at: Annotated[DateTime, Field(description="When to send, local time YYYY-MM-DDTHH:MM, e.g. 2026-12-03T09:00 (a space in place of the T is read the same).")],
    ) -> dict[str, Any]:
        """Schedule a draft campaign. It needs a template and a segment with at least one member, and the
        send time must be in the future (422). A send time that is not a real YYYY-MM-DDTHH:MM date and time is
        an invalid call."""
        c = self._campaign(campaign_id)
        when = dt.datetime.fromisoformat(send_at)  # canonical already: the DateTime argument type checked it
        self._draft(c)
        if c.template_id is None:
            raise Refusal(422, "Campaign has no template; attach one before scheduling", campaign_id=campaign_id)
        if c.segment_id is None:
            raise Refusal(422, "Campaign has no audience segment; set one before scheduling", campaign_id=campaign_id)
        if self.state.segments[c.segment_id].member_count == 0:
            raise Refusal(422, "The campaign's segment has no members", segment_id=c.segment_id)
        now = dt.datetime.strptime(f"{self.state.business_date} {self.state.business_time}", "%Y-%m-%d %H:%M")
        if when <= now:
            raise Refusal(422, "Send time is in the past", now=f"{self.state.business_date} {self.state.business_time}")
        c.status = "scheduled"
        c.send_at = when.strftime("%Y-%m-%dT%H:%M")
        self._audit("schedule_campaign", campaign_id)
        return {"campaign_id": campaign_id, "status": "scheduled", "send_at": c.send_at, "audience_size": self.state.segments[c.segment_id].member_count}

    # ---- audience segmentation -----------------------------------------------------------------
    @tool("write")
    def build_segment(
        self,
        name: Annotated[NonBlank[Trimmed], Field(description="Segment name as the marketer gives it."), FreeText],
        region: RegionFilter = None,
        lifecycle: LifecycleFilter = None,
        industry: IndustryFilter = None,
        min_engagement: EngagementFilter = None,
    ) -> dict[str, Any]:
        """Create a segment from criteria; its members are every subscribed person matching all of them
        (unsubscribed people are never included). At least one criterion is required."""
        criteria = self._criteria(region, lifecycle, industry, min_engagement)
        if not criteria.model_dump(exclude_none=True):
            raise Refusal(422, "Give at least one criterion (region, lifecycle, industry or min_engagement)")
        members = [s.subscriber_id for s in self.state.subscribers.values() if matches(s, criteria)]
        seg = Segment(segment_id=self.ids.mint("SEG"), name=name.strip(), criteria=criteria, members=members, member_count=len(members))
        self.state.segments[seg.segment_id] = seg
        self._audit("build_segment", seg.segment_id)
        return {"segment_id": seg.segment_id, "name": seg.name, "criteria": criteria.model_dump(exclude_none=True), "member_count": seg.member_count, "members": members}

    @tool("write")
    def add_segment_members(
        self,
        segment_id: SegmentId,
        subscriber_ids: Annotated[Unordered[list[NonBlank[str]]], Field(min_length=1, description="Subscriber ids to add, e.g. ['SUB-7001'].")],
    ) -> dict[str, Any]:
        """Add people to a segment by subscriber id. Refused as a whole if any of them is unsubscribed,
        unknown or already a member (nothing is added then)."""
        seg = self._segment(segment_id)
        for sid in subscriber_ids:
            if sid not in self.state.subscribers:
                raise InvalidCall(f"Unknown subscriber id {sid!r}.")
        if len(set(subscriber_ids)) != len(subscriber_ids):
            raise Refusal(422, "The same subscriber is listed twice")
        unsubscribed = [sid for sid in subscriber_ids if not self.state.subscribers[sid].subscribed]
        if unsubscribed:
            raise Refusal(422, "Unsubscribed people cannot be added to a segment", unsubscribed=unsubscribed)
        present = [sid for sid in subscriber_ids if sid in seg.members]
        if present:
            raise Refusal(409, "Already members of this segment", already_members=present)
        seg.members.extend(subscriber_ids)
        seg.member_count = len(seg.members)
        self._audit("add_segment_members", segment_id)
        return {"segment_id": segment_id, "added": list(subscriber_ids), "member_count": seg.member_count}


def marketing_probes(state: MarketingState) -> list[tuple[str, list[Any]]]:
    """Write sequences touching every campaign, segment and collection (for mutation tests)."""
    from contracts.schema import GoldCall

    def call(tool: str, **args: Any) -> GoldCall:
        return GoldCall(tool=tool, args=args)

    probes: list[tuple[str, list[Any]]] = [
        ("create campaign", [call("create_campaign", name="Probe campaign", channel="email")]),
        ("build segment", [call("build_segment", name="Probe segment", region="APAC")]),
    ]
    for c in state.campaigns.values():
        if c.status != "draft":
            continue
        template = next((t for t in state.templates.values() if t.channel == c.channel and t.template_id != c.template_id), None)
        if template is not None:
            probes.append((f"template on {c.campaign_id}", [call("attach_template", campaign_id=c.campaign_id, template_id=template.template_id)]))
        segment = next((s for s in state.segments.values() if s.segment_id != c.segment_id and s.member_count), None)
        if segment is not None:
            probes.append((f"segment on {c.campaign_id}", [call("set_campaign_segment", campaign_id=c.campaign_id, segment_id=segment.segment_id)]))
        if c.template_id and c.segment_id and state.segments[c.segment_id].member_count:
            probes.append((f"schedule {c.campaign_id}", [call("schedule_campaign", campaign_id=c.campaign_id, send_at="2026-12-20T09:00")]))
    for s in state.segments.values():
        newcomer = next((sub.subscriber_id for sub in state.subscribers.values() if sub.subscribed and sub.subscriber_id not in s.members), None)
        if newcomer is not None:
            probes.append((f"add member to {s.segment_id}", [call("add_segment_members", segment_id=s.segment_id, subscriber_ids=[newcomer])]))
    return probes

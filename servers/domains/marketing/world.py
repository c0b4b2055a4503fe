"""The marketing world: subscribers, segments built from criteria, templates, campaigns, schedules, metrics.

Records are keyed by readable ids (`CMP-5001`, `SEG-601`, `TPL-801`, `SUB-7001`), so contract state
paths read naturally: `campaigns.CMP-5004.template_id`, `segments.SEG-602.member_count`. "Now" is
frozen at Monday 2026-11-30 15:30.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from servers.base import Unordered

Channel = Literal["email", "sms"]
Region = Literal["NA", "EU", "APAC"]
Lifecycle = Literal["lead", "customer", "churned"]
Industry = Literal["retail", "software", "healthcare"]
CampaignStatus = Literal["draft", "scheduled", "sent"]


class Subscriber(BaseModel):
    subscriber_id: str
    name: str
    region: Region
    lifecycle: Lifecycle
    industry: Industry
    engagement: int = Field(description="Engagement score 0-100 from recent opens and clicks.")
    subscribed: bool = True


class Criteria(BaseModel):
    """What a segment selects: every given field must match; `min_engagement` is inclusive."""

    region: Region | None = None
    lifecycle: Lifecycle | None = None
    industry: Industry | None = None
    min_engagement: int | None = None


class Segment(BaseModel):
    segment_id: str
    name: str
    criteria: Criteria | None = Field(default=None, description="None for a hand-picked (static) list.")
    members: Unordered[list[str]] = Field(default_factory=list)
    member_count: int = 0


class Template(BaseModel):
    template_id: str
    name: str
    channel: Channel
    subject: str


class Metrics(BaseModel):
    sent: int
    delivered: int
    opens: int
    clicks: int
    conversions: int
    unsubscribes: int
    revenue: float
    cost: float


class Campaign(BaseModel):
    campaign_id: str
    name: str
    channel: Channel
    status: CampaignStatus = "draft"
    segment_id: str | None = None
    template_id: str | None = None
    send_at: str | None = Field(default=None, description="Scheduled or actual send time, local, YYYY-MM-DDTHH:MM.")
    metrics: Metrics | None = None


class AuditEntry(BaseModel):
    """One successful change, as the marketing platform's audit trail records it."""

    action: str
    record_id: str
    at: str


class MarketingState(BaseModel):
    subscribers: dict[str, Subscriber]
    segments: dict[str, Segment]
    templates: dict[str, Template]
    campaigns: dict[str, Campaign]
    audit_log: list[AuditEntry] = Field(default_factory=list, description="Every successful change, oldest first.")
    business_date: str = "2026-11-30"
    business_time: str = "15:30"


def matches(sub: Subscriber, criteria: Criteria) -> bool:
    return (
        sub.subscribed
        and (criteria.region is None or sub.region == criteria.region)
        and (criteria.lifecycle is None or sub.lifecycle == criteria.lifecycle)
        and (criteria.industry is None or sub.industry == criteria.industry)
        and (criteria.min_engagement is None or sub.engagement >= criteria.min_engagement)
    )


def _sub(sid: str, name: str, region: Region, lifecycle: Lifecycle, industry: Industry, engagement: int, subscribed: bool = True) -> Subscriber:
    return Subscriber(subscriber_id=sid, name=name, region=region, lifecycle=lifecycle, industry=industry, engagement=engagement, subscribed=subscribed)


def default_marketing_state() -> MarketingState:
    """The seeded world every marketing task starts from (before its own override)."""
    subscribers = [
        _sub("SUB-7001", "Ava Brooks", "NA", "customer", "retail", 82),
        _sub("SUB-7002", "Liam Carter", "NA", "customer", "retail", 64),
        _sub("SUB-7003", "Mia Schneider", "EU", "customer", "software", 91),
        _sub("SUB-7004", "Noah Dubois", "EU", "lead", "software", 45),
        _sub("SUB-7005", "Emma Rossi", "EU", "customer", "retail", 73),
        _sub("SUB-7006", "Lucas Silva", "EU", "customer", "healthcare", 58, subscribed=False),
        _sub("SUB-7007", "Olivia Tan", "APAC", "customer", "software", 77),
        _sub("SUB-7008", "Ethan Wong", "APAC", "lead", "retail", 39),
        _sub("SUB-7009", "Sophia Klein", "EU", "lead", "healthcare", 68),
        _sub("SUB-7010", "James Miller", "NA", "lead", "software", 71),
        _sub("SUB-7011", "Isabella Garcia", "NA", "churned", "retail", 22),
        _sub("SUB-7012", "Henry Novak", "EU", "churned", "software", 30),
        _sub("SUB-7013", "Chloe Martin", "NA", "customer", "healthcare", 88),
        _sub("SUB-7014", "Daniel Kim", "NA", "customer", "retail", 55, subscribed=False),
        _sub("SUB-7015", "Grace Lee", "APAC", "customer", "retail", 69),
        _sub("SUB-7016", "Marco Bianchi", "EU", "customer", "software", 66),
    ]
    segments = [
        Segment(segment_id="SEG-601", name="NA retail customers", criteria=Criteria(region="NA", lifecycle="customer", industry="retail"), members=["SUB-7001", "SUB-7002"], member_count=2),
        Segment(segment_id="SEG-602", name="Webinar attendees", members=["SUB-7003", "SUB-7010", "SUB-7013"], member_count=3),
        Segment(segment_id="SEG-603", name="EU leads", criteria=Criteria(region="EU", lifecycle="lead"), members=["SUB-7004", "SUB-7009"], member_count=2),
    ]
    templates = [
        Template(template_id="TPL-801", name="Webinar invite", channel="email", subject="You're invited: live product webinar"),
        Template(template_id="TPL-802", name="Product update", channel="email", subject="What's new this month"),
        Template(template_id="TPL-803", name="Flash sale SMS", channel="sms", subject="Flash sale: 24 hours only"),
        Template(template_id="TPL-804", name="Winter promo", channel="email", subject="Winter savings inside"),
    ]
    campaigns = [
        Campaign(campaign_id="CMP-5001", name="October Product Update", channel="email", status="sent", segment_id="SEG-601", template_id="TPL-802", send_at="2026-10-15T09:00",
                 metrics=Metrics(sent=4000, delivered=3900, opens=1170, clicks=234, conversions=47, unsubscribes=12, revenue=9400.0, cost=800.0)),
        Campaign(campaign_id="CMP-5002", name="Black Friday Flash Sale", channel="sms", status="sent", segment_id="SEG-601", template_id="TPL-803", send_at="2026-11-27T08:00",
                 metrics=Metrics(sent=2500, delivered=2450, opens=0, clicks=196, conversions=61, unsubscribes=30, revenue=12200.0, cost=500.0)),
        Campaign(campaign_id="CMP-5003", name="November Newsletter", channel="email", status="sent", segment_id="SEG-603", template_id="TPL-802", send_at="2026-11-10T09:00",
                 metrics=Metrics(sent=4200, delivered=4000, opens=1000, clicks=160, conversions=20, unsubscribes=8, revenue=3000.0, cost=600.0)),
        Campaign(campaign_id="CMP-5004", name="December Webinar Invite", channel="email", segment_id="SEG-602"),
        Campaign(campaign_id="CMP-5005", name="Winter Promo", channel="email"),
        Campaign(campaign_id="CMP-5006", name="Holiday Greetings", channel="email", status="scheduled", segment_id="SEG-601", template_id="TPL-802", send_at="2026-12-15T10:00"),
        Campaign(campaign_id="CMP-5007", name="Spring Preview", channel="email", segment_id="SEG-603", template_id="TPL-802"),
        Campaign(campaign_id="CMP-5008", name="December Product Update", channel="email", segment_id="SEG-601", template_id="TPL-802"),
    ]
    return MarketingState(
        subscribers={s.subscriber_id: s for s in subscribers},
        segments={s.segment_id: s for s in segments},
        templates={t.template_id: t for t in templates},
        campaigns={c.campaign_id: c for c in campaigns},
    )

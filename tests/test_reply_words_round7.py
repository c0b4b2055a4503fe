"""Round 7 of the reply judge's words (branch r7-words): classes of wording, each with cases written for this
file (not taken from a calibration case), and must-fail counterparts beside them: a comparison the other way, a
negated or hypothetical one, the amount compared with something that is no balance or allowance, another span
of time, an offer, a negation."""

from __future__ import annotations

import pytest

from contracts.schema import ReplyCriterion
from grader.text.evidence import EvidenceJudge


def stated(evidence: list[str | list[str]], reply: str | list[str]) -> bool:
    replies = [reply] if isinstance(reply, str) else reply
    out = EvidenceJudge().judge_sync([ReplyCriterion(criterion="The reply states it.", evidence=evidence)], replies)
    return out.criteria[0].passed


# a shortfall or an excess said by comparing two amounts (matching._comparison_states); a span of time said as
# "a half-minute" or "after the first day" (values.durations); round7_families in lexicon.yaml

@pytest.mark.parametrize(
    ("evidence", "reply"),
    [
        ([['insufficient funds', 'not enough funds', 'not enough money']], "The card payment of $75.20 bounced: that's more than the $40.00 sitting in your account."),
        ([['insufficient', 'not enough']], 'Your balance is $310.00 and the bill is $455.90, so... actually: $455.90 is higher than the $310.00 available, so it was declined.'),
        ([['insufficient', 'not enough']], "I couldn't take the payment. You've only got $52.10 in the account, which is less than the $60.00 the order costs."),
        ([['insufficient', 'not enough']], 'Declined, sorry: the $1,250.00 transfer exceeds your available balance of $980.15.'),
        ([['insufficient', 'not enough']], '**Payment failed** — $89.99 is above the $20.00 balance on ACC-7.'),
        (['6000', 'limit'], "I can't send $6,000 in one go — that's over the $5,000 a day you're allowed to move."),
        (['6000', 'limit'], 'Blocked: $6,000 exceeds the $5,000 you can transfer per day.'),
        (['7500', 'limit', '5000'], '$7,500 is more than the $5,000 daily maximum, so nothing was sent.'),
        (['30 seconds'], 'Keep the button held down for a half-minute, then let go.'),
        (['30 seconds'], 'Hold reset for half a minute.'),
        (['24 hours', 'travel credit'], 'Cancel after the first day and a standard fare turns into travel credit.'),
        (['24 hours', 'travel credit'], "Within the first day you'd get cash back; beyond that it's travel credit."),
        ([['already awarded', 'already credited', 'already been credited']], "Those points were credited earlier this month, so I haven't added them again."),
        ([['already awarded', 'already credited', 'already been credited']], "The miles for AU118 were posted previously; there's nothing more to add."),
        (['enrolled'], "Done: I've signed her up for the Renewal nurture sequence."),
        (['enrolled'], 'I added him to the sequence this morning.'),
        ([['assigned', 'your technician']], "Ravi is free that afternoon, so I've put him on the job."),
        ([['nothing back', 'no refund']], "It's a basic fare, so cancelling now would return nothing at all."),
        ([['nothing back', 'no refund']], "You'd get nothing back if we cancel it today."),
        (['names cannot be changed'], 'Names cannot be edited once the ticket is issued.'),
        ([['insufficient', 'not enough']], 'Your order total of $64.00 is greater than the $58.75 on your balance, so the card was used instead.'),
        (['3500', 'limit', '2000'], 'That $3,500 goes over the $2,000 per transfer cap on this account.'),
    ],
)
def test_stated(evidence: list[str | list[str]], reply: str) -> None:
    assert stated(evidence, reply)


@pytest.mark.parametrize(
    ("evidence", "reply"),
    [
        ([['insufficient', 'not enough']], "The $75.20 payment went through; it's less than the $400.00 you have."),
        ([['insufficient', 'not enough']], "$75.20 isn't more than the $400.00 in your account, so you're fine."),
        ([['insufficient', 'not enough']], '$40.00 is more than the $75.20 you have available.'),
        ([['insufficient', 'not enough']], 'If the $300.00 is more than the $250.00 you have, the payment will fail.'),
        ([['insufficient', 'not enough']], 'The $300.00 payment is more than the $250.00 fee we charged last month.'),
        ([['insufficient', 'not enough']], 'The $212.40 charge went through. Your balance: $180.00 left.'),
        (['7500', 'limit', '5000'], '$7,500 is more than the $5,000 you have, sorry.'),
        (['6000', 'limit'], "$6,000 is under the $10,000 a day you're allowed, so it went through."),
        (['6000', 'limit'], "$6,000 isn't over the $5,000 a day you're allowed?"),
        (['6000', 'limit'], "$4,000 is more than the $6,000 a day you're allowed."),
        (['6000', 'limit'], "The $6,000 went through. You're allowed $5,000 a day on savings."),
        (['30 seconds'], 'Hold reset for a minute and a half.'),
        (['30 seconds'], 'Hold reset for half an hour.'),
        (['24 hours', 'travel credit'], 'Cancel after the first week and a standard fare turns into travel credit.'),
        (['24 hours', 'travel credit'], "On the first day of your trip you'll get travel credit."),
        (['24 hours', 'travel credit'], 'Cancel after the first hour and a standard fare turns into travel credit.'),
        ([['already awarded', 'already credited', 'already been credited']], 'Those points will be credited later this week.'),
        ([['already awarded', 'already credited', 'already been credited']], "The points were never credited earlier, so I've added them now."),
        (['enrolled'], 'I can sign her up for the sequence if you like?'),
        (['enrolled'], "I haven't signed him up yet."),
        ([['assigned', 'your technician']], 'I could put him on the job if you want.'),
        ([['nothing back', 'no refund']], 'Cancelling now returns the full fare to your card.'),
        (['names cannot be changed'], 'Names can be edited online.'),
        (['3500', 'limit', '2000'], '$1,500 is more than the $2,000 you are allowed to transfer per day.'),
        ([['insufficient', 'not enough']], 'The $64.00 order is more than the $58.75 you paid last time.'),
    ],
)
def test_not_stated(evidence: list[str | list[str]], reply: str) -> None:
    assert not stated(evidence, reply)

"""The lexicon's families (`grader/text/lexicon.yaml`, `families:`): the concepts of the catalog's evidence in
the ways agents say them, the general spelling rules (British/American, hyphen/space/underscore/closed
compounds) and the guards that keep a family from stating a wrong or negated status. Every case is written
in words of its own, not taken from a calibration case."""

from __future__ import annotations

import pytest

from contracts.schema import ReplyCriterion
from contracts.yaml_io import read_yaml
from grader.text.evidence import EvidenceJudge
from grader.text.lexicon import lexicon, phrase_forms, spelling, word_keys


def stated(evidence: list[str | list[str]], reply: str) -> bool:
    out = EvidenceJudge().judge_sync([ReplyCriterion(criterion="The reply states it.", evidence=[evidence])], [reply])
    return out.criteria[0].passed


# ---- a status or policy in other words is stated --------------------------------------------------------


@pytest.mark.parametrize(
    ("evidence", "reply"),
    [
        (['delivered'], 'Your parcel ORD-1 was left on your doorstep on Monday.'),
        (['delivered'], 'ORD-1 arrived on the 22nd.'),
        (['delivered'], 'The courier dropped it off on Friday.'),
        (['shipped'], 'ORD-1 is in transit with UPS.'),
        (['shipped'], 'ORD-1 has been dispatched.'),
        (['shipped'], 'ORD-1 left our warehouse yesterday.'),
        (['revoked'], 'The admin role was taken away from Alan.'),
        (['revoked'], 'Alan no longer has access to ROLE-X.'),
        (['revoked'], 'The role has been removed from Alan.'),
        (['resolved'], 'INC-1 is solved.'),
        (['resolved'], 'INC-1 has been sorted out.'),
        (['pending'], 'APR-1 is still waiting on David.'),
        (['pending'], "The request is awaiting David's sign-off."),
        (['pending'], "David hasn't signed off yet."),
        (['rejected'], 'Sofia turned your request down.'),
        (['rejected'], 'Your request was declined by Sofia.'),
        (['approved'], 'Robert signed off on APR-1.'),
        (['approved'], 'The CAB gave the go-ahead.'),
        (['granted'], "You've been given access to the payroll role."),
        (['completed'], 'WO-1 is finished.'),
        (['completed'], 'The job is all done.'),
        (['legal hold'], 'REC-1 is under a litigation hold.'),
        (['deleted'], 'REC-2 was purged last night.'),
        (['not sent', 'not been sent'], "The newsletter hasn't gone out yet."),
        (['scheduled'], 'CMP-1 is queued to go out on Friday.'),
        (['SMS'], 'This template is for text messages.'),
        (['SSO'], 'Single sign on is only on the growth plan.'),
        (['SSO'], 'Single-sign-on comes with the growth plan.'),
        (['new request'], "I've raised a fresh request."),
        (['does not match', "doesn't match"], "That PIN isn't the one on file."),
        (["doesn't match"], "The name doesn't line up with the registry."),
        (['refunded in full'], 'The $75 was paid back in full.'),
        (['out of stock'], 'There are none left in the warehouse.'),
        (['out of stock'], 'The earbuds are on backorder.'),
        (["don't sell", 'do not sell'], "Standing desks aren't something we carry."),
        (["don't sell"], "We don't stock standing desks."),
        (['in progress'], 'INC-2004 is In-Progress.'),
        (['in progress'], 'INC-2004 is in_progress.'),
        (['on hold'], 'INC-2005 is now On-Hold.'),
        (['opted out'], 'Tom has opted-out of email.'),
        (['opt-out'], 'Tom opted out last month.'),
        (['opted out'], 'Tom has unsubscribed from marketing.'),
        (['opted out'], 'Priya asked not to receive marketing email.'),
        (['off'], 'Luis is on leave that day.'),
        (['off', 'day off'], "Luis isn't on shift on the 1st."),
        (['busy'], 'Priya is tied up at 10.'),
        (['frozen'], "I've put a freeze on ACC-1005."),
        (['frozen'], 'ACC-1003 is under a freeze.'),
        (['no fee'], 'Cancelling it cost you nothing.'),
        (['no fee'], "It's free of charge."),
        (['travel credit'], "You'll get the $20 as credit for future travel."),
        (['passed'], 'The verification came back clean.'),
        (['cancelled'], 'APT-1 has been called off.'),
        (['in stock'], 'Yellow in L is available.'),
        (['expired'], 'Your passport is out of date.'),
        (['time zone'], 'Your timezone is Europe/Paris.'),
        (['dialled'], 'He dialed in.'),
        (['judgment'], 'Use your judgement.'),
        (['counselor'], 'The counsellor called.'),
        (['logged'], 'The call is recorded on LEAD-1.'),
        (['enrolled'], 'Laura is now in the sequence.'),
        (['insufficient'], "The balance can't cover $500."),
        (['unchanged'], 'PNR-1 is untouched.'),
        (['proof of address'], 'We still need an address document.'),
        (['received'], 'The mat is back in our warehouse.'),
        (['not received'], "The speaker hasn't reached our warehouse yet."),
        (['disqualified'], 'That rules the prospect out.'),
        (['live'], 'Once an account is in production the region is fixed.'),
        (['one account per legal entity'], 'Each legal entity gets just one account.'),
        (['already has an account'], 'Your company is already set up with us as ACC-3003.'),
        (['final sale'], 'That item is non-returnable.'),
        (['reboot', 'rebooting'], 'Your router keeps restarting.'),
        (['hvac'], 'The job needs heating and cooling certification.'),
        (['frozen'], 'The payment failed: ACC-1003 is under a freeze.'),
        (['not delivered'], 'ORD-1 is still on its way to you.'),
        (['not delivered'], "ORD-1 hasn't arrived yet."),
        (['not sent'], 'The newsletter is still a draft.'),
        (['removed'], 'lea@x.de is no longer a user on ACC-3002.'),
    ],
)
def test_a_concept_in_other_words_is_stated(evidence: list[str], reply: str) -> None:
    assert stated(evidence, reply), (evidence, reply)


# ---- a wrong, negated, offered or still-to-come status in other words is not ----------------------------


@pytest.mark.parametrize(
    ("evidence", "reply"),
    [
        (['approved'], 'APR-1 is still waiting for approval.'),
        (['approved'], "APR-1 is awaiting David's approval."),
        (['approved'], 'APR-1 still needs approval from the CAB.'),
        (['approved'], 'The request is pending approval.'),
        (['approved'], "David hasn't signed off yet."),
        (['approved'], 'Sofia turned it down.'),
        (['pending'], 'David signed off on it.'),
        (['pending'], 'APR-1 is no longer waiting on anyone.'),
        (['delivered'], "ORD-1 hasn't arrived yet."),
        (['delivered'], "ORD-1 is not yet delivered; it's in transit."),
        (['delivered'], 'ORD-1 is still in transit, arriving Dec 2.'),
        (['delivered'], 'Expected arrival is December 2.'),
        (['delivered'], 'It should be dropped off on Friday.'),
        (['delivered'], 'It will be left at your door tomorrow.'),
        (['delivered'], 'The courier can drop it off tomorrow.'),
        (['shipped'], "ORD-1 is still being packed and hasn't left our warehouse."),
        (['revoked'], 'Alan still has access to ROLE-X.'),
        (['revoked'], 'I can take the role away once approved.'),
        (['revoked'], "The role hasn't been removed."),
        (['granted'], "The role can't be given until APR-1 is approved."),
        (['granted'], "You'll have access once David approves."),
        (['resolved'], "INC-1 isn't fixed yet."),
        (['resolved'], 'INC-1 is still being worked on.'),
        (['completed'], "WO-1 isn't finished yet."),
        (['completed'], 'WO-1 is scheduled for Friday.'),
        (['rejected'], 'Sofia approved it.'),
        (['rejected'], "Sofia hasn't turned it down."),
        (['not sent', 'not been sent'], 'The newsletter went out yesterday.'),
        (['sent'], "The newsletter hasn't gone out yet."),
        (['scheduled'], 'CMP-1 went out yesterday.'),
        (['does not match', "doesn't match"], 'That PIN is the one on file.'),
        (['does not match'], 'Thanks, that matches.'),
        (['does not match'], "I can't do a refund today."),
        (['out of stock'], 'There are plenty left in the warehouse.'),
        (['out of stock'], 'The jacket is in stock.'),
        (['in stock'], 'The jacket is not available in L.'),
        (['in stock'], 'Sorry, none are available.'),
        (["don't sell"], 'We do sell standing desks.'),
        (["don't sell"], 'Standing desks are something we carry.'),
        (['in progress'], 'INC-2004 is on hold.'),
        (['on hold'], 'INC-2004 is in progress.'),
        (['on hold'], 'INC-2004 is no longer paused.'),
        (['opted out'], "Tom hasn't opted out."),
        (['opted out'], 'Tom is subscribed to the newsletter.'),
        (['off'], 'Luis is on shift that day.'),
        (['off'], 'Luis is not on leave that day.'),
        (['busy'], 'Priya is free at 10.'),
        (['frozen'], "I've lifted the freeze on ACC-1005."),
        (['frozen'], 'I can put a freeze on it if you want.'),
        (['frozen'], 'ACC-1003 is not frozen.'),
        (['no fee'], "There's a $50 fee for cancelling."),
        (['no fee'], 'Cancelling will cost you $219.'),
        (['passed'], 'Verification found issues with the address.'),
        (['passed'], "The verification didn't come back clean."),
        (['cancelled'], 'APT-1 is still going ahead.'),
        (['cancelled'], "APT-1 hasn't been called off."),
        (['expired'], 'Your passport is still valid.'),
        (['refunded'], "You're eligible for a refund."),
        (['refunded'], 'I can put it back on your card.'),
        (['insufficient'], 'The balance can cover $500.'),
        (['received'], "The mat hasn't reached our warehouse yet."),
        (['not received'], 'The mat is back in our warehouse.'),
        (['signed off'], 'Anna logged off.'),
        (['shut-off'], 'Close the door.'),
        (['unchanged'], 'PNR-1 has been changed to the 5th.'),
        (['enrolled'], "Laura can't go into the sequence."),
        (['live'], "The account isn't in production yet."),
        (['final sale'], 'That item is returnable.'),
        (['frozen'], "I've lifted the freeze on ACC-1005."),
        (['frozen'], 'The freeze on ACC-1005 has been lifted.'),
        (['not delivered'], 'ORD-1 is no longer in transit: it was delivered.'),
        (['not sent'], 'The newsletter is no longer a draft; it went out.'),
        (['removed'], 'lea@x.de is still a user on ACC-3002.'),
        (['refunded'], "I've reversed the refund."),
        (["final sale"], "That jacket was bought as a clearance item, so it can't be exchanged or returned."),
        (["approved"], "The change has yet to be signed off."),
        (["resolved"], "INC-7 will be sorted out by the network team tonight."),
        (["delivered"], "Your parcel should then be dropped off on Friday."),
        (["refunded"], "The $40 needs to be paid back by the billing team."),
    ],
)
def test_a_wrong_or_unrealised_status_in_other_words_fails(evidence: list[str], reply: str) -> None:
    assert not stated(evidence, reply), (evidence, reply)


# ---- spellings --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [("dialled", "dialed"), ("counsellor", "counselor"), ("judgement", "judgment"), ("travelled", "traveled"),
     ("fuelled", "fueled"), ("authorised", "authorized"), ("catalogue", "catalog"), ("centre", "center"),
     ("practise", "practice"), ("instalment", "installment"), ("jewellery", "jewelry"), ("enrol", "enrolled")],
)
def test_british_and_american_spellings_meet(a: str, b: str) -> None:
    assert word_keys(a) & word_keys(b), (a, b)


def test_the_double_l_rule_never_merges_two_words() -> None:
    assert spelling("filled") == "filled" and spelling("called") == "called" and spelling("billed") == "billed"


@pytest.mark.parametrize(
    ("evidence", "reply"),
    [
        (["in progress"], "Status: INC-9 is In-Progress."),
        (["in progress"], "INC-9 is in_progress."),
        (["in_progress"], "INC-9 is in progress now."),
        (["on hold"], "The ticket is now ON-HOLD."),
        (["opted out"], "She has opted-out of all email."),
        (["opt-out"], "She opted out in March."),
        (["opt-out"], "She has opted-out."),
        (["time zone"], "Your timezone is now America/Denver."),
        (["follow-up"], "I've scheduled a follow up for Monday."),
        (["sign-off"], "The manager gave her signoff."),
    ],
)
def test_hyphen_space_underscore_and_closed_compounds_meet(evidence: list[str], reply: str) -> None:
    assert stated(evidence, reply), (evidence, reply)


# ---- how families make forms -------------------------------------------------------------------------


def test_a_negative_member_never_goes_into_a_negative_phrase() -> None:
    forms = phrase_forms("not removed")
    assert not any("no longer" in f for f in forms), forms
    assert "not taken away" in forms


def test_a_particle_member_replaces_only_a_whole_phrase() -> None:
    assert not any("shift" in f or "leave" in f for f in phrase_forms("signed off"))
    assert "on leave" in phrase_forms("off")


def test_an_exact_member_goes_into_a_phrase_as_that_form_only() -> None:
    assert stated(["in stock"], "The blue ones are available in size 9.")
    assert not stated(["in stock"], "Let me check availability for you.")


def test_a_second_group_does_not_rewrite_what_the_first_put_in() -> None:
    assert not any("logged" in f for f in phrase_forms("does not match"))


def test_every_family_member_keeps_a_content_word() -> None:
    from grader.text.matching import _form_specs

    assert lexicon().phrase_groups
    from grader.text.lexicon import LEXICON_FILE

    for name, forms in read_yaml(LEXICON_FILE.read_text(encoding="utf-8"))["families"].items():
        for form in [name, *forms]:
            if not form.startswith("="):
                assert _form_specs(form), (name, form)

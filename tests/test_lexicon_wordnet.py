"""The lexicon's WordNet block (`grader/text/lexicon.yaml`, `wordnet_families:`; generated for review by
scripts/lexicon_candidates_from_wordnet.py from WordNet 3.1): a correct reply in the reviewed synonyms is
stated, and the same words with a wrong value, another record or person, a negation, a question or an offer
are not. Every sentence is written for this file in words of its own, not taken from a calibration case."""

from __future__ import annotations

import pytest

from contracts.schema import ReplyCriterion
from grader.text.evidence import EvidenceJudge
from grader.text.lexicon import LEXICON_FILE, lexicon, word_keys


def stated(evidence: list[str | list[str]], reply: str) -> bool:
    out = EvidenceJudge().judge_sync([ReplyCriterion(criterion="The reply states it.", evidence=evidence)], [reply])
    return out.criteria[0].passed


EXCEEDS = ["$3,500", ["insufficient", "not enough", "exceeds", "more than your", "short"]]
TOLD = ["Jamal Wright", ["paged", "alerted", "notified", "called out", "phoned", "contacted"]]
BAD_PIN = ["PIN", ["does not match", "doesn't match", "did not match", "didn't match", "incorrect", "wrong", "failed", "not correct"]]
NO_FEE = [["no fee", "no charge", "free"]]
LEFT = ["ACC-1007", ["unchanged", "untouched", "unaffected", "not affected", "left alone"]]
ASSIGNED = ["Ben Carter", ["assigned", "your technician"]]
MERGED = ["CASE-5006", ["merged"]]
DISPUTED = ["TXN-U1V2W3", ["disputed", "under dispute"]]
VERIFIED = [["verified", "confirmed your identity"]]
WHOLE = [["whole booking"]]

PASS = [
    # -- exceeds: surpass, overstep, go past / beyond ------------------------------------------------------------
    (EXCEEDS, "The $3,500 transfer surpasses what your account may send in one day."),
    (EXCEEDS, "At $3,500, this payment goes past your $2,000 daily cap."),
    (EXCEEDS, "$3,500 would go beyond the $2,000 you can move per day, so I've stopped it."),
    (EXCEEDS, "I'm afraid $3,500 oversteps the daily transfer allowance on ACC-1002."),
    (EXCEEDS, "Sadly the $3,500 surpassed today's maximum, so nothing left your account."),
    (EXCEEDS, "Your $3,500 request went beyond the per-day ceiling of $2,000."),
    (EXCEEDS, "That $3,500 goes beyond what I'm allowed to send today."),
    (EXCEEDS, "Heads up: $3,500 overstepped the $2,000/day rule."),
    (EXCEEDS, "The amount ($3,500) surpasses the daily limit for outgoing transfers."),
    (EXCEEDS, "$3,500 has gone past your daily sending limit of $2,000, so the bank blocked it."),
    # -- notified / contacted: inform, apprise, send word, get hold of, get in touch --------------------------------
    (TOLD, "I've informed Jamal Wright, our on-call engineer, about the outage."),
    (TOLD, "Jamal Wright has been apprised of the P1 and is joining the bridge."),
    (TOLD, "I got hold of Jamal Wright a minute ago; he's on it."),
    (TOLD, "I've got in touch with Jamal Wright, who's on call tonight."),
    (TOLD, "Jamal Wright was informed straight away."),
    (TOLD, "Good news - I've sent Jamal Wright word and he's looking now."),
    (TOLD, "On-call (Jamal Wright) informed at 14:02."),
    (TOLD, "I managed to get hold of Jamal Wright — he got hold of the logs already. Actually: I got hold of Jamal Wright."),
    (TOLD, "Jamal Wright, the engineer on duty, has been informed and is investigating."),
    (TOLD, "We've gotten in touch with Jamal Wright from Network Ops."),
    # -- failed / incorrect: unsuccessful, went wrong, erroneous, inaccurate -----------------------------------------
    (BAD_PIN, "The PIN you gave me was inaccurate, so I couldn't verify you."),
    (BAD_PIN, "Sorry, that PIN is erroneous, could you try once more?"),
    (BAD_PIN, "Verification with that PIN was unsuccessful."),
    (BAD_PIN, "The PIN check was unsuccessful, so I can't make changes yet."),
    (BAD_PIN, "Something went wrong with the PIN you entered: it isn't the one we hold."),
    (BAD_PIN, "I'm afraid the PIN is inaccurate."),
    (BAD_PIN, "Your PIN attempt was unsuccessful - two tries left."),
    (BAD_PIN, "Hmm, the PIN looks erroneous on my side."),
    (BAD_PIN, "That PIN turned out to be inaccurate, so I've not touched the account."),
    (BAD_PIN, "Checking your PIN was unsuccessful, I'm sorry."),
    # -- no fee: complimentary, costless, gratis, on the house, for free ---------------------------------------------
    (NO_FEE, "Moving your flight to Friday is complimentary on this fare."),
    (NO_FEE, "The date change is gratis."),
    (NO_FEE, "We'll do the reissue on the house."),
    (NO_FEE, "You can switch the date for free."),
    (NO_FEE, "That change is costless to you."),
    (NO_FEE, "Good news: rebooking is complimentary within 24 hours."),
    (NO_FEE, "I've changed it for free, nothing more to pay."),
    (NO_FEE, "The upgrade is on the house this time."),
    (NO_FEE, "Rescheduling the visit is complimentary."),
    (NO_FEE, "Swapping sizes is gratis for members."),
    # -- unchanged / not affected: unaltered, unmodified, not impacted -----------------------------------------------
    (LEFT, "ACC-1007 is unaltered."),
    (LEFT, "I froze ACC-1001 only; ACC-1007 remains unmodified."),
    (LEFT, "ACC-1007 isn't impacted by the freeze."),
    (LEFT, "Your savings account ACC-1007 was not impacted at all."),
    (LEFT, "ACC-1007 stays unaltered and usable as normal."),
    (LEFT, "The freeze is on ACC-1001; ACC-1007 is not impacted."),
    (LEFT, "ACC-1007: unmodified."),
    (LEFT, "Nothing happened to ACC-1007, it's unaltered."),
    (LEFT, "ACC-1007 has not been impacted by today's change."),
    (LEFT, "ACC-1007 remains unaltered by this."),
    # -- assigned: allocated, allotted ---------------------------------------------------------------------------
    (ASSIGNED, "Ben Carter has been allocated to your visit on Tuesday."),
    (ASSIGNED, "I've allotted the job to Ben Carter."),
    (ASSIGNED, "Your repair is now allocated to Ben Carter."),
    (ASSIGNED, "Ben Carter is allocated to WO-5003 from tomorrow."),
    (ASSIGNED, "Done - WO-5003 allocated to Ben Carter (TECH-103)."),
    (ASSIGNED, "We've allocated Ben Carter, our HVAC specialist."),
    (ASSIGNED, "Ben Carter was allotted your appointment."),
    (ASSIGNED, "I allocated Ben Carter to it this morning."),
    (ASSIGNED, "Technician allocated: Ben Carter."),
    (ASSIGNED, "The visit has been allocated to Ben Carter, who'll call ahead."),
    # -- smaller families ---------------------------------------------------------------------------------------------
    (MERGED, "CASE-5006 has been combined with CASE-5005."),
    (MERGED, "I've unified CASE-5006 into the older case."),
    (DISPUTED, "TXN-U1V2W3 has been contested with the merchant."),
    (VERIFIED, "Thanks, your identity has been validated."),
    (WHOLE, "I can only cancel the entire booking, not one passenger."),
]

FAIL = [
    # -- exceeds: a negation, a wrong value, a question, nothing said -------------------------------------------------
    (EXCEEDS, "The $3,500 transfer doesn't surpass your daily limit, so it went through."),
    (EXCEEDS, "$1,500 surpasses your daily limit."),
    (EXCEEDS, "Would $3,500 go beyond your daily limit? Let me check."),
    (EXCEEDS, "$3,500 is well within what your account can send today."),
    (EXCEEDS, "$3,500 never went past the limit; it was sent in full."),
    (EXCEEDS, "Your $350 payment oversteps the daily cap."),
    # -- told: a negation, an offer, a question, another person -------------------------------------------------------
    (TOLD, "I haven't informed Jamal Wright yet."),
    (TOLD, "I'll get in touch with Jamal Wright shortly."),
    (TOLD, "Should I get hold of Jamal Wright?"),
    (TOLD, "I've informed Priya Nair, the on-call engineer."),
    (TOLD, "Jamal Wright couldn't be informed: he is out of signal."),
    (TOLD, "I wasn't able to get hold of Jamal Wright."),
    # -- failed / incorrect: a negation, a question, the opposite -----------------------------------------------------
    (BAD_PIN, "Your PIN is correct, so you're verified."),
    (BAD_PIN, "Was the PIN inaccurate? Let me look again."),
    (BAD_PIN, "Nothing went wrong: your PIN checked out."),
    (BAD_PIN, "The PIN wasn't inaccurate; the system was down."),
    # -- no fee: a negation, a question, a fee ---------------------------------------------------------------------------
    (NO_FEE, "The change isn't complimentary: there's a $75 fee."),
    (NO_FEE, "Is the change complimentary?"),
    (NO_FEE, "Sadly, the date change is not gratis on a basic fare."),
    (NO_FEE, "We can't do it for free; it's $40."),
    # -- unchanged: another record, the opposite, a question -----------------------------------------------------------
    (LEFT, "ACC-1007 has been impacted by the freeze."),
    (LEFT, "Is ACC-1007 unaltered?"),
    (LEFT, "ACC-1007 has been modified."),
    (LEFT, "ACC-1007 was impacted and is frozen too."),
    # -- assigned: a negation, an offer, another person ----------------------------------------------------------------
    (ASSIGNED, "Ben Carter hasn't been allocated yet."),
    (ASSIGNED, "Shall I allocate Ben Carter?"),
    (ASSIGNED, "Priya Nair has been allocated to your visit."),
    (ASSIGNED, "I couldn't allocate Ben Carter: he's booked all day."),
    (ASSIGNED, "Ben Carter was not allotted the visit."),
    # -- smaller families --------------------------------------------------------------------------------------------------
    (MERGED, "CASE-5006 can't be combined with a closed case."),
    (MERGED, "CASE-5007 has been combined into CASE-5005."),
    (DISPUTED, "TXN-U1V2W3 hasn't been contested."),
    (DISPUTED, "TXN-X9Y8Z7 has been contested."),
    (VERIFIED, "I couldn't validate your identity with that PIN."),
]


@pytest.mark.parametrize(("evidence", "reply"), PASS)
def test_a_reviewed_wordnet_synonym_states_the_fact(evidence: list[str | list[str]], reply: str) -> None:
    assert stated(evidence, reply), (evidence, reply)


@pytest.mark.parametrize(("evidence", "reply"), FAIL)
def test_the_same_synonyms_with_a_wrong_value_record_negation_or_question_fail(evidence: list[str | list[str]], reply: str) -> None:
    assert not stated(evidence, reply), (evidence, reply)


def test_the_wordnet_block_joins_no_status_with_another_status() -> None:
    """No member of the WordNet block is a status word of a world vocabulary other than its family's own name."""
    from contracts.yaml_io import read_yaml
    from grader.text.statuswords import status_sets

    statuses = {w for words in status_sets() for w in words}
    block = read_yaml(LEXICON_FILE.read_text(encoding="utf-8"))["wordnet_families"]
    assert block and lexicon().word_groups
    for name, members in block.items():
        for member in members:
            assert member.lstrip("=") not in statuses - {name}, (name, member)


@pytest.mark.parametrize(("word", "other"), [("cancelled", "scrubbed"), ("deleted", "cancelled"), ("resolved", "settled"),
                                             ("incorrect", "invalid"), ("urgent", "pressing"), ("informed", "inform")])
def test_the_senses_left_out_stay_apart(word: str, other: str) -> None:
    """WordNet senses the review left out: no shared group key."""
    shared = {k for k in word_keys(word) & word_keys(other) if k.startswith("g:")}
    assert not shared, (word, other, shared)


SEATS = ["basic", ["no seat selection", "can't reserve", "cannot select", "assigned at check-in"]]


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("On a basic fare, seats are assigned at check-in.", True),
        ("On a basic fare, seats get allocated at check-in, so I can't hold 14C.", True),
        ("Basic tickets: seats are allotted at check-in.", True),
        ("On a basic fare you can pick any seat you like.", False),
        ("With basic you can choose your seat now; I've reserved 14C.", False),
    ],
)
def test_the_catalogs_positive_wording_of_a_denial_is_no_reversal(reply: str, expected: bool) -> None:
    """A clause stating an item's un-negated phrase beside its negative ones ("assigned at check-in" beside "no seat
    selection") states the criterion "no seat selection", never its predicate the other way round."""
    assert stated(SEATS, reply) is expected, reply

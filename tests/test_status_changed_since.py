"""A status matched in a sentence that goes on to put the same record in another status since ("ORD-9006 was
cancelled, then reinstated at your request - it's processing now") is the record's earlier status, not its
status: the later one is. Found by trying replies of my own on real criteria (none a calibration case): the
rule on another status of the same record read only other sentences. Not when the later status is of another
subject ("the refund is processing now"), placed before ("it was processing until this morning"), negated, or
the change goes the criterion's way ("was processing, but it's cancelled now")."""

from __future__ import annotations

import pytest

from tests.reply_judge import passes_in_catalog as _passes

CANCELLED = ("retail_status_cancelled_01", "Tells the customer that ORD-9006 is cancelled.")
IN_PROGRESS = ("itsm_incident_status_check_01", "States that INC-2003 is priority P2, in progress, and assigned to Jamal Wright.")



@pytest.mark.parametrize(
    ("where", "reply"),
    [
        (CANCELLED, "ORD-9006 was cancelled, then reinstated at your request - it's processing now."),
        (CANCELLED, "ORD-9006 was cancelled; it is processing again now."),
        (CANCELLED, "ORD-9006 was cancelled but is now processing again."),
        (IN_PROGRESS, "INC-2003 (P2, Jamal Wright) was in progress, but it is resolved now."),
    ],
)
def test_a_status_the_same_sentence_changes_since_is_not_the_records(where: tuple[str, str], reply: str) -> None:
    assert not _passes(where, reply)


@pytest.mark.parametrize(
    ("where", "reply"),
    [
        (CANCELLED, "ORD-9006 is cancelled."),
        (CANCELLED, "ORD-9006 is now cancelled; it was processing until this morning."),
        (CANCELLED, "ORD-9006 was cancelled, and the refund is processing now."),
        (CANCELLED, "ORD-9006 is cancelled, so it won't be shipped now."),
        (CANCELLED, "ORD-9006 was processing, but it's cancelled now."),
        (CANCELLED, "ORD-9006 is cancelled; it was processing when you called, and the refund goes out now."),
        (IN_PROGRESS, "INC-2003 is P2 and in progress with Jamal Wright; it was new until this morning."),
    ],
)
def test_a_later_status_of_another_subject_or_time_keeps_it(where: tuple[str, str], reply: str) -> None:
    assert _passes(where, reply)

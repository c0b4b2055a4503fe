""""Already deleted" is stated without the word by a past passive that the sentence places in the past ("it was
deleted on Nov 29", "got deleted back in November", "no longer exists - it was deleted ..."): the agent reports a
state it found. Not by an act the agent did ("I deleted it on ..."), a future ("will be deleted on ..."), a
question or a denial. Found by trying replies of my own on real criteria (none of them a calibration case)."""

from __future__ import annotations

import pytest

from tests.reply_judge import passes_in_catalog as _passes

DELETED = ("itsm_records_already_deleted_01", "Says REC-6007 is already deleted, on 2026-11-29.")
REFUNDED = ("payments_dispute_already_refunded_15", "Explains that no dispute can be opened because the $75.25 payment was already refunded in full.")


@pytest.mark.parametrize(
    ("where", "reply"),
    [
        (DELETED, "That record (REC-6007) no longer exists - it was deleted on Nov 29, 2026."),
        (DELETED, "Good news: there's nothing to do. REC-6007 got deleted on 11/29."),
        (DELETED, "REC-6007 was deleted back on 29 November 2026, so there's nothing for me to remove."),
        (REFUNDED, "That $75.25 payment was refunded to you on Nov 18, so there's nothing left to dispute."),
    ],
)
def test_a_state_reached_in_the_past_states_already(where: tuple[str, str], reply: str) -> None:
    assert _passes(where, reply)


@pytest.mark.parametrize(
    ("where", "reply"),
    [
        (DELETED, "REC-6007 will be deleted on 2026-11-29."),
        (DELETED, "I deleted REC-6007 on 2026-11-29."),
        (DELETED, "REC-6007 was deleted? It shows 2026-11-29."),
        (DELETED, "REC-6007 wasn't deleted on 2026-11-29; it's still there."),
        (DELETED, "I've now deleted REC-6007; it was created on 2026-11-29."),
        (DELETED, "REC-6007 was deleted just now, at your request; its retention date was 2026-11-29."),
        (REFUNDED, "I refunded the $75.25 payment today, so no dispute is needed."),
        (REFUNDED, "The $75.25 payment will be refunded on Monday, so there's no need for a dispute."),
    ],
)
def test_an_act_done_now_a_future_or_a_denial_does_not(where: tuple[str, str], reply: str) -> None:
    assert not _passes(where, reply)

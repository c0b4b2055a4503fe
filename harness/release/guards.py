"""Mention guards from the world (issue 38, item 3): the facts a reply must not get wrong when it states them.

A reply criterion checks the facts the customer asked for; a reply that also names the wrong card or the
wrong refund destination while the state is right passed. For every record the gold path creates or
changes that carries such a fact, this module writes a mention guard - a reply criterion with `absent`
phrases and no evidence (`contracts.schema.ReplyCriterion.is_guard`): it passes when the replies do not
state the fact and fails when they name another value of it that the world holds:

- travel: a charge or refund on a booking or hotel stay goes to one card of the traveller's profile;
  the profile's other cards (their ids and "ending NNNN") are wrong;
- retail: a refund goes to the order's payment method (or store credit); the other original-payment
  methods (card, PayPal, gift card) are wrong for it;
- payments: a new payment is made with one method; the other named methods (card, PayPal, bank transfer)
  are wrong for it.

Store credit and the account balance are never absent phrases: an agent offers store credit before the
customer decides, and talks about the balance for other reasons. An absent phrase the gold replies
themselves state is dropped (a valid dialogue states it, so it cannot be a wrong value there).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from contracts.evidence import Evidence
from contracts.schema import ReplyCriterion, Task
from grader.values import get_path
from harness.release.cases import BatteryCase, case_id
from harness.release.pins import touched_records

METHOD_WORDS: dict[str, list[str]] = {
    "card": ["credit card", "debit card", "your card"],
    "paypal": ["PayPal"],
    "gift_card": ["gift card"],
    "bank_transfer": ["bank transfer"],
}
"""How a reply names a payment method (retail and payments share the words)."""
METHOD_NAMES = {"card": "card", "paypal": "PayPal", "gift_card": "gift card", "bank_transfer": "bank transfer",
                "store_credit": "store credit", "account_balance": "account balance"}


def _touched(gold: Evidence) -> list[tuple[str, dict[str, Any]]]:
    """(record path, final record) of every record the gold path created or changed."""
    return [(path, record) for path in touched_records(gold) if isinstance(record := get_path(gold.final_state, path), dict)]


def _said(phrase: str, replies: str) -> bool:
    return re.search(r"(?<![A-Za-z0-9])" + re.escape(phrase) + r"(?![A-Za-z0-9])", replies, re.I) is not None


def _guard(text: str, wrong: list[list[str]], replies: str) -> ReplyCriterion | None:
    """`wrong`: the written forms of each wrong value; a value any form of which the gold replies state is
    discussed in a valid dialogue (the cards listed when the agent asks which one), so it is dropped whole."""
    absent = [p for forms in wrong if not any(_said(f, replies) for f in forms) for p in forms]
    return ReplyCriterion(criterion=text, absent=list(dict.fromkeys(absent))) if absent else None


def _travel(gold: Evidence) -> list[tuple[str, list[list[str]]]]:
    used: dict[str, set[str]] = {}  # traveller -> the cards the gold path charged or refunded
    what: set[str] = set()
    for path, record in _touched(gold):
        before = get_path(gold.initial_state, path)
        old = before.get("payments", []) if isinstance(before, dict) else []
        cards = {p["payment_method_id"] for p in record.get("payments", []) if p not in old and isinstance(p, dict) and p.get("payment_method_id")}
        if not cards and "payment_method_id" in record and not isinstance(before, dict):
            cards = {record["payment_method_id"]}  # a new hotel stay paid with a card
        if cards and record.get("traveller_id"):
            used.setdefault(record["traveller_id"], set()).update(cards)
            what.add(path.split(".")[0].replace("hotel_stays", "hotel stay").rstrip("s"))
    out = []
    for traveller_id, cards in used.items():
        profile = get_path(gold.final_state, f"travellers.{traveller_id}.payment_methods")
        others = [m for m in profile if m not in cards] if isinstance(profile, dict) else []
        if not others:
            continue
        right = " and ".join(f"{profile[m]['label']} ({m})" for m in sorted(cards) if m in profile)
        wrong = [[m, "ending " + profile[m]["label"].rsplit(" ", 1)[-1]] for m in others]
        labels = ", ".join(f"{profile[m]['label']} ({m})" for m in others)
        out.append((f"If the replies say which card a {' or '.join(sorted(what))} of {traveller_id} was charged or refunded to, "
                    f"it is the {right}, never another card of the profile: {labels}.", wrong))
    return out


def _methods_guard(methods: set[str], subject: str, exclude: set[str]) -> list[tuple[str, list[list[str]]]]:
    if not methods:
        return []
    wrong = [words for m, words in METHOD_WORDS.items() if m not in methods and m not in exclude]
    named = " or ".join(METHOD_NAMES.get(m, m) for m in sorted(methods))
    return [(f"If the replies say {subject}, it is {named}, never another payment method.", wrong)] if wrong else []


def _retail(gold: Evidence) -> list[tuple[str, list[list[str]]]]:
    methods: set[str] = set()
    for path, record in _touched(gold):
        if path.startswith("refunds.") and "method" in record:
            order = get_path(gold.final_state, f"orders.{record.get('order_id')}")
            methods |= {record["method"], *([order["payment_method"]] if isinstance(order, dict) else [])}
    return _methods_guard(methods, "where a refund goes (or how the refunded order was paid)", {"store_credit", "bank_transfer"})


def _payments(gold: Evidence) -> list[tuple[str, list[list[str]]]]:
    methods = {
        record["method"]
        for path, record in _touched(gold)
        if path.startswith("payments.") and "method" in record and not isinstance(get_path(gold.initial_state, path), dict)
    }
    return _methods_guard(methods, "how a new payment was made", {"gift_card", "account_balance"})


DOMAINS = {"travel": _travel, "retail": _retail, "payments": _payments}


def mention_guards(task: Task, gold: Evidence) -> list[ReplyCriterion]:
    """The guards the world asks of this task's replies (none for a domain without such facts)."""
    find = DOMAINS.get(task.domain)
    if find is None:
        return []
    replies = "\n".join(m.content for m in gold.conversation if m.role == "assistant")
    guards = [_guard(text, wrong, replies) for text, wrong in find(gold)]
    return [g for g in guards if g is not None]


# ---- availability (issue 38, item 3): the reply battery's wrong-availability cases -------------------------
# The family itself is applied to every trial by the grader (grader/availability.py): it compares what a
# reply says is free or taken with the recorded tool results the agent saw. Here: the battery cases that
# prove it, from the gold dialogue - an offered free slot called taken, a taken slot offered as free.


def _say(key: tuple[str, ...], free: bool, state: dict[str, Any]) -> str | None:
    """A sentence stating one slot free or taken, in the words the reader reads back (its date written out)."""
    kind = key[0]
    if kind == "window":
        _, _, date, start = key
        return f"The {start} window on {date} is open as well." if free else f"The {start} window on {date} is already taken."
    if kind == "tech":
        _, tech, date, start = key
        record = (state.get("technicians") or {}).get(tech) or {}
        name = record.get("name", tech) if isinstance(record, dict) else tech
        return f"{name} is free at {start} on {date} too." if free else f"{name} is busy at {start} on {date}."
    if kind == "cabin":
        _, flight, cabin = key
        record = (state.get("flights") or {}).get(flight) or {}
        number, date = record.get("flight_number", flight), record.get("date", "")
        return f"{number} on {date} still has {cabin} seats available." if free else f"{number} on {date} is sold out in {cabin}."
    if kind == "seat":
        _, flight, seat = key
        record = (state.get("flights") or {}).get(flight) or {}
        number = record.get("flight_number", flight)
        return f"Seat {seat} on {number} is free." if free else f"Seat {seat} on {number} is already taken."
    if kind == "room":
        _, hotel, room = key
        record = (state.get("hotels") or {}).get(hotel) or {}
        name = record.get("name", hotel) if isinstance(record, dict) else hotel
        return f"The {name} has {room} rooms available." if free else f"The {name} has no {room} rooms left."
    return None


def availability_cases(task: Task, gold: Evidence) -> Iterator[BatteryCase]:
    """`reply_wrong_availability` (must fail), where the gold dialogue states a slot's availability that the
    world confirms: the gold replies with one more sentence at that turn that calls an offered free slot
    taken (`free_called_taken`), and one that offers a slot the world shows taken as free
    (`taken_called_free`; a taken slot the gold replies name, else one the agent read at that turn, of the
    same kind and date where there is one)."""
    from grader.availability import read_statements, turn_facts
    from harness.release.replies import gold_replies

    confirmed = [
        (statement, facts)
        for statement, known, facts in read_statements(task.domain, gold)
        if known and all(free is not None for free, _ in known) and any(free == statement.free for free, _ in known)
    ]
    if not confirmed:
        return
    replies = gold_replies(gold, len(task.gold))
    for free, name in ((True, "free_called_taken"), (False, "taken_called_free")):
        picked = next(
            ((s.turn, k) for s, facts in confirmed if s.free == free for k in s.keys if facts.get(k, (None,))[0] == free),
            None,
        )
        if picked is None:  # the gold replies name no such slot: one the agent had read when they talk about slots
            first_turn, first = confirmed[0][0].turn, confirmed[0][0].keys[0]
            for turn, facts in sorted(turn_facts(task.domain, gold).items()):
                same = sorted((k for k, (f, _) in facts.items() if f == free and k[0] == first[0]), key=lambda k: (k[2:3] != first[2:3], k))
                if turn >= first_turn and same:
                    picked = (turn, same[0])
                    break
        if picked is None:
            continue
        turn, key = picked
        sentence = _say(key, not free, gold.initial_state)
        if sentence is None or turn >= len(replies):
            continue
        wrong = list(replies)
        wrong[turn] = f"{wrong[turn]} {sentence}"
        yield BatteryCase(case_id("reply", "reply_wrong_availability", name), "reply", "reply_wrong_availability",
                          f"turn {turn}: the replies also say {sentence!r}, which the world the agent saw contradicts", [],
                          must="fail", replies=tuple(wrong))

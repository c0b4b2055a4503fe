"""The undo journal (servers/journal.py): every way a tool can change a world is undone by a rollback,
and kept by a commit; outside a recording the tracked types behave like plain dicts and lists."""

from __future__ import annotations

import copy
import json
import math
import pickle
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel, Field

from servers.journal import Journal, TrackedDict, TrackedList, track


class Item(BaseModel):
    sku: str
    qty: int = 1
    tags: list[str] = Field(default_factory=list)


class Order(BaseModel):
    order_id: str
    status: str = "open"
    items: list[Item] = Field(default_factory=list)
    notes: dict[str, str] = Field(default_factory=dict)
    total: float = 0.0


class World(BaseModel):
    orders: dict[str, Order] = Field(default_factory=dict)
    log: list[str] = Field(default_factory=list)
    counter: int = 0
    meta: dict[str, Any] = Field(default_factory=dict)


def world() -> World:
    w = World(
        orders={
            "O1": Order(order_id="O1", items=[Item(sku="A", tags=["x"]), Item(sku="B")], notes={"k": "v"}),
            "O2": Order(order_id="O2", status="shipped"),
        },
        log=["opened"],
        meta={"nested": {"a": [1, 2]}},
    )
    return track(w)


EDITS: dict[str, Callable[[World], Any]] = {
    "set scalar on root": lambda w: setattr(w, "counter", 5),
    "set nested model field": lambda w: setattr(w.orders["O1"], "status", "cancelled"),
    "set field in list element": lambda w: setattr(w.orders["O1"].items[0], "qty", 9),
    "insert record": lambda w: w.orders.__setitem__("O3", Order(order_id="O3", items=[Item(sku="C")])),
    "replace record": lambda w: w.orders.__setitem__("O1", Order(order_id="O1")),
    "delete record": lambda w: w.orders.__delitem__("O2"),
    "pop record": lambda w: w.orders.pop("O1"),
    "popitem": lambda w: w.orders.popitem(),
    "setdefault new": lambda w: w.orders.setdefault("O9", Order(order_id="O9")),
    "update": lambda w: w.orders.update({"O4": Order(order_id="O4")}, O5=Order(order_id="O5")),
    "ior": lambda w: w.orders.__ior__({"O6": Order(order_id="O6")}),
    "clear dict": lambda w: w.orders.clear(),
    "append": lambda w: w.log.append("x"),
    "extend": lambda w: w.log.extend(["a", "b"]),
    "iadd": lambda w: w.log.__iadd__(["c"]),
    "insert at": lambda w: w.log.insert(0, "first"),
    "setitem list": lambda w: w.log.__setitem__(0, "changed"),
    "slice assign": lambda w: w.log.__setitem__(slice(None), ["p", "q"]),
    "del list item": lambda w: w.log.__delitem__(0),
    "pop list": lambda w: w.log.pop(),
    "remove": lambda w: w.log.remove("opened"),
    "clear list": lambda w: w.log.clear(),
    "sort": lambda w: (w.log.extend(["b", "a"]), w.log.sort()),
    "reverse": lambda w: (w.log.append("z"), w.log.reverse()),
    "imul": lambda w: w.log.__imul__(3),
    "nested list in record": lambda w: w.orders["O1"].items[0].tags.append("new"),
    "nested dict in record": lambda w: w.orders["O1"].notes.__setitem__("k2", "v2"),
    "nested Any dict": lambda w: w.meta["nested"]["a"].append(3),
    "replace a whole collection": lambda w: setattr(w, "orders", {"N": Order(order_id="N")}),
    "new record then mutate it": lambda w: (w.orders.__setitem__("O7", Order(order_id="O7")), w.orders["O7"].items.append(Item(sku="Z"))),
    "many edits": lambda w: [w.orders["O1"].items.append(Item(sku=str(i))) for i in range(5)] + [setattr(w, "counter", w.counter + 1)],
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_rollback_restores_and_commit_keeps(edit: str) -> None:
    w = world()
    before = w.model_dump_json()
    journal = Journal()
    with journal.recording():
        EDITS[edit](w)
    changed = w.model_dump_json()
    assert changed != before or edit in ("setdefault new",) and "O9" in w.orders
    journal.rollback()
    assert w.model_dump_json() == before
    # the same edit committed stays, and later edits of the new values are journaled too
    journal = Journal()
    with journal.recording():
        EDITS[edit](w)
    journal.discard()
    assert w.model_dump_json() == changed
    committed = w.model_dump_json()
    journal = Journal()
    with journal.recording():
        for order in list(w.orders.values()):
            order.status = "touched"
            order.items.append(Item(sku="late"))
        w.log.append("late")
    journal.rollback()
    assert w.model_dump_json() == committed


def test_every_container_in_the_world_is_tracked() -> None:
    w = world()
    assert isinstance(w.orders, TrackedDict) and isinstance(w.log, TrackedList)
    assert isinstance(w.orders["O1"].items, TrackedList) and isinstance(w.orders["O1"].items[0].tags, TrackedList)
    assert isinstance(w.meta["nested"], TrackedDict) and isinstance(w.meta["nested"]["a"], TrackedList)
    journal = Journal()
    with journal.recording():
        w.orders["O3"] = Order(order_id="O3", items=[Item(sku="C")])
        w.orders["O1"].items = [Item(sku="D")]
    assert isinstance(w.orders["O3"].items, TrackedList) and isinstance(w.orders["O1"].items, TrackedList)


def test_outside_a_recording_tracked_types_are_plain() -> None:
    w = world()
    w.log.append("x")
    w.orders["O3"] = Order(order_id="O3")
    assert w.log == ["opened", "x"] and "O3" in w.orders
    data = json.loads(w.model_dump_json())
    assert data["log"] == ["opened", "x"]
    assert type(copy.deepcopy(w.orders)) is dict and type(pickle.loads(pickle.dumps(w.log))) is list
    assert World.model_validate(w.model_dump()).model_dump() == w.model_dump()


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda w: setattr(w.orders["O1"], "total", math.nan), "a non-finite number"),
        (lambda w: w.log.append("bad\udc00"), "invalid text (a lone surrogate or a control character)"),
        (lambda w: setattr(w, "counter", "many"), "invalid"),
        (lambda w: w.orders.__setitem__("O3", {"order_id": 3}), "invalid"),
        (lambda w: w.orders["O1"].items.append("not an item"), "invalid"),
        (lambda w: w.meta.__setitem__("x", math.inf), "a non-finite number"),
    ],
)
def test_problem_checks_what_the_call_stored(edit: Callable[[World], Any], expected: str) -> None:
    w = world()
    journal = Journal()
    with journal.recording():
        edit(w)
    assert journal.problem() == expected
    journal.rollback()


def test_valid_changes_have_no_problem() -> None:
    w = world()
    journal = Journal()
    with journal.recording():
        w.orders["O3"] = Order(order_id="O3", total=12.5)
        w.orders["O1"].status = "cancelled"
        w.log.append("ok")
        w.counter += 1
    assert journal.problem() is None

"""The retail domain: every tool in memory and over streamable HTTP, every policy gate (refused, state
unchanged), probes, and contracts (correct-but-different routes pass, plausible mistakes fail)."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client

from contracts.catalog import get_task
from contracts.schema import GoldCall, GoldTurn
from grader.grade import grade_offline
from harness.release.replay import GatewayReplayer
from servers.domains.retail.tools import RetailEnvironment, probe_owner
from servers.gateway import Gateway
from servers.recorder import TRIAL_META_KEY, bind_trial
from servers.registry import environment_class
from tests.live_http import assert_gate_refuses

pytestmark = pytest.mark.anyio

EMMA = {"customer_id": "CUST-5001", "pin": "3927"}
OLIVIA = {"customer_id": "CUST-5003", "pin": "5402"}

# tool -> (calls to make first, arguments, a key its result must contain)
TOOL_CASES: dict[str, tuple[list[tuple[str, dict[str, Any]]], dict[str, Any], str]] = {
    "authenticate_customer": ([], EMMA, "authenticated"),
    "get_order_status": ([], {"order_id": "ORD-9001", "customer_id": "CUST-5001"}, "status"),
    "get_order_details": ([], {"order_id": "ORD-9004", "customer_id": "CUST-5003"}, "items"),
    "list_customer_orders": ([("authenticate_customer", EMMA)], {"customer_id": "CUST-5001"}, "orders"),
    "issue_refund": ([("authenticate_customer", OLIVIA)], {"return_id": "RET-7001", "refund_to": "store_credit"}, "refund_id"),
    "create_exchange": ([("authenticate_customer", {"customer_id": "CUST-5006", "pin": "4410"})], {"order_id": "ORD-9009", "sku": "SKU-2102", "new_sku": "SKU-2103", "reason": "too small"}, "exchange_id"),
    "cancel_order": ([("authenticate_customer", {"customer_id": "CUST-5004", "pin": "2719"})], {"order_id": "ORD-9005", "reason": "ordered by mistake"}, "refund_id"),
    "update_shipping_address": ([("authenticate_customer", {"customer_id": "CUST-5004", "pin": "2719"})], {"order_id": "ORD-9005", "street": "2 New Road", "city": "Austin", "postal_code": "73344"}, "shipping_address"),
    "search_products": ([], {"query": "headphones"}, "results"),
    "check_inventory": ([], {"sku": "SKU-1002"}, "stock"),
    "initiate_return": ([("authenticate_customer", EMMA)], {"order_id": "ORD-9001", "sku": "SKU-1001", "reason": "does not fit"}, "return_id"),
}


def test_registered_and_every_tool_has_a_case() -> None:
    assert environment_class("retail") is RetailEnvironment
    assert set(TOOL_CASES) == set(RetailEnvironment.tool_methods())


def test_seeded_world() -> None:
    state = RetailEnvironment.default_state()
    assert state.business_date == "2026-11-30"
    assert len(state.customers) >= 12 and len(state.orders) >= 30
    assert {o.status for o in state.orders.values()} == {"Processing", "Shipped", "Delivered", "Cancelled"}
    order = state.orders["ORD-9001"]
    assert order.status == "Delivered" and order.customer_id == "CUST-5001" and order.delivery_date
    assert all(len(c.pin) == 4 and c.pin.isdigit() for c in state.customers.values())


async def _call(client: Client, trial_id: str, tool: str, args: dict[str, Any]) -> Any:
    return await client.call_tool(tool, args, raise_on_error=False, meta={TRIAL_META_KEY: trial_id})


@pytest.mark.parametrize("tool", sorted(TOOL_CASES))
async def test_tool_in_memory(tool: str) -> None:
    gateway = Gateway(["retail"])
    trial = gateway.open_trial("retail")
    setup, args, key = TOOL_CASES[tool]
    with bind_trial(trial.trial_id):
        async with Client(gateway.server("retail")) as client:
            for name, setup_args in setup:
                await client.call_tool(name, setup_args)
            result = await client.call_tool(tool, args)
    assert not result.is_error
    assert key in result.structured_content, result.structured_content
    assert not result.structured_content.get("refused")
    assert trial.trace[-1].tool == tool and trial.trace[-1].status == "executed"


async def test_results_carry_the_facts() -> None:
    gateway = Gateway(["retail"])
    trial = gateway.open_trial("retail", seed=1)
    async with Client(gateway.server("retail")) as client:
        status = (await _call(client, trial.trial_id, "get_order_status", {"order_id": "ORD-9001", "customer_id": "CUST-5001"})).structured_content
        shipped = (await _call(client, trial.trial_id, "get_order_status", {"order_id": "ORD-9002", "customer_id": "CUST-5002"})).structured_content
        details = (await _call(client, trial.trial_id, "get_order_details", {"order_id": "ORD-9004", "customer_id": "CUST-5003"})).structured_content
        found = (await _call(client, trial.trial_id, "search_products", {"query": "Desk LAMP"})).structured_content
        stock = (await _call(client, trial.trial_id, "check_inventory", {"sku": "SKU-1002"})).structured_content
        await _call(client, trial.trial_id, "authenticate_customer", OLIVIA)
        ret = (await _call(client, trial.trial_id, "initiate_return", {"order_id": "ORD-9004", "sku": "SKU-1003", "reason": "chipped"})).structured_content
    assert status == {"order_id": "ORD-9001", "status": "Delivered", "order_date": "2026-11-18", "delivery_date": "2026-11-22"}
    assert shipped["status"] == "Shipped" and shipped["tracking_number"] and shipped["estimated_delivery"] == "2026-12-03"
    assert [(i["sku"], i["final_sale"]) for i in details["items"]] == [("SKU-1004", True), ("SKU-1003", False)]
    assert details["return_window_ends"] == "2026-12-25" and details["order_total"] == 87.99
    assert [p["sku"] for p in found["results"]] == ["SKU-1007"]
    assert stock["stock"] == 0 and stock["in_stock"] is False
    assert ret["return_id"].startswith("RET-") and ret["qty"] == 2 and ret["refund_amount"] == 28.0
    assert ret["refund_method"] == "gift_card"  # back to the original payment method
    state = trial.final_state()
    assert state["returns"][ret["return_id"]]["order_id"] == "ORD-9004"
    assert state["orders"]["ORD-9004"]["items"][1]["status"] == "return_initiated"
    assert state["authenticated_customers"] == ["CUST-5003"]


async def test_wrong_pin_is_a_structured_403_and_changes_nothing() -> None:
    gateway = Gateway(["retail"])
    trial = gateway.open_trial("retail")
    before = trial.final_state()
    async with Client(gateway.server("retail")) as client:
        result = await _call(client, trial.trial_id, "authenticate_customer", {"customer_id": "CUST-5001", "pin": "0000"})
    assert not result.is_error
    assert result.structured_content == {"refused": True, "status": 403, "reason": "Authentication failed: PIN does not match", "customer_id": "CUST-5001"}
    assert [r.status for r in trial.trace] == ["refused"]
    assert trial.final_state() == before and not trial.final_state()["authenticated_customers"]


async def test_status_of_another_customers_order_is_refused() -> None:
    gateway = Gateway(["retail"])
    trial = gateway.open_trial("retail")
    async with Client(gateway.server("retail")) as client:
        result = await _call(client, trial.trial_id, "get_order_status", {"order_id": "ORD-9002", "customer_id": "CUST-5001"})
    content = result.structured_content
    assert not result.is_error and content["refused"] is True and content["status"] == 403
    assert content["reason"] == "Order does not belong to this customer"
    assert "Shipped" not in str(content)  # nothing about the order leaks
    assert trial.trace[0].status == "refused"


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("get_order_status", {"order_id": "ORD-0000", "customer_id": "CUST-5001"}),
        ("get_order_status", {"order_id": "ORD-9001", "customer_id": "CUST-0000"}),
        ("get_order_details", {"order_id": "ORD-0000", "customer_id": "CUST-5001"}),
        ("issue_refund", {"return_id": "RET-0000"}),
        ("create_exchange", {"order_id": "ORD-0000", "sku": "SKU-1001", "new_sku": "SKU-1002", "reason": "x"}),
        ("cancel_order", {"order_id": "ORD-0000", "reason": "x"}),
        ("check_inventory", {"sku": "SKU-0000"}),
        ("authenticate_customer", {"customer_id": "CUST-0000", "pin": "1234"}),
        ("initiate_return", {"order_id": "ORD-0000", "sku": "SKU-1001", "reason": "x"}),
    ],
)
async def test_unknown_ids_are_invalid_calls(tool: str, args: dict[str, Any]) -> None:
    gateway = Gateway(["retail"])
    trial = gateway.open_trial("retail")
    before = trial.final_state()
    async with Client(gateway.server("retail")) as client:
        result = await _call(client, trial.trial_id, tool, args)
    assert result.is_error and trial.trace[0].status == "tool_error"
    assert trial.final_state() == before


# (who authenticates first, return arguments, expected status, expected reason)
RETURN_GATES = [
    (None, {"order_id": "ORD-9001", "sku": "SKU-1001"}, 403, "Customer identity must be verified before this action"),
    (OLIVIA, {"order_id": "ORD-9001", "sku": "SKU-1001"}, 403, "Customer identity must be verified before this action"),
    ({"customer_id": "CUST-5002", "pin": "8164"}, {"order_id": "ORD-9002", "sku": "SKU-1002"}, 409, "Only delivered orders can be returned"),
    ({"customer_id": "CUST-5005", "pin": "6683"}, {"order_id": "ORD-9006", "sku": "SKU-1006"}, 409, "Only delivered orders can be returned"),
    (EMMA, {"order_id": "ORD-9003", "sku": "SKU-1005"}, 422, "The 30-day return window has closed"),
    (OLIVIA, {"order_id": "ORD-9004", "sku": "SKU-1004"}, 422, "Final-sale items cannot be returned"),
    (EMMA, {"order_id": "ORD-9001", "sku": "SKU-1003"}, 422, "Item is not part of this order"),
]


@pytest.mark.parametrize(("auth", "args", "code", "reason"), RETURN_GATES)
async def test_return_gates_refuse_and_change_nothing(auth: dict[str, str] | None, args: dict[str, str], code: int, reason: str) -> None:
    gateway = Gateway(["retail"])
    trial = gateway.open_trial("retail")
    async with Client(gateway.server("retail")) as client:
        if auth is not None:
            assert not (await _call(client, trial.trial_id, "authenticate_customer", auth)).structured_content.get("refused")
        before = trial.final_state()
        result = await _call(client, trial.trial_id, "initiate_return", {**args, "reason": "changed my mind"})
    content = result.structured_content
    assert not result.is_error and content["refused"] is True
    assert (content["status"], content["reason"]) == (code, reason)
    assert trial.trace[-1].status == "refused"
    assert trial.final_state() == before


async def test_window_is_inclusive_and_returns_are_not_repeated() -> None:
    gateway = Gateway(["retail"])
    trial = gateway.open_trial("retail")
    liam = {"customer_id": "CUST-5004", "pin": "2719"}
    args = {"order_id": "ORD-9008", "sku": "SKU-1008", "reason": "stopped working"}
    async with Client(gateway.server("retail")) as client:
        await _call(client, trial.trial_id, "authenticate_customer", liam)
        first = (await _call(client, trial.trial_id, "initiate_return", args)).structured_content  # day 30 of 30
        again = (await _call(client, trial.trial_id, "initiate_return", args)).structured_content
    assert first["return_id"].startswith("RET-") and first["refund_method"] == "paypal"
    assert again["refused"] is True and again["status"] == 409 and again["return_id"] == first["return_id"]
    assert len(trial.final_state()["returns"]) == len(trial.initial_state["returns"]) + 1


async def test_mutation_probes_all_execute_and_reach_every_writable_part() -> None:
    probes = RetailEnvironment.mutation_probes()
    names = [name for name, _ in probes]
    assert {f"authenticate CUST-50{i:02d}" for i in range(1, 13)} <= set(names)
    assert {"return ORD-9001/SKU-1001", "return ORD-9004/SKU-1003", "return ORD-9007/SKU-1006", "return ORD-9007/SKU-1007", "return ORD-9008/SKU-1008"} <= {
        n for n in names if n.startswith("return ")
    }
    assert "return ORD-9004/SKU-1004" not in names and "return ORD-9003/SKU-1005" not in names
    kinds = {n.split()[0] for n in names}
    assert kinds == {"authenticate", "return", "refund", "exchange", "cancel", "address"}
    state = RetailEnvironment.default_state()
    gateway = Gateway(["retail"])
    for name, calls in probes:
        trial = gateway.open_trial("retail")
        async with Client(gateway.server("retail")) as client:
            owner = probe_owner(state, calls)
            if owner is not None:  # write probes are bare writes: they need their owner verified first
                refused = (await _call(client, trial.trial_id, calls[0].tool, calls[0].args)).structured_content
                assert refused["refused"] is True and refused["status"] == 403, (name, refused)
                pin = state.customers[owner].pin
                await _call(client, trial.trial_id, "authenticate_customer", {"customer_id": owner, "pin": pin})
            for call in calls:
                result = await _call(client, trial.trial_id, call.tool, call.args)
                assert not result.is_error and not result.structured_content.get("refused"), (name, result.structured_content)
        assert trial.final_state() != trial.initial_state, name


async def test_status_lookup_needs_no_pin() -> None:
    """The case C task: a status lookup with only the customer id succeeds and authenticates no one."""
    gateway = Gateway(["retail"])
    trial = gateway.open_trial("retail")
    async with Client(gateway.server("retail")) as client:
        result = await _call(client, trial.trial_id, "get_order_status", {"order_id": "ORD-9001", "customer_id": "CUST-5001"})
    assert result.structured_content["status"] == "Delivered"
    assert trial.final_state()["authenticated_customers"] == []


ETHAN = {"customer_id": "CUST-5006", "pin": "4410"}
AVA = {"customer_id": "CUST-5007", "pin": "7052"}
MIA = {"customer_id": "CUST-5008", "pin": "1386"}
CHLOE = {"customer_id": "CUST-5010", "pin": "5518"}
DANIEL = {"customer_id": "CUST-5011", "pin": "3061"}
GRACE = {"customer_id": "CUST-5012", "pin": "8827"}
LUCAS = {"customer_id": "CUST-5009", "pin": "9274"}
ADDRESS = {"street": "2 New Road", "city": "Raleigh", "postal_code": "27605"}

# (who authenticates first, tool, arguments, expected status, expected reason)
WRITE_GATES = [
    (None, "issue_refund", {"return_id": "RET-7001"}, 403, "Customer identity must be verified before this action"),
    (EMMA, "issue_refund", {"return_id": "RET-7001"}, 403, "Customer identity must be verified before this action"),
    (OLIVIA, "issue_refund", {"return_id": "RET-7001", "refund_to": "card ending 4242"}, 422, "Refunds can only go to the original payment method or to store credit"),
    (AVA, "issue_refund", {"return_id": "RET-7002", "refund_to": "store_credit"}, 422, "Gift-card orders can only be refunded to the original gift card"),
    (ETHAN, "issue_refund", {"return_id": "RET-7004"}, 409, "The returned item has not been received yet"),
    ({"customer_id": "CUST-5002", "pin": "8164"}, "issue_refund", {"return_id": "RET-7005"}, 409, "This return has already been refunded"),
    (None, "create_exchange", {"order_id": "ORD-9009", "sku": "SKU-2102", "new_sku": "SKU-2103"}, 403, "Customer identity must be verified before this action"),
    (MIA, "create_exchange", {"order_id": "ORD-9011", "sku": "SKU-2201", "new_sku": "SKU-2202"}, 409, "The requested variant is out of stock"),
    (MIA, "create_exchange", {"order_id": "ORD-9011", "sku": "SKU-2201", "new_sku": "SKU-2301"}, 422, "Exchanges are only for another size or colour of the same product"),
    (CHLOE, "create_exchange", {"order_id": "ORD-9012", "sku": "SKU-2402", "new_sku": "SKU-2403"}, 422, "Final-sale items cannot be exchanged"),
    (LUCAS, "create_exchange", {"order_id": "ORD-9013", "sku": "SKU-2301", "new_sku": "SKU-2303"}, 422, "The 30-day exchange window has closed"),
    (CHLOE, "create_exchange", {"order_id": "ORD-9029", "sku": "SKU-2304", "new_sku": "SKU-2303"}, 409, "Only delivered orders can be exchanged"),
    (None, "cancel_order", {"order_id": "ORD-9014"}, 403, "Customer identity must be verified before this action"),
    (GRACE, "cancel_order", {"order_id": "ORD-9014"}, 403, "Customer identity must be verified before this action"),
    (DANIEL, "cancel_order", {"order_id": "ORD-9015"}, 409, "Order has already shipped and can no longer be cancelled"),
    ({"customer_id": "CUST-5005", "pin": "6683"}, "cancel_order", {"order_id": "ORD-9006"}, 409, "Order is already cancelled"),
    (None, "update_shipping_address", {"order_id": "ORD-9016", **ADDRESS}, 403, "Customer identity must be verified before this action"),
    (DANIEL, "update_shipping_address", {"order_id": "ORD-9015", **ADDRESS}, 409, "The shipping address can only be changed before the order ships"),
    (GRACE, "update_shipping_address", {"order_id": "ORD-9016", "street": "19 Elm Street", "city": "Raleigh", "postal_code": "27601"}, 409, "That is already the shipping address of this order"),
    (None, "list_customer_orders", {"customer_id": "CUST-5001"}, 403, "Customer identity must be verified before this action"),
    (None, "get_order_details", {"order_id": "ORD-9002", "customer_id": "CUST-5001"}, 403, "Order does not belong to this customer"),
    (ETHAN, "initiate_return", {"order_id": "ORD-9022", "sku": "SKU-1008"}, 409, "A return was already initiated for this item"),
    (ETHAN, "authenticate_customer", EMMA, 409, "Another customer is already verified in this conversation"),
]


@pytest.mark.parametrize(("auth", "tool", "args", "code", "reason"), WRITE_GATES)
async def test_every_gate_refuses_and_changes_nothing(auth: dict[str, str] | None, tool: str, args: dict[str, str], code: int, reason: str) -> None:
    needs_reason = tool in {"create_exchange", "cancel_order", "initiate_return"}
    setup = [] if auth is None else [("authenticate_customer", auth)]
    await assert_gate_refuses("retail", setup, tool, {**args, **({"reason": "changed my mind"} if needs_reason else {})}, code, reason)


async def test_refund_exchange_cancel_address_effects_and_no_repeats() -> None:
    gateway = Gateway(["retail"])
    trial = gateway.open_trial("retail")
    async with Client(gateway.server("retail")) as client:
        await _call(client, trial.trial_id, "authenticate_customer", OLIVIA)
        credit = (await _call(client, trial.trial_id, "issue_refund", {"return_id": "RET-7001", "refund_to": "store_credit"})).structured_content
        again = (await _call(client, trial.trial_id, "issue_refund", {"return_id": "RET-7001", "refund_to": "store_credit"})).structured_content
    olivia_state = trial.final_state()
    trial = gateway.open_trial("retail")  # one customer per conversation: a new one per customer
    async with Client(gateway.server("retail")) as client:
        await _call(client, trial.trial_id, "authenticate_customer", GRACE)
        card = (await _call(client, trial.trial_id, "issue_refund", {"return_id": "RET-7006"})).structured_content
        cancel = (await _call(client, trial.trial_id, "cancel_order", {"order_id": "ORD-9017", "reason": "not needed"})).structured_content
        cancel_again = (await _call(client, trial.trial_id, "cancel_order", {"order_id": "ORD-9017", "reason": "not needed"})).structured_content
        listing = (await _call(client, trial.trial_id, "list_customer_orders", {"customer_id": "CUST-5012"})).structured_content
    grace_state = trial.final_state()
    trial = gateway.open_trial("retail")
    async with Client(gateway.server("retail")) as client:
        await _call(client, trial.trial_id, "authenticate_customer", ETHAN)
        exchange = (await _call(client, trial.trial_id, "create_exchange", {"order_id": "ORD-9009", "sku": "SKU-2102", "new_sku": "SKU-2103", "reason": "too small"})).structured_content
        exchange_again = (await _call(client, trial.trial_id, "create_exchange", {"order_id": "ORD-9009", "sku": "SKU-2102", "new_sku": "SKU-2104", "reason": "too small"})).structured_content
        stock = (await _call(client, trial.trial_id, "check_inventory", {"sku": "SKU-2103"})).structured_content
    ethan_state = trial.final_state()
    trial = gateway.open_trial("retail")
    async with Client(gateway.server("retail")) as client:
        await _call(client, trial.trial_id, "authenticate_customer", LUCAS)
        moved = (await _call(client, trial.trial_id, "update_shipping_address", {"order_id": "ORD-9030", "street": "7 Lake Road", "city": "Boise", "postal_code": "83706"})).structured_content
    assert credit["method"] == "store_credit" and credit["amount"] == 32.0 and credit["store_credit_balance"] == 32.0
    assert card["method"] == "card" and card["amount"] == 75.0
    assert again["refused"] is True and again["status"] == 409
    assert exchange["exchange_id"].startswith("EXC-") and exchange_again["status"] == 409
    assert cancel["status"] == "Cancelled" and cancel["refund_amount"] == 32.0 and cancel_again["status"] == 409
    assert moved["shipping_address"]["postal_code"] == "83706"
    assert listing["store_credit"] == 40.0 and [o["order_id"] for o in listing["orders"]][:2] == ["ORD-9017", "ORD-9016"]
    assert stock["stock"] == 4 and {v["sku"] for v in stock["variants"]} == {"SKU-2101", "SKU-2102", "SKU-2103", "SKU-2104"}
    assert olivia_state["customers"]["CUST-5003"]["store_credit"] == 32.0
    assert olivia_state["returns"]["RET-7001"]["status"] == "refunded" and olivia_state["orders"]["ORD-9019"]["items"][0]["status"] == "refunded"
    assert ethan_state["orders"]["ORD-9009"]["items"][0]["status"] == "exchange_requested"
    assert grace_state["orders"]["ORD-9017"]["status"] == "Cancelled" and grace_state["orders"]["ORD-9016"]["status"] == "Processing"
    assert len(grace_state["refunds"]) == len(trial.initial_state["refunds"]) + 2
    assert trial.final_state()["orders"]["ORD-9030"]["shipping_address"] == {"street": "7 Lake Road", "city": "Boise", "postal_code": "83706"}


# ---- contracts: correct-but-different routes pass, plausible mistakes fail ---------------------------

def _c(tool: str, **args: Any) -> GoldCall:
    return GoldCall(tool=tool, args=args)


async def _strict(task_id: str, turns: list[GoldTurn]) -> bool:
    task = get_task(task_id)
    async with GatewayReplayer(Gateway(["retail"])) as replayer:
        evidence = await replayer.play(task, turns)
    return grade_offline(task, evidence).strict


def _one_turn(task_id: str, calls: list[GoldCall], reply: str | None = None) -> list[GoldTurn]:
    gold = get_task(task_id).gold
    return [gold[0].model_copy(update={"calls": calls, **({"reply": reply} if reply else {})})] + list(gold[1:])


AUTH_OLIVIA = _c("authenticate_customer", customer_id="CUST-5003", pin="5402")
AUTH_AVA = _c("authenticate_customer", customer_id="CUST-5007", pin="7052")
AUTH_GRACE = _c("authenticate_customer", customer_id="CUST-5012", pin="8827")

# (task, calls of its first turn, reply of that turn or None for the gold reply)
VALID_ROUTES = [
    # the status read through get_order_details as well, and a search before the lookup
    ("retail_status_shipped_01", [_c("get_order_details", order_id="ORD-9002", customer_id="CUST-5002"),
                                  _c("get_order_status", order_id="ORD-9002", customer_id="CUST-5002")], None),
    # the customer's order list first, stock checked by search instead of check_inventory
    ("retail_exchange_size_01", [_c("authenticate_customer", customer_id="CUST-5006", pin="4410"),
                                 _c("list_customer_orders", customer_id="CUST-5006"), _c("search_products", query="everyday sneakers"),
                                 _c("get_order_details", order_id="ORD-9009", customer_id="CUST-5006"),
                                 _c("create_exchange", order_id="ORD-9009", sku="SKU-2102", new_sku="SKU-2103", reason="they pinch")], None),
    # the order read before verifying, the reason in other words
    ("retail_return_final_sale_mixed_01", [_c("get_order_details", order_id="ORD-9004", customer_id="CUST-5003"), AUTH_OLIVIA,
                                           _c("initiate_return", order_id="ORD-9004", sku="SKU-1003", reason="Customer no longer wants the mugs")], None),
    # "St" for "Street"-style rewording of the street line; both orders in the other order
    ("retail_address_both_orders_01", [AUTH_GRACE, _c("update_shipping_address", order_id="ORD-9017", street="250 Park Ln", city="Raleigh", postal_code="27609"),
                                       _c("update_shipping_address", order_id="ORD-9016", street="250 Park Ln", city="Raleigh", postal_code="27609")], None),
]

# (task, calls of its first turn, what the mistake is)
MISTAKES = [
    ("retail_return_final_sale_mixed_01", [AUTH_OLIVIA, _c("get_order_details", order_id="ORD-9004", customer_id="CUST-5003"),
                                           _c("initiate_return", order_id="ORD-9004", sku="SKU-1004", reason="x"),
                                           _c("initiate_return", order_id="ORD-9004", sku="SKU-1003", reason="x")], "tries the final-sale jacket"),
    ("retail_return_final_sale_mixed_01", [AUTH_OLIVIA, _c("get_order_details", order_id="ORD-9004", customer_id="CUST-5003"),
                                           _c("initiate_return", order_id="ORD-9004", sku="SKU-1003", reason="x"),
                                           _c("issue_refund", return_id="RET-7001", refund_to="original_payment")], "refunds a return nobody asked about"),
    ("retail_return_partial_01", [_c("authenticate_customer", customer_id="CUST-5002", pin="8164"),
                                  _c("get_order_details", order_id="ORD-9007", customer_id="CUST-5002"),
                                  _c("initiate_return", order_id="ORD-9007", sku="SKU-1007", reason="x"),
                                  _c("initiate_return", order_id="ORD-9007", sku="SKU-1006", reason="x")], "returns the watch too"),
    ("retail_return_partial_01", [_c("authenticate_customer", customer_id="CUST-5002", pin="8164"),
                                  _c("initiate_return", order_id="ORD-9007", sku="SKU-1007", reason="x")], "skips the order lookup"),
    ("retail_cancel_lookalike_01", [AUTH_GRACE, _c("cancel_order", order_id="ORD-9016", reason="x"),
                                    _c("cancel_order", order_id="ORD-9017", reason="x")], "cancels the look-alike order first"),
    ("retail_exchange_out_of_stock_01", [_c("authenticate_customer", customer_id="CUST-5008", pin="1386"),
                                         _c("get_order_details", order_id="ORD-9011", customer_id="CUST-5008"),
                                         _c("create_exchange", order_id="ORD-9011", sku="SKU-2201", new_sku="SKU-2202", reason="x")],
     "tries the out-of-stock variant"),
    ("retail_exchange_jeans_size_01", [AUTH_AVA, _c("get_order_details", order_id="ORD-9010", customer_id="CUST-5007"),
                                       _c("create_exchange", order_id="ORD-9010", sku="SKU-2302", new_sku="SKU-2303", reason="x"),
                                       _c("create_exchange", order_id="ORD-9010", sku="SKU-2002", new_sku="SKU-2004", reason="x")],
     "exchanges the T-shirt as well"),
    ("retail_refund_store_credit_01", [_c("authenticate_customer", customer_id="CUST-5009", pin="9274"),
                                       _c("issue_refund", return_id="RET-7003", refund_to="original_payment")], "ignores the store-credit choice"),
    ("retail_status_no_pin_01", [_c("authenticate_customer", customer_id="CUST-5011", pin="1234"),
                                 _c("get_order_status", order_id="ORD-9014", customer_id="CUST-5011")], "guesses a PIN"),
    ("retail_address_change_01", [_c("authenticate_customer", customer_id="CUST-5009", pin="9274"),
                                  _c("update_shipping_address", order_id="ORD-9030", street="7 Lake Road", city="Boise", postal_code="83706"),
                                  _c("cancel_order", order_id="ORD-9030", reason="x")], "cancels the order it should only redirect"),
    ("retail_auth_sibling_orders_01", [_c("authenticate_customer", customer_id="CUST-5010", pin="5518"), _c("list_customer_orders", customer_id="CUST-5010"),
                                       _c("list_customer_orders", customer_id="CUST-5007")], "tries to list the sister's orders"),
]


@pytest.mark.parametrize(("task_id", "calls", "reply"), VALID_ROUTES, ids=[v[0] for v in VALID_ROUTES])
async def test_correct_but_different_routes_pass(task_id: str, calls: list[GoldCall], reply: str | None) -> None:
    assert await _strict(task_id, _one_turn(task_id, calls, reply))


@pytest.mark.parametrize(("task_id", "calls", "mistake"), MISTAKES, ids=[m[2] for m in MISTAKES])
async def test_plausible_mistakes_fail(task_id: str, calls: list[GoldCall], mistake: str) -> None:
    assert not await _strict(task_id, _one_turn(task_id, calls)), mistake


def test_catalog_shape_matches_the_inventory_row() -> None:
    from collections import Counter

    from contracts.catalog import load_catalog

    tasks = [t for t in load_catalog().values() if t.domain == "retail"]
    assert len(tasks) == 95
    assert Counter(t.difficulty for t in tasks) == {"easy": 34, "medium": 36, "hard": 25}
    assert Counter(len(t.capabilities) for t in tasks) == {1: 71, 2: 13, 3: 7, 4: 4}
    labels = {label for t in tasks for label in t.capabilities}
    assert labels == {"authentication", "order_status", "returns_refunds", "exchanges", "product_catalog"}
    case_c = get_task("commerce_returns_01")
    assert case_c.capabilities == ["order_status"] and [c.tool for c in case_c.gold[0].calls] == ["get_order_status"]


async def test_gold_paths_pass_and_noop_fails_for_a_sample() -> None:
    from harness.release.gates import prove_task

    sample = ["commerce_returns_01", "retail_journey_full_service_02", "retail_return_sisters_order_01", "retail_exchange_lookalike_order_01"]
    async with GatewayReplayer(Gateway(["retail"])) as replayer:
        for task_id in sample:
            proof = await prove_task(replayer, get_task(task_id), RetailEnvironment, mutate=False)
            assert proof.gold.strict and proof.noop_ok, (task_id, proof.gold.summary())


# ---- every tool over streamable HTTP -----------------------------------------------------------------


@pytest.fixture(scope="module")
def retail_http() -> Any:
    """The real gateway app serving the retail domain over streamable HTTP; yields (gateway, its /retail/mcp url)."""
    from tests.live_http import serve_gateway

    with serve_gateway(["retail"]) as (gateway, base_url):
        yield gateway, f"{base_url}/retail/mcp"


async def test_every_tool_over_streamable_http(retail_http: Any) -> None:
    gateway, url = retail_http
    for tool, (setup, args, key) in sorted(TOOL_CASES.items()):
        trial = gateway.open_trial("retail")
        async with Client(f"{url}?trial={trial.trial_id}") as client:
            for name, setup_args in setup:
                await client.call_tool(name, setup_args)
            result = await client.call_tool(tool, args)
        assert key in result.structured_content, (tool, result.structured_content)
        assert [r.tool for r in trial.trace][-1] == tool and all(r.status == "executed" for r in trial.trace), tool


@pytest.mark.parametrize("task_id", ["retail_journey_full_service_02", "retail_return_final_sale_mixed_01"])
async def test_batteries_and_mutations_on_a_sample(task_id: str) -> None:
    from contracts.graph import load_graph
    from harness.release.debt import known_debt
    from harness.release.gates import prove_task

    async with GatewayReplayer(Gateway(["retail"])) as replayer:
        proof = await prove_task(replayer, get_task(task_id), RetailEnvironment, graph=load_graph("retail"), debt=known_debt("retail", task_id))
    assert proof.ok, (task_id, proof.unkilled)
    assert proof.batteries is not None and not proof.batteries.failures
    assert proof.batteries.count("behaviour", "killed") > 0 and proof.batteries.count("equivalence", "passed") > 0

"""Retail tools: plain business logic over `RetailState`.

Every rule that can refuse raises `Refusal` with a status code and a reason before anything is
written; unknown ids raise `InvalidCall`. Order status lookups need only the customer id (no PIN);
returns need the order's customer to be verified with `authenticate_customer`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, timedelta
from typing import Annotated, Any

from pydantic import Field

from servers.base import InvalidCall, Refusal, ToolEnvironment, tool
from servers.domains.retail.world import (
    RETURN_WINDOW_DAYS,
    Customer,
    Order,
    OrderItem,
    Product,
    RetailState,
    Return,
    default_retail_state,
)

CustomerId = Annotated[str, Field(description="Customer id, e.g. CUST-5001.")]
OrderId = Annotated[str, Field(description="Order id, e.g. ORD-9001.")]
Sku = Annotated[str, Field(description="Product SKU, e.g. SKU-1001.")]


def _cents(value: float) -> float:
    return round(value + 0.0, 2)


def return_window_end(order: Order) -> str | None:
    """The last day an item of a delivered order may be returned (inclusive), or None if not delivered."""
    if order.delivery_date is None:
        return None
    return (date.fromisoformat(order.delivery_date) + timedelta(days=RETURN_WINDOW_DAYS)).isoformat()


def within_return_window(order: Order, business_date: str) -> bool:
    end = return_window_end(order)
    return end is not None and business_date <= end


class RetailEnvironment(ToolEnvironment[RetailState]):
    """Online retail customer service: order status and details, product search and stock, returns."""

    domain = "retail"
    state_model = RetailState

    @classmethod
    def default_state(cls) -> RetailState:
        return default_retail_state()

    @classmethod
    def mutation_probes(cls, override: Mapping[str, Any] | None = None) -> list[tuple[str, list[Any]]]:
        return retail_probes(cls.initial_state(override))

    # ---- lookups -------------------------------------------------------------------------------
    def _customer(self, customer_id: str) -> Customer:
        customer = self.state.customers.get(customer_id)
        if customer is None:
            raise InvalidCall(f"Unknown customer id {customer_id!r}.")
        return customer

    def _order(self, order_id: str) -> Order:
        order = self.state.orders.get(order_id)
        if order is None:
            raise InvalidCall(f"Unknown order id {order_id!r}.")
        return order

    def _product(self, sku: str) -> Product:
        product = self.state.products.get(sku)
        if product is None:
            raise InvalidCall(f"Unknown SKU {sku!r}.")
        return product

    def _require_authenticated(self, customer_id: str) -> None:
        if customer_id not in self.state.authenticated_customers:
            raise Refusal(403, "Customer identity must be verified before this action", customer_id=customer_id)

    def _returned(self, order_id: str, sku: str) -> Return | None:
        return next((r for r in self.state.returns.values() if r.order_id == order_id and r.sku == sku), None)

    # ---- authentication ------------------------------------------------------------------------
    @tool("compute")
    def authenticate_customer(
        self,
        customer_id: CustomerId,
        pin: Annotated[str, Field(description="The customer's four-digit PIN.")],
    ) -> dict[str, Any]:
        """Verify a customer's identity with their PIN. Required before initiating a return; not needed
        for order status lookups."""
        customer = self._customer(customer_id)
        if pin != customer.pin:
            raise Refusal(403, "Authentication failed: PIN does not match", customer_id=customer_id)
        if customer_id not in self.state.authenticated_customers:
            self.state.authenticated_customers.append(customer_id)
        return {"authenticated": True, "customer_id": customer_id, "name": customer.name}

    # ---- orders --------------------------------------------------------------------------------
    @tool("read")
    def get_order_status(self, order_id: OrderId, customer_id: CustomerId) -> dict[str, Any]:
        """Look up an order's status (Processing, Shipped, Delivered or Cancelled) with its dates and
        tracking number. Needs the customer id the order belongs to, but no PIN."""
        self._customer(customer_id)
        order = self._order(order_id)
        if order.customer_id != customer_id:
            raise Refusal(403, "Order does not belong to this customer", order_id=order_id, customer_id=customer_id)
        result: dict[str, Any] = {"order_id": order.order_id, "status": order.status, "order_date": order.order_date}
        if order.delivery_date is not None:
            result["delivery_date"] = order.delivery_date
        if order.estimated_delivery is not None:
            result["estimated_delivery"] = order.estimated_delivery
        if order.tracking_number is not None:
            result["tracking_number"] = order.tracking_number
        return result

    @tool("read")
    def get_order_details(self, order_id: OrderId) -> dict[str, Any]:
        """Look up an order in full: customer, status, dates, payment method, line items (SKU, name,
        quantity, unit price, final-sale flag), the last day of its return window and returns so far."""
        order = self._order(order_id)
        details = order.model_dump(mode="json")
        details["order_total"] = _cents(sum(i.qty * i.unit_price for i in order.items))
        details["return_window_ends"] = return_window_end(order)
        details["returns"] = [r.model_dump(mode="json") for r in self.state.returns.values() if r.order_id == order_id]
        return details

    # ---- catalog -------------------------------------------------------------------------------
    @tool("read")
    def search_products(
        self,
        query: Annotated[str, Field(description="Words to look for in product names, or a SKU, e.g. 'headphones'.")],
    ) -> dict[str, Any]:
        """Search the product catalog by name words or SKU (case-insensitive); every word must match."""
        words = query.lower().split()
        matches = [
            p
            for p in self.state.products.values()
            if all(w in p.name.lower() or w == p.sku.lower() for w in words)
        ]
        return {
            "query": query,
            "results": [{"sku": p.sku, "name": p.name, "price": p.price, "in_stock": p.stock > 0} for p in matches],
        }

    @tool("read")
    def check_inventory(self, sku: Sku) -> dict[str, Any]:
        """Check how many units of a product are in stock."""
        p = self._product(sku)
        return {"sku": p.sku, "name": p.name, "price": p.price, "stock": p.stock, "in_stock": p.stock > 0}

    # ---- returns -------------------------------------------------------------------------------
    @tool("write")
    def initiate_return(
        self,
        order_id: OrderId,
        sku: Sku,
        reason: Annotated[str, Field(description="Why the customer is returning the item, e.g. 'too small'.")],
    ) -> dict[str, Any]:
        """Start a return of one line item (its full quantity) of a delivered order. The order's customer
        must be authenticated; final-sale items and items past the 30-day window from delivery are
        refused. The refund goes to the order's original payment method once the item is received."""
        order = self._order(order_id)
        self._require_authenticated(order.customer_id)
        if order.status != "Delivered":
            raise Refusal(409, "Only delivered orders can be returned", order_id=order_id, order_status=order.status)
        line: OrderItem | None = next((i for i in order.items if i.sku == sku), None)
        if line is None:
            raise Refusal(422, "Item is not part of this order", order_id=order_id, sku=sku)
        existing = self._returned(order_id, sku)
        if existing is not None:
            raise Refusal(409, "A return was already initiated for this item", return_id=existing.return_id)
        if line.final_sale:
            raise Refusal(422, "Final-sale items cannot be returned", order_id=order_id, sku=sku)
        if not within_return_window(order, self.state.business_date):
            raise Refusal(
                422,
                "The 30-day return window has closed",
                delivery_date=order.delivery_date,
                return_window_ended=return_window_end(order),
            )
        ret = Return(
            return_id=self.ids.mint("RET"),
            order_id=order_id,
            customer_id=order.customer_id,
            sku=sku,
            qty=line.qty,
            reason=reason,
            refund_amount=_cents(line.qty * line.unit_price),
            refund_method=order.payment_method,
            date=self.state.business_date,
        )
        self.state.returns[ret.return_id] = ret
        return {
            "return_id": ret.return_id,
            "status": ret.status,
            "order_id": order_id,
            "sku": sku,
            "qty": ret.qty,
            "refund_amount": ret.refund_amount,
            "refund_method": ret.refund_method,
        }


def retail_probes(state: RetailState) -> list[tuple[str, list[Any]]]:
    """Write sequences touching every writable part of the world: authentications and returns."""
    from contracts.schema import GoldCall

    def call(tool: str, **args: Any) -> GoldCall:
        return GoldCall(tool=tool, args=args)

    probes: list[tuple[str, list[Any]]] = []
    for customer in state.customers.values():
        probes.append((f"authenticate {customer.customer_id}", [call("authenticate_customer", customer_id=customer.customer_id, pin=customer.pin)]))
    for order in state.orders.values():
        owner = state.customers.get(order.customer_id)
        if owner is None or order.status != "Delivered" or not within_return_window(order, state.business_date):
            continue
        auth = call("authenticate_customer", customer_id=owner.customer_id, pin=owner.pin)
        for line in order.items:
            already = any(r.order_id == order.order_id and r.sku == line.sku for r in state.returns.values())
            if line.final_sale or already:
                continue
            probes.append(
                (f"return {order.order_id}/{line.sku}", [auth, call("initiate_return", order_id=order.order_id, sku=line.sku, reason="probe")])
            )
    return probes

"""Retail tools: plain business logic over `RetailState`.

Every rule that can refuse raises `Refusal` with a status code and a reason before anything is
written; unknown ids raise `InvalidCall`. Order status lookups need only the customer id (no PIN);
returns, refunds, exchanges, cancellations, address changes and order lists need the order's customer
to be verified with `authenticate_customer`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, timedelta
from typing import Annotated, Any

from pydantic import Field

from servers.base import Code, FreeText, InvalidCall, NonBlank, Refusal, ToolEnvironment, Trimmed, tool
from servers.domains.retail.world import (
    RETURN_WINDOW_DAYS,
    Address,
    Customer,
    Exchange,
    Order,
    OrderItem,
    Product,
    Refund,
    RetailState,
    Return,
    default_retail_state,
)

CustomerId = Annotated[NonBlank[str], Field(description="Customer id, e.g. CUST-5001.")]
OrderId = Annotated[NonBlank[str], Field(description="Order id, e.g. ORD-9001.")]
Sku = Annotated[NonBlank[str], Field(description="Product SKU, e.g. SKU-1001.")]
ReturnId = Annotated[NonBlank[str], Field(description="Return id, e.g. RET-7001.")]
Reason = Annotated[NonBlank[str], Field(description="Why, in the customer's words, e.g. 'too small'."), FreeText]
REFUND_DESTINATIONS = ("original_payment", "store_credit")


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
    """Online retail customer service: order status and details, product search and stock, returns,
    refunds, exchanges, cancellations and shipping-address changes."""

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

    def _line(self, order: Order, sku: str) -> OrderItem:
        line = next((i for i in order.items if i.sku == sku), None)
        if line is None:
            raise Refusal(422, "Item is not part of this order", order_id=order.order_id, sku=sku)
        return line

    def _returned(self, order_id: str, sku: str) -> Return | None:
        return next((r for r in self.state.returns.values() if r.order_id == order_id and r.sku == sku), None)

    # ---- authentication ------------------------------------------------------------------------
    @tool("compute")
    def authenticate_customer(
        self,
        customer_id: CustomerId,
        pin: Annotated[NonBlank[Code], Field(description="The customer's four-digit PIN.")],
    ) -> dict[str, Any]:
        """Verify a customer's identity with their PIN. Required before returns, refunds, exchanges,
        cancellations, shipping-address changes and listing a customer's orders; not needed for order
        status or order details lookups, nor for product questions. A conversation serves one customer:
        once a customer is verified, verifying a different one is refused (409)."""
        customer = self._customer(customer_id)
        if pin != customer.pin:
            raise Refusal(403, "Authentication failed: PIN does not match", customer_id=customer_id)
        other = next((c for c in self.state.authenticated_customers if c != customer_id), None)
        if other is not None:
            raise Refusal(409, "Another customer is already verified in this conversation", verified_customer_id=other)
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
    def get_order_details(self, order_id: OrderId, customer_id: CustomerId) -> dict[str, Any]:
        """Look up an order's contents: status, order and delivery dates, payment method, shipping address,
        line items (SKU, name, quantity, unit price, final-sale flag, item status), the last day of its
        return window, and its returns, refunds and exchanges so far. Tracking and estimated delivery are
        in get_order_status. Needs the customer id the order belongs to (no PIN)."""
        self._customer(customer_id)
        order = self._order(order_id)
        if order.customer_id != customer_id:
            raise Refusal(403, "Order does not belong to this customer", order_id=order_id, customer_id=customer_id)
        details = order.model_dump(mode="json", exclude={"estimated_delivery", "tracking_number"})
        details["order_total"] = _cents(sum(i.qty * i.unit_price for i in order.items))
        details["return_window_ends"] = return_window_end(order)
        details["returns"] = [r.model_dump(mode="json") for r in self.state.returns.values() if r.order_id == order_id]
        details["refunds"] = [r.model_dump(mode="json") for r in self.state.refunds.values() if r.order_id == order_id]
        details["exchanges"] = [x.model_dump(mode="json") for x in self.state.exchanges.values() if x.order_id == order_id]
        return details

    @tool("read")
    def list_customer_orders(self, customer_id: CustomerId) -> dict[str, Any]:
        """List all orders of a verified customer (newest first) with status, dates and items, plus the
        customer's store credit balance. The customer must be authenticated first."""
        customer = self._customer(customer_id)
        self._require_authenticated(customer_id)
        orders = sorted((o for o in self.state.orders.values() if o.customer_id == customer_id), key=lambda o: o.order_date, reverse=True)
        return {
            "customer_id": customer_id,
            "store_credit": customer.store_credit,
            "orders": [
                {
                    "order_id": o.order_id,
                    "status": o.status,
                    "order_date": o.order_date,
                    "delivery_date": o.delivery_date,
                    "items": [{"sku": i.sku, "name": i.name, "qty": i.qty, "status": i.status} for i in o.items],
                }
                for o in orders
            ],
        }

    # ---- catalog -------------------------------------------------------------------------------
    @tool("read")
    def search_products(
        self,
        query: Annotated[NonBlank[str], Field(description="Words to look for in product names, or a SKU, e.g. 'headphones'.")],
    ) -> dict[str, Any]:
        """Search the product catalog by name words or SKU (case-insensitive); every word must match.
        Each size/colour variant has its own SKU; variants of one product share a product_id."""
        words = query.lower().split()
        matches = [
            p
            for p in self.state.products.values()
            if all(w in p.name.lower() or w == p.sku.lower() for w in words)
        ]
        return {
            "query": query,
            "results": [
                {"sku": p.sku, "name": p.name, "price": p.price, "in_stock": p.stock > 0}
                | ({"product_id": p.product_id, "size": p.size, "colour": p.colour} if p.product_id else {})
                for p in matches
            ],
        }

    @tool("read")
    def check_inventory(self, sku: Sku) -> dict[str, Any]:
        """Check how many units of a product (one SKU, i.e. one size/colour variant) are in stock. For a
        product with variants, also lists every variant of it with its stock."""
        p = self._product(sku)
        result: dict[str, Any] = {"sku": p.sku, "name": p.name, "price": p.price, "stock": p.stock, "in_stock": p.stock > 0}
        if p.product_id:
            result["variants"] = [
                {"sku": v.sku, "size": v.size, "colour": v.colour, "stock": v.stock, "in_stock": v.stock > 0}
                for v in self.state.products.values()
                if v.product_id == p.product_id
            ]
        return result

    # ---- returns and refunds ---------------------------------------------------------------------
    @tool("write")
    def initiate_return(self, order_id: OrderId, sku: Sku, reason: Reason) -> dict[str, Any]:
        """Start a return of one line item (its full quantity) of a delivered order. The order's customer
        must be authenticated; final-sale items and items past the 30-day window from delivery are
        refused, as are items already returned or exchanged. The refund is issued with issue_refund once
        the item is received back (to the original payment method, or store credit if the customer
        chooses it)."""
        order = self._order(order_id)
        self._require_authenticated(order.customer_id)
        if order.status != "Delivered":
            raise Refusal(409, "Only delivered orders can be returned", order_id=order_id, order_status=order.status)
        line = self._line(order, sku)
        existing = self._returned(order_id, sku)
        if existing is not None:
            raise Refusal(409, "A return was already initiated for this item", return_id=existing.return_id)
        if line.status != "ordered":
            raise Refusal(409, "This item already has an exchange in progress", order_id=order_id, sku=sku, item_status=line.status)
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
        line.status = "return_initiated"
        return {
            "return_id": ret.return_id,
            "status": ret.status,
            "order_id": order_id,
            "sku": sku,
            "qty": ret.qty,
            "refund_amount": ret.refund_amount,
            "refund_method": ret.refund_method,
        }

    @tool("write")
    def issue_refund(
        self,
        return_id: ReturnId,
        refund_to: Annotated[
            NonBlank[str],
            Field(
                description="'original_payment' (the order's card, PayPal or gift card) or 'store_credit' "
                "(only when the customer chooses it; not for gift-card orders). No other destination exists."
            ),
        ] = "original_payment",
    ) -> dict[str, Any]:
        """Refund a return whose item has been received back. The order's customer must be authenticated.
        The full refund amount of the return goes to the original payment method, or to the customer's
        store credit when they choose it. Refused for returns not yet received or already refunded, for
        any other destination, and store credit for gift-card orders."""
        ret = self.state.returns.get(return_id)
        if ret is None:
            raise InvalidCall(f"Unknown return id {return_id!r}.")
        order = self._order(ret.order_id)
        self._require_authenticated(order.customer_id)
        if ret.status == "refunded":
            raise Refusal(409, "This return has already been refunded", return_id=return_id)
        if ret.status != "received":
            raise Refusal(409, "The returned item has not been received yet", return_id=return_id, return_status=ret.status)
        if refund_to not in REFUND_DESTINATIONS:
            raise Refusal(
                422,
                "Refunds can only go to the original payment method or to store credit",
                requested=refund_to,
                original_payment_method=order.payment_method,
            )
        if refund_to == "store_credit" and order.payment_method == "gift_card":
            raise Refusal(422, "Gift-card orders can only be refunded to the original gift card", return_id=return_id)
        method = "store_credit" if refund_to == "store_credit" else order.payment_method
        refund = Refund(
            refund_id=self.ids.mint("REF"),
            order_id=order.order_id,
            customer_id=order.customer_id,
            amount=ret.refund_amount,
            method=method,  # type: ignore[arg-type]
            return_id=return_id,
            date=self.state.business_date,
        )
        self.state.refunds[refund.refund_id] = refund
        ret.status = "refunded"
        ret.refund_method = method  # type: ignore[assignment]
        line = next((i for i in order.items if i.sku == ret.sku), None)
        if line is not None:
            line.status = "refunded"
        customer = self._customer(order.customer_id)
        if method == "store_credit":
            customer.store_credit = _cents(customer.store_credit + ret.refund_amount)
        result: dict[str, Any] = {
            "refund_id": refund.refund_id,
            "return_id": return_id,
            "amount": refund.amount,
            "method": method,
        }
        if method == "store_credit":
            result["store_credit_balance"] = customer.store_credit
        return result

    # ---- exchanges -------------------------------------------------------------------------------
    @tool("write")
    def create_exchange(
        self,
        order_id: OrderId,
        sku: Annotated[NonBlank[str], Field(description="SKU of the delivered item to send back, e.g. SKU-2102.")],
        new_sku: Annotated[NonBlank[str], Field(description="SKU of the variant (another size or colour of the same product) to send instead.")],
        reason: Reason,
    ) -> dict[str, Any]:
        """Exchange one delivered line item (its full quantity) for another size or colour of the same
        product, at no charge. The order's customer must be authenticated. Same rules as returns
        (delivered, within 30 days, not final sale, not already returned or exchanged), and the new
        variant must be in stock for the quantity; its stock is reserved at once."""
        order = self._order(order_id)
        self._require_authenticated(order.customer_id)
        if order.status != "Delivered":
            raise Refusal(409, "Only delivered orders can be exchanged", order_id=order_id, order_status=order.status)
        line = self._line(order, sku)
        if line.status != "ordered":
            raise Refusal(409, "This item already has a return or exchange", order_id=order_id, sku=sku, item_status=line.status)
        if line.final_sale:
            raise Refusal(422, "Final-sale items cannot be exchanged", order_id=order_id, sku=sku)
        if not within_return_window(order, self.state.business_date):
            raise Refusal(
                422,
                "The 30-day exchange window has closed",
                delivery_date=order.delivery_date,
                return_window_ended=return_window_end(order),
            )
        old = self._product(sku)
        new = self._product(new_sku)
        if new_sku == sku or old.product_id is None or new.product_id != old.product_id:
            raise Refusal(422, "Exchanges are only for another size or colour of the same product", sku=sku, new_sku=new_sku)
        if new.stock < line.qty:
            raise Refusal(409, "The requested variant is out of stock", new_sku=new_sku, stock=new.stock)
        exchange = Exchange(
            exchange_id=self.ids.mint("EXC"),
            order_id=order_id,
            customer_id=order.customer_id,
            sku=sku,
            new_sku=new_sku,
            qty=line.qty,
            reason=reason,
            date=self.state.business_date,
        )
        self.state.exchanges[exchange.exchange_id] = exchange
        new.stock -= line.qty
        line.status = "exchange_requested"
        return {
            "exchange_id": exchange.exchange_id,
            "status": exchange.status,
            "order_id": order_id,
            "sku": sku,
            "new_sku": new_sku,
            "new_item": new.name,
            "qty": line.qty,
        }

    # ---- changes before shipment -----------------------------------------------------------------
    @tool("write")
    def cancel_order(self, order_id: OrderId, reason: Reason) -> dict[str, Any]:
        """Cancel a whole order that has not shipped yet (status Processing). The order's customer must be
        authenticated. The order total is refunded to the original payment method. Shipped, Delivered and
        already Cancelled orders are refused (a delivered order can be returned instead)."""
        order = self._order(order_id)
        self._require_authenticated(order.customer_id)
        if order.status == "Cancelled":
            raise Refusal(409, "Order is already cancelled", order_id=order_id)
        if order.status != "Processing":
            raise Refusal(409, "Order has already shipped and can no longer be cancelled", order_id=order_id, order_status=order.status)
        total = _cents(sum(i.qty * i.unit_price for i in order.items))
        refund = Refund(
            refund_id=self.ids.mint("REF"),
            order_id=order_id,
            customer_id=order.customer_id,
            amount=total,
            method=order.payment_method,
            date=self.state.business_date,
        )
        self.state.refunds[refund.refund_id] = refund
        order.status = "Cancelled"
        order.cancelled_date = self.state.business_date
        order.estimated_delivery = None
        return {"order_id": order_id, "status": order.status, "refund_id": refund.refund_id, "refund_amount": total, "refund_method": refund.method}

    @tool("write")
    def update_shipping_address(
        self,
        order_id: OrderId,
        street: Annotated[NonBlank[Trimmed], Field(description="Street line with house number, e.g. '12 Oak Avenue'."), FreeText],
        city: Annotated[NonBlank[Trimmed], Field(description="City, e.g. 'Springfield'.")],
        postal_code: Annotated[NonBlank[Trimmed], Field(description="Postal (ZIP) code, e.g. '62704'.")],
    ) -> dict[str, Any]:
        """Change the shipping address of an order that has not shipped yet (status Processing). The
        order's customer must be authenticated. Refused once the order has shipped, and when the address
        is already the order's shipping address."""
        order = self._order(order_id)
        self._require_authenticated(order.customer_id)
        if order.status != "Processing":
            raise Refusal(409, "The shipping address can only be changed before the order ships", order_id=order_id, order_status=order.status)
        new = Address(street=street.strip(), city=city.strip(), postal_code=postal_code.strip())
        if order.shipping_address == new:
            raise Refusal(409, "That is already the shipping address of this order", order_id=order_id)
        order.shipping_address = new
        return {"order_id": order_id, "shipping_address": new.model_dump(mode="json")}


def retail_probes(state: RetailState) -> list[tuple[str, list[Any]]]:
    """Write sequences touching every writable part of the world: authentications, returns, refunds,
    exchanges, cancellations and address changes.

    A write probe is the bare write, without the owner's authentication: appended to a gold path it
    succeeds only when the gold already verified the record's owner (the collateral damage a careless
    agent can really do in that conversation), and is refused otherwise, as the world would refuse an
    agent that never had the other customer's PIN."""
    from contracts.schema import GoldCall

    def call(tool: str, **args: Any) -> GoldCall:
        return GoldCall(tool=tool, args=args)

    probes: list[tuple[str, list[Any]]] = []
    for customer in state.customers.values():
        probes.append((f"authenticate {customer.customer_id}", [call("authenticate_customer", customer_id=customer.customer_id, pin=customer.pin)]))
    for order in state.orders.values():
        if order.customer_id not in state.customers:
            continue
        if order.status == "Processing":
            probes.append((f"cancel {order.order_id}", [call("cancel_order", order_id=order.order_id, reason="probe")]))
            probes.append(
                (f"address {order.order_id}", [call("update_shipping_address", order_id=order.order_id, street="1 Probe Road", city="Probe", postal_code="00000")])
            )
        if order.status != "Delivered" or not within_return_window(order, state.business_date):
            continue
        for line in order.items:
            already = any(r.order_id == order.order_id and r.sku == line.sku for r in state.returns.values())
            if line.final_sale or already or line.status != "ordered":
                continue
            probes.append((f"return {order.order_id}/{line.sku}", [call("initiate_return", order_id=order.order_id, sku=line.sku, reason="probe")]))
            product = state.products.get(line.sku)
            if product is None or product.product_id is None:
                continue
            for other in state.products.values():
                if other.product_id == product.product_id and other.sku != line.sku and other.stock >= line.qty:
                    probes.append(
                        (
                            f"exchange {order.order_id}/{line.sku}->{other.sku}",
                            [call("create_exchange", order_id=order.order_id, sku=line.sku, new_sku=other.sku, reason="probe")],
                        )
                    )
    for ret in state.returns.values():
        order = state.orders.get(ret.order_id)
        if order is None or ret.status != "received":
            continue
        probes.append((f"refund {ret.return_id}", [call("issue_refund", return_id=ret.return_id, refund_to="original_payment")]))
        if order.payment_method != "gift_card":
            probes.append((f"refund {ret.return_id} to store credit", [call("issue_refund", return_id=ret.return_id, refund_to="store_credit")]))
    return probes


def probe_owner(state: RetailState, calls: list[Any]) -> str | None:
    """The customer whose record a write probe touches (for running a probe on its own)."""
    for c in calls:
        if "order_id" in c.args and c.args["order_id"] in state.orders:
            return state.orders[c.args["order_id"]].customer_id
        if "return_id" in c.args and c.args["return_id"] in state.returns:
            return state.returns[c.args["return_id"]].customer_id
    return None

"""The retail world: customers, orders with line items, a product catalog, returns.

Records are keyed by the ids a person would recognise (`CUST-5001`, `ORD-9001`, `SKU-1004`,
`RET-…`), so contract state paths read naturally: `orders.ORD-9001.status`, `products.SKU-1002.stock`.
Dates are ISO `YYYY-MM-DD` strings; `business_date` is "today" for the return window.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

OrderStatus = Literal["Processing", "Shipped", "Delivered", "Cancelled"]
PaymentMethod = Literal["card", "paypal", "gift_card"]

RETURN_WINDOW_DAYS = 30
"""Items may be returned up to and including the 30th day after delivery."""


class Customer(BaseModel):
    customer_id: str
    name: str
    email: str
    pin: str = Field(description="Four-digit account PIN used for identity verification.")


class Product(BaseModel):
    sku: str
    name: str
    price: float
    stock: int = Field(ge=0)


class OrderItem(BaseModel):
    sku: str
    name: str
    qty: int = Field(ge=1)
    unit_price: float
    final_sale: bool = False


class Order(BaseModel):
    order_id: str
    customer_id: str
    status: OrderStatus
    items: list[OrderItem]
    order_date: str
    delivery_date: str | None = Field(default=None, description="Set once the order is Delivered.")
    estimated_delivery: str | None = Field(default=None, description="For Processing and Shipped orders.")
    tracking_number: str | None = None
    payment_method: PaymentMethod = "card"


class Return(BaseModel):
    return_id: str
    order_id: str
    customer_id: str
    sku: str
    qty: int
    reason: str
    refund_amount: float
    refund_method: PaymentMethod = Field(description="Refunds always go back to the order's original payment method.")
    status: Literal["initiated"] = "initiated"
    date: str


class RetailState(BaseModel):
    customers: dict[str, Customer]
    products: dict[str, Product]
    orders: dict[str, Order]
    returns: dict[str, Return] = Field(default_factory=dict)
    authenticated_customers: list[str] = Field(default_factory=list)
    business_date: str = "2026-11-30"


def _customer(cid: str, name: str, pin: str) -> Customer:
    email = name.lower().replace(" ", ".") + "@example.com"
    return Customer(customer_id=cid, name=name, email=email, pin=pin)


def default_retail_state() -> RetailState:
    """The seeded world every retail task starts from (before its own override)."""
    customers = [
        _customer("CUST-5001", "Emma Johnson", "3927"),
        _customer("CUST-5002", "Noah Williams", "8164"),
        _customer("CUST-5003", "Olivia Chen", "5402"),
        _customer("CUST-5004", "Liam Garcia", "2719"),
        _customer("CUST-5005", "Sofia Rossi", "6683"),
    ]
    products = [
        Product(sku="SKU-1001", name="Wireless Noise-Cancelling Headphones", price=129.99, stock=14),
        Product(sku="SKU-1002", name="Trail Running Shoes", price=89.50, stock=0),
        Product(sku="SKU-1003", name="Ceramic Coffee Mug", price=14.00, stock=120),
        Product(sku="SKU-1004", name="Clearance Winter Jacket", price=59.99, stock=3),
        Product(sku="SKU-1005", name="Cork Yoga Mat", price=32.00, stock=40),
        Product(sku="SKU-1006", name="Smart Fitness Watch", price=249.00, stock=7),
        Product(sku="SKU-1007", name="LED Desk Lamp", price=45.00, stock=22),
        Product(sku="SKU-1008", name="Portable Bluetooth Speaker", price=79.99, stock=9),
    ]
    by_sku = {p.sku: p for p in products}

    def item(sku: str, qty: int = 1, *, final_sale: bool = False) -> OrderItem:
        product = by_sku[sku]
        return OrderItem(sku=sku, name=product.name, qty=qty, unit_price=product.price, final_sale=final_sale)

    orders = [
        # Delivered 8 days ago: returnable. The case C status lookup.
        Order(order_id="ORD-9001", customer_id="CUST-5001", status="Delivered", items=[item("SKU-1001")],
              order_date="2026-11-18", delivery_date="2026-11-22", payment_method="card"),
        Order(order_id="ORD-9002", customer_id="CUST-5002", status="Shipped", items=[item("SKU-1002")],
              order_date="2026-11-26", estimated_delivery="2026-12-03", tracking_number="1Z999AA10123456784", payment_method="paypal"),
        # Delivered 41 days ago: outside the return window.
        Order(order_id="ORD-9003", customer_id="CUST-5001", status="Delivered", items=[item("SKU-1005")],
              order_date="2026-10-14", delivery_date="2026-10-20", payment_method="card"),
        # A final-sale jacket next to a returnable mug.
        Order(order_id="ORD-9004", customer_id="CUST-5003", status="Delivered",
              items=[item("SKU-1004", final_sale=True), item("SKU-1003", 2)],
              order_date="2026-11-20", delivery_date="2026-11-25", payment_method="gift_card"),
        Order(order_id="ORD-9005", customer_id="CUST-5004", status="Processing", items=[item("SKU-1007")],
              order_date="2026-11-29", estimated_delivery="2026-12-05", payment_method="card"),
        Order(order_id="ORD-9006", customer_id="CUST-5005", status="Cancelled", items=[item("SKU-1006")],
              order_date="2026-11-10", payment_method="paypal"),
        # Delivered 25 days ago, two lines.
        Order(order_id="ORD-9007", customer_id="CUST-5002", status="Delivered",
              items=[item("SKU-1006"), item("SKU-1007", 2)],
              order_date="2026-11-01", delivery_date="2026-11-05", payment_method="card"),
        # Delivered exactly 30 days ago: the last day of the return window.
        Order(order_id="ORD-9008", customer_id="CUST-5004", status="Delivered", items=[item("SKU-1008")],
              order_date="2026-10-27", delivery_date="2026-10-31", payment_method="paypal"),
    ]
    return RetailState(
        customers={c.customer_id: c for c in customers},
        products={p.sku: p for p in products},
        orders={o.order_id: o for o in orders},
    )

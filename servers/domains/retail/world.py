"""The retail world: customers, orders with line items, a product catalog with variants, returns,
refunds, exchanges and store credit.

Records are keyed by the ids a person would recognise (`CUST-5001`, `ORD-9001`, `SKU-1004`,
`RET-…`, `REF-…`, `EXC-…`), so contract state paths read naturally: `orders.ORD-9001.status`,
`orders.ORD-9004.items.1.status`, `products.SKU-2103.stock`, `customers.CUST-5007.store_credit`.
Dates are ISO `YYYY-MM-DD` strings; `business_date` is "today" for the return window.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from servers.base import Unordered

OrderStatus = Literal["Processing", "Shipped", "Delivered", "Cancelled"]
PaymentMethod = Literal["card", "paypal", "gift_card"]
RefundMethod = Literal["card", "paypal", "gift_card", "store_credit"]
ItemStatus = Literal["ordered", "return_initiated", "return_received", "refunded", "exchange_requested"]

RETURN_WINDOW_DAYS = 30
"""Items may be returned or exchanged up to and including the 30th day after delivery."""


class Address(BaseModel):
    street: str
    city: str
    postal_code: str


class Customer(BaseModel):
    customer_id: str
    name: str
    email: str
    pin: str = Field(description="Four-digit account PIN used for identity verification.")
    address: Address | None = None
    store_credit: float = Field(default=0.0, description="Store credit balance in dollars.")


class Product(BaseModel):
    sku: str
    name: str
    price: float
    stock: int = Field(ge=0)
    product_id: str | None = Field(default=None, description="Variants (sizes, colours) of one product share it.")
    size: str | None = None
    colour: str | None = None


class OrderItem(BaseModel):
    sku: str
    name: str
    qty: int = Field(ge=1)
    unit_price: float
    final_sale: bool = False
    status: ItemStatus = "ordered"


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
    shipping_address: Address | None = None
    cancelled_date: str | None = None


class Return(BaseModel):
    return_id: str
    order_id: str
    customer_id: str
    sku: str
    qty: int
    reason: str
    refund_amount: float
    refund_method: RefundMethod = Field(description="The order's payment method, or store credit once refunded to it.")
    status: Literal["initiated", "received", "refunded"] = "initiated"
    date: str


class Refund(BaseModel):
    refund_id: str
    order_id: str
    customer_id: str
    amount: float
    method: RefundMethod
    return_id: str | None = Field(default=None, description="The return refunded; None for a cancelled order.")
    date: str


class Exchange(BaseModel):
    exchange_id: str
    order_id: str
    customer_id: str
    sku: str
    new_sku: str
    qty: int
    reason: str
    status: Literal["requested"] = "requested"
    date: str


class RetailState(BaseModel):
    customers: dict[str, Customer]
    products: dict[str, Product]
    orders: dict[str, Order]
    returns: dict[str, Return] = Field(default_factory=dict)
    refunds: dict[str, Refund] = Field(default_factory=dict)
    exchanges: dict[str, Exchange] = Field(default_factory=dict)
    authenticated_customers: Unordered[list[str]] = Field(default_factory=list)
    business_date: str = "2026-11-30"


def _customer(cid: str, name: str, pin: str, street: str, city: str, postal_code: str, store_credit: float = 0.0) -> Customer:
    email = name.lower().replace(" ", ".") + "@example.com"
    return Customer(
        customer_id=cid,
        name=name,
        email=email,
        pin=pin,
        address=Address(street=street, city=city, postal_code=postal_code),
        store_credit=store_credit,
    )


def _variants(product_id: str, name: str, price: float, rows: list[tuple[str, str | None, str | None, int]]) -> list[Product]:
    out = []
    for sku, size, colour, stock in rows:
        label = ", ".join(x for x in (colour, f"Size {size}" if size else None) if x)
        out.append(Product(sku=sku, name=f"{name} ({label})", price=price, stock=stock, product_id=product_id, size=size, colour=colour))
    return out


def default_retail_state() -> RetailState:
    """The seeded world every retail task starts from (before its own override)."""
    customers = [
        _customer("CUST-5001", "Emma Johnson", "3927", "14 Maple Street", "Springfield", "62701"),
        _customer("CUST-5002", "Noah Williams", "8164", "220 Harbor Road", "Portland", "97201"),
        _customer("CUST-5003", "Olivia Chen", "5402", "9 Orchard Lane", "Madison", "53703"),
        _customer("CUST-5004", "Liam Garcia", "2719", "301 Pine Avenue", "Austin", "73301"),
        _customer("CUST-5005", "Sofia Rossi", "6683", "77 Via Bella Court", "Denver", "80202"),
        # Same surname as Emma Johnson.
        _customer("CUST-5006", "Ethan Johnson", "4410", "5 Birch Close", "Springfield", "62704"),
        _customer("CUST-5007", "Ava Martin", "7052", "48 Lake View Drive", "Duluth", "55802", store_credit=15.0),
        _customer("CUST-5008", "Mia Patel", "1386", "610 Cedar Street", "Columbus", "43215"),
        _customer("CUST-5009", "Lucas Brown", "9274", "12 Hill Road", "Boise", "83702"),
        # Same surname as Ava Martin.
        _customer("CUST-5010", "Chloe Martin", "5518", "48 Lake View Drive", "Duluth", "55802"),
        _customer("CUST-5011", "Daniel Kim", "3061", "88 River Street", "Albany", "12207"),
        _customer("CUST-5012", "Grace Okafor", "8827", "19 Elm Street", "Raleigh", "27601", store_credit=40.0),
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
        Product(sku="SKU-1009", name="Stainless Steel Water Bottle", price=22.00, stock=60),
        Product(sku="SKU-1010", name="Wireless Earbuds", price=99.00, stock=0),
        Product(sku="SKU-1011", name="Leather Wallet", price=40.00, stock=15),
        *_variants("PRD-20", "Organic Cotton T-Shirt", 24.00, [
            ("SKU-2001", "S", "White", 12), ("SKU-2002", "M", "White", 0), ("SKU-2003", "L", "White", 6), ("SKU-2004", "M", "Navy", 8),
        ]),
        *_variants("PRD-21", "Everyday Sneakers", 75.00, [
            ("SKU-2101", "8", None, 4), ("SKU-2102", "9", None, 0), ("SKU-2103", "10", None, 5), ("SKU-2104", "11", None, 2),
        ]),
        *_variants("PRD-22", "Merino Wool Sweater", 68.00, [
            ("SKU-2201", "S", "Grey", 3), ("SKU-2202", "M", "Grey", 0), ("SKU-2203", "M", "Green", 5), ("SKU-2204", "L", "Grey", 2),
        ]),
        *_variants("PRD-23", "Slim Fit Jeans", 54.00, [
            ("SKU-2301", "30", "Blue", 7), ("SKU-2302", "32", "Blue", 0), ("SKU-2303", "34", "Blue", 4), ("SKU-2304", "32", "Black", 6),
        ]),
        *_variants("PRD-24", "Rain Jacket", 95.00, [
            ("SKU-2401", "M", "Yellow", 0), ("SKU-2402", "L", "Yellow", 3), ("SKU-2403", "M", "Black", 5),
        ]),
    ]
    by_sku = {p.sku: p for p in products}
    addr = {c.customer_id: c.address for c in customers}

    def item(sku: str, qty: int = 1, *, final_sale: bool = False, status: str = "ordered") -> OrderItem:
        product = by_sku[sku]
        return OrderItem(sku=sku, name=product.name, qty=qty, unit_price=product.price, final_sale=final_sale, status=status)  # type: ignore[arg-type]

    def order(oid: str, cid: str, status: str, items: list[OrderItem], order_date: str, **kw: object) -> Order:
        return Order(order_id=oid, customer_id=cid, status=status, items=items, order_date=order_date, shipping_address=addr[cid], **kw)  # type: ignore[arg-type]

    orders = [
        # Delivered 8 days ago: returnable. The case C status lookup.
        order("ORD-9001", "CUST-5001", "Delivered", [item("SKU-1001")], "2026-11-18", delivery_date="2026-11-22", payment_method="card"),
        order("ORD-9002", "CUST-5002", "Shipped", [item("SKU-1002")], "2026-11-26",
              estimated_delivery="2026-12-03", tracking_number="1Z999AA10123456784", payment_method="paypal"),
        # Delivered 41 days ago: outside the return window.
        order("ORD-9003", "CUST-5001", "Delivered", [item("SKU-1005")], "2026-10-14", delivery_date="2026-10-20", payment_method="card"),
        # A final-sale jacket next to a returnable mug.
        order("ORD-9004", "CUST-5003", "Delivered", [item("SKU-1004", final_sale=True), item("SKU-1003", 2)], "2026-11-20",
              delivery_date="2026-11-25", payment_method="gift_card"),
        order("ORD-9005", "CUST-5004", "Processing", [item("SKU-1007")], "2026-11-29", estimated_delivery="2026-12-05", payment_method="card"),
        order("ORD-9006", "CUST-5005", "Cancelled", [item("SKU-1006")], "2026-11-10", payment_method="paypal", cancelled_date="2026-11-11"),
        # Delivered 25 days ago, two lines.
        order("ORD-9007", "CUST-5002", "Delivered", [item("SKU-1006"), item("SKU-1007", 2)], "2026-11-01",
              delivery_date="2026-11-05", payment_method="card"),
        # Delivered exactly 30 days ago: the last day of the return window.
        order("ORD-9008", "CUST-5004", "Delivered", [item("SKU-1008")], "2026-10-27", delivery_date="2026-10-31", payment_method="paypal"),
        # Sneakers in size 9: an exchange after a size mix-up.
        order("ORD-9009", "CUST-5006", "Delivered", [item("SKU-2102")], "2026-11-19", delivery_date="2026-11-24", payment_method="card"),
        # A T-shirt and jeans, both exchangeable.
        order("ORD-9010", "CUST-5007", "Delivered", [item("SKU-2002"), item("SKU-2302")], "2026-11-15",
              delivery_date="2026-11-20", payment_method="paypal"),
        # Sweater in S grey; M grey is out of stock, M green is not.
        order("ORD-9011", "CUST-5008", "Delivered", [item("SKU-2201")], "2026-11-21", delivery_date="2026-11-26", payment_method="card"),
        # A final-sale rain jacket.
        order("ORD-9012", "CUST-5010", "Delivered", [item("SKU-2402", final_sale=True)], "2026-11-18",
              delivery_date="2026-11-23", payment_method="card"),
        # Jeans delivered 46 days ago: past the window.
        order("ORD-9013", "CUST-5009", "Delivered", [item("SKU-2301")], "2026-10-10", delivery_date="2026-10-15", payment_method="card"),
        order("ORD-9014", "CUST-5011", "Processing", [item("SKU-1006")], "2026-11-28", estimated_delivery="2026-12-04", payment_method="card"),
        order("ORD-9015", "CUST-5011", "Shipped", [item("SKU-1009")], "2026-11-25",
              estimated_delivery="2026-12-01", tracking_number="1Z999AA10987654321", payment_method="card"),
        # Two processing orders of the same customer.
        order("ORD-9016", "CUST-5012", "Processing", [item("SKU-2001", 2), item("SKU-1003")], "2026-11-29",
              estimated_delivery="2026-12-06", payment_method="paypal"),
        order("ORD-9017", "CUST-5012", "Processing", [item("SKU-1005")], "2026-11-30", estimated_delivery="2026-12-07", payment_method="paypal"),
        order("ORD-9018", "CUST-5001", "Processing", [item("SKU-1008")], "2026-11-28", estimated_delivery="2026-12-03", payment_method="card"),
        # Orders whose returns were received and await a refund (RET-7001 .. RET-7006).
        order("ORD-9019", "CUST-5003", "Delivered", [item("SKU-1005", status="return_received")], "2026-11-08",
              delivery_date="2026-11-12", payment_method="card"),
        order("ORD-9020", "CUST-5007", "Delivered", [item("SKU-1001", status="return_received")], "2026-11-05",
              delivery_date="2026-11-09", payment_method="gift_card"),
        order("ORD-9021", "CUST-5009", "Delivered", [item("SKU-1007", status="return_received"), item("SKU-1003")], "2026-11-10",
              delivery_date="2026-11-14", payment_method="paypal"),
        order("ORD-9022", "CUST-5006", "Delivered", [item("SKU-1008", status="return_initiated")], "2026-11-20",
              delivery_date="2026-11-25", payment_method="card"),
        order("ORD-9023", "CUST-5002", "Delivered", [item("SKU-1009", status="refunded")], "2026-11-02",
              delivery_date="2026-11-06", payment_method="paypal"),
        order("ORD-9024", "CUST-5012", "Delivered", [item("SKU-2101", status="return_received"), item("SKU-1011")], "2026-11-12",
              delivery_date="2026-11-16", payment_method="card"),
        # Emma's older headphones order: the same product as ORD-9001, past the window.
        order("ORD-9025", "CUST-5001", "Delivered", [item("SKU-1001")], "2026-09-30", delivery_date="2026-10-05", payment_method="card"),
        # Two mug orders of the same customer, both returnable.
        order("ORD-9026", "CUST-5005", "Delivered", [item("SKU-1003", 4)], "2026-11-22", delivery_date="2026-11-27", payment_method="card"),
        order("ORD-9027", "CUST-5005", "Delivered", [item("SKU-1003", 2)], "2026-11-05", delivery_date="2026-11-10", payment_method="card"),
        # Three lines delivered two days ago.
        order("ORD-9028", "CUST-5008", "Delivered", [item("SKU-1010"), item("SKU-1009", 2), item("SKU-1011")], "2026-11-24",
              delivery_date="2026-11-28", payment_method="paypal"),
        order("ORD-9029", "CUST-5010", "Shipped", [item("SKU-2304")], "2026-11-27",
              estimated_delivery="2026-12-02", tracking_number="1Z999AA10555000111", payment_method="card"),
        order("ORD-9030", "CUST-5009", "Processing", [item("SKU-2403")], "2026-11-29", estimated_delivery="2026-12-05", payment_method="card"),
    ]

    def ret(rid: str, oid: str, cid: str, sku: str, amount: float, method: str, status: str, reason: str, day: str) -> Return:
        return Return(return_id=rid, order_id=oid, customer_id=cid, sku=sku, qty=1, reason=reason, refund_amount=amount,
                      refund_method=method, status=status, date=day)  # type: ignore[arg-type]

    returns = [
        ret("RET-7001", "ORD-9019", "CUST-5003", "SKU-1005", 32.00, "card", "received", "too thin", "2026-11-20"),
        ret("RET-7002", "ORD-9020", "CUST-5007", "SKU-1001", 129.99, "gift_card", "received", "unwanted gift", "2026-11-18"),
        ret("RET-7003", "ORD-9021", "CUST-5009", "SKU-1007", 45.00, "paypal", "received", "flickers", "2026-11-21"),
        ret("RET-7004", "ORD-9022", "CUST-5006", "SKU-1008", 79.99, "card", "initiated", "no sound", "2026-11-28"),
        ret("RET-7005", "ORD-9023", "CUST-5002", "SKU-1009", 22.00, "paypal", "refunded", "dented", "2026-11-10"),
        ret("RET-7006", "ORD-9024", "CUST-5012", "SKU-2101", 75.00, "card", "received", "too small", "2026-11-22"),
    ]
    refunds = [
        Refund(refund_id="REF-3001", order_id="ORD-9023", customer_id="CUST-5002", amount=22.00, method="paypal", return_id="RET-7005",
               date="2026-11-14"),
    ]
    return RetailState(
        customers={c.customer_id: c for c in customers},
        products={p.sku: p for p in products},
        orders={o.order_id: o for o in orders},
        returns={r.return_id: r for r in returns},
        refunds={r.refund_id: r for r in refunds},
    )

"""Travel domain: flights, booking changes, cancellations, hotels and loyalty miles."""

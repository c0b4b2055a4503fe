"""Placeholder replaced below."""
def dialogue_routes(gateway):  # noqa: ANN001, ANN201
    return []

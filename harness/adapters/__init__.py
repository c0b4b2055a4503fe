"""Adapters that benchmark external agent frameworks through the same gateway (over streamable HTTP)."""

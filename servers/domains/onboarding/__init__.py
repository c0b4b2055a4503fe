"""Onboarding domain: prospects become accounts that are configured, verified and taken live."""

"""Provider adapters. Each module imports its SDK lazily inside the adapter, never at package import."""

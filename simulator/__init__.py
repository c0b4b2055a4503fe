"""User simulator (runtime milestone). Offline, the gold path's user turns are the scripted user."""

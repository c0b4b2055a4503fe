"""CPU per tool call as the world grows: 22 → 2.2k → 22k records (the payments world cloned 1×, 100×, 1000×).

    uv run python scripts/bench_world.py [--calls 300] [--scales 1 100 1000]

For each world size, the median process CPU time of a read (`get_account_balance`), a write that commits
(`execute_transfer`), a write refused by the business (`execute_transfer` over the limit: rolled back) and
a call rejected by argument validation, through the lean in-process path (`Gateway.call_tool`) and through
an in-memory MCP client. The in-run baseline is what the gateway did per call before the undo journal: a
deep copy of the whole world, then a dump, a JSON walk and a re-validation of it (`old model`). Read the
ratios (largest world / smallest): flat means the cost does not depend on records a call does not touch.
Nothing here is asserted; it is a measurement.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")
os.environ.setdefault("FASTMCP_LOG_LEVEL", "CRITICAL")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import logging  # noqa: E402

logging.disable(logging.WARNING)

DOMAIN = "payments"
READ = ("get_account_balance", {"account_id": "ACC-1001"})
WRITE = ("execute_transfer", {"source_account_id": "ACC-1001", "destination_account_id": "ACC-1003", "amount": 0.01})
REFUSED = ("execute_transfer", {"source_account_id": "ACC-1001", "destination_account_id": "ACC-1003", "amount": 900_000_000.0})
INVALID = ("execute_transfer", {"source_account_id": "ACC-1001", "destination_account_id": "ACC-1003", "amount": "lots"})


def scaled_world(scale: int) -> tuple[dict[str, Any], int]:
    """The default payments world with every record cloned `scale` times (new keys), and its record count."""
    from servers.registry import environment_class

    base = environment_class(DOMAIN).initial_state().model_dump(mode="json")
    world: dict[str, Any] = {}
    records = 0
    for key, value in base.items():
        if isinstance(value, dict):
            grown = dict(value)
            for i in range(1, scale):
                grown.update({f"{k}-X{i}": v for k, v in value.items()})
            world[key] = grown
            records += len(grown)
        elif isinstance(value, list):
            world[key] = value * scale
            records += len(world[key])
        else:
            world[key] = value
    return world, records


def old_model_cost(state: Any) -> None:
    """What every call cost before the journal: deep copy, then dump + JSON walk + re-validate."""
    from contracts.text import json_problem

    draft = state.model_copy(deep=True)
    data = draft.model_dump(mode="python", warnings=False)
    json_problem(data)
    type(draft).model_validate(data)


async def _cpu(fn: Any, calls: int) -> float:
    samples = []
    for _ in range(calls):
        start = time.process_time()
        await fn()
        samples.append(time.process_time() - start)
    return statistics.median(samples) * 1000


async def measure(scale: int, calls: int) -> dict[str, float]:
    from fastmcp import Client

    from servers.gateway import Gateway
    from servers.recorder import TRIAL_META_KEY

    world, records = scaled_world(scale)
    gateway = Gateway([DOMAIN])
    trial = gateway.open_trial(DOMAIN, initial_state=world)
    row: dict[str, float] = {"records": records}

    async def lean(call: tuple[str, dict[str, Any]]) -> None:
        try:
            await gateway.call_tool(trial.trial_id, call[0], call[1])
        except Exception:  # noqa: BLE001 - refused/invalid calls raise ToolError; recorded either way
            pass

    for label, call in (("read", READ), ("write", WRITE), ("refused", REFUSED), ("invalid", INVALID)):
        row[f"lean_{label}"] = await _cpu(lambda call=call: lean(call), calls)
    async with Client(gateway.server(DOMAIN)) as client:
        meta = {TRIAL_META_KEY: trial.trial_id}
        row["mcp_read"] = await _cpu(lambda: client.call_tool(*READ, meta=meta, raise_on_error=False), calls)
        row["mcp_write"] = await _cpu(lambda: client.call_tool(*WRITE, meta=meta, raise_on_error=False), calls)

    from servers.registry import environment_class

    plain = environment_class(DOMAIN).initial_state(world)  # an untracked world, as the old gateway held it

    async def old() -> None:
        old_model_cost(plain)

    row["old_model"] = await _cpu(old, max(5, min(calls, calls * 10 // scale)))
    statuses = {r.status for r in trial.trace}
    assert {"executed", "refused", "tool_error"} <= statuses, statuses
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--scales", type=int, nargs="+", default=[1, 100, 1000])
    args = parser.parse_args()
    rows = [asyncio.run(measure(scale, args.calls)) for scale in args.scales]
    columns = ["lean_read", "lean_write", "lean_refused", "lean_invalid", "mcp_read", "mcp_write", "old_model"]
    print("median CPU ms per call by world size (process time)")
    print(f"{'records':>8} " + " ".join(f"{c:>12}" for c in columns))
    for row in rows:
        print(f"{row['records']:>8.0f} " + " ".join(f"{row[c]:>12.3f}" for c in columns))
    first, last = rows[0], rows[-1]
    print(f"ratio largest/smallest world ({last['records']:.0f}/{first['records']:.0f} records): " + ", ".join(f"{c} x{last[c] / first[c]:.2f}" for c in columns))
    print(f"old model / lean write at {last['records']:.0f} records: x{last['old_model'] / last['lean_write']:.0f}")


if __name__ == "__main__":
    main()

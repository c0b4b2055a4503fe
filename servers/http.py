"""The gateway as one ASGI app: per-domain MCP endpoints, the combined endpoint, and the control plane.

The control plane is plain JSON over HTTP so that a harness in any language can drive trials. It is
deliberately not an MCP tool: agents under test never see it in `tools/list`.

    POST   /control/trials                {"task_id": ..., "seed": 0}  or  {"domain": ..., "initial_state": {...}}
    POST   /control/trials/{id}/turn      {"turn": 1, "allowed_tools": ["get_account_balance"] | null}
    GET    /control/trials/{id}           trial info, trace and current state
    DELETE /control/trials/{id}           close; returns the final trace and state
    GET    /control/health

Isolation. With a `control_token` (every `crmbench run` makes one per run; `crmbench serve` prints its
own), every `/control/` request but `/control/health` needs `Authorization: Bearer <token>`: an agent under test, which only
knows its MCP URL, cannot open, read, re-expose or close trials. Requests carrying an `Origin` header
from anywhere but loopback are refused (DNS-rebinding protection, as the MCP transport spec asks).
Every refusal is recorded (`TrialStore.incidents`) and, when the request names an open trial, charged to
that trial.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import socket
from collections.abc import AsyncIterator, Sequence
from typing import Any
from urllib.parse import parse_qs, urlsplit

from pydantic import BaseModel, ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route

from contracts.catalog import CatalogError, get_task
from servers.gateway import Gateway
from servers.recorder import TRIAL_HEADER, TRIAL_QUERY
from servers.trials import Trial, UnknownTrial


class OpenTrialRequest(BaseModel):
    task_id: str | None = None
    domain: str | None = None
    initial_state: dict[str, Any] | None = None
    seed: int = 0
    trial_id: str | None = None


class TurnRequest(BaseModel):
    turn: int
    allowed_tools: list[str] | None = None


def trial_view(trial: Trial, base_url: str = "") -> dict[str, Any]:
    return {
        "trial_id": trial.trial_id,
        "domain": trial.domain,
        "task_id": trial.task_id,
        "seed": trial.seed,
        "turn": trial.turn,
        "allowed_tools": None if trial.allowed_tools is None else sorted(trial.allowed_tools),
        "mcp_url": f"{base_url}/{trial.domain}/mcp?{TRIAL_QUERY}={trial.trial_id}",
        "trace": [r.model_dump(mode="json") for r in trial.trace],
        "state": trial.final_state(),
    }


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def sandbox_route(gateway: Gateway) -> Route:
    """`GET /sandbox`: a new private sandbox id for any client (no control token): send it as `X-Trial-Id`
    (or `?trial=`) and its world is opened on first use. Ids are issued, never chosen (issue 41)."""

    async def mint(_: Request) -> JSONResponse:
        if not gateway.store.sandbox_enabled:
            return _error(404, "this gateway has no sandbox (--require-trial): open a trial via the control plane")
        trial_id = gateway.store.mint_sandbox_id()
        return JSONResponse({"trial_id": trial_id, "headers": {"X-Trial-Id": trial_id}})

    return Route("/sandbox", mint, methods=["GET", "POST"])


def control_routes(gateway: Gateway) -> list[Route]:
    async def open_trial(request: Request) -> JSONResponse:
        try:
            body = OpenTrialRequest.model_validate(await request.json())
        except (ValidationError, ValueError) as exc:
            return _error(422, f"invalid request body: {exc}")
        override = body.initial_state
        domain = body.domain
        try:
            if body.task_id:
                task = get_task(body.task_id)
                domain, override = task.domain, task.initial_state
            if not domain:
                return _error(422, "give task_id or domain")
            trial = gateway.open_trial(
                domain, initial_state=override, seed=body.seed, task_id=body.task_id, trial_id=body.trial_id
            )
        except (CatalogError, KeyError, ValueError, ValidationError) as exc:
            return _error(404 if isinstance(exc, (CatalogError, KeyError)) else 422, str(exc))
        return JSONResponse(trial_view(trial, str(request.base_url).rstrip("/")), status_code=201)

    async def set_turn(request: Request) -> JSONResponse:
        try:
            body = TurnRequest.model_validate(await request.json())
            trial = gateway.set_turn(request.path_params["trial_id"], body.turn, body.allowed_tools)
        except UnknownTrial as exc:
            return _error(404, str(exc))
        except (ValidationError, ValueError) as exc:
            return _error(422, f"invalid request body: {exc}")
        return JSONResponse({"trial_id": trial.trial_id, "turn": trial.turn})

    async def get_or_close_trial(request: Request) -> JSONResponse:
        """GET shows a trial; DELETE closes it. Both answer with the trial's trace and state."""
        trial_id = request.path_params["trial_id"]
        try:
            if request.method == "DELETE":
                trial = await gateway.close_settled(trial_id)
                return JSONResponse(trial_view(trial, str(request.base_url).rstrip("/")))
            async with gateway.reading(trial_id) as trial:  # never a call's half-made change
                return JSONResponse(trial_view(trial, str(request.base_url).rstrip("/")))
        except UnknownTrial as exc:
            return _error(404, str(exc))

    async def health(_: Request) -> JSONResponse:
        return JSONResponse({"ok": True, "domains": gateway.domains, "open_trials": len(gateway.store)})

    return [
        Route("/control/health", health, methods=["GET"]),
        Route("/control/trials", open_trial, methods=["POST"]),
        Route("/control/trials/{trial_id}/turn", set_turn, methods=["POST"]),
        Route("/control/trials/{trial_id}", get_or_close_trial, methods=["GET", "DELETE"]),
    ]


LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})


class Guard:
    """ASGI middleware: the control plane needs the run's token; foreign Origins are refused."""

    def __init__(self, app: Any, gateway: Gateway, control_token: str | None, allowed_origins: Sequence[str] = ()) -> None:
        self.app = app
        self.gateway = gateway
        self.control_token = control_token
        self.allowed_origins = frozenset(o.rstrip("/") for o in allowed_origins)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        path: str = scope.get("path", "")
        origin = headers.get("origin")
        if origin and origin.rstrip("/") not in self.allowed_origins and (urlsplit(origin).hostname or "") not in LOOPBACK_HOSTS:
            await self._refuse(scope, headers, send, 403, f"request from Origin {origin!r} refused: {scope['method']} {path}")
            return
        if path.startswith("/control/") and path != "/control/health" and self.control_token is not None:
            given = headers.get("authorization", "")
            if not hmac.compare_digest(given.encode(), f"Bearer {self.control_token}".encode()):
                await self._refuse(scope, headers, send, 401, f"control plane request without the run's token: {scope['method']} {path}")
                return
        await self.app(scope, receive, send)

    async def _refuse(self, scope: Any, headers: dict[str, str], send: Any, status: int, what: str) -> None:
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        trial_id = headers.get(TRIAL_HEADER) or (query.get(TRIAL_QUERY) or [None])[0]
        path_parts = scope.get("path", "").split("/")
        if trial_id is None and len(path_parts) > 3 and path_parts[1:3] == ["control", "trials"]:
            trial_id = path_parts[3]  # /control/trials/<id>...: charge it to the trial it reached for
        self.gateway.store.incident(trial_id, what)
        body = json.dumps({"error": what}).encode()
        await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


def gateway_app(
    gateway: Gateway,
    *,
    control_token: str | None = None,
    allowed_origins: Sequence[str] = (),
    extra_control_routes: Sequence[Route] = (),
) -> Any:
    """One ASGI app serving every domain endpoint, the combined endpoint and the control plane (behind
    `control_token` when given; `extra_control_routes` are added under the same guard)."""
    domain_apps = {d: s.http_app(path="/mcp") for d, s in gateway.servers.items()}
    combined_app = gateway.combined.http_app(path="/mcp")
    apps = [*domain_apps.values(), combined_app]

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:
            for app in apps:
                await stack.enter_async_context(app.router.lifespan_context(app))
            yield

    routes: list[Any] = [*extra_control_routes, *control_routes(gateway), sandbox_route(gateway)]
    routes += [Mount(f"/{d}", app=app) for d, app in domain_apps.items()]
    routes.append(Mount("/", app=combined_app))
    app = Starlette(routes=routes, lifespan=lifespan)
    app.add_middleware(Guard, gateway=gateway, control_token=control_token, allowed_origins=allowed_origins)
    return app


NO_WEBSOCKETS = "none"
"""uvicorn's `ws=` for the gateway: MCP's streamable HTTP and the control plane are plain HTTP, and
uvicorn's default ("auto") imports the websockets library and its protocol (~50 modules) at start-up."""


def listening_socket(host: str = "127.0.0.1", port: int = 0) -> socket.socket:
    """A bound TCP socket for uvicorn's `sockets=` (IPv6 when the host is an IPv6 address, as uvicorn
    decides; port 0: the kernel picks one, read it with `getsockname()`). TCP_NODELAY is set on the
    listening socket so that accepted connections inherit it: without it, a server handed a pre-bound
    socket answered every request ~40 ms late (Nagle's algorithm meeting delayed ACKs), against ~1 ms
    with it."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


@contextlib.asynccontextmanager
async def serve_in_loop(gateway: Gateway, host: str = "127.0.0.1", port: int = 0, *, control_token: str | None = None) -> AsyncIterator[str]:
    """Serve the gateway over streamable HTTP inside the running event loop; yields the base URL. A run
    passes a fresh `control_token` so the agents it serves cannot reach the control plane."""
    import anyio
    import uvicorn

    sock = listening_socket(host, port)
    server = uvicorn.Server(uvicorn.Config(gateway_app(gateway, control_token=control_token), log_level="warning", lifespan="on", ws=NO_WEBSOCKETS))
    failure: Exception | None = None  # the body's error, re-raised unwrapped (not as a task-group error)
    async with anyio.create_task_group() as group:
        group.start_soon(lambda: server.serve(sockets=[sock]))
        while not server.started:
            await anyio.sleep(0.01)
        try:
            yield f"http://{host}:{sock.getsockname()[1]}"
        except Exception as exc:  # noqa: BLE001
            failure = exc
        finally:
            server.should_exit = True
    if failure is not None:
        raise failure

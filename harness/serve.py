"""`crmbench serve`: the gateway over streamable HTTP, or one domain over stdio."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable

from harness.runner.config import ServeConfig

log = logging.getLogger("crmbench.serve")


def serve(config: ServeConfig) -> None:
    from harness.gc_policy import startup_pace

    with startup_pace() as ready:
        _serve(config, ready)


def _serve(config: ServeConfig, ready: Callable[[], None]) -> None:
    from contracts.catalog import CatalogError, get_task
    from servers.gateway import Gateway
    from servers.registry import UnknownDomain, environment_class, known_domains
    from servers.trials import SANDBOX_PREFIX, TrialStore

    domains = config.domain or known_domains()
    for domain in domains:
        try:
            environment_class(domain)
        except UnknownDomain as exc:
            raise SystemExit(str(exc)) from None
    store = TrialStore(sandbox=not config.require_trial)
    gateway = Gateway(domains, store=store)
    if config.task:
        try:
            task = get_task(config.task)
        except CatalogError as exc:
            raise SystemExit(str(exc)) from None
        if task.domain not in domains:
            raise SystemExit(f"task {config.task} is a {task.domain} task; serve that domain")
        template = {"initial_state": task.initial_state, "seed": config.seed, "task_id": task.id}
        store.sandbox_templates[task.domain] = template  # private sandboxes start from the task too
        gateway.open_trial(task.domain, trial_id=SANDBOX_PREFIX + task.domain, **template)
    if config.transport == "stdio":
        if len(domains) != 1:
            raise SystemExit("stdio serves one domain (one process is one trial): pass --domain NAME")
        ready()
        gateway.server(domains[0]).run("stdio", show_banner=False)
        return

    import secrets

    import uvicorn

    from harness.control import dialogue_routes, serve_components  # the dialogue and grading routes: HTTP only
    from servers.http import NO_WEBSOCKETS, gateway_app, listening_socket

    token = None if (config.control_token or "").lower() == "none" else (config.control_token or secrets.token_urlsafe(24))
    try:  # bound before the banner, so that `--port 0` prints the port the kernel chose
        sock = listening_socket(config.host, config.port)
    except OSError as exc:
        raise SystemExit(f"cannot listen on {config.host}:{config.port}: {exc.strerror or exc}") from None
    base = f"http://{_url_host(config.host)}:{sock.getsockname()[1]}"
    print(f"CRM-Agent-Bench gateway on {base}", file=sys.stderr)
    for domain in domains:
        print(f"  {domain:>18}: {base}/{domain}/mcp   (add ?trial=ID or header X-Trial-Id)", file=sys.stderr)
    print(f"  {'all (namespaced)':>18}: {base}/mcp", file=sys.stderr)
    print(f"  {'control plane':>18}: {base}/control/trials  (+ /control/tasks, /control/trials/ID/user, /control/trials/ID/grade)", file=sys.stderr)
    if token:
        print(f"  {'control token':>18}: {token}   (send 'Authorization: Bearer {token}')", file=sys.stderr)
    if config.require_trial:
        print("  no sandbox (--require-trial): every call must name a trial opened via the control plane", file=sys.stderr)
    else:
        print(f"  no trial id: the domain's SHARED sandbox world; an id from GET {base}/sandbox: a private one", file=sys.stderr)
    app = gateway_app(gateway, control_token=token, allowed_origins=config.allowed_origin, extra_control_routes=dialogue_routes(gateway, serve_components(config)))
    server = uvicorn.Server(uvicorn.Config(app, log_level=config.log_level.lower(), lifespan="on", ws=NO_WEBSOCKETS))
    ready()
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn shuts down on Ctrl-C, then re-raises it: a normal exit, as with uvicorn.run
        pass
    finally:
        sock.close()
    if not server.started:  # the app's start-up failed (uvicorn has logged why): uvicorn.run's exit code
        raise SystemExit(STARTUP_FAILURE)


STARTUP_FAILURE = 3
"""The exit code of a server whose start-up failed, as `uvicorn.run` gives it."""


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host

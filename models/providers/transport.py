"""An HTTP transport whose per-request cost does not grow with the number of connections in flight.

Why: the SDKs' HTTP stack (`httpx2` over `httpcore2`) keeps one connection pool per client, and the pool
re-examines *every* connection it holds — and every queued request — each time a request starts and
each time a response is closed (`AsyncConnectionPool._assign_requests_to_connections`, which also probes
each idle connection's socket for expiry). With N calls in flight that is O(N) work per call: at 256 in
flight it was a quarter of the client's CPU, the only cost that grew with concurrency. Besides, the
SDKs' default limits keep only 100 idle connections, so above 100 in flight every call beyond them
closed a connection and opened a new one.

`ShardedTransport` is the same `httpx2.AsyncHTTPTransport` (same sockets, TLS, proxies from the
environment, HTTP/1.1 keep-alive, error mapping) split into shards of at most `shard_size` connections.
A request takes a slot in a shard that has one free — the most recently freed first, whose connections
are warm — and gives it back when its response is closed; a new shard is opened only when every shard
is full. So a pool never holds more than `shard_size` connections or requests, each pool scan is
bounded by it, and the choice of a shard is O(1): the per-request cost is flat in the number in flight.
Shards are created lazily and kept (their idle connections expire as in any pool).

One sharded transport serves every client of a process on the same event loop (`shared_transport`):
connections to one server are interchangeable whatever the model role, and a trial's calls come one
after another — user, router, agent, judge. With a pool per role, each role's connection of a trial sat
idle while the other roles spoke, past the keep-alive expiry, and the next call opened a new one (TCP
set-up was ~7% of the client's CPU at 256 in flight); with one pool, a trial's next call takes the
connection its previous call just freed.
"""

from __future__ import annotations

import asyncio
import importlib
import ssl
import weakref
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:  # type-only: the transport class is built when first used (`sharded_transport_class`)
    import httpx2

HttpBackend = Literal["aiohttp", "httpx"]
"""How the SDKs' requests reach the network (`--http-transport`): `aiohttp`, the SDKs' own aiohttp
transport (`DefaultAioHttpClient`: aiohttp's C HTTP parser and connection pool; the default, a third
less client CPU per call than httpx at 256 in flight), or `httpx`, the SDKs' default stack over
`ShardedTransport`. Results do not depend on it."""

DEFAULT_BACKEND: HttpBackend = "aiohttp"

DEFAULT_SHARD_SIZE = 4
"""Connections per shard: small enough that a pool scan stays cheap, large enough that a handful of
calls in flight need one shard only."""

KEEPALIVE_EXPIRY_S = 4.0
"""Idle connections are kept this long: a little less than common servers keep them (uvicorn, and so
vLLM, closes idle connections after 5 s). With the same 5 s on both sides (`httpx2`'s default), a
connection was now and then reused just as the server closed it, and the call failed and was retried
(2–4 per run at 256–1,024 in flight here; none in a 256-trial run at 4 s). The most recently freed shard is used first, so busy
connections stay warm anyway; a server that closes sooner is noticed by the pool's own check."""

_transport_class: type | None = None
_handle_class: type | None = None


def sharded_transport_class() -> type:
    """`ShardedTransport`, defined on first use so that importing this module does not import `httpx2`."""
    global _transport_class
    if _transport_class is None:
        _transport_class = _define()
    return _transport_class


def shared_transport(backend: HttpBackend = DEFAULT_BACKEND, sdk: str = "openai") -> httpx2.AsyncBaseTransport:
    """A handle on the process's one transport of `backend` for the running event loop (module doc):
    each client gets its own handle; the transport is closed when the last handle on it is closed. Bound
    on first use to the loop it runs in (connections belong to one loop), so a client that outlives its
    loop simply gets a fresh transport on the next. `sdk`: the SDK whose vendored aiohttp transport to
    use (`openai` or `anthropic`; the same code)."""
    global _handle_class
    if _handle_class is None:
        _handle_class = _define_handle()
    return _handle_class(backend, sdk)  # type: ignore[no-any-return]


def sharded_transport(*, shard_size: int = DEFAULT_SHARD_SIZE, **transport_options: Any) -> httpx2.AsyncBaseTransport:
    """A `ShardedTransport`; `transport_options` go to each shard's `httpx2.AsyncHTTPTransport`."""
    return sharded_transport_class()(shard_size=shard_size, **transport_options)  # type: ignore[no-any-return]


_default_contexts: dict[bool, ssl.SSLContext] = {}


def _ssl_context(verify: Any, cert: Any, trust_env: bool) -> ssl.SSLContext:
    """`httpx2`'s TLS context for these settings; the default one (verify against the CA bundle, no client
    certificate) is made once per process and shared, as an `SSLContext` may be."""
    import httpx2

    if verify is True and cert is None:
        if trust_env not in _default_contexts:
            _default_contexts[trust_env] = httpx2.create_ssl_context(verify=True, trust_env=trust_env)
        return _default_contexts[trust_env]
    return httpx2.create_ssl_context(verify=verify, cert=cert, trust_env=trust_env)


def default_ssl_context() -> ssl.SSLContext:
    """The process's default TLS context (verify against the CA bundle, proxies' settings from the
    environment), made now if it is not yet."""
    return _ssl_context(True, None, True)


class _SharedEntry:
    __slots__ = ("_loop", "transport", "users")

    def __init__(self, loop: asyncio.AbstractEventLoop, transport: Any) -> None:
        self._loop = weakref.ref(loop)  # weak: the entry is the value of its loop's key in `_shared`
        self.transport, self.users = transport, 0

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        return self._loop()


_shared: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, _SharedEntry]] = weakref.WeakKeyDictionary()
"""The shared transport of each live event loop, per backend (a closed loop's go with it)."""


def _new_transport(backend: HttpBackend, sdk: str) -> Any:
    if backend == "httpx":
        return sharded_transport()
    import httpx2

    # the SDK's own vendored aiohttp transport (`openai[aiohttp]`, `anthropic[aiohttp]`), one connector
    # for the loop: no connection limit (the run's --provider-concurrency is the limit), idle
    # connections kept as long as on the httpx path, the process's one TLS context
    vendored = importlib.import_module(f"{sdk}._vendor.httpx_aiohttp")
    limits = httpx2.Limits(max_connections=0, keepalive_expiry=KEEPALIVE_EXPIRY_S)
    return vendored.AiohttpTransport(verify=default_ssl_context(), limits=limits)


def _define_handle() -> type:
    import httpx2

    class SharedTransportHandle(httpx2.AsyncBaseTransport):
        """One client's use of the loop's shared `ShardedTransport`, counted, so closing one client does
        not close the connections the others are using."""

        __slots__ = ("_backend", "_entry", "_sdk")

        def __init__(self, backend: HttpBackend, sdk: str) -> None:
            self._backend, self._sdk = backend, sdk
            self._entry: _SharedEntry | None = None

        def _bind(self) -> _SharedEntry:
            loop = asyncio.get_running_loop()
            entry = self._entry
            if entry is not None and entry.loop is loop:
                return entry
            if entry is not None:  # used from another loop than before: the old one's connections stay there
                entry.users -= 1
            entry = _shared.get(loop)
            entries = _shared.get(loop)
            if entries is None:
                entries = _shared[loop] = {}
            entry = entries.get(self._backend)
            if entry is None:
                entry = entries[self._backend] = _SharedEntry(loop, _new_transport(self._backend, self._sdk))
            entry.users += 1
            self._entry = entry
            return entry

        async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
            return await self._bind().transport.handle_async_request(request)  # type: ignore[no-any-return]

        async def aclose(self) -> None:
            entry, self._entry = self._entry, None
            if entry is None:
                return
            entry.users -= 1
            loop = entry.loop
            entries = _shared.get(loop) if loop is not None else None
            if entry.users <= 0 and entries is not None and entries.get(self._backend) is entry:
                del entries[self._backend]
                if asyncio.get_running_loop() is loop:
                    await entry.transport.aclose()

    return SharedTransportHandle


def _define() -> type:
    import httpx2

    class _Shard:
        __slots__ = ("in_flight", "transport")

        def __init__(self, transport: httpx2.AsyncHTTPTransport) -> None:
            self.transport = transport
            self.in_flight = 0

    class _ReleasingStream(httpx2.AsyncByteStream):
        """The shard's response stream; closing it (once) gives the request's slot back."""

        __slots__ = ("_done", "_owner", "_shard", "_stream")

        def __init__(self, stream: httpx2.AsyncByteStream, owner: ShardedTransport, shard: _Shard) -> None:
            self._stream = stream
            self._owner = owner
            self._shard = shard
            self._done = False

        async def __aiter__(self) -> AsyncIterator[bytes]:
            async for chunk in self._stream:
                yield chunk

        async def aclose(self) -> None:
            try:
                await self._stream.aclose()
            finally:
                if not self._done:
                    self._done = True
                    self._owner._release(self._shard)

    class ShardedTransport(httpx2.AsyncBaseTransport):
        """`httpx2.AsyncHTTPTransport` split into pools of at most `shard_size` connections (module doc)."""

        def __init__(self, *, shard_size: int = DEFAULT_SHARD_SIZE, **transport_options: Any) -> None:
            if shard_size < 1:
                raise ValueError(f"shard_size must be at least 1, got {shard_size}")
            self.shard_size = shard_size
            # One TLS context for every shard (loading the CA bundle costs ~30 ms; shards are opened
            # under load).
            # It is made here, with `httpcore2` imported (which `httpx2` defers to the first request), so
            # that neither happens on a trial's first call.
            import httpcore2  # noqa: F401 - imported now, not under the first request

            self._ssl_context = _ssl_context(transport_options.pop("verify", True), transport_options.pop("cert", None), transport_options.get("trust_env", True))
            transport_options.setdefault(
                "limits", httpx2.Limits(max_connections=shard_size, max_keepalive_connections=shard_size, keepalive_expiry=KEEPALIVE_EXPIRY_S)
            )
            self._options = transport_options
            self.shards: list[_Shard] = []
            self._free: list[_Shard] = []
            """Shards with a free slot, the most recently freed last (taken first)."""

        def _acquire(self) -> _Shard:
            if self._free:
                shard = self._free[-1]
            else:
                shard = _Shard(httpx2.AsyncHTTPTransport(verify=self._ssl_context, **self._options))
                self.shards.append(shard)
                self._free.append(shard)
            shard.in_flight += 1
            if shard.in_flight == self.shard_size:
                self._free.pop()
            return shard

        def _release(self, shard: _Shard) -> None:
            if shard.in_flight == self.shard_size:
                self._free.append(shard)
            shard.in_flight -= 1

        @property
        def in_flight(self) -> int:
            return sum(shard.in_flight for shard in self.shards)

        async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
            shard = self._acquire()
            try:
                response = await shard.transport.handle_async_request(request)
            except BaseException:
                self._release(shard)
                raise
            assert isinstance(response.stream, httpx2.AsyncByteStream)
            response.stream = _ReleasingStream(response.stream, self, shard)
            return response

        async def aclose(self) -> None:
            shards, self.shards, self._free = self.shards, [], []
            for shard in shards:
                await shard.transport.aclose()

    return ShardedTransport

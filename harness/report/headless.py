"""Drive headless Chromium over the DevTools protocol (the `--remote-debugging-pipe` transport: JSON
messages separated by NUL on file descriptors 3 and 4), standard library only.

Used by the report tests (the explorer's filters work, a trial opens, no console errors) and by
`scripts/report_fixture.py` for the README's screenshots. No server, no network: the page is a file."""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


PLACE_FDS = "import os, sys; os.dup2(int(sys.argv[1]), 3); os.dup2(int(sys.argv[2]), 4); os.execvp(sys.argv[3], sys.argv[3:])"
"""Chromium reads DevTools commands on fd 3 and writes on fd 4; this puts the pipe ends there, then execs it."""


def _high(fd: int) -> int:
    high = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return high


def find_chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


class BrowserError(RuntimeError):
    pass


class Page:
    """One tab. `evaluate` runs JavaScript and returns its (JSON) value; `errors` collects console
    errors, uncaught exceptions and failed loads reported by the page."""

    def __init__(self, browser: str, width: int = 1400, height: int = 1000) -> None:
        self._profile = tempfile.mkdtemp(prefix="crmbench-chromium-")
        self._log = open(Path(self._profile) / "stderr.log", "wb")  # noqa: SIM115 - closed in close()
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        # the child's ends are moved above 9 so that placing them on 3 and 4 cannot overwrite one with the other
        to_child_r, from_child_w = (_high(fd) for fd in (to_child_r, from_child_w))
        flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--remote-debugging-pipe", f"--user-data-dir={self._profile}",
                 f"--window-size={width},{height}", "about:blank"]
        self._process = subprocess.Popen(
            [sys.executable, "-c", PLACE_FDS, str(to_child_r), str(from_child_w), browser, *flags],
            pass_fds=(to_child_r, from_child_w), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._log,
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self._next = 0
        self._buffer = b""
        self.errors: list[str] = []
        target = self._send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self._send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime.enable", "Log.enable", "Page.enable"):
            self.command(domain)
        self.command("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    # -- protocol ----------------------------------------------------------------------------------

    def _stderr(self) -> str:
        try:
            return (Path(self._profile) / "stderr.log").read_text(errors="replace")[-1500:]
        except OSError:
            return ""

    def _write(self, message: dict[str, Any]) -> None:
        try:
            os.write(self._to_child, json.dumps(message).encode() + b"\0")
        except BrokenPipeError:
            raise BrowserError(f"chromium exited: {self._stderr()}") from None

    def _read(self, timeout: float) -> dict[str, Any] | None:
        deadline = time.monotonic() + timeout
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self._from_child], [], [], left)
            if ready:
                chunk = os.read(self._from_child, 1 << 20)
                if not chunk:
                    raise BrowserError(f"chromium closed the DevTools pipe: {self._stderr()}")
                self._buffer += chunk
        raw, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(raw)

    def _event(self, message: dict[str, Any]) -> None:
        method, params = message.get("method"), message.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            self.errors.append(f"exception: {details.get('exception', {}).get('description') or details.get('text')}")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append("console.error: " + " ".join(str(a.get("value", a.get("description"))) for a in params.get("args", [])))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            self.errors.append(f"log: {params['entry'].get('text')} {params['entry'].get('url', '')}")

    def _send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None, timeout: float = 60) -> dict[str, Any]:
        self._next += 1
        ident = self._next
        message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self._write(message)
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read(max(0.0, deadline - time.monotonic()))
            if reply is None:
                raise BrowserError(f"no answer to {method} within {timeout} s")
            if reply.get("id") == ident:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self._event(reply)

    def command(self, method: str, params: dict[str, Any] | None = None, timeout: float = 60) -> dict[str, Any]:
        return self._send(method, params, self._session, timeout)

    # -- conveniences ------------------------------------------------------------------------------

    def goto(self, url: str) -> None:
        self.command("Page.navigate", {"url": url})
        self.wait_for("document.readyState === 'complete'")

    def evaluate(self, expression: str) -> Any:
        result = self.command("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression[:80]}: {result['exceptionDetails'].get('exception', {}).get('description')}")
        return result.get("result", {}).get("value")

    def wait_for(self, expression: str, timeout: float = 30) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            self._drain(0.1)
        raise BrowserError(f"timed out waiting for {expression}")

    def _drain(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            message = self._read(left)
            if message is None:
                return
            self._event(message)

    def screenshot(self, path: Path, *, full_page: bool = False, selector: str | None = None) -> None:
        params: dict[str, Any] = {"format": "png"}
        if selector is not None:
            box = self.evaluate(f"(function(){{var r=document.querySelector({json.dumps(selector)}).getBoundingClientRect();"
                                "return [r.left+window.scrollX,r.top+window.scrollY,r.width,r.height];})()")
            params["clip"] = {"x": box[0], "y": box[1], "width": box[2], "height": box[3], "scale": 1}
            params["captureBeyondViewport"] = True
        elif full_page:
            height = self.evaluate("document.documentElement.scrollHeight")
            params["clip"] = {"x": 0, "y": 0, "width": self.evaluate("document.documentElement.scrollWidth"), "height": height, "scale": 1}
            params["captureBeyondViewport"] = True
        data = self.command("Page.captureScreenshot", params)["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        try:
            self._write({"id": self._next + 1, "method": "Browser.close"})
        except OSError:
            pass
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        for fd in (self._to_child, self._from_child):
            try:
                os.close(fd)
            except OSError:
                pass
        self._log.close()
        shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> Page:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

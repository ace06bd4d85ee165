"""A minimal Language Server Protocol client over a child's stdin/stdout.

Enough of LSP for the watch mode's pyright (:mod:`._pyright_server`):
JSON-RPC messages framed by ``Content-Length`` headers, requests answered
by id, notifications sent, and the server's own requests to the client
(``workspace/configuration``, ``client/registerCapability``,
``window/workDoneProgress/create``) answered at once so that it never waits
on us. A reader thread owns the child's stdout; everything else happens in
the caller's thread.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
from collections.abc import Mapping, Sequence
from typing import IO, Any, cast

__all__ = ["LspClient", "LspError"]


class LspError(Exception):
    """The server answered with an error, died, or did not answer in time."""


def _frame(message: Mapping[str, object]) -> bytes:
    body = json.dumps(message, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: " + str(len(body)).encode("ascii") + b"\r\n\r\n" + body


def _read_message(stream: IO[bytes]) -> dict[str, Any] | None:
    """One message from ``stream``; None at its end."""
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        name, _, value = line.decode("ascii", "replace").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    if length is None:
        return None
    body = stream.read(length)
    if len(body) < length:
        return None
    return cast(dict[str, Any], json.loads(body.decode("utf-8")))


class _Pending:
    """A request waiting for its answer."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: object = None
        self.error: object = None


class LspClient:
    """A language server started as ``argv``, spoken to over its stdio."""

    def __init__(self, argv: Sequence[str], *, cwd: str) -> None:
        self.process = subprocess.Popen(
            list(argv),
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            # Its own session: a terminal's Ctrl-C reaches the gate, which ends
            # the server itself; and the group is killed whole (the installed
            # pyright-langserver is a Python wrapper around node).
            start_new_session=True,
        )
        self._lock = threading.Lock()
        self._next_id = 0
        self._pending: dict[int, _Pending] = {}
        self._closed = threading.Event()
        self._reader = threading.Thread(target=self._read, name="lsp-reader", daemon=True)
        self._reader.start()

    def _send(self, message: Mapping[str, object]) -> None:
        stdin = self.process.stdin
        if stdin is None or self._closed.is_set():
            raise LspError("the language server has ended")
        with self._lock:
            try:
                stdin.write(_frame({"jsonrpc": "2.0", **message}))
                stdin.flush()
            except (BrokenPipeError, OSError) as exc:
                raise LspError(f"the language server has ended ({exc})") from None

    def notify(self, method: str, params: object) -> None:
        self._send({"method": method, "params": params})

    def request(self, method: str, params: object, *, timeout: float) -> object:
        """Send a request and wait for its result (an error answer, the server's
        death or ``timeout`` raise :class:`LspError`)."""
        with self._lock:
            self._next_id += 1
            number = self._next_id
            pending = self._pending[number] = _Pending()
        self._send({"id": number, "method": method, "params": params})
        if not pending.done.wait(timeout):
            raise LspError(f"no answer to {method} in {timeout:g}s")
        if pending.error is not None:
            raise LspError(f"{method}: {pending.error}")
        return pending.result

    def _read(self) -> None:
        stdout = self.process.stdout
        try:
            while stdout is not None:
                message = _read_message(stdout)
                if message is None:
                    break
                self._dispatch(message)
        except (OSError, ValueError):
            pass
        finally:
            self._closed.set()
            with self._lock:
                pending = list(self._pending.values())
            for waiting in pending:
                waiting.error = waiting.error or "the language server ended"
                waiting.done.set()

    def _dispatch(self, message: dict[str, Any]) -> None:
        if "method" in message and "id" in message:
            # The server asks the client: answer at once, with "nothing to add".
            method = message["method"]
            result: object = None
            if method == "workspace/configuration":
                params = cast(dict[str, Any], message.get("params") or {})
                items = cast(list[object], params.get("items") or [])
                result = [None for _ in items]
            try:
                self._send({"id": message["id"], "result": result})
            except LspError:
                pass
            return
        if "id" in message:
            with self._lock:
                pending = self._pending.pop(int(message["id"]), None)
            if pending is not None:
                pending.result = message.get("result")
                error: object = message.get("error")
                if isinstance(error, dict):
                    details = cast(dict[str, object], error)
                    error = details.get("message", details)
                pending.error = error
                pending.done.set()

    @property
    def alive(self) -> bool:
        return self.process.poll() is None and not self._closed.is_set()

    def close(self, *, timeout: float = 5.0) -> None:
        """``shutdown`` and ``exit``, as LSP ends a session; killed if it will not end."""
        if self.process.poll() is None:
            try:
                self.request("shutdown", None, timeout=timeout)
                self.notify("exit", None)
            except LspError:
                pass
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)  # whatever of its group is left
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()  # not its group's leader after all
        # The reader ends at the end of its stream; closing that stream under
        # a read still blocked in it would wait for the read.
        self._reader.join(timeout)
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None and (stream is self.process.stdin or not self._reader.is_alive()):
                try:
                    stream.close()
                except OSError:
                    pass

"""The HTTP peer of `python -m mcpcxx inspect --url URL`: Streamable HTTP, both eras."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any, TextIO

from mcpcxx._protocol.envelope import MODERN
from mcpcxx.inspect._peer import InspectError, Peer, dumps


class HttpPeer(Peer):
    """A Streamable HTTP endpoint; prints every frame and the HTTP status of each exchange."""

    def __init__(self, url: str, out: TextIO, timeout: float, version: str) -> None:
        super().__init__(out, timeout, version)
        self.url = url
        self.session_id: str | None = None

    def _headers(self, method: str, params: dict[str, Any] | None) -> dict[str, str]:
        h = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": self.version,
        }
        if self.version == MODERN:
            h["Mcp-Method"] = method
            name = (params or {}).get("name", (params or {}).get("uri"))
            if isinstance(name, str):
                h["Mcp-Name"] = name if name.isascii() else _b64(name)
        elif self.session_id:
            h["Mcp-Session-Id"] = self.session_id
        elif method == "initialize":
            del h["MCP-Protocol-Version"]
        return h

    def _post(self, body: dict[str, Any], method: str) -> list[dict[str, Any]]:
        frame = dumps(body)
        print(f"--> {frame}", file=self.out, flush=True)
        req = urllib.request.Request(
            self.url, frame.encode(), self._headers(method, body.get("params")), method="POST"
        )
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                status, ctype, raw = resp.status, resp.headers.get("Content-Type", ""), resp.read()
                sid = resp.headers.get("Mcp-Session-Id")
        except urllib.error.HTTPError as e:
            status, ctype, raw, sid = e.code, e.headers.get("Content-Type", ""), e.read(), None
        except (urllib.error.URLError, OSError) as e:
            raise InspectError(f"cannot reach {self.url}: {e}") from None
        if sid:
            self.session_id = sid
        print(f"# HTTP {status} {ctype}", file=self.out, flush=True)
        texts = (
            _sse_data(raw.decode("utf-8", "replace")) if "event-stream" in ctype else [raw.decode()]
        )
        messages = []
        for text in filter(None, (t.strip() for t in texts)):
            print(f"<-- {text}", file=self.out, flush=True)
            try:
                messages.append(json.loads(text))
            except ValueError:
                raise InspectError(
                    f"the server answered HTTP {status} with a non-JSON body"
                ) from None
        return messages

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """POST a request and return its response (notifications before it are printed)."""
        body = self.next_request(method, params)
        rid = body["id"]
        for message in self._post(body, method):
            if message.get("id") == rid and "method" not in message:
                return message
        raise InspectError(f"no JSON-RPC response to request {rid}")

    def notify(self, method: str) -> None:
        """POST a notification without params (expects 202)."""
        self._post({"jsonrpc": "2.0", "method": method}, method)

    def close(self) -> int:
        """DELETE the legacy session, if any; always 0."""
        if self.session_id:
            req = urllib.request.Request(
                self.url, headers={"Mcp-Session-Id": self.session_id}, method="DELETE"
            )
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                    self.note(f"DELETE session: HTTP {resp.status}")
            except (urllib.error.URLError, OSError) as e:
                self.note(f"DELETE session failed: {e}")
        return 0


def _b64(value: str) -> str:
    import base64

    return "=?base64?" + base64.b64encode(value.encode()).decode() + "?="


def _sse_data(text: str) -> list[str]:
    out = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        data = [line[5:].lstrip(" ") for line in block.split("\n") if line.startswith("data:")]
        if data:
            out.append("\n".join(data))
    return out

"""A local HTTP receiver for the webhook channels in the tests (an incoming webhook of Discord, Slack or Matrix, as
seen from deadmail): it keeps every request (path, headers, body as JSON, and the status it answered) and answers
204, or the statuses (with their headers) it is told to answer next (``answer_next``), as a chat service does when
it is down or limits its callers."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Request:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    status: int


@dataclass
class WebhookReceiver:
    host: str = "127.0.0.1"
    requests: list[Request] = field(default_factory=list)
    answers: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> WebhookReceiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with receiver.lock:
                    status, headers = receiver.answers.pop(0) if receiver.answers else (204, {})
                    receiver.requests.append(Request(self.path, dict(self.headers.items()), json.loads(raw), status))
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer((self.host, 0), Handler)
        self.url = f"http://{self.host}:{self.server.server_address[1]}/hooks/league"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def answer_next(self, status: int, count: int = 1, **headers: str) -> None:
        with self.lock:
            self.answers += [(status, {k.replace("_", "-"): v for k, v in headers.items()})] * count

    def taken(self) -> list[dict[str, Any]]:
        """The bodies of the posts it took (2xx)."""
        with self.lock:
            return [r.body for r in self.requests if 200 <= r.status < 300]

    def tried(self) -> int:
        with self.lock:
            return len(self.requests)

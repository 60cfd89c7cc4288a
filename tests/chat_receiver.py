"""A local HTTP receiver for the chat-app channel in the tests: it takes what apprise posts to a generic JSON
endpoint (``json://``) or to a self-hosted ntfy server (``ntfy://``), keeps each message (path, headers, body as
JSON), and answers 200, or the statuses it is told to (``fail_next``), as a chat service does when it is down."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Message:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class ChatReceiver:
    host: str = "127.0.0.1"
    messages: list[Message] = field(default_factory=list)
    failures: list[int] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> ChatReceiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with receiver.lock:
                    status = receiver.failures.pop(0) if receiver.failures else 200
                    if status == 200:
                        body = json.loads(raw or b"{}")
                        receiver.messages.append(Message(self.path, dict(self.headers.items()), body))
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer((self.host, 0), Handler)
        self.address = f"{self.host}:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def fail_next(self, status: int, count: int = 1) -> None:
        with self.lock:
            self.failures += [status] * count

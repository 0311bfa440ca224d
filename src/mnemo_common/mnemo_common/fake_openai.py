"""A small OpenAI-compatible HTTP server for tests and offline demos.

It serves ``/v1/chat/completions``, ``/v1/embeddings`` and ``/v1/models`` on 127.0.0.1.
Chat answers come from a queue of scripted replies (or a responder callable), so a test
decides exactly what "the model" says, including malformed answers. Every request body is
recorded for assertions.
"""
from __future__ import annotations

import hashlib
import json
import socket
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Optional, Union

import numpy as np

# A scripted reply: plain text content, or a dict with "tool_calls" ([{name, arguments}])
# and/or "content", or an int HTTP status to fail with, or bytes sent as the whole response body
# (status 200, JSON content type: an endpoint answering garbage).
Reply = Union[str, dict, int, bytes]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def server_bind(self):
        super().server_bind()
        # Without TCP_NODELAY each small response waits ~40 ms on delayed ACKs.
        self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class FakeOpenAI:
    def __init__(self, responder: Optional[Callable[[dict], Reply]] = None, embed_dim: int = 64):
        self.replies: deque[Reply] = deque()
        self.responder = responder
        self.requests: list[dict] = []
        self.embed_dim = embed_dim
        self._lock = threading.Lock()
        self._httpd: Optional[_Server] = None
        self._thread: Optional[threading.Thread] = None

    # -- scripting ---------------------------------------------------------------
    def push(self, *replies: Reply) -> None:
        with self._lock:
            self.replies.extend(replies)

    def _next_reply(self, body: dict) -> Reply:
        with self._lock:
            if self.replies:
                return self.replies.popleft()
        if self.responder is not None:
            return self.responder(body)
        return "{}"

    # -- lifecycle ---------------------------------------------------------------
    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> "FakeOpenAI":
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # keep test output quiet
                pass

            def setup(self):
                super().setup()
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def _send(self, status: int, payload: dict) -> None:
                self._send_raw(json.dumps(payload).encode(), status)

            def _send_raw(self, data: bytes, status: int = 200) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list", "data": [{"id": "fake-model", "object": "model"}]})
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except json.JSONDecodeError:
                    self._send(400, {"error": {"message": "bad json"}})
                    return
                with fake._lock:
                    fake.requests.append({"path": self.path, "body": body})
                if self.path.endswith("/chat/completions"):
                    reply = fake._next_reply(body)
                    if isinstance(reply, int):
                        self._send(reply, {"error": {"message": f"scripted status {reply}", "type": "server_error"}})
                        return
                    if isinstance(reply, bytes):
                        self._send_raw(reply)
                        return
                    self._send(200, _chat_completion(body, reply))
                elif self.path.endswith("/embeddings"):
                    inputs = body.get("input", [])
                    if isinstance(inputs, str):
                        inputs = [inputs]
                    data = [
                        {"object": "embedding", "index": i, "embedding": hash_embedding(t, fake.embed_dim).tolist()}
                        for i, t in enumerate(inputs)
                    ]
                    self._send(200, {"object": "list", "data": data, "model": body.get("model", "fake"),
                                     "usage": {"prompt_tokens": 0, "total_tokens": 0}})
                else:
                    self._send(404, {"error": {"message": "not found"}})

        self._httpd = _Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> "FakeOpenAI":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def hash_embedding(text: str, dim: int) -> np.ndarray:
    """Deterministic unit vector for a text (the fake server's embeddings)."""
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    v = np.random.default_rng(seed).standard_normal(dim).astype(np.float32)
    return v / np.linalg.norm(v)


def _chat_completion(body: dict, reply: Reply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": None}
    finish = "stop"
    if isinstance(reply, str):
        message["content"] = reply
    else:
        message["content"] = reply.get("content")
        calls = reply.get("tool_calls") or []
        if calls:
            finish = "tool_calls"
            message["tool_calls"] = [
                {
                    "id": f"call_{i}",
                    "type": "function",
                    "function": {
                        "name": c["name"],
                        "arguments": c["arguments"] if isinstance(c["arguments"], str) else json.dumps(c["arguments"]),
                    },
                }
                for i, c in enumerate(calls)
            ]
    return {
        "id": f"chatcmpl-{int(time.time() * 1e6)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "fake-model"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }

"""A small exporter: serves a page (text that can change between scrapes) on ``http://127.0.0.1:PORT/metrics``
from a thread. Tests and benchmarks serve the twin's pages with it, as a real npu-exporter would serve its own."""

from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class PageServer:
    """``with PageServer(lambda: page) as srv: srv.url``; ``page_fn`` is called on every scrape."""

    def __init__(self, page_fn: Callable[[], str], host: str = "127.0.0.1", port: int = 0) -> None:
        self.page_fn = page_fn
        self.scrapes = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                if self.path.split("?")[0] != "/metrics":
                    self.send_error(404)
                    return
                body = outer.page_fn().encode()
                outer.scrapes += 1
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer((host, port), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, name="page-server", daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        name = host.decode() if isinstance(host, bytes) else str(host)
        return f"http://{name}:{port}/metrics"

    def __enter__(self) -> PageServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)

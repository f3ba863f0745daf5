"""A throttled link: a built export served as a reader on a real connection gets it.

Every response crosses ONE shared link: a token bucket of ``mbit`` megabits a
second that all connections draw from (the page's, the SharedWorker's), a
``latency_ms`` wait before each response's first byte, and gzip on text and
wasm as static hosts serve them (``Content-Encoding: gzip`` when the browser
accepts it; files that are gzip already go as they are). HTTP/1.1 with
keep-alive, so a browser opens at most six connections, as to a real host.

Every response is logged (``Link.log``): its path, bytes on the wire (the body
as sent), who asked (the Referer: a page, or the worker script), and when it
started, sent its first byte and ended, in seconds from the link's start.

Run it alone to read the site on a slow link by hand::

    python -m benchmarks.link SITE --mbit 3 --latency 150
"""

import argparse
import functools
import gzip
import http.server
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

# What static hosts compress (nginx's gzip_types, GitHub Pages, Netlify): text and wasm.
COMPRESSED = (".js", ".mjs", ".html", ".css", ".json", ".wasm", ".txt", ".svg", ".webmanifest")
CHUNK = 8192  # bytes a connection sends per turn on the link
# The two links of issue 29: a good mobile or a slow home line, and a poor mobile one.
LINKS = {"9 Mbit/s, 85 ms": (9.0, 85.0), "3 Mbit/s, 150 ms": (3.0, 150.0)}


class Bucket:
    """One link shared by every connection: each chunk waits for its turn on the wire."""

    def __init__(self, mbit: float):
        self.bytes_per_s = mbit * 1e6 / 8
        self.free_at = 0.0  # monotonic time when the link is next idle
        self.lock = threading.Lock()

    def send(self, write, data: bytes) -> None:
        """Write ``data`` at the link's rate, in chunks that take turns with other connections."""
        for at in range(0, len(data), CHUNK):
            chunk = data[at : at + CHUNK]
            with self.lock:
                start = max(time.monotonic(), self.free_at)
                self.free_at = start + len(chunk) / self.bytes_per_s
                done = self.free_at
            pause = done - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            write(chunk)


@dataclass
class Link:
    """A folder behind a throttled link; ``log`` holds one dict per response."""

    folder: Path
    mbit: float
    latency_ms: float
    log: list = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)
    wall: float = field(default_factory=time.time)  # the same moment, on the epoch clock
    bucket: Bucket = None
    gzipped: dict = field(default_factory=dict)  # path → compressed bytes (built once)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self):
        self.bucket = Bucket(self.mbit)

    def now(self) -> float:
        return round(time.monotonic() - self.started, 4)

    def reset(self) -> None:
        """A new measurement: the log emptied and the clock restarted."""
        with self.lock:
            self.log = []
            self.started = time.monotonic()
            self.wall = time.time()

    def body(self, file: Path, accepts_gzip: bool) -> tuple[bytes, bool]:
        """The bytes to send for ``file``, and whether they are gzip-encoded."""
        if not (accepts_gzip and file.suffix in COMPRESSED):
            return file.read_bytes(), False
        key = str(file)
        with self.lock:
            cached = self.gzipped.get(key)
        if cached is None or cached[0] != file.stat().st_mtime_ns:
            cached = (file.stat().st_mtime_ns, gzip.compress(file.read_bytes(), 6, mtime=0))
            with self.lock:
                self.gzipped[key] = cached
        return cached[1], True

    def bytes_until(self, seconds: float) -> int:
        """Bytes of every response that had ended by ``seconds`` (the link's clock),
        and the part of any still under way that had been sent by then."""
        total = 0
        for entry in list(self.log):
            if entry["end"] is not None and entry["end"] <= seconds:
                total += entry["bytes"]
            elif entry["first_byte"] is not None and entry["first_byte"] < seconds:
                end = entry["end"] if entry["end"] is not None else self.now()
                span = max(end - entry["first_byte"], 1e-6)
                total += round(entry["bytes"] * min(1.0, (seconds - entry["first_byte"]) / span))
        return total


class _Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: at most six connections, as to a host
    link: Link = None

    def log_message(self, *args):
        pass

    def do_GET(self):
        link = self.link
        path = unquote(urlparse(self.path).path).lstrip("/") or "index.html"
        file = Path(self.directory) / path
        entry = {
            "path": path,
            "referer": urlparse(self.headers.get("Referer") or "").path.lstrip("/"),
            "dest": self.headers.get("Sec-Fetch-Dest", ""),
            "start": link.now(),
            "first_byte": None,
            "end": None,
            "bytes": 0,
            "status": 200,
        }
        with link.lock:
            link.log.append(entry)
        time.sleep(link.latency_ms / 1000)
        if not file.is_file():
            entry["status"] = 404
            entry["first_byte"] = entry["end"] = link.now()
            self.send_error(404)
            return
        body, encoded = link.body(file, "gzip" in self.headers.get("Accept-Encoding", ""))
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(file)))
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-cache")
        if encoded:
            self.send_header("Content-Encoding", "gzip")
        self.end_headers()
        entry["first_byte"] = link.now()
        entry["bytes"] = len(body)
        try:
            link.bucket.send(self.wfile.write, body)
        except ConnectionError:  # the browser hung up (a page closed mid-download)
            entry["status"] = "aborted"
        entry["end"] = link.now()

    def handle(self):
        try:
            super().handle()
        except ConnectionError:
            pass


@contextmanager
def throttled(folder: Path, mbit: float, latency_ms: float):
    """``folder`` behind one shared link on 127.0.0.1 (a free port); yields (url, Link)."""
    link = Link(Path(folder), mbit, latency_ms)
    handler = type("Link", (_Handler,), {"link": link})
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=str(folder))
    )
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", link
    finally:
        server.shutdown()
        server.server_close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("site", type=Path, help="a built export")
    parser.add_argument("--mbit", type=float, default=9.0)
    parser.add_argument("--latency", type=float, default=85.0, help="ms before each response")
    args = parser.parse_args(argv)
    if not (args.site / "site.json").is_file():
        parser.error(f"{args.site} is not a built posviz export (it has no site.json)")
    with throttled(args.site, args.mbit, args.latency) as (url, _link):
        print(f"{args.site} at {url}/ ({args.mbit} Mbit/s, {args.latency} ms); Ctrl-C ends it")
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            return 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

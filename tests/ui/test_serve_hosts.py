"""Under `posviz serve`, a page or websocket asked for by a name that is not the
server's (a DNS-rebinding page's own name) is refused; localhost names work."""

import socket

import pytest

pytestmark = pytest.mark.browser  # a live server; no browser needed

UPGRADE = (
    "Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: bokeh\r\n"
)


def status(served: str, path: str, host: str, extra: str = "") -> str:
    """The status line the server answers `path` with, asked for as `host`."""
    port = int(served.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=60) as connection:
        connection.sendall(
            f"GET {path} HTTP/1.1\r\nHost: {host}\r\n{extra}Connection: close\r\n\r\n".encode()
        )
        answer = b""
        while b"\r\n" not in answer:
            chunk = connection.recv(4096)
            if not chunk:
                break
            answer += chunk
    return answer.split(b"\r\n", 1)[0].decode("latin-1")


def port_of(served: str) -> str:
    return served.rsplit(":", 1)[1]


@pytest.mark.parametrize("path", ["/figure-710", "/", "/gallery"])
def test_a_forged_host_gets_403_for_pages(served, path):
    port = port_of(served)
    assert status(served, path, f"evil.example:{port}").startswith("HTTP/1.1 403 ")
    assert status(served, path, f"localhost:{port}") == "HTTP/1.1 200 OK"


def test_a_forged_host_cannot_open_the_websocket(served):
    port = port_of(served)
    # A rebinding page is same-origin with itself: Origin equals its own Host.
    evil = UPGRADE + f"Origin: http://evil.example:{port}\r\n"
    assert status(served, "/figure-710/ws", f"evil.example:{port}", evil).startswith(
        "HTTP/1.1 403 "
    )
    local = UPGRADE + f"Origin: http://127.0.0.1:{port}\r\n"
    assert status(served, "/figure-710/ws", f"127.0.0.1:{port}", local).startswith("HTTP/1.1 101 ")

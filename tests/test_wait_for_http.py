"""The suite's wait for a server: one request at a time, each given the time left."""

import http.server
import subprocess
import sys
import threading

import pytest

from tests.support.browser import free_port, wait_for_http


class Slow(http.server.BaseHTTPRequestHandler):
    """Answers every request after ``delay`` s, as a cold server renders its first page."""

    delay = 3.0
    requests: list

    def do_GET(self):
        self.requests.append(self.path)
        threading.Event().wait(self.delay)
        try:
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"ok")
        except OSError:  # the client had given up
            pass

    def log_message(self, *args):
        pass


@pytest.fixture
def slow_server():
    requests = []
    handler = type("Handler", (Slow,), {"requests": requests})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/", requests
    server.shutdown()
    server.server_close()


def test_a_page_slower_than_a_short_request_is_asked_for_once_and_waited_for(slow_server):
    url, requests = slow_server
    wait_for_http(url, 30)
    assert requests == ["/"]  # asking again every 2 s would have made the server render it again


def test_a_port_nobody_listens_on_times_out_naming_the_url():
    url = f"http://127.0.0.1:{free_port()}/"
    with pytest.raises(TimeoutError, match=f"{url} did not answer within 1 s"):
        wait_for_http(url, 1)


def test_a_server_that_exits_is_named_at_once():
    process = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    process.wait()
    url = f"http://127.0.0.1:{free_port()}/"
    with pytest.raises(RuntimeError, match=f"server exited with 3 before answering {url}"):
        wait_for_http(url, 30, process)

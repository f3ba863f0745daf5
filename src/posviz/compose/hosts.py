"""The Host names `posviz serve` answers: a Bokeh auth module (``--auth-module``).

A page on another site can make its own name resolve to 127.0.0.1 (DNS
rebinding) and then reach the server as a same-origin page: its requests carry
``Host: evil.example:5006``, and Tornado lets through any websocket whose
Origin equals its Host, whatever ``--allow-websocket-origin`` says. So every
page and websocket is refused (403) unless its Host is a localhost name, the
``--address`` served on, or a host the maintainer allowed with
``--allow-websocket-origin`` (Panel's option, same patterns).

`posviz.cli` passes the allowed hosts in the environment; Bokeh loads this
file by path and calls `get_user` on every request (an "auth module" whose
only user is anyone who came by an allowed name).
"""

import json
import logging
import os
from urllib.parse import urlsplit

ENV = "POSVIZ_SERVE_HOSTS"
LOCAL_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARD_ADDRESSES = frozenset({"", "0.0.0.0", "::"})
REFUSED = "Host not allowed by posviz serve; see its --allow-websocket-origin"

log = logging.getLogger("posviz.serve")
_reported: set[str] = set()


def allowed(host: str, names: frozenset[str], patterns: list[str]) -> bool:
    """Whether a request's ``Host`` header is one the server answers.

    `names`: host names allowed on any port. `patterns`: Bokeh allowlist entries
    (``host:port``, ``*`` allowed), as ``--allow-websocket-origin`` takes them.
    """
    from bokeh.server.util import check_allowlist

    if not host or any(c in host for c in "@/\\?#") or not host.isascii():
        return False  # no browser sends these in a Host; urlsplit would read past them
    try:
        name = urlsplit(f"//{host}").hostname
    except ValueError:
        return False
    if name is None:
        return False
    return name in names or bool(patterns and check_allowlist(host.lower(), patterns))


def settings(address: str, extra: list[str]) -> dict:
    """What `posviz serve --address ADDRESS --allow-websocket-origin EXTRA...` allows."""
    names = set(LOCAL_NAMES)
    if address not in WILDCARD_ADDRESSES:
        names.add(address.strip("[]").lower())
    return {"names": sorted(names), "patterns": list(extra)}


def _configured() -> tuple[frozenset[str], list[str]]:
    from bokeh.server.util import create_hosts_allowlist

    given = json.loads(os.environ.get(ENV, "{}"))
    names = frozenset(given.get("names", LOCAL_NAMES))
    patterns = given.get("patterns", [])
    return names, create_hosts_allowlist(patterns, None) if patterns else []


NAMES, PATTERNS = _configured()


def get_user(request_handler):
    """Anyone who reached the server by an allowed Host; None (refused) otherwise."""
    host = request_handler.request.host
    if allowed(host, NAMES, PATTERNS):
        return "reader"
    if host not in _reported and len(_reported) < 100:  # one line per host, bounded
        _reported.add(host)
        log.warning(
            "posviz serve: refused Host %r; to serve it, start with "
            "--allow-websocket-origin HOST:PORT",
            host,
        )
    return None


def get_login_url(request_handler):
    """No login page: a refused Host gets 403 at once."""
    from tornado.web import HTTPError

    raise HTTPError(403, reason=REFUSED)

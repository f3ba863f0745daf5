"""Give a closed session's memory back to the operating system under `posviz serve`.

Panel destroys a session's document and collects garbage a few seconds later,
but CPython's allocator and glibc keep the freed pages: the server's resident
set never shrinks (benchmarks/notes.md, "memory returned after close"). After
the collection, ``malloc_trim(0)`` hands glibc's free pages back. One trim is
scheduled per burst of closing sessions, after Panel's own collection.
"""

import ctypes
import ctypes.util
import gc
import logging
import threading

log = logging.getLogger(__name__)
TRIMMED = "posviz: closed sessions' memory handed back to the system"  # the log line, once a trim

# Panel collects 5 s after the last document is destroyed (GC_DEBOUNCE in
# panel/io/document.py); trimming a little later returns what it freed.
TRIM_AFTER_S = 7.0

_pending: threading.Timer | None = None
_lock = threading.Lock()


def _libc():
    """glibc, or None where there is none (macOS, musl, Pyodide): trimming is then skipped."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
    except OSError:
        return None
    return libc if libc is not None and hasattr(libc, "malloc_trim") else None


def trim() -> bool:
    """Collect garbage, then return glibc's free heap pages to the OS; True if trimmed."""
    gc.collect()
    libc = _libc()
    if libc is None:
        return False
    libc.malloc_trim(0)
    log.info(TRIMMED)  # an operator sees it; tests/test_serve_memory.py waits for it
    return True


def trim_soon(delay_s: float = TRIM_AFTER_S) -> None:
    """Schedule one ``trim`` ``delay_s`` from now; a later call moves it on (one per burst)."""
    global _pending
    with _lock:
        if _pending is not None:
            _pending.cancel()
        _pending = threading.Timer(delay_s, trim)
        _pending.daemon = True
        _pending.start()


def on_session_destroyed(session_context) -> None:
    """Panel's session-destroyed callback: the session is gone, trim once the burst ends."""
    trim_soon()

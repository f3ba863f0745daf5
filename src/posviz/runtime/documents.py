"""One Bokeh document per page that the worker serves (the Python half of export/worker.js).

One runtime serves several pages at once, each with its own document; every
call names its connection and runs with that document as Panel's and Bokeh's
current one, so that widgets, deep-link values (``pn.state.location`` is per
document) and errors stay with their page. Routes arrive as arguments.
Import it through ``boot.start``, which readies Panel first.
"""

# --- Imports -------------------------------------------------------------------

import json
import time
import traceback
from contextlib import contextmanager

from bokeh.io.doc import set_curdoc as _bokeh_curdoc
from panel.io.document import MockSessionContext
from panel.io.pyodide import _convert_json_patch, _link_docs_worker, init_doc, write_doc
from panel.io.state import set_curdoc as _panel_curdoc
from panel.io.state import state
from panel.util import edit_readonly

# --- General API ---------------------------------------------------------------


class Runtime:
    """The pages' documents, by connection (the worker's connection ids)."""

    def __init__(self):
        self.docs = {}
        self.later = {}  # connection → its page's figures still to fill (page.Later), in order

    @contextmanager
    def current(self, connection):
        """Make ``connection``'s document Bokeh's and Panel's current one."""
        doc = self.docs[connection]
        _bokeh_curdoc(doc)
        with _panel_curdoc(doc):
            yield doc

    def render(self, connection, route: str, search: str = "", near: str = "null") -> str:
        """Build the page ``route`` at the query ``search``: Panel's render message, as JSON.

        ``near``: the ids of the figures near the reader's viewport, as a JSON list,
        or null for all of them. The others are built later, by ``fill``.
        """
        from posviz.compose.views import servable  # the figures, only once a page asks

        marks = [("start", time.perf_counter())]
        init_doc()
        self.docs[connection] = state.curdoc
        with self.current(connection) as doc:
            if search:  # the values the reader set before Python (frames.js sends them)
                with edit_readonly(state.location):
                    state.location.search = search
            template = servable(route, near=figure_ids(near))
            self.later[connection] = list(getattr(template, "later", []))
            marks.append(("build view", time.perf_counter()))
            coroutine = write_doc(doc)
            try:  # write_doc awaits nothing in a worker (there is no DOM)
                coroutine.send(None)
            except StopIteration as done:
                rendered = done.value
            else:
                raise RuntimeError("panel's write_doc waited inside the worker")
            marks.append(("write doc", time.perf_counter()))
        timings = {
            name: round((t - before) * 1000)
            for (_, before), (name, t) in zip(marks, marks[1:], strict=False)
        }
        return json.dumps([*rendered, timings])

    def fill(self, connection, wanted: str = "[]") -> int:
        """Build one figure the page left for later; return how many are left.

        The first of ``wanted`` (a JSON list of figure ids: the page's nearest)
        that waits, else the next in page order. Called once the page is live,
        so Panel sends the figure to the page as a change of its root. A figure
        that fails says why in its place.
        """
        waiting = self.later.get(connection, [])
        if not waiting or connection not in self.docs:
            return 0
        order = {figure_id: rank for rank, figure_id in enumerate(figure_ids(wanted) or [])}
        item = min(waiting, key=lambda each: order.get(each.figure.figure_id, len(order)))
        waiting.remove(item)
        with self.current(connection) as doc:
            try:
                with doc.models.freeze():
                    item.fill()
            except Exception as error:  # the reader gets a line, the console the traceback
                traceback.print_exc()
                item.failed(error)
        return len(waiting)

    def link(self, connection, send) -> None:
        """Send every change Python makes to ``connection``'s document through ``send``."""
        with self.current(connection) as doc:
            _link_docs_worker(doc, send, setter="js")

    def patch(self, connection, patch) -> None:
        """Apply a patch the page sent."""
        with self.current(connection) as doc:
            doc.apply_json_patch(_convert_json_patch(patch), setter="js")

    def location(self, connection, location: str) -> None:
        """The page's URL changed: its values (a JSON object) go to Panel's location."""
        with self.current(connection):
            if state.location:
                values = json.loads(location)
                with edit_readonly(state.location):
                    state.location.param.update(
                        {k: v for k, v in values.items() if k in state.location.param}
                    )

    def documents(self) -> int:
        """How many documents are alive."""
        return len(self.docs)

    def close(self, connection) -> None:
        """The page is gone: end its session as Panel's server would, and drop its document."""
        if connection not in self.docs:
            return
        with self.current(connection) as doc:
            # So that the page's models, locations and views can be collected.
            session = MockSessionContext(document=doc)
            for callback in list(doc.session_destroyed_callbacks):
                try:
                    callback(session)
                except Exception as error:
                    print(f"posviz: closing connection {connection}: {error!r}")
        del self.docs[connection]
        self.later.pop(connection, None)


def figure_ids(text: str) -> list[int] | None:
    """A JSON list of figure ids as ints (anything else in it dropped), or None for null."""
    value = json.loads(text)
    if value is None:
        return None
    if not isinstance(value, list):
        raise ValueError(f"figure ids must be a JSON list or null, not {text[:80]!r}")
    return [
        int(each)
        for each in value
        if isinstance(each, int | float) and not isinstance(each, bool) and float(each).is_integer()
    ]

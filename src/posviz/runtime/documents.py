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

    @contextmanager
    def current(self, connection):
        """Make ``connection``'s document Bokeh's and Panel's current one."""
        doc = self.docs[connection]
        _bokeh_curdoc(doc)
        with _panel_curdoc(doc):
            yield doc

    def render(self, connection, route: str, search: str = "") -> str:
        """Build the page ``route`` at the query ``search``: Panel's render message, as JSON."""
        from posviz.compose.views import servable  # the figures, only once a page asks

        marks = [("start", time.perf_counter())]
        init_doc()
        self.docs[connection] = state.curdoc
        with self.current(connection) as doc:
            if search:  # the values the reader set before Python (frames.js sends them)
                with edit_readonly(state.location):
                    state.location.search = search
            servable(route)
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

"""Figures embedded as iframes in a docs page, in the browser: live, and sized to fit."""


def live_frames(page, count: int):
    """The page's ``count`` posviz iframes as (element, frame), each once its figure is live."""
    page.wait_for_function(
        f"() => document.querySelectorAll('iframe[data-posviz-embed]').length === {count}"
    )
    frames = []
    for index in range(count):
        element = page.locator("iframe[data-posviz-embed]").nth(index)
        element.scroll_into_view_if_needed()
        frame = element.element_handle().content_frame()
        frame.wait_for_function(
            "() => document.body && document.body.dataset.posviz === 'live'", timeout=180_000
        )
        frames.append((element, frame))
    return frames


# The iframe's width and the content width of the column its figure stands in.
WIDTHS_JS = """(frame) => {
  const column = frame.closest('figure').parentElement;
  const style = getComputedStyle(column);
  const inner = column.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  return [frame.getBoundingClientRect().width, inner];
}"""


def assert_not_clipped(page, element):
    """The page inside reported its height and the iframe took it: nothing is cut off;
    and the iframe is as wide as the docs' column (a theme that sizes a figure to its
    content, as Material does, had left it at an iframe's default 300 px)."""
    width, column = page.evaluate(WIDTHS_JS, element.element_handle())
    assert abs(width - column) <= 1, f"the iframe is {width} px wide in a {column} px column"
    page.wait_for_function(
        "(e) => e.dataset.posvizHeight !== undefined", arg=element.element_handle()
    )
    frame = element.element_handle().content_frame()
    content = frame.evaluate(
        "() => Math.max(...[...document.body.children].map("
        "c => c.getBoundingClientRect().bottom + window.scrollY))"
    )
    box = element.bounding_box()
    assert box["height"] >= content, (box, content)
    assert frame.evaluate("document.documentElement.scrollHeight <= window.innerHeight + 1")


# A page that posts a tiny height to its parent, as a stranger would; the docs
# tests serve it as evil.html beside the docs.
EVIL = """<script>
parent.postMessage({posviz: "height", height: 40}, "*");
</script>"""


def assert_foreign_heights_ignored(page, element, frame, docs: str):
    """Only a height posted by the iframe from the site's origin moves ``element``.

    ``docs`` is the URL that serves the docs, the site and ``evil.html`` (``EVIL``);
    ``frame`` is ``element``'s frame. The iframe is left showing ``evil.html``.
    """
    page.wait_for_function("(e) => e.dataset.posvizHeight", arg=element.element_handle())
    height = element.bounding_box()["height"]
    assert height > 600
    # Every message the page receives, heard after the embed script has seen it.
    page.evaluate(
        "() => { window.heard = []; window.addEventListener('message',"
        " (e) => window.heard.push(e.origin + ' ' + (e.data && e.data.height))); }"
    )
    heard = "(entry) => window.heard.includes(entry)"
    # The embedding page itself posts a height: not from the iframe, not heard.
    page.evaluate("() => window.postMessage({posviz: 'height', height: 40}, '*')")
    page.wait_for_function(heard, arg=f"{docs} 40")
    assert element.bounding_box()["height"] == height
    # The iframe is navigated to a page of another origin (localhost is not
    # 127.0.0.1) that posts a height: the origin is not the site's, not heard.
    other = docs.replace("127.0.0.1", "localhost")
    frame.goto(f"{other}/evil.html")
    page.wait_for_function(heard, arg=f"{other} 40")
    assert element.bounding_box()["height"] == height
    # The check can fail: the same message from the site's own origin is heard,
    # and the iframe is then held at its least height (560 px by default).
    element.evaluate("(frame, src) => { frame.src = src; }", f"{docs}/evil.html")
    page.wait_for_function(
        "(e) => e.getBoundingClientRect().height === 560", arg=element.element_handle()
    )

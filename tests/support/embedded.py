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


def assert_not_clipped(page, element):
    """The page inside reported its height and the iframe took it: nothing is cut off."""
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

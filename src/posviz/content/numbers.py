"""The numbers a page declares, checked where they are written: ``posviz check`` runs this.

A page lists in its front matter (``numbers:``) each number its text states
and where it comes from: a figure view (``figure-7256?k=8&m=32``) that shows
it, or a named source. A number from a figure view is computed again from the
figure at those settings, so a formula change that leaves the prose behind is
reported at the entry's ``file:line``; so is a declared number the page no
longer states. No test has to be edited for a new page's numbers.
"""

import re
from pathlib import Path

from posviz.content.files import _quote
from posviz.content.model import Library, Page, Problem
from posviz.content.parse import FIGURE_VIEW

# A number as prose writes it: 2,048, 0.0625, 41 (not inside a word or after a dot).
NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.])\d+(?:\.\d+)?")
# Not quantities: references to sections and tables, and names with numbers in them.
REFERENCES = re.compile(r"§\d+(?:\.\d+)*|Table \d+|section \d+|ResNet-50|32-bit|10⁹|log10")
SHOWN_LIMIT = 12  # numbers a mismatch names, so the message stays one short line


def tokens(text: str) -> set[str]:
    """The numbers ``text`` states, as written."""
    return set(NUMBER.findall(REFERENCES.sub(" ", text)))


def page_text(page: Page) -> str:
    """What a reader reads of a page: its summary and its text blocks."""
    blocks = [b for s in page.sections for b in s.blocks if isinstance(b, str)]
    return "\n\n".join([page.summary, *blocks])


def shown_by(view: str) -> set[str]:
    """The numbers a figure view (``figure-5?n=4``) states: readout, description, table.

    ValueError, saying which setting, when the view's query is not the figure's.
    """
    from urllib.parse import parse_qsl

    from posviz import deeplinks
    from posviz.figures import FIGURES

    figure_id, query = FIGURE_VIEW.fullmatch(view).groups()
    cls = FIGURES[int(figure_id)]
    settings = {}
    for name, raw in parse_qsl(query or "", keep_blank_values=True):
        if name not in cls.param or name == "name":
            raise ValueError(f"figure {figure_id} has no slider {_quote(name, 30)}")
        parameter = cls.param[name]
        aliases = getattr(cls, "link_aliases", {}).get(name, {})
        settings[name] = deeplinks.parse_text(raw, deeplinks.slider_spec(parameter, name, aliases))
    figure = cls(**settings)
    _, _, rows = figure.table()
    found = tokens(" ".join([figure.readout(), figure.describe(), *map(str, rows)]))
    return found | {f"{int(n):,}" for n in found if n.isdigit() and len(n) > 3}


def check_numbers(library: Library) -> list[Problem]:
    """Each declared number the page does not state, or its figure view does not show."""
    problems = []
    for page in library.pages.values():
        stated = tokens(page_text(page))
        for number, origin, line in page.number_lines:
            if number not in stated:
                problems.append(
                    Problem(
                        page.path,
                        line,
                        f"numbers: {_quote(number, 20)} is declared, but the page does not "
                        "state it; remove the entry or the number's new form",
                    )
                )
            elif FIGURE_VIEW.fullmatch(origin):
                problems.extend(_from_view(page.path, number, origin, line))
    return problems


def check_figure_numbers(figures: dict) -> list[Problem]:
    """Each caption number a figure declares (``Figure.numbers``) that is wrong.

    Wrong: the caption does not state it, or its figure view does not show it. A
    problem names the line of the figure's module where the numbers are declared.
    """
    problems = []
    for cls in figures.values():
        declared = cls.__dict__.get("numbers", {})
        if not declared:
            continue
        path, line = _declared_at(cls, "numbers")
        stated = tokens(" ".join(cls.caption.split()))
        for number, origin in declared.items():
            if not isinstance(number, str):
                message = (
                    f"numbers: {number!r} must be written as the caption writes it, "
                    f"a string: {str(number)!r}"
                )
                problems.append(Problem(path, line, message))
            elif not isinstance(origin, str) or not origin.strip():
                message = f"numbers: {_quote(number, 20)} needs a figure view or a reason"
                problems.append(Problem(path, line, message))
            elif number not in stated:
                problems.append(
                    Problem(
                        path,
                        line,
                        f"numbers: {_quote(number, 20)} is declared, but the caption of figure "
                        f"{cls.figure_id} does not state it; remove the entry or the number's "
                        "new form",
                    )
                )
            elif FIGURE_VIEW.fullmatch(origin):
                problems.extend(_from_view(path, number, origin, line))
    return problems


def _declared_at(cls, attribute: str) -> tuple:
    """(module file, line) of ``attribute = ...`` in the class body, else of the class."""
    import inspect

    try:
        lines, first = inspect.getsourcelines(cls)
        path = Path(inspect.getsourcefile(cls))
    except (OSError, TypeError):  # a class made where no source is kept (a REPL)
        return Path(f"<{cls.__module__}.{cls.__qualname__}>"), 0
    for offset, text in enumerate(lines):
        if re.match(rf"\s+{attribute}\s*(:[^=]*)?=", text):
            return path, first + offset
    return path, first


def _from_view(path, number: str, view: str, line: int) -> list[Problem]:
    try:
        shown = shown_by(view)
    except (ValueError, TypeError) as error:
        return [Problem(path, line, f"numbers: {view}: {str(error).splitlines()[0]}")]
    if number in shown:
        return []
    listed = sorted(shown, key=lambda n: float(n.replace(",", "")))
    more = ", …" if len(listed) > SHOWN_LIMIT else ""
    return [
        Problem(
            path,
            line,
            f"numbers: {number} is declared from {view}, which shows "
            f"{', '.join(listed[:SHOWN_LIMIT])}{more}",
        )
    ]

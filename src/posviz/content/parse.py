"""Pages and topics parsed from their files, and the checks that span files."""

import os
import re
from pathlib import Path

from posviz.content.files import _fields, _quote, _Source, _split
from posviz.content.markdown import _check_markdown
from posviz.content.model import (
    PAGE_FIELDS,
    PAGE_KINDS,
    TOPIC_FIELDS,
    ContentError,
    Library,
    Page,
    Problem,
    Section,
    Topic,
    cycle_message,
    cycles,
    tag_clash,
)
from posviz.paths import repository_root
from posviz.urls import tag_word as tag_slug

CONTENT_ENV = "POSVIZ_CONTENT"  # the content folder, when not the packaged one

SECTION = re.compile(r"^##\s+(?:([0-9]{1,6})\.\s+)?(.*\S)\s*$")
FIGURE = re.compile(r"^:::\s*figure\s+(\S+)\s*$")
FIGURE_ID = re.compile(r"[0-9]{1,9}")
# A number a page states may be declared with where it comes from (``numbers:``): the
# figure view that shows it, ``figure-5?n=4`` (tests/test_prose.py checks that it
# does), or a named source, quoted as it is.
FIGURE_VIEW = re.compile(r"figure-([0-9]{1,9})(?:\?(\S*))?")


def _sections(source: _Source, figure_ids, problems) -> tuple[Section, ...]:
    sections: list[Section] = []
    heading, chunk, blocks = None, [], []

    def close_chunk():
        text = "\n".join(line for _, line in chunk).strip()
        if text:
            first = next(n for n, line in chunk if line.strip())
            _check_markdown(source.path, text, first, problems)
            blocks.append(text)
        chunk.clear()

    def close_section():
        close_chunk()
        if heading:
            sections.append(Section(heading[0], heading[1], tuple(blocks), heading[2]))
        blocks.clear()

    for offset, line in enumerate(source.body):
        number = source.body_start + offset
        if match := SECTION.match(line):
            close_section()
            if match.group(1) is None:
                problems.append(
                    Problem(
                        source.path,
                        number,
                        f"section {_quote(match.group(2))} has no number; write '## 1. Title'",
                    )
                )
                heading = (0, match.group(2), number)
            else:
                expected = len(sections) + 1
                if int(match.group(1)) != expected:
                    problems.append(
                        Problem(
                            source.path,
                            number,
                            f"section number {match.group(1)} should be {expected}",
                        )
                    )
                heading = (int(match.group(1)), match.group(2), number)
        elif match := FIGURE.match(line.strip()):
            close_chunk()
            ref = match.group(1)
            if not FIGURE_ID.fullmatch(ref) or int(ref) not in figure_ids:
                known = ", ".join(str(i) for i in sorted(figure_ids))
                problems.append(
                    Problem(
                        source.path, number, f"unknown figure id {_quote(ref, 12)} (known: {known})"
                    )
                )
            elif heading is None:
                problems.append(Problem(source.path, number, "a figure must be inside a section"))
            else:
                blocks.append(int(ref))
        elif heading is None and line.strip():
            problems.append(
                Problem(
                    source.path, number, "text before the first section; start with '## 1. Title'"
                )
            )
        else:
            chunk.append((number, line))
    close_section()
    if not sections:
        problems.append(
            Problem(source.path, source.body_start, "a page needs at least one section")
        )
    return tuple(sections)


def _page(source: _Source, figure_ids, problems) -> Page | None:
    meta = _fields(source, PAGE_FIELDS, problems)
    sections = _sections(source, figure_ids, problems)
    if meta is None:
        return None
    declared = _numbers(source, figure_ids, problems)
    if meta["kind"] not in PAGE_KINDS:
        problems.append(
            Problem(
                source.path,
                source.key_lines["kind"],
                f"kind must be one of {', '.join(PAGE_KINDS)}, not {_quote(meta['kind'])}",
            )
        )
    return Page(
        str(meta["slug"]),
        str(meta["title"]),
        str(meta["kind"]),
        tuple(map(str, meta["builds_on"])),
        tuple(map(str, meta["tags"])),
        str(meta["summary"]),
        sections,
        source.path,
        tuple((number, origin) for number, origin, _ in declared),
        declared,
    )


def _numbers(source: _Source, figure_ids, problems) -> tuple[tuple[str, str, int], ...]:
    """The optional ``numbers:`` mapping: (number the page states, where it comes from, line)."""
    if "numbers" not in source.meta:
        return ()
    value, line = source.meta["numbers"], source.key_lines["numbers"]
    shape = (
        "each entry of 'numbers' is a number the page states and where it comes from: "
        "a figure view that shows it, like '16': figure-5?n=4, or a named source"
    )
    if not isinstance(value, dict) or not value:
        problems.append(Problem(source.path, line, shape))
        return ()
    nodes = getattr(source.value_nodes.get("numbers"), "value", [])
    found = []
    for n, (number, origin) in enumerate(value.items()):
        at = nodes[n][0].start_mark.line + 2 if n < len(nodes) else line
        if (
            isinstance(number, bool)
            or not isinstance(number, (str, int, float))
            or not isinstance(origin, str)
            or not origin.strip()
        ):
            problems.append(Problem(source.path, at, shape))
            continue
        view = FIGURE_VIEW.fullmatch(origin.strip())
        if view and int(view[1]) not in figure_ids:
            problems.append(Problem(source.path, at, f"numbers: there is no figure {view[1]}"))
            continue
        found.append((str(number), origin.strip(), at))
    return tuple(found)


def _topic(source: _Source, problems) -> Topic | None:
    meta = _fields(source, TOPIC_FIELDS, problems)
    if meta is None:
        return None
    text = "\n".join(source.body).strip()
    if text:
        first = next(n for n, line in enumerate(source.body) if line.strip())
        _check_markdown(source.path, text, source.body_start + first, problems)
    return Topic(
        str(meta["slug"]),
        str(meta["title"]),
        str(meta["category"]),
        str(meta["intro"]),
        tuple(map(str, meta["read_first"])),
        tuple(map(str, meta["pages"])),
        text,
        source.path,
    )


def _unique(items, sources, problems, what) -> dict:
    by_slug: dict = {}
    for item in items:
        if item.slug in by_slug:
            first = by_slug[item.slug]
            problems.append(
                Problem(
                    item.path,
                    sources[item.path].key_lines["slug"],
                    f"duplicate {what} slug '{item.slug}' (also in {first.path})",
                )
            )
        else:
            by_slug[item.slug] = item
    return by_slug


SLUG_LINE = re.compile(r"^slug:\s*[\"']?([^\"'\s]+)", re.M)


def _slug_line(path: Path) -> list[str]:
    """The slug a page's file names on its ``slug:`` line.

    Read as text: the file could not be read as a page.
    """
    try:
        return SLUG_LINE.findall(path.read_text("utf-8", errors="replace"))[:1]
    except OSError:
        return []


def _check_links(pages, topics, sources, problems, unread=frozenset()):
    """Every page a page builds on, and every page a topic names, exists.

    A page that could not be read (``unread``: its own problem is reported) is not
    reported again wherever it is named.
    """

    def line_of(item, key):
        return sources[item.path].key_lines.get(key, 1)

    for page in pages.values():
        for slug in page.builds_on:
            if slug not in pages and slug not in unread:
                problems.append(
                    Problem(
                        page.path,
                        line_of(page, "builds_on"),
                        f"builds on '{slug}', which is no page's slug",
                    )
                )
    for topic in topics.values():
        for key in ("read_first", "pages"):
            for slug in getattr(topic, key):
                if slug not in pages and slug not in unread:
                    problems.append(
                        Problem(
                            topic.path,
                            line_of(topic, key),
                            f"{key} names '{slug}', which is no page's slug",
                        )
                    )
    for cycle in cycles({slug: page.builds_on for slug, page in pages.items()}):
        for slug in cycle:
            page = pages[slug]
            problems.append(
                Problem(
                    page.path,
                    line_of(page, "builds_on"),
                    cycle_message(cycle),
                )
            )


def _check_tags(pages, sources, problems):
    """Each tag names its own tag page: it needs a letter or digit, and its own name."""
    first: dict[str, str] = {}
    for page in pages.values():
        line = sources[page.path].key_lines.get("tags", 1)
        for tag in dict.fromkeys(page.tags):
            slug = tag_slug(tag)
            if not slug:
                problems.append(
                    Problem(
                        page.path,
                        line,
                        f"tag {_quote(tag)} has no letter a-z or digit to name its page by",
                    )
                )
            elif other := tag_clash(first, tag):
                problems.append(
                    Problem(
                        page.path,
                        line,
                        f"tags {_quote(other)} and {_quote(tag)} would share the page "
                        f"tag-{slug}; write them the same way",
                    )
                )


def default_root() -> Path:
    """``$POSVIZ_CONTENT``, else the checkout's ``content/``, else the wheel's ``posviz/_content``.

    The wheel carries the content (setup.py), so an installed posviz builds
    without a checkout; one that lost it says, in one line, what to set.
    """
    if env := os.environ.get(CONTENT_ENV):
        return Path(env)
    package = Path(__file__).resolve().parents[1]  # posviz/
    checkout = repository_root()
    candidates = [checkout / "content"] if checkout else []
    for candidate in (*candidates, package / "_content"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"no content folder: {package / '_content'} is missing and {CONTENT_ENV} is not set; "
        f"set {CONTENT_ENV} to the folder that holds pages/ and topics/"
    )


def load(root: Path | None = None, figure_ids=None) -> Library:
    """Read and validate every page and topic under ``root``."""
    root = Path(root) if root else default_root()
    if figure_ids is None:
        from posviz.figures import figure_ids as read_ids

        figure_ids = read_ids()
    problems: list[Problem] = []
    sources = {}
    pages, topics = [], []
    unread: set[str] = set()  # the slugs of pages that could not be read (their problem says)
    for folder, reader in (("pages", _page), ("topics", _topic)):
        for path in sorted((root / folder).glob("*.md")):
            source = _split(path, problems)
            item = None
            if source is not None:
                sources[path] = source
                item = (
                    reader(source, figure_ids, problems)
                    if folder == "pages"
                    else reader(source, problems)
                )
            if item is not None:
                (pages if folder == "pages" else topics).append(item)
            elif folder == "pages":
                unread.update(_slug_line(path))
    if not pages and not problems:
        why = (
            "no pages found"
            if root.is_dir()
            else "no such folder; give the folder that holds pages/ and topics/"
        )
        problems.append(Problem(root / "pages" if root.is_dir() else root, 0, why))
    page_map = _unique(pages, sources, problems, "page")
    topic_map = _unique(topics, sources, problems, "topic")
    _check_links(page_map, topic_map, sources, problems, unread)
    _check_tags(page_map, sources, problems)
    if problems:
        raise ContentError(problems)
    return Library(page_map, topic_map)

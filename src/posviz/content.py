"""The site's text: pages and topics, loaded from ``content/`` and validated once.

A file is Markdown with YAML front matter between two ``---`` lines. Pages
have numbered sections (``## 2. Title``) and place figures with a line
``::: figure 96``. Every problem found is reported as ``file:line: message``,
all of them at once, so an author fixes a file in one pass.

Content is data, never code or markup from elsewhere:

* A file is UTF-8 text (a BOM is allowed) of at most ``MAX_BYTES``, with no NUL.
* Front matter is plain YAML: no anchors or aliases (``&a``, ``*a``), no key
  twice; text fields are strings and list fields lists of strings.
* A slug is lower-case ASCII letters, digits and single hyphens: it becomes a
  URL, a file name and a literal in generated scripts.
* Markdown holds no raw HTML (``<b>``, ``<script>``); write Markdown instead.
  An image's URL is a relative path inside the site (pages never fetch from
  outside), and a link's is relative or http(s)/mailto.

Rules the topic page follows, kept here with the data they read:

* **Reading order** lists a topic's ``read_first`` pages so that a page comes
  after every page it builds on, directly or through other pages. Among pages
  free to go next, the one listed first in the topic file goes first.
* **Tags** count, for each tag, the topic's figure pages (``pages``) that
  carry it; most pages first, then alphabetical.
"""

import os
import re
import stat
import sys
import textwrap
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from posviz.urls import tag_word as tag_slug  # the URL word of a tag: one rule, in urls

PAGE_KINDS = ("Paper", "Read")
PAGE_FIELDS = ("slug", "title", "kind", "builds_on", "tags", "summary")
TOPIC_FIELDS = ("slug", "title", "category", "intro", "read_first", "pages")
LIST_FIELDS = {"builds_on", "tags", "read_first", "pages"}

TEXT_FIELDS = {"slug", "title", "kind", "summary", "category", "intro"}
MAX_BYTES = 256 * 1024
MAX_YAML_DEPTH = 8
SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
LINK_SCHEMES = ("http", "https", "mailto")
# Parsing every page's Markdown costs a page view in the browser ~15 ms of CPython
# time (several times that in Pyodide); the exported copy was checked by the build.
CHECK_MARKUP = sys.platform != "emscripten"

SECTION = re.compile(r"^##\s+(?:([0-9]{1,6})\.\s+)?(.*\S)\s*$")
FIGURE = re.compile(r"^:::\s*figure\s+(\S+)\s*$")
FIGURE_ID = re.compile(r"[0-9]{1,9}")
SCHEME = re.compile(r"([a-zA-Z][a-zA-Z0-9+.-]*):")
# A number a page states may be declared with where it comes from (``numbers:``): the
# figure view that shows it, ``figure-5?n=4`` (tests/test_prose.py checks that it
# does), or a named source, quoted as it is.
FIGURE_VIEW = re.compile(r"figure-([0-9]{1,9})(?:\?(\S*))?")


@dataclass(frozen=True)
class Problem:
    """One thing wrong with content, where it is: ``file:line: message``."""

    path: Path
    line: int
    message: str

    def __str__(self):
        return f"{self.path}:{self.line}: {self.message}"


class ContentError(ValueError):
    """Content that cannot be served; ``problems`` lists every one found."""

    def __init__(self, problems: list[Problem]):
        self.problems = sorted(problems, key=lambda p: (str(p.path), p.line))
        super().__init__("\n".join(str(p) for p in self.problems))


@dataclass(frozen=True)
class Section:
    """A numbered section of a page: its Markdown chunks and figures in order."""

    number: int
    title: str
    # Markdown chunks and figure ids, in reading order.
    blocks: tuple = ()
    line: int = 0

    @property
    def figures(self) -> tuple[int, ...]:
        """The ids of the figures in this section, in order."""
        return tuple(block for block in self.blocks if isinstance(block, int))

    @property
    def anchor(self) -> str:
        """The fragment that links to this section."""
        return f"section-{self.number}"

    @property
    def heading(self) -> str:
        """The heading as shown: ``2. Title``."""
        return f"{self.number}. {self.title}"


@dataclass(frozen=True)
class Page:
    """A page of content: its front matter and its sections."""

    slug: str
    title: str
    kind: str
    builds_on: tuple[str, ...]
    tags: tuple[str, ...]
    summary: str
    sections: tuple[Section, ...]
    path: Path = field(compare=False)
    # (number as the page writes it, where it comes from), from the front matter.
    numbers: tuple[tuple[str, str], ...] = field(default=(), compare=False)

    @property
    def figures(self) -> tuple[int, ...]:
        """The ids of the figures on this page, in reading order."""
        return tuple(f for section in self.sections for f in section.figures)


@dataclass(frozen=True)
class Topic:
    """A topic: the pages to read first, the pages whose figures it gathers, its text."""

    slug: str
    title: str
    category: str
    intro: str
    read_first: tuple[str, ...]
    pages: tuple[str, ...]
    text: str
    path: Path = field(compare=False)


@dataclass(frozen=True)
class FigureUse:
    """Where a figure lives: the page and section that show it."""

    figure_id: int
    page: Page
    section: Section


@dataclass(frozen=True)
class Library:
    """Every page and topic, by slug, with the rules the topic page follows."""

    pages: dict[str, Page]
    topics: dict[str, Topic]

    def reading_order(self, topic: Topic) -> list[Page]:
        """The topic's read-first pages, each after the pages it builds on."""
        return [self.pages[slug] for slug in ordered(topic.read_first, self.prerequisites)]

    def prerequisites(self, slug: str) -> set[str]:
        """Every page ``slug`` builds on, directly or through other pages."""
        seen, stack = set(), list(self.pages[slug].builds_on)
        while stack:
            current = stack.pop()
            if current not in seen:
                seen.add(current)
                stack.extend(self.pages[current].builds_on)
        return seen

    def figure_uses(self, topic: Topic) -> list[FigureUse]:
        """Each figure the topic's pages show, with the page and section showing it."""
        return [
            FigureUse(figure_id, self.pages[slug], section)
            for slug in topic.pages
            for section in self.pages[slug].sections
            for figure_id in section.figures
        ]

    def figures_shown(self, topic: Topic) -> list[tuple[int, list[FigureUse]]]:
        """Each figure the topic shows once, in order of first use, with every use of it.

        A topic over many pages lists a figure once however many pages show
        it, and names each of those pages in reading order.
        """
        return group_uses(self.figure_uses(topic))

    def tags(self, topic: Topic) -> list[tuple[str, int]]:
        """(tag, number of the topic's pages carrying it), most first, then by name."""
        counts = Counter(tag for slug in topic.pages for tag in set(self.pages[slug].tags))
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))

    def uses_of(self, figure_id: int) -> list[FigureUse]:
        """Every page section that shows the figure, page by page; empty if none does."""
        return [
            FigureUse(figure_id, page, section)
            for page in self.pages.values()
            for section in page.sections
            if figure_id in section.figures
        ]

    def home_of(self, figure_id: int) -> FigureUse | None:
        """The first page section that shows the figure; None if no page does."""
        uses = self.uses_of(figure_id)
        return uses[0] if uses else None


def group_uses(uses: list[FigureUse]) -> list[tuple[int, list[FigureUse]]]:
    """``uses`` grouped by figure: (figure id, its uses), in order of first use."""
    groups: dict[int, list[FigureUse]] = {}
    for use in uses:
        groups.setdefault(use.figure_id, []).append(use)
    return list(groups.items())


def ordered(slugs, prerequisites) -> list[str]:
    """``slugs`` with every page after the pages it builds on; ties keep list order."""
    remaining = list(slugs)
    done: list[str] = []
    while remaining:
        ready = next((s for s in remaining if not (prerequisites(s) & set(remaining) - {s})), None)
        if ready is None:
            raise ValueError(f"pages build on each other in a cycle: {', '.join(remaining)}")
        remaining.remove(ready)
        done.append(ready)
    return done


# --- reading files ------------------------------------------------------------


@dataclass
class _Source:
    """One file split into front matter (with key lines) and body."""

    path: Path
    meta: dict
    key_lines: dict
    body: list[str]
    body_start: int  # line number of body[0]
    value_nodes: dict = field(default_factory=dict)  # field → its YAML node, for item lines


def _read(path: Path, problems: list[Problem]) -> str | None:
    """The text of ``path``, or None with the reason it cannot be content."""
    try:
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            problems.append(Problem(path, 1, "is a folder; a page or topic is a .md file"))
            return None
        if not stat.S_ISREG(info.st_mode):
            problems.append(Problem(path, 1, "is not a regular file"))
            return None
        if info.st_size > MAX_BYTES:
            problems.append(
                Problem(
                    path,
                    1,
                    f"is {info.st_size:,} bytes; a content file may have at most "
                    f"{MAX_BYTES:,} ({MAX_BYTES // 1024} KB)",
                )
            )
            return None
        with path.open("rb") as file:
            data = file.read(MAX_BYTES + 1)
    except OSError as error:
        problems.append(Problem(path, 1, f"cannot be read: {error.strerror or error}"))
        return None
    if len(data) > MAX_BYTES:  # grew while we looked
        problems.append(Problem(path, 1, f"is over {MAX_BYTES:,} bytes"))
        return None
    data = data.removeprefix(b"\xef\xbb\xbf")
    if b"\0" in data:
        line = data.count(b"\n", 0, data.index(b"\0")) + 1
        problems.append(Problem(path, line, "contains a NUL byte; content is plain text"))
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        problems.append(
            Problem(
                path,
                line,
                f"is not UTF-8 text (byte 0x{data[error.start]:02x}); save the file as UTF-8",
            )
        )
        return None


class _Refused(yaml.YAMLError):
    """Front matter that is valid YAML but not plain data."""

    def __init__(self, mark, problem: str):
        super().__init__(problem)
        self.problem_mark, self.problem = mark, problem


class _PlainLoader(yaml.SafeLoader):
    """SafeLoader that refuses anchors, aliases and deep nesting while composing.

    An alias makes one short line stand for a whole subtree, and aliases of
    aliases grow exponentially: a 300-byte front matter could load as megabytes.
    """

    def compose_node(self, parent, index):
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise _Refused(
                event.start_mark,
                "uses a YAML anchor or alias (&name, *name); write the value out instead",
            )
        self._depth = getattr(self, "_depth", 0) + 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                raise _Refused(event.start_mark, "is nested too deeply")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _split(path: Path, problems: list[Problem]) -> _Source | None:
    text = _read(path, problems)
    if text is None:
        return None
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        problems.append(Problem(path, 1, "the file must start with '---' and YAML front matter"))
        return None
    try:
        end = next(n for n in range(1, len(lines)) if lines[n].strip() == "---")
    except StopIteration:
        problems.append(Problem(path, 1, "front matter is not closed by a '---' line"))
        return None
    text = "\n".join(lines[1:end])
    loader = None
    try:
        loader = _PlainLoader(text)
        node = loader.get_single_node()
        key_lines, value_nodes = _keys(node, path, problems)
        if key_lines is None:
            return None
        meta = (loader.construct_document(node) if node is not None else None) or {}
    except yaml.reader.ReaderError as error:
        line = text.count("\n", 0, error.position) + 2
        problems.append(
            Problem(path, line, f"front matter holds the control character U+{error.character:04X}")
        )
        return None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 2 if mark else 1
        # problem alone: str(error) spans lines and counts them from the front matter.
        why = getattr(error, "problem", None) or str(error).splitlines()[0]
        what = "front matter" if isinstance(error, _Refused) else "front matter is not valid YAML:"
        problems.append(Problem(path, line, f"{what} {why}"))
        return None
    finally:
        if loader is not None:
            loader.dispose()
    if any(not isinstance(key, str) for key in meta):
        line = next(
            (n for key, n in key_lines.items() if not isinstance(yaml.safe_load(key), str)), 2
        )
        problems.append(Problem(path, line, "a field name must be a plain word"))
        return None
    return _Source(path, meta, key_lines, lines[end + 1 :], end + 2, value_nodes)


def _keys(node, path: Path, problems: list[Problem]) -> tuple[dict | None, dict]:
    """(field → line, field → value node) of a front matter, or None after a problem."""
    if node is None:
        return {}, {}
    if not isinstance(node, yaml.MappingNode):
        problems.append(Problem(path, 2, "front matter must be a mapping of 'field: value'"))
        return None, {}
    key_lines: dict = {}
    value_nodes: dict = {}
    ok = True
    for key, value in node.value:
        line = key.start_mark.line + 2
        if not isinstance(key, yaml.ScalarNode):
            problems.append(Problem(path, line, "a field name must be a plain word"))
            ok = False
        elif key.value in key_lines:
            problems.append(
                Problem(
                    path,
                    line,
                    f"field {_quote(key.value)} is given twice "
                    f"(also on line {key_lines[key.value]})",
                )
            )
            ok = False
        else:
            key_lines[key.value] = line
            value_nodes[key.value] = value
    return (key_lines if ok else None), value_nodes


def _quote(text: str, limit: int = 40) -> str:
    """``text`` quoted for a message, cut short when long."""
    return repr(text if len(text) <= limit else text[:limit] + "…")


def _fields(source: _Source, required, problems) -> dict | None:
    missing = [name for name in required if name not in source.meta]
    for name in missing:
        problems.append(Problem(source.path, 1, f"missing required field '{name}'"))
    for name in required:
        if name not in source.meta:
            continue
        value, line = source.meta[name], source.key_lines[name]
        if name in LIST_FIELDS:
            if not isinstance(value, list):
                problems.append(Problem(source.path, line, f"'{name}' must be a list, like [a, b]"))
                missing.append(name)
                continue
            items = getattr(source.value_nodes.get(name), "value", [])
            for n, item in enumerate(value):
                if not isinstance(item, str) or not item.strip():
                    at = items[n].start_mark.line + 2 if n < len(items) else line
                    problems.append(
                        Problem(
                            source.path,
                            at,
                            f"each entry of '{name}' must be text, not {_describe(item)}",
                        )
                    )
                    missing.append(name)
        elif name in TEXT_FIELDS and (not isinstance(value, str) or not value.strip()):
            problems.append(
                Problem(
                    source.path,
                    line,
                    f"'{name}' must be text, not {_describe(value)}"
                    + ("; put it in quotes" if isinstance(value, (int, float, bool)) else ""),
                )
            )
            missing.append(name)
    for name in ("slug", *(f for f in ("builds_on", "read_first", "pages") if f in required)):
        values = source.meta.get(name)
        for slug in values if isinstance(values, list) else [values]:
            if isinstance(slug, str) and slug.strip() and not SLUG.fullmatch(slug):
                problems.append(
                    Problem(
                        source.path,
                        source.key_lines[name],
                        f"slug {_quote(slug)} may hold only lower-case letters a-z, digits and "
                        "single hyphens, like 'attention-is-all-you-need'",
                    )
                )
                missing.append(name)
    return None if missing else source.meta


def _describe(value) -> str:
    if value is None:
        return "empty"
    if isinstance(value, str):
        return "empty text"
    return {list: "a list", dict: "a mapping", bool: "true/false"}.get(
        type(value), f"{type(value).__name__} {value!r}"[:60]
    )


_MARKDOWN = None


def _markdown_parser():
    """A parser that reads Markdown the way Panel's Markdown pane renders it."""
    global _MARKDOWN
    if _MARKDOWN is None:
        from markdown_it import MarkdownIt

        _MARKDOWN = MarkdownIt("gfm-like").enable(["strikethrough", "table"])
    return _MARKDOWN


def _check_markdown(path: Path, text: str, first_line: int, problems: list[Problem]):
    """Report raw HTML, outside images and unsafe links in one rendered chunk."""
    if not CHECK_MARKUP:
        return
    # Panel dedents a chunk before rendering it; line counts do not change.
    tokens = _markdown_parser().parse(textwrap.dedent(text))
    for token in tokens:
        line = first_line + (token.map[0] if token.map else 0)
        if token.type == "html_block":
            problems.append(Problem(path, line, _raw_html(token.content)))
        for child in token.children or []:
            if child.type == "html_inline":
                problems.append(Problem(path, line, _raw_html(child.content)))
            elif child.type == "image":
                src = str(child.attrs.get("src", ""))
                if not _site_relative(src):
                    problems.append(
                        Problem(
                            path,
                            line,
                            f"image {_quote(src, 60)} is not in the site; an image is a "
                            "relative path like figures/x.png (pages never fetch from outside)",
                        )
                    )
            elif child.type == "link_open":
                href = str(child.attrs.get("href", ""))
                scheme = SCHEME.match(href)
                if scheme and scheme.group(1).lower() not in LINK_SCHEMES:
                    problems.append(
                        Problem(
                            path,
                            line,
                            f"link {_quote(href, 60)}: only http, https and mailto links",
                        )
                    )
            elif child.type in ("softbreak", "hardbreak"):
                line += 1
            elif child.type in ("text", "code_inline"):
                line += child.content.count("\n")


def _raw_html(markup: str) -> str:
    first = markup.strip().splitlines()[0] if markup.strip() else markup
    return (
        f"raw HTML is not allowed in content ({_quote(first)}); write Markdown, "
        "or '&lt;' for a literal '<'"
    )


def _site_relative(url: str) -> bool:
    url = url.strip()
    return bool(url) and not (
        SCHEME.match(url) or url.startswith(("/", "\\")) or any(c < " " for c in url)
    )


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
        _numbers(source, figure_ids, problems),
    )


def _numbers(source: _Source, figure_ids, problems) -> tuple[tuple[str, str], ...]:
    """The optional ``numbers:`` mapping: each number the page states → where it comes from."""
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
        found.append((str(number), origin.strip()))
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


def _check_links(pages, topics, sources, problems):
    def line_of(item, key):
        return sources[item.path].key_lines.get(key, 1)

    for page in pages.values():
        for slug in page.builds_on:
            if slug not in pages:
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
                if slug not in pages:
                    problems.append(
                        Problem(
                            topic.path,
                            line_of(topic, key),
                            f"{key} names '{slug}', which is no page's slug",
                        )
                    )
    for cycle in _cycles(pages):
        for slug in cycle:
            page = pages[slug]
            problems.append(
                Problem(
                    page.path,
                    line_of(page, "builds_on"),
                    "pages build on each other in a cycle: " + " → ".join([*cycle, cycle[0]]),
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
            elif first.setdefault(slug, tag) != tag:
                problems.append(
                    Problem(
                        page.path,
                        line,
                        f"tags {_quote(first[slug])} and {_quote(tag)} would share the page "
                        f"tag-{slug}; write them the same way",
                    )
                )


def _cycles(pages) -> list[list[str]]:
    """Each cycle of builds-on links once, as the list of slugs around it."""
    cycles, state = [], {}

    def visit(slug, trail):
        state[slug] = "open"
        for nxt in pages[slug].builds_on:
            if nxt not in pages:
                continue
            if state.get(nxt) == "open":
                cycles.append(trail[trail.index(nxt) :])
            elif nxt not in state:
                visit(nxt, [*trail, nxt])
        state[slug] = "done"

    for slug in sorted(pages):
        if slug not in state:
            visit(slug, [slug])
    return cycles


def default_root() -> Path:
    """``$POSVIZ_CONTENT``, else the repository's ``content/``, else the packaged copy."""
    if env := os.environ.get("POSVIZ_CONTENT"):
        return Path(env)
    package = Path(__file__).resolve().parent
    for candidate in (package.parent.parent / "content", package / "_content"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("no content folder found; set POSVIZ_CONTENT to one")


def load(root: Path | None = None, figure_ids=None) -> Library:
    """Read and validate every page and topic under ``root``."""
    root = Path(root) if root else default_root()
    if figure_ids is None:
        from posviz.figures import figure_ids as read_ids

        figure_ids = read_ids()
    problems: list[Problem] = []
    sources = {}
    pages, topics = [], []
    for folder, reader in (("pages", _page), ("topics", _topic)):
        for path in sorted((root / folder).glob("*.md")):
            source = _split(path, problems)
            if source is None:
                continue
            sources[path] = source
            item = (
                reader(source, figure_ids, problems)
                if folder == "pages"
                else reader(source, problems)
            )
            if item is not None:
                (pages if folder == "pages" else topics).append(item)
    if not pages and not problems:
        why = (
            "no pages found"
            if root.is_dir()
            else "no such folder; give the folder that holds pages/ and topics/"
        )
        problems.append(Problem(root / "pages" if root.is_dir() else root, 0, why))
    page_map = _unique(pages, sources, problems, "page")
    topic_map = _unique(topics, sources, problems, "topic")
    _check_links(page_map, topic_map, sources, problems)
    _check_tags(page_map, sources, problems)
    if problems:
        raise ContentError(problems)
    return Library(page_map, topic_map)

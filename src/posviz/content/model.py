"""The content model and its rules: pages, topics, figure uses, reading order, cycles, tags."""

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from posviz.urls import tag_word as tag_slug

PAGE_KINDS = ("Paper", "Read")
PAGE_FIELDS = ("slug", "title", "kind", "builds_on", "tags", "summary")
TOPIC_FIELDS = ("slug", "title", "category", "intro", "read_first", "pages")
LIST_FIELDS = {"builds_on", "tags", "read_first", "pages"}
TEXT_FIELDS = {"slug", "title", "kind", "summary", "category", "intro"}
SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


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
    # The same with the line of each entry, (number, origin, line): for file:line problems.
    number_lines: tuple[tuple[str, str, int], ...] = field(default=(), compare=False)

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
        return uses_in(self.pages[slug] for slug in topic.pages)

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
        return [use for use in uses_in(self.pages.values()) if use.figure_id == figure_id]

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
    """``slugs`` with every page after the pages it builds on; ties keep list order.

    ``posviz check`` refuses a cycle (see ``cycles``); a library built without
    it that holds one is a ValueError naming the cycle.
    """
    remaining = list(slugs)
    done: list[str] = []
    while remaining:
        ready = next((s for s in remaining if not (prerequisites(s) & set(remaining) - {s})), None)
        if ready is None:
            later = {s: sorted(prerequisites(s) & set(remaining) - {s}) for s in remaining}
            raise ValueError(cycle_message(cycles(later)[0]))
        remaining.remove(ready)
        done.append(ready)
    return done


def cycles(builds_on: dict) -> list[list[str]]:
    """Each cycle of builds-on links once, as the list of slugs around it.

    ``builds_on`` maps each slug to the slugs it builds on; others are ignored.
    """
    found, state = [], {}

    def visit(slug, trail):
        state[slug] = "open"
        for nxt in builds_on[slug]:
            if nxt not in builds_on:
                continue
            if state.get(nxt) == "open":
                found.append(trail[trail.index(nxt) :])
            elif nxt not in state:
                visit(nxt, [*trail, nxt])
        state[slug] = "done"

    for slug in sorted(builds_on):
        if slug not in state:
            visit(slug, [slug])
    return found


def cycle_message(cycle: list[str]) -> str:
    """The problem a cycle of pages is, in words."""
    return "pages build on each other in a cycle: " + " → ".join([*cycle, cycle[0]])


def uses_in(pages) -> list[FigureUse]:
    """Each figure the ``pages`` show, with the page and section showing it, in reading order.

    A section that shows a figure twice is one use of it.
    """
    return [
        FigureUse(figure_id, page, section)
        for page in pages
        for section in page.sections
        for figure_id in dict.fromkeys(section.figures)
    ]


def tag_clash(seen: dict[str, str], tag: str) -> str | None:
    """The tag already seen with the URL word of ``tag`` (its page's name), if another.

    Call it for each tag in turn with the same ``seen``; two tags that differ only
    in case or punctuation would share a page.
    """
    other = seen.setdefault(tag_slug(tag), tag)
    return other if other != tag else None

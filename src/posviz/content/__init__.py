"""The site's text: pages and topics, loaded from ``content/`` and validated once.

One module per job, every public name importable from here: ``model`` (pages,
topics, figure uses and the rules the topic page follows), ``files`` (reading
a file and its YAML safely), ``markdown`` (the Markdown checks) and ``parse``
(pages and topics from their files, and the checks across files; ``load``) and
``numbers`` (the numbers a page declares, against the figure views they come
from; ``posviz check`` runs it).

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

from posviz.content.files import (  # noqa: F401
    MAX_BYTES,
    MAX_YAML_DEPTH,
)
from posviz.content.markdown import (  # noqa: F401
    CHECK_MARKUP,
    LINK_SCHEMES,
    SCHEME,
    _check_markdown,
)
from posviz.content.model import (  # noqa: F401
    LIST_FIELDS,
    PAGE_FIELDS,
    PAGE_KINDS,
    SLUG,
    TEXT_FIELDS,
    TOPIC_FIELDS,
    ContentError,
    FigureUse,
    Library,
    Page,
    Problem,
    Section,
    Topic,
    cycle_message,
    cycles,
    group_uses,
    ordered,
    tag_clash,
    uses_in,
)
from posviz.content.numbers import check_figure_numbers, check_numbers, shown_by  # noqa: F401
from posviz.content.parse import (  # noqa: F401
    FIGURE,
    FIGURE_ID,
    FIGURE_VIEW,
    SECTION,
    default_root,
    load,
)
from posviz.urls import tag_word as tag_slug  # noqa: F401  (the URL word of a tag, in urls)

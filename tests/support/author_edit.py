"""An author's everyday edit of the real content, for tests that prove it needs no test edit.

One heading that is not the seed's renamed, a sentence added, a tag added to a
topic page, a summary rewritten: none of it touches a seed fact (reading order,
the four figures' "From" lines, the seed's tags and counts) or a checked number.
"""

from pathlib import Path

AIAYN = "attention-is-all-you-need"
PIXELS = "attention-meets-pixels"
QKV = "query-key-value"

# (page file, text as it is, text after the edit); each old text occurs once.
EDITS = (
    (
        f"pages/{AIAYN}.md",
        "## 3. The Decoder Layer\n",
        "## 3. Inside the Decoder, Layer by Layer\n",
    ),
    (
        f"pages/{QKV}.md",
        "Attention relaxes this.",
        "Attention relaxes this. A soft lookup can still behave like a hard one.",
    ),
    (
        f"pages/{AIAYN}.md",
        "tags: [Transformers, Self-attention]\n",
        "tags: [Transformers, Self-attention, Encoder-decoder]\n",
    ),
    (
        f"pages/{PIXELS}.md",
        "summary: Why attention over every pixel costs too much,",
        "summary: An image has far more tokens than a sentence; this page asks why global "
        "attention over every pixel costs too much,",
    ),
)


def apply_author_edit(root: Path) -> None:
    """Make the edit in the content folder ``root`` (a copy: it rewrites files)."""
    for name, old, new in EDITS:
        path = Path(root) / name
        text = path.read_text("utf-8")
        if text.count(old) != 1:
            raise AssertionError(f"{path}: {old!r} is not there exactly once; update EDITS")
        path.write_text(text.replace(old, new), "utf-8")


if __name__ == "__main__":  # python -m tests.support.author_edit FOLDER
    import sys

    apply_author_edit(Path(sys.argv[1]))

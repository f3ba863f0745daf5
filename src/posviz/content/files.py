"""Reading an author's file safely: size, encoding, and plain YAML front matter."""

import stat
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from posviz.content.model import LIST_FIELDS, SLUG, TEXT_FIELDS, Problem

MAX_BYTES = 256 * 1024
MAX_YAML_DEPTH = 8


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
        # Where the broken construct began, when that is an earlier line (an unclosed
        # ``[`` is found only on the line after it).
        context, began = getattr(error, "context", None), getattr(error, "context_mark", None)
        if context and began and mark and began.line < mark.line:
            why += f", {context} that begins on line {began.line + 2}"
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

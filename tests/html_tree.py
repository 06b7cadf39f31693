"""A small HTML tree for tests (the standard library's parser, no dependency): elements with
their tag, attributes, children and text, enough to compare what two parts of a page say or
to walk every visible text node."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = {
    "area",
    "base",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "source",
    "track",
    "wbr",
}
INVISIBLE = {"script", "style", "template", "head", "title", "svg", "noscript"}


@dataclass
class Element:
    """One element: ``tag``, ``attrs`` and ``children`` (elements and text strings)."""

    tag: str
    attrs: dict[str, str] = field(default_factory=dict)
    children: list[Element | str] = field(default_factory=list)
    parent: Element | None = field(default=None, repr=False)

    @property
    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def iter(self) -> Iterator[Element]:
        """This element and every element inside it, in document order."""
        yield self
        for child in self.children:
            if isinstance(child, Element):
                yield from child.iter()

    def find_all(self, tag: str, cls: str | None = None) -> list[Element]:
        return [e for e in self.iter() if e.tag == tag and (cls is None or cls in e.classes)]

    def text(self) -> str:
        """The element's text, whitespace collapsed."""
        parts: list[str] = []

        def walk(node: Element | str) -> None:
            if isinstance(node, str):
                parts.append(node)
            else:
                for child in node.children:
                    walk(child)

        walk(self)
        return " ".join("".join(parts).split())


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document")
        self.current = self.root

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs}, parent=self.current)
        self.current.children.append(element)
        if tag not in VOID:
            self.current = element

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.current.children.append(
            Element(tag, {k: v or "" for k, v in attrs}, parent=self.current)
        )

    def handle_endtag(self, tag: str) -> None:
        node: Element | None = self.current
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.current = node.parent

    def handle_data(self, data: str) -> None:
        self.current.children.append(data)


def parse(html: str) -> Element:
    """The document's tree."""
    builder = _Builder()
    builder.feed(html)
    builder.close()
    return builder.root

"""Markdown → safe HTML for posts and notes.

Two well-kept libraries in series: markdown-it-py (CommonMark, raw HTML disabled, so ``<script>``
in a post is text) renders, then nh3 (ammonia) sanitises with an allow-list: no script, no event
handler attributes, no ``style``, no images (an image would load from a third party when the post
is read, e-mails included), links only http/https/mailto and always ``rel="nofollow noopener"``.
The HTML is made once when a post is saved and stored beside its source.

Two additions to CommonMark, both plain text without JavaScript:

- ``@name`` of a campaign member (a username or a character's name, the longest that fits,
  any case) becomes a link with class ``mention`` when the caller passes the campaign's
  ``MentionTarget`` list (``escenas.mentions``); ``render_post`` also returns who was named.
- a spoiler block: a line ``::: spoiler`` (optionally followed by its title), the hidden text,
  then a line ``:::`` — a ``<details>`` element, closed until the reader opens it (keyboard
  and screen readers included). Lines inside code fences are never taken as either.
"""

from __future__ import annotations

import html as html_lib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import nh3
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_inline import StateInline


@dataclass(frozen=True, slots=True)
class MentionTarget:
    """A name that ``@`` may mention: ``name`` as typed after the ``@`` (a username or a
    character's name), the member's ``user_id`` and the ``href`` the mention links to."""

    name: str
    user_id: int
    href: str


def _image_as_link(self, tokens, idx, options, env):
    # Images are not shown (they would load from a third party); the alt text links to them.
    token = tokens[idx]
    src = str(token.attrGet("src") or "")
    alt = self.renderInlineAsText(token.children or [], options, env) or src
    return f'<a href="{escapeHtml(src)}">{escapeHtml(alt)}</a>'


_md = (
    MarkdownIt(
        "commonmark", {"html": False, "linkify": False, "breaks": True, "typographer": False}
    )
    .enable("strikethrough")
    .enable("table")
)
_md.add_render_rule("image", _image_as_link)


def _word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def _mention_rule(state: StateInline, silent: bool) -> bool:
    # At an "@" not glued to a word (an e-mail address is not a mention), the longest known
    # name that ends at a word boundary.
    pos = state.pos
    if state.src[pos] != "@" or (pos > 0 and _word_char(state.src[pos - 1])):
        return False
    targets: Sequence[MentionTarget] = state.env.get("mentions") or ()
    rest = state.src[pos + 1 :]
    for target in targets:  # longest first (``render_post`` sorts them)
        n = len(target.name)
        typed = rest[:n]
        if (
            n
            and typed.lower() == target.name.lower()
            and not (len(rest) > n and _word_char(rest[n]))
        ):
            if not silent:
                token = state.push("mention", "", 0)
                token.meta = {"href": target.href, "text": "@" + typed}
                state.env.setdefault("mentioned", set()).add(target.user_id)
            state.pos += n + 1
            return True
    return False


def _render_mention(self, tokens, idx, options, env):
    meta = tokens[idx].meta
    return f'<a href="{escapeHtml(meta["href"])}" class="mention">{escapeHtml(meta["text"])}</a>'


_md.inline.ruler.before("emphasis", "mention", _mention_rule)
_md.add_render_rule("mention", _render_mention)

ALLOWED_TAGS = frozenset(
    {
        "p", "br", "strong", "em", "del", "s", "code", "pre", "blockquote", "ul", "ol", "li",
        "h1", "h2", "h3", "h4", "h5", "h6", "hr", "a", "table", "thead", "tbody", "tr", "th",
        "td", "details", "summary",
    }
)  # fmt: skip
ALLOWED_CLASSES = {"a": {"mention"}}
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}, "th": {"align"}, "td": {"align"}}
URL_SCHEMES = frozenset({"http", "https", "mailto"})
LINK_REL = "nofollow noopener"


def render_markdown(text: str, *, mentions: Sequence[MentionTarget] = ()) -> str:
    """Markdown source → sanitised HTML (a ``str``, safe to mark safe in templates).

    Headings are kept (h1–h6) and styled small by the stylesheet. Empty text gives ``""``.
    ``mentions``: the names ``@`` may link (see ``render_post``).
    """
    return render_post(text, mentions=mentions)[0]


def render_post(text: str, *, mentions: Sequence[MentionTarget] = ()) -> tuple[str, frozenset[int]]:
    """Markdown source → (sanitised HTML, ids of the users its ``@`` mentions name).

    ``mentions`` are the campaign's ``MentionTarget``s (any order); with none, ``@`` is text.
    """
    if not text.strip():
        return "", frozenset()
    env: dict[str, Any] = {"mentions": sorted(mentions, key=lambda t: -len(t.name))}
    parts = []
    for title, source in spoiler_segments(text):
        html = _md.render(source, env)
        if title is not None:
            summary = escapeHtml(title or "Spoiler")
            html = f"<details><summary>{summary}</summary>{html}</details>"
        parts.append(html)
    clean = nh3.clean(
        "".join(parts),
        tags=set(ALLOWED_TAGS),
        attributes={k: set(v) for k, v in ALLOWED_ATTRIBUTES.items()},
        allowed_classes={k: set(v) for k, v in ALLOWED_CLASSES.items()},
        url_schemes=set(URL_SCHEMES),
        link_rel=LINK_REL,
        strip_comments=True,
    )
    return clean, frozenset(env.get("mentioned", ()))


_SPOILER_OPEN = re.compile(r"^ {0,3}:::[ \t]*spoiler(?:[ \t]+(.*?))?[ \t]*$", re.IGNORECASE)
_SPOILER_CLOSE = re.compile(r"^ {0,3}:::[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def spoiler_segments(text: str) -> list[tuple[str | None, str]]:
    """The text cut into ``(None, markdown)`` and spoiler ``(title, markdown)`` pieces, in
    order (an unclosed spoiler runs to the end; spoilers do not nest; fenced code is left
    whole)."""
    pieces: list[tuple[str | None, str]] = []
    lines: list[str] = []
    title: str | None = None
    fence = ""
    for line in text.splitlines():
        opened = _FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
        elif opened:
            fence = opened.group(1)
        elif title is None and (start := _SPOILER_OPEN.match(line)):
            pieces.append((None, "\n".join(lines)))
            lines, title = [], (start.group(1) or "").strip()
            continue
        elif title is not None and _SPOILER_CLOSE.match(line):
            pieces.append((title, "\n".join(lines)))
            lines, title = [], None
            continue
        lines.append(line)
    pieces.append((title, "\n".join(lines)))
    return [(t, src) for t, src in pieces if t is not None or src.strip()]


_TAG = re.compile(r"<[^>]+>")
_SPACE = re.compile(r"\s+")


def plain_text(html: str) -> str:
    """The visible text of sanitised HTML, whitespace collapsed (for previews and snippets).

    The result is text, not HTML: templates escape it.
    """
    return _SPACE.sub(" ", html_lib.unescape(_TAG.sub(" ", html))).strip()


def snippet(text: str, query: str = "", length: int = 160) -> str:
    """About ``length`` characters of ``text`` around the first match of ``query`` (any case),
    with ``…`` where it was cut; the start of the text when there is no query or no match."""
    if len(text) <= length:
        return text
    at = text.lower().find(query.lower()) if query else -1
    start = max(0, at - length // 3) if at >= 0 else 0
    end = min(len(text), start + length)
    return ("…" if start else "") + text[start:end].strip() + ("…" if end < len(text) else "")

"""Markdown → safe HTML for posts and notes.

Two well-kept libraries in series: markdown-it-py (CommonMark, raw HTML disabled, so ``<script>``
in a post is text) renders, then nh3 (ammonia) sanitises with an allow-list: no script, no event
handler attributes, no ``style``, no images (an image would load from a third party when the post
is read, e-mails included), links only http/https/mailto and always ``rel="nofollow noopener"``.
The HTML is made once when a post is saved and stored beside its source.
"""

from __future__ import annotations

import html as html_lib
import re

import nh3
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml


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

ALLOWED_TAGS = frozenset(
    {
        "p", "br", "strong", "em", "del", "s", "code", "pre", "blockquote", "ul", "ol", "li",
        "h1", "h2", "h3", "h4", "h5", "h6", "hr", "a", "table", "thead", "tbody", "tr", "th",
        "td",
    }
)  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}, "th": {"align"}, "td": {"align"}}
URL_SCHEMES = frozenset({"http", "https", "mailto"})
LINK_REL = "nofollow noopener"


def render_markdown(text: str) -> str:
    """Markdown source → sanitised HTML (a ``str``, safe to mark safe in templates).

    Headings are kept (h1–h6) and styled small by the stylesheet. Empty text gives ``""``.
    """
    if not text.strip():
        return ""
    html = _md.render(text)
    return nh3.clean(
        html,
        tags=set(ALLOWED_TAGS),
        attributes={k: set(v) for k, v in ALLOWED_ATTRIBUTES.items()},
        url_schemes=set(URL_SCHEMES),
        link_rel=LINK_REL,
        strip_comments=True,
    )


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

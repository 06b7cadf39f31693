"""Search the posts of a campaign like a forum does: ranked full-text search with highlighted
excerpts on PostgreSQL (the ``partida_es`` configuration: Spanish stemming over ``unaccent``,
GIN-indexed, migration 0006), a simpler fallback on SQLite that still folds case and accents
(``SÓLO`` finds ``sólo``), and filters by author, character, scene, day range and "has a roll".

Never shows what the reader may not read: the scenes and posts are those of
``scenes_readable_q`` and ``posts_visible_q``; only the post's public text is searched (not the
note to the master), and "has a roll" counts hidden rolls only as players already see them
(that a roll was made).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.postgres.search import SearchHeadline, SearchQuery, SearchRank, SearchVector
from django.db import connection
from django.db.models import Exists, F, Func, OuterRef, QuerySet, TextField, Value
from django.db.models.functions import Lower
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from escenas.access import posts_visible_q, scenes_readable_q
from escenas.models import Post, PostRoll, Scene
from escenas.rendering import plain_text, snippet
from mundo.models import Campaign
from nucleo.text import fold
from personajes.access import CharacterViewer

SEARCH_RESULTS = 50
"""Most search results shown (ranked best first on PostgreSQL, newest first on SQLite)."""

CONFIG = "partida_es"
"""The PostgreSQL text search configuration made by migration 0006 (spanish + unaccent)."""

# Sentinels around the matched words in PostgreSQL's headline: the excerpt is escaped as text
# first, then they become <mark>, so nothing of the post's source reaches the page as HTML.
_START, _STOP = "\x02", "\x03"

# The excerpt is cut from the post's source with Markdown's marks blanked (``**¡Fuera!**`` reads
# ``¡Fuera!``): the stored HTML would give PostgreSQL tags to highlight.
_MARKDOWN_STRIPPED = Func(
    F("body"), Value(r"[*_~`>#|\[\]]+"), Value(" "), Value("g"), function="regexp_replace"
)


@dataclass(frozen=True, slots=True)
class SearchFilters:
    """What the reader asked: the words (``query``, 2–100 characters) and the optional filters.
    ``author`` is a username; ``day_from``/``day_to`` in-game days, inclusive."""

    query: str = ""
    author: str = ""
    character_id: int | None = None
    scene_id: int | None = None
    day_from: int | None = None
    day_to: int | None = None
    has_roll: bool = False


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One result: the post and an excerpt of its text with the matched words in ``<mark>``."""

    post: Post
    excerpt: SafeString


def readable_scenes(campaign: Campaign, viewer: CharacterViewer) -> QuerySet[Scene]:
    """The campaign's scenes the viewer may read (the search form's scene filter)."""
    return Scene.objects.filter(campaign=campaign).filter(scenes_readable_q(viewer))


def search_posts(
    campaign: Campaign, viewer: CharacterViewer, filters: SearchFilters
) -> list[SearchHit]:
    """The posts of ``campaign`` the viewer may read that match ``filters``, at most
    ``SEARCH_RESULTS``. No words and no filter → nothing. One query (a second on PostgreSQL
    only when the ranked search finds nothing)."""
    words = filters.query.strip()
    if len(words) < 2 and not _has_filter(filters):
        return []
    posts = _filtered(campaign, viewer, filters).select_related("scene", "campaign")
    if len(words) < 2:
        rows = posts.order_by("-id")[:SEARCH_RESULTS]
        return [SearchHit(p, _excerpt(p, "")) for p in rows]
    if connection.vendor == "postgresql":
        # Words PostgreSQL drops (Spanish stop words: "fuera", "sólo"…) match nothing ranked:
        # then the folded substring search answers, as on SQLite (a second query, only then).
        return _full_text(posts, words) or _substring(posts, words, "unaccent")
    return _substring(posts, words, "partida_fold")


def _substring(posts: QuerySet[Post], words: str, folding: str) -> list[SearchHit]:
    """Posts whose folded text contains the folded words, newest first. ``folding`` is the SQL
    function that folds: ``unaccent`` (then lower-cased) on PostgreSQL, ``partida_fold`` on
    SQLite (``nucleo.apps``)."""
    folded = Func(F("body"), function=folding, output_field=TextField())
    if folding == "unaccent":
        folded = Lower(folded)
    rows = posts.alias(folded=folded).filter(folded__contains=fold(words))
    return [SearchHit(p, _excerpt(p, words)) for p in rows.order_by("-id")[:SEARCH_RESULTS]]


def _has_filter(f: SearchFilters) -> bool:
    days = f.day_from is not None or f.day_to is not None
    return bool(f.author or f.character_id or f.scene_id or f.has_roll or days)


def _filtered(campaign: Campaign, viewer: CharacterViewer, f: SearchFilters) -> QuerySet[Post]:
    posts = Post.objects.filter(campaign=campaign, scene__in=readable_scenes(campaign, viewer))
    posts = posts.filter(posts_visible_q(viewer))
    if f.author:
        posts = posts.filter(author__username__iexact=f.author)
    if f.character_id:
        posts = posts.filter(character_id=f.character_id)
    if f.scene_id:
        posts = posts.filter(scene_id=f.scene_id)
    if f.day_from is not None:
        posts = posts.filter(day__gte=f.day_from)
    if f.day_to is not None:
        posts = posts.filter(day__lte=f.day_to)
    if f.has_roll:
        posts = posts.filter(Exists(PostRoll.objects.filter(post=OuterRef("pk"))))
    return posts


def _full_text(posts: QuerySet[Post], words: str) -> list[SearchHit]:
    query = SearchQuery(words, config=CONFIG, search_type="websearch")
    vector = SearchVector("body", config=CONFIG)  # the expression the GIN index holds
    rows = (
        posts.annotate(
            rank=SearchRank(vector, query),
            headline=SearchHeadline(
                _MARKDOWN_STRIPPED,
                query,
                config=CONFIG,
                start_sel=_START,
                stop_sel=_STOP,
                max_words=30,
                min_words=12,
            ),
        )
        .filter(rank__gt=0)
        .alias(matches=vector)
        .filter(matches=query)
        .order_by("-rank", "-id")[:SEARCH_RESULTS]
    )
    return [SearchHit(p, _marked(p.headline)) for p in rows]  # type: ignore[attr-defined]


def _marked(headline: str) -> SafeString:
    text = escape(" ".join(headline.split()))
    return mark_safe(text.replace(_START, "<mark>").replace(_STOP, "</mark>"))


def _excerpt(post: Post, words: str) -> SafeString:
    """About 160 characters around the first match (accents and case folded), the match in
    ``<mark>``; the start of the post when there are no words."""
    text = plain_text(post.body_html)
    if not words:
        return mark_safe(escape(snippet(text)))
    return _around(text, words)


def _around(text: str, words: str, length: int = 160) -> SafeString:
    folded, needle = fold(text), fold(words)
    at = folded.find(needle)
    if at < 0 or len(folded) != len(text):  # folding changed the length: no highlight
        return mark_safe(escape(snippet(text, words, length)))
    start = max(0, at - length // 3)
    end = min(len(text), start + length)
    before, match, after = text[start:at], text[at : at + len(needle)], text[at + len(needle) : end]
    return mark_safe(
        ("…" if start else "")
        + escape(before)
        + "<mark>"
        + escape(match)
        + "</mark>"
        + escape(after)
        + ("…" if end < len(text) else "")
    )

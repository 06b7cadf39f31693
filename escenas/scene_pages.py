"""A page of a scene's posts, by keyset (no OFFSET), with each post's fragment from the cache.

Pages hold ``PAGE_SIZE`` posts, oldest first. Their addresses are cursors on the post id, so a
link names the same posts however many are written later:

- ``?page=1`` (or ``?after=0``): the first page; ``?after=<id>``: the posts after that id;
- ``?before=<id>``: the page that ends just before that id (the *previous* link);
- ``?page=last``: the last page, aligned with the first (``total % PAGE_SIZE`` posts, or a full
  page), so walking back from it with *previous* gives the same pages as walking forward;
- no cursor: the first unread post's page (its posts from the first unread), or the last page
  when everything was read (the first page for someone who never opened the scene);
- ``?page=<n>`` (older links): the n-th page of ``PAGE_SIZE`` posts, found by the id that starts
  it (an index-only read of ids); past the end, the last page.

Unread posts (after the reader's marker, not their own) are counted in the same query: how
many in all (``N new since your last visit``), and how many come before the page; when some do,
the page's ``read_up_to`` is 0, so opening a later page never marks unread posts read that the
reader was not shown (the marker is one id: it may only move over posts that were shown).

Queries: the page's ids (1), the counts that place it (1: visible posts, those before it and
the unread ones; the last page counts first and needs no other), an older ``?page=<n>`` link
one more (the id that starts the page), and only for posts whose fragment is not cached, the
posts with their rolls and whisper recipients (3). Visibility rules: ``escenas.access``.

With an access fetched ``with_version`` (the scene page), the whole post list is cached under
the scene's version (``list_key``; ``escenas.fragments`` says what keeps it correct): a hit makes
none of these queries.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from django.db.models import Count, Q, QuerySet

from escenas import fragments
from escenas.access import SceneAccess, visible_posts
from escenas.models import Post
from escenas.selectors import PAGE_SIZE, PostView, post_view, scene_posts
from nucleo.bounds import row_id


@dataclass(frozen=True, slots=True)
class Cursor:
    """Where a page starts: ``kind`` one of ``first``, ``after``, ``before``, ``last``,
    ``number``, ``unread``; ``value`` the post id (``after``/``before``) or page number."""

    kind: str
    value: int = 0


def cursor_from(params: Any) -> Cursor:
    """The cursor of a request's query string (``after``, ``before``, ``page``); a value that
    is not a whole number in range is ignored (the default page), never an error."""

    def whole(name: str) -> int | None:
        return row_id(params.get(name, ""))

    after, before, page = whole("after"), whole("before"), params.get("page", "")
    if after is not None:
        return Cursor("after", after)
    if before is not None:
        return Cursor("before", before)
    if page == "last":
        return Cursor("last")
    number = whole("page")
    if number is not None and number > 1:
        return Cursor("number", number)
    if number == 1 or page == "1":
        return Cursor("first")
    return Cursor("unread")


@dataclass(frozen=True, slots=True)
class PostSlot:
    """One post of a page: its fragment's cache ``key`` and the stored ``html``, or (not
    cached) the ``view`` to render and store."""

    pk: int
    key: str
    html: str | None
    view: PostView | None
    unread: bool = False


@dataclass(frozen=True, slots=True)
class ScenePage:
    """One page of a scene as one viewer sees it: its post slots, how many visible posts come
    before it and in all (``total``), and the ids that make its cursors.

    ``list_key``: the cache key of the page's whole post list (empty: not cached, the access
    had no version); ``list_html``: that list as stored (placeholders in it), and then the slots
    carry only their ids (``{% cached_list %}`` writes it out, or renders and stores it)."""

    posts: list[PostSlot]
    before: int
    total: int
    unread: int = 0
    unread_before: int = 0
    last_read: int | None = None

    @property
    def first_unread_id(self) -> int | None:
        """The first unread post when it is on this page (none before the page), else None."""
        if self.last_read is None or self.unread_before or not self.unread:
            return None
        return next((slot.pk for slot in self.posts if slot.unread), None)

    @property
    def unread_elsewhere(self) -> bool:
        """Unread posts exist and the first of them is not on this page."""
        return bool(self.unread) and self.first_unread_id is None

    @property
    def read_up_to(self) -> int:
        """The id the reader's marker may advance to after this page: its last post, unless an
        unread post before the page was never shown (then 0: the marker stays, so the scene
        reopens at that post). Source: issue 15 item 4 ("never marks posts read that were not
        shown")."""
        return 0 if self.unread_before else self.last_post_id

    list_key: str = ""
    list_html: str | None = None

    @property
    def first_post_id(self) -> int:
        return self.posts[0].pk if self.posts else 0

    @property
    def last_post_id(self) -> int:
        return self.posts[-1].pk if self.posts else 0

    @property
    def has_previous(self) -> bool:
        return self.before > 0

    @property
    def has_next(self) -> bool:
        return self.before + len(self.posts) < self.total

    @property
    def is_last_page(self) -> bool:
        return not self.has_next

    @property
    def has_other_pages(self) -> bool:
        return self.has_previous or self.has_next

    @property
    def number(self) -> int:
        """1-based page number (exact on pages reached from the first or the last page)."""
        return self.before // PAGE_SIZE + 1

    @property
    def num_pages(self) -> int:
        return max(1, (self.total + PAGE_SIZE - 1) // PAGE_SIZE)


Row = tuple[int, Any, int | None]  # id, updated_at, author_id


def _unread_q(last_read: int | None, user_id: int | None) -> Q:
    """Unread posts: after the reader's marker and not their own (an impossible filter for
    anonymous readers, who have no marker)."""
    if last_read is None:
        return Q(pk__in=[])
    return Q(pk__gt=last_read) & ~Q(author_id=user_id)


def _counts(visible: QuerySet[Post], unread: Q, **extra: Any) -> dict[str, int]:
    return visible.aggregate(total=Count("id"), unread=Count("id", filter=unread), **extra)


def _rows(
    visible: QuerySet[Post], cursor: Cursor, last_read: int | None, unread: Q
) -> tuple[list[Row], int, dict[str, int] | None]:
    """The page's rows, the id before which its ``before`` count is taken and, when they had
    to be counted already (the last page), the visible and unread posts."""
    cols = ("id", "updated_at", "author_id")
    if cursor.kind == "unread" and last_read:
        rows = list(visible.filter(pk__gt=last_read).order_by("id").values_list(*cols)[:PAGE_SIZE])
        if rows:
            return rows, rows[0][0], None
        cursor = Cursor("last")
    if cursor.kind == "number":
        start = (cursor.value - 1) * PAGE_SIZE
        ids = list(visible.order_by("id").values_list("id", flat=True)[start - 1 : start])
        cursor = Cursor("after", ids[0]) if ids else Cursor("last")
    if cursor.kind == "last":
        counted = _counts(visible, unread)
        size = counted["total"] % PAGE_SIZE or PAGE_SIZE
        rows = list(visible.order_by("-id").values_list(*cols)[:size])[::-1]
        return rows, rows[0][0] if rows else 0, counted
    if cursor.kind == "before":
        rows = list(
            visible.filter(pk__lt=cursor.value).order_by("-id").values_list(*cols)[:PAGE_SIZE]
        )[::-1]
        return rows, rows[0][0] if rows else cursor.value, None
    after = cursor.value if cursor.kind == "after" else 0
    rows = list(visible.filter(pk__gt=after).order_by("id").values_list(*cols)[:PAGE_SIZE])
    return rows, rows[0][0] if rows else after + 1, None


def list_key(access: SceneAccess, cursor: Cursor, last_read: int | None) -> str:
    """The cache key of a page's post list: the scene, its ``SceneVersion``, the viewer (master
    or not and the user: whispers, authorship, the master's extras), the campaign's slug (in the
    links), the cursor and the read marker (the new-flags, the unread page). Empty when the
    access was fetched without a version."""
    version = access.version
    if version is None:
        return ""
    viewer = access.viewer
    who = f"{'m' if viewer.is_master else 'v'}{viewer.user_id or 0}"
    return fragments.versioned_key(
        "list",
        access.scene.pk,
        version.token,
        who,
        access.scene.campaign.slug,
        f"{cursor.kind}{cursor.value}",
        "-" if last_read is None else last_read,
    )


@dataclass(frozen=True, slots=True)
class StoredList:
    """What the cache keeps of a page's post list: its ``html`` (with placeholders) and the
    page's facts that the rest of the page reads (post ids with their unread flags,
    ``before``, ``total``, the unread counts and the marker they were counted from)."""

    html: str
    pks: tuple[int, ...]
    before: int
    total: int
    unread_pks: frozenset[int] = frozenset()
    unread: int = 0
    unread_before: int = 0
    last_read: int | None = None


def stored_list(page: ScenePage, html: str) -> StoredList:
    """The ``StoredList`` of a freshly rendered page."""
    return StoredList(
        html=html,
        pks=tuple(s.pk for s in page.posts),
        before=page.before,
        total=page.total,
        unread_pks=frozenset(s.pk for s in page.posts if s.unread),
        unread=page.unread,
        unread_before=page.unread_before,
        last_read=page.last_read,
    )


def scene_page(access: SceneAccess, *, cursor: Cursor, last_read: int | None) -> ScenePage:
    """The page of the scene's visible posts at ``cursor`` for ``access.viewer`` (see the module
    docstring), each post's fragment taken from the cache when stored (``escenas.fragments``).

    With ``access.version`` the whole post list is looked up first (``list_key``): on a hit no
    post query runs and the page carries the stored list."""
    key = list_key(access, cursor, last_read)
    if key:
        hit = fragments.cached_value(key)
        if isinstance(hit, StoredList):
            slots = [
                PostSlot(pk=pk, key="", html=None, view=None, unread=pk in hit.unread_pks)
                for pk in hit.pks
            ]
            return ScenePage(
                posts=slots,
                before=hit.before,
                total=hit.total,
                unread=hit.unread,
                unread_before=hit.unread_before,
                last_read=hit.last_read,
                list_key=key,
                list_html=hit.html,
            )
    page = _scene_page(access, cursor=cursor, last_read=last_read)
    return replace(page, list_key=key) if key else page


def _scene_page(access: SceneAccess, *, cursor: Cursor, last_read: int | None) -> ScenePage:
    viewer = access.viewer
    visible = visible_posts(access.scene, viewer)
    unread = _unread_q(last_read, viewer.user_id)
    rows, first, counted = _rows(visible, cursor, last_read, unread)

    def is_unread(pk: int, author_id: int | None) -> bool:
        return last_read is not None and pk > last_read and author_id != viewer.user_id

    on_page = sum(1 for pk, _at, author_id in rows if is_unread(pk, author_id))
    if counted is None:
        # One query still: the unread counts ride on the count that places the page.
        counts = _counts(
            visible,
            unread,
            before=Count("id", filter=Q(pk__lt=first)),
            unread_before=Count("id", filter=unread & Q(pk__lt=first)),
        )
    else:  # the last page: nothing after it, so the unread before it are the rest
        counts = counted | {
            "before": counted["total"] - len(rows),
            "unread_before": counted["unread"] - on_page,
        }
    generation = fragments.names_generation()
    keyed: list[tuple[int, str, bool]] = []
    for pk, updated_at, author_id in rows:
        is_author = viewer.user_id is not None and author_id == viewer.user_id
        rights = fragments.rights_class(is_master=viewer.is_master, is_author=is_author)
        is_new = last_read is not None and pk > last_read and not is_author
        key = fragments.post_key(
            post_id=pk,
            updated_at=updated_at,
            rights=rights,
            is_new=is_new,
            slug=access.scene.campaign.slug,
            generation=generation,
        )
        keyed.append((pk, key, is_new))
    stored = fragments.cached_fragments(key for _pk, key, _new in keyed)
    missing = [pk for pk, key, _new in keyed if key not in stored]
    views: dict[int, PostView] = {}
    if missing:
        for post in scene_posts(access.scene, viewer).filter(pk__in=missing):
            views[post.pk] = post_view(post, viewer, last_read=last_read)
    slots = [
        PostSlot(pk=pk, key=key, html=stored.get(key), view=views.get(pk), unread=new)
        for pk, key, new in keyed
        if key in stored or pk in views
    ]
    return ScenePage(
        posts=slots,
        before=counts["before"],
        total=counts["total"],
        unread=counts["unread"],
        unread_before=counts["unread_before"],
        last_read=last_read,
    )

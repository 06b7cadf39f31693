"""Keyset pages of a scene (``escenas.scene_pages``): cursors on the post id, the last page
aligned with the first, older ``?page=<n>`` links and permalinks still landing on their posts."""

from __future__ import annotations

import re

from escenas.models import Post
from escenas.selectors import PAGE_SIZE
from tests.escenas.conftest import client_for
from tests.escenas.test_queries import add_posts


def shown(response) -> list[int]:
    return [
        int(x)
        for x in re.findall(r'<li class="post[^"]*" id="post-(\d+)"', response.content.decode())
    ]


def test_cursors_walk_the_same_pages_both_ways(story, master, player_b):
    add_posts(story, master, 2 * PAGE_SIZE + 5, rolls=False)
    ids = list(Post.objects.filter(scene=story).order_by("id").values_list("id", flat=True))
    client = client_for(player_b)
    url = story.get_absolute_url()
    first = client.get(url + "?page=1")
    assert shown(first) == ids[:PAGE_SIZE]
    assert f'href="?after={ids[PAGE_SIZE - 1]}" rel="next"' in first.content.decode()
    second = client.get(url + f"?after={ids[PAGE_SIZE - 1]}")
    assert shown(second) == ids[PAGE_SIZE : 2 * PAGE_SIZE]
    assert second.context["page"].number == 2
    last = client.get(url + "?page=last")
    assert shown(last) == ids[2 * PAGE_SIZE :]  # the 5 after two full pages
    assert last.context["page"].number == last.context["page"].num_pages == 3
    back = client.get(url + f"?before={ids[2 * PAGE_SIZE]}")
    assert shown(back) == shown(second)
    assert shown(client.get(url + "?page=2")) == shown(second)  # older numbered links
    assert shown(client.get(url + "?page=99")) == shown(last)
    assert client.get(url + "?after=x&before=-1&page=0").status_code == 200
    # A digit to str.isdigit that int() refuses, and an id past the database's integer: the
    # default page, not a 500 (nucleo.bounds.row_id).
    for junk in ("%C2%B2", "99999999999999999999"):
        assert shown(client.get(url + f"?after={junk}")) == shown(client.get(url)), junk


def test_permalink_lands_on_a_page_starting_with_the_post(story, master, player_b):
    add_posts(story, master, PAGE_SIZE + 5, rolls=False)
    post = Post.objects.filter(scene=story).order_by("id")[PAGE_SIZE + 2]
    client = client_for(player_b)
    response = client.get(post.get_absolute_url())
    assert response.status_code == 302
    assert response["Location"].endswith(f"?after={post.pk - 1}#post-{post.pk}")
    assert shown(client.get(response["Location"]))[0] == post.pk

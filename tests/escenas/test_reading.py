"""Reading a scene (issue 15 item 4): it opens at the first unread post and says how many are
new, links to the first unread, and never marks read what the reader was not shown.

Cast: the master writes; player B reads the story scene (``readers`` = members) and keeps a
read marker; player A's character takes part.
"""

from __future__ import annotations

import re

from escenas.models import SceneRead
from escenas.selectors import PAGE_SIZE
from tests.escenas.conftest import client_for
from tests.escenas.test_queries import add_posts


def marker(scene, user) -> int:
    return SceneRead.objects.get(scene=scene, user=user).last_post_id


def post_ids(scene) -> list[int]:
    return list(scene.posts.order_by("id").values_list("id", flat=True))


def test_the_scene_opens_at_the_first_unread_and_says_how_many(story, master, player_b):
    client = client_for(player_b)
    add_posts(story, master, 3)
    client.get(story.get_absolute_url())  # reads all three
    ids = post_ids(story)
    assert marker(story, player_b) == ids[-1]
    add_posts(story, master, PAGE_SIZE + 2)  # 22 new: more than a page
    ids = post_ids(story)
    response = client.get(story.get_absolute_url())
    page = response.context["page"]
    assert page.posts[0].pk == ids[3]  # the first unread starts the page
    assert (page.unread, page.first_unread_id) == (PAGE_SIZE + 2, ids[3])
    html = response.content.decode()
    assert "22 nuevos desde tu última visita" in html
    assert f'data-scroll-to="post-{ids[3]}"' in html
    assert f'href="#post-{ids[3]}" class="first-unread"' in html
    # Only what was shown is read: the page's 20, not the two after it.
    assert marker(story, player_b) == ids[3 + PAGE_SIZE - 1]
    response = client.get(story.get_absolute_url())
    assert response.context["page"].posts[0].pk == ids[3 + PAGE_SIZE]
    assert "2 nuevos desde tu última visita" in response.content.decode()
    assert marker(story, player_b) == ids[-1]
    assert (
        "nuevos desde tu última visita" not in client.get(story.get_absolute_url()).content.decode()
    )


def test_one_new_post_is_singular_and_own_posts_are_never_new(story, master, player_a, char_a):
    client = client_for(player_a)
    add_posts(story, master, 1)
    client.get(story.get_absolute_url())
    add_posts(story, player_a, 2, character=char_a)  # one's own posts: not new
    add_posts(story, master, 1)
    html = client.get(story.get_absolute_url()).content.decode()
    assert "1 nuevo desde tu última visita" in html


def test_jumping_to_the_last_page_leaves_skipped_posts_unread(story, master, player_b):
    client = client_for(player_b)
    add_posts(story, master, 1)
    client.get(story.get_absolute_url())
    first_read = marker(story, player_b)
    add_posts(story, master, PAGE_SIZE + 5)
    ids = post_ids(story)
    response = client.get(story.get_absolute_url() + "?page=last")
    html = response.content.decode()
    # The last page does not hold the first unread: the link goes to the page that does.
    assert f'href="?after={first_read}#unread" class="first-unread"' in html
    assert "data-scroll-to" not in html  # an address with a cursor is not scrolled
    assert marker(story, player_b) == first_read  # 20 unread posts were not shown
    # Reading in order from there moves it again.
    response = client.get(story.get_absolute_url() + f"?after={first_read}")
    assert response.context["page"].first_unread_id == ids[1]
    assert marker(story, player_b) == ids[PAGE_SIZE]
    # An older page read again never moves the marker back.
    client.get(story.get_absolute_url() + "?page=1")
    assert marker(story, player_b) == ids[PAGE_SIZE]


def test_poll_marks_read_only_after_a_page_that_was_read_in_order(story, master, player_b):
    client = client_for(player_b)
    add_posts(story, master, 1)
    client.get(story.get_absolute_url())
    first_read = marker(story, player_b)
    add_posts(story, master, PAGE_SIZE + 5)
    ids = post_ids(story)
    poll = story.get_absolute_url() + "nuevos/"
    # A poller on the last page, reached over unread posts: what it appends is shown, but the
    # posts skipped before the page are not, so the marker stays.
    add_posts(story, master, 1)
    response = client.get(poll, {"after": ids[-1], "since": "0"})
    assert response.status_code == 200
    assert marker(story, player_b) == first_read
    # A poller after what was read: the marker follows the appended posts.
    client.get(story.get_absolute_url() + f"?after={first_read}")
    client.get(story.get_absolute_url())
    last = post_ids(story)[-1]
    assert marker(story, player_b) == last
    add_posts(story, master, 2)
    client.get(poll, {"after": last, "since": "0"})
    assert marker(story, player_b) == post_ids(story)[-1]


def test_posting_does_not_mark_read_what_others_wrote_meanwhile(story, master, player_a, char_a):
    client = client_for(player_a)
    add_posts(story, master, 1)
    client.get(story.get_absolute_url())
    seen = marker(story, player_a)
    add_posts(story, master, 2)  # not shown to A yet (no poll ran)
    add_posts(story, player_a, 1, character=char_a)
    assert marker(story, player_a) == seen
    response = client.get(story.get_absolute_url())
    assert response.context["page"].first_unread_id == post_ids(story)[1]
    assert "2 nuevos desde tu última visita" in response.content.decode()
    # With nothing new in between, one's own post moves the marker onto it.
    add_posts(story, player_a, 1, character=char_a)
    assert marker(story, player_a) == post_ids(story)[-1]


def test_the_poller_polls_again_when_the_tab_is_shown(story, master, player_b):
    add_posts(story, master, 1)
    html = client_for(player_b).get(story.get_absolute_url()).content.decode()
    poller = re.search(r'<li id="poller"[^>]*>', html).group(0)
    assert 'hx-trigger="every 15s, posted from:body, tabvisible from:body"' in poller
    assert "js/reading.js" in html

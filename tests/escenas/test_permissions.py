"""Who sees what, generated as a table: cast × scene kind × surface, and cast × secret × surface.

The cast (tests/conftest.py, tests/escenas/conftest.py): the master; player A, whose character
``char_a`` is in every story scene and owns the diary; player B, whose character is in no story
scene; an outsider (signed in, not a member); anonymous. The campaign is private except for the
``story_public`` case, where it is made public.

Every surface (scene page, htmx posts fragment, post form POST, Atom feed, search, e-mail,
scene list preview, the scene's and the campaign's HTML archives) must agree with the rules
of ``escenas.selectors``: what is readable on the page is readable everywhere, and nothing else
is.
"""

from __future__ import annotations

import itertools
import re

import pytest
from django.urls import reverse

from escenas import notifications, scenes, services
from escenas.models import Post, Scene
from tests.escenas.conftest import access_for, client_for
from tests.escenas.factories import new_key

CAST = ("master", "player_a", "player_b", "outsider", "anonymous")
KINDS = ("story_members", "story_private", "story_public", "offtopic", "diary", "notes")
SURFACES = (
    "page",
    "fragment",
    "feed",
    "search",
    "email",
    "scene_list",
    "archive",
    "campaign_archive",
    "post_form",
)

# The rules, as a table. READ: may read the scene; WRITE: may post in it (and is notified).
READ = {
    "story_members": {"master", "player_a", "player_b"},
    "story_private": {"master", "player_a"},
    "story_public": {"master", "player_a", "player_b", "outsider", "anonymous"},
    "offtopic": {"master", "player_a", "player_b"},
    "diary": {"master", "player_a"},
    "notes": {"master"},
}
WRITE = {
    "story_members": {"master", "player_a"},
    "story_private": {"master", "player_a"},
    "story_public": {"master", "player_a"},
    "offtopic": {"master", "player_a", "player_b"},
    "diary": {"master", "player_a"},
    "notes": {"master"},
}
MARK = "MARCA-VISIBLE"


def make_scene(kind: str, campaign, master, char_a) -> Scene:
    if kind.startswith("story"):
        readers = {
            "story_members": Scene.Readers.MEMBERS,
            "story_private": Scene.Readers.PARTICIPANTS,
            "story_public": Scene.Readers.PUBLIC,
        }[kind]
        if kind == "story_public":
            campaign.is_public = True
            campaign.save()
        return scenes.scene_create(
            campaign=campaign,
            master=master,
            title=f"Escena {kind}",
            readers=readers,
            participants=[char_a],
        )
    if kind == "offtopic":
        return scenes.offtopic_scene_for(campaign)
    if kind == "diary":
        return scenes.diary_scene_for(char_a)
    return scenes.scene_create(
        campaign=campaign, master=master, title="Notas del máster", kind=Scene.Kind.NOTES
    )


def write(scene: Scene, user, body: str, **kwargs) -> Post:
    access = access_for(scene, user)
    voice = kwargs.pop("voice", None) or access.voices[0]
    character = kwargs.pop("character", None)
    if voice == Post.Voice.CHARACTER and character is None:
        character = access.characters[0]
    return services.post_create(
        access=access,
        author=user,
        idempotency_key=new_key(),
        body=body,
        voice=voice,
        character=character,
        **kwargs,
    )[0]


def voice_field(scene: Scene, user) -> str:
    if user is None:
        return "player"
    access = access_for(scene, user)
    if not access.voices:
        return "player"
    if access.voices[0] == Post.Voice.CHARACTER:
        return f"character:{access.characters[0].pk}"
    return access.voices[0]


def fetch(
    surface: str, who: str, user, scene: Scene, mailoutbox, cast, query: str = MARK
) -> tuple[int, str]:
    """Status and text of a surface for one member of the cast."""
    slug = scene.campaign.slug
    client = client_for(user)
    if surface == "page":
        r = client.get(scene.get_absolute_url())
        return r.status_code, r.content.decode()
    if surface == "fragment":
        r = client.get(
            reverse("escenas:poll", args=[slug, scene.pk]) + "?after=0&since=0",
            HTTP_HX_REQUEST="true",
        )
        return r.status_code, r.content.decode()
    if surface == "feed":
        if user is None:
            r = client.get(reverse("escenas:scene_feed", args=[slug, scene.pk]))
        else:
            token = notifications.preference_get_or_create(user=user).feed_token
            r = client.get(reverse("escenas:private_feed", args=[token, slug, scene.pk]))
        return r.status_code, r.content.decode()
    if surface == "search":
        r = client.get(reverse("escenas:search", args=[slug]), {"q": query})
        html = r.content.decode()
        # Only the results, not the query echoed back in the search box.
        start = html.find('<ol class="results"')
        results = html[start : html.find("</ol>", start)] if start >= 0 else ""
        return r.status_code, re.sub(r"</?mark>", "", results)  # the highlight splits words
    if surface == "scene_list":
        r = client.get(reverse("escenas:scene_list", args=[slug]))
        return r.status_code, r.content.decode()
    if surface in ("archive", "campaign_archive"):  # the HTML downloads (issue 15 item 9)
        if surface == "archive":
            url = reverse("escenas:scene_archive", args=[slug, scene.pk])
        else:
            url = reverse("escenas:campaign_archive", args=[slug])
        r = client.get(url)
        return r.status_code, r.content.decode()
    if surface == "email":
        if user is None:
            return 200, ""
        return 200, "\n".join(
            m.body + str(m.alternatives) for m in mailoutbox if user.email in m.to
        )
    raise AssertionError(surface)


def check_scene_surface(surface, kind, who, user, scene, author, master, mailoutbox, cast):
    """None when the surface shows ``who`` what the table says, else a description."""
    can_read = who in READ[kind]
    slug = scene.campaign.slug
    if surface == "post_form":
        before = Post.objects.count()
        r = client_for(user).post(
            reverse("escenas:post_create", args=[slug, scene.pk]),
            {"idempotency_key": new_key(), "voice": voice_field(scene, user), "body": "Nuevo"},
        )
        if who in WRITE[kind]:
            ok = r.status_code == 302 and Post.objects.count() == before + 1
        elif user is None:  # signed out (an expired session): to the login page, nothing saved
            ok = (
                r.status_code == 302
                and r["Location"].startswith(reverse("login"))
                and Post.objects.count() == before
            )
        else:
            ok = r.status_code == (403 if can_read else 404) and Post.objects.count() == before
        return None if ok else f"post_form: status {r.status_code}"
    status, text = fetch(surface, who, user, scene, mailoutbox, cast)
    if surface == "email":
        other_writer = who != ("player_a" if author != master else "master")
        expected = who in WRITE[kind] and other_writer
        return None if (MARK in text) is expected else f"email: expected {expected}"
    if can_read:
        ok = status == 200 and MARK in text
    else:
        ok = MARK not in text and (
            status == 404
            if surface in ("page", "fragment", "feed", "archive")
            else status in (200, 404)
        )
    return None if ok else f"{surface}: status {status}, marker shown {MARK in text}"


@pytest.mark.parametrize(("kind", "who"), list(itertools.product(KINDS, CAST)))
def test_scene_permission_matrix(
    kind, who, cast, campaign, master, char_a, char_b, mailoutbox,
    django_capture_on_commit_callbacks,
):  # fmt: skip
    """Every surface of SURFACES, for one scene kind and one member of the cast."""
    scene = make_scene(kind, campaign, master, char_a)
    user = cast[who]
    # The marker post: written by the master, or by player A when the master is the reader (so
    # the master gets an e-mail from someone else where someone else may write).
    author = master
    if who == "master" and "player_a" in WRITE[kind]:
        author = cast["player_a"]
    with django_capture_on_commit_callbacks(execute=True):
        write(scene, author, f"{MARK} en {kind}")
    # post_form last: it adds a post.
    problems = [
        problem
        for surface in SURFACES
        if (
            problem := check_scene_surface(
                surface, kind, who, user, scene, author, master, mailoutbox, cast
            )
        )
    ]
    assert problems == [], f"{who} in {kind}"


# --- Secrets inside a readable scene ------------------------------------------------------------

SECRET = "SECRETO-OCULTO"
SECRETS = ("whisper_to_master", "whisper_to_b", "note", "hidden_roll", "deleted")
SECRET_SURFACES = (
    "page",
    "fragment",
    "feed",
    "search",
    "email",
    "scene_list",
    "archive",
    "campaign_archive",
)
# Who may see the secret (in the off-topic scene, which master, A and B read and write).
SEES = {
    "whisper_to_master": {"master", "player_a"},
    "whisper_to_b": {"master", "player_a", "player_b"},
    "note": {"master", "player_a"},
    "hidden_roll": {"master"},
    "deleted": {"master"},
}
IN_BODY = {"whisper_to_master", "whisper_to_b", "deleted"}  # what search can find


def make_secret(secret: str, scene: Scene, cast) -> Post:
    a, b, master = cast["player_a"], cast["player_b"], cast["master"]
    if secret == "whisper_to_master":
        return write(scene, a, f"{SECRET} susurro", whisper=True)
    if secret == "whisper_to_b":
        return write(scene, a, f"{SECRET} susurro", whisper=True, whisper_to=[b])
    if secret == "note":
        return write(scene, a, "Texto a la vista", note_to_master=f"{SECRET} nota")
    if secret == "hidden_roll":
        return write(
            scene,
            master,
            "El máster tira en secreto",
            roll=services.RollSpec(kind="expression", expression="1d6", reason=SECRET, hidden=True),
        )
    post = write(scene, a, f"{SECRET} borrado")
    services.post_delete(post=post, user=a)
    return post


@pytest.mark.parametrize(("secret", "who"), list(itertools.product(SECRETS, CAST)))
def test_secret_matrix(
    secret, who, cast, campaign, master, char_a, char_b, mailoutbox,
    django_capture_on_commit_callbacks,
):  # fmt: skip
    """Every surface of SECRET_SURFACES shows the secret to exactly those who see it on the
    page (in the off-topic scene)."""
    scene = scenes.offtopic_scene_for(campaign)
    with django_capture_on_commit_callbacks(execute=True):
        post = make_secret(secret, scene, cast)
    user = cast[who]
    problems = []
    for surface in SECRET_SURFACES:
        status, text = fetch(surface, who, user, scene, mailoutbox, cast, query=SECRET)
        sees = who in SEES[secret]
        if surface in ("search", "scene_list"):
            sees = sees and secret in IN_BODY  # they show the body only
        if surface == "email":
            sees = sees and user is not None and user.pk != post.author_id
            # A post deleted before its e-mails went out withdraws them (nucleo.mail).
            sees = sees and secret != "deleted"
        if (SECRET in text) is not sees:
            problems.append(f"{surface}: status {status}, shown {SECRET in text}")
    assert problems == [], f"{who} / {secret}"


def test_a_whisper_recipient_must_read_the_scene(
    campaign, master, char_a, char_b, player_a, player_b
):
    # Player B cannot read a participants-only story scene, so A cannot whisper to B there.
    scene = make_scene("story_private", campaign, master, char_a)
    with pytest.raises(services.ServiceError):
        write(scene, player_a, "psst", whisper=True, whisper_to=[player_b])


def test_a_post_read_as_no_whisper_has_no_recipients_under_any_query(
    campaign, master, char_a, player_a, player_b, django_assert_num_queries
):
    """A post that is no whisper is read with its recipients already fetched and empty
    (``Post.from_db``): whatever is asked of them (a filter, ``values_list``), the answer is
    empty and costs no query; a whisper's are read and are its own."""
    scene = scenes.offtopic_scene_for(campaign)
    said = write(scene, player_a, "en voz alta")
    whispered = write(scene, player_a, "psst", whisper=True, whisper_to=[player_b])
    said, whispered = Post.objects.get(pk=said.pk), Post.objects.get(pk=whispered.pk)
    with django_assert_num_queries(0):
        assert list(said.whisper_to.all()) == []
        assert list(said.whisper_to.filter(pk=player_b.pk)) == []
        assert list(said.whisper_to.values_list("username", flat=True)) == []
    assert list(whispered.whisper_to.all()) == [player_b]
    with django_assert_num_queries(1):  # the post: no recipients to ask for
        (post,) = Post.objects.filter(pk=said.pk).prefetch_related("whisper_to")
    assert post.pk == said.pk and list(post.whisper_to.all()) == []
    with django_assert_num_queries(2):  # the posts, then the whisper's recipients
        posts = list(Post.objects.filter(scene=scene).prefetch_related("whisper_to"))
    assert [list(p.whisper_to.all()) for p in posts] == [[], [player_b]]


def test_revoked_feed_token_answers_404(campaign, master, char_a, player_a):
    scene = make_scene("story_members", campaign, master, char_a)
    old = notifications.preference_get_or_create(user=player_a).feed_token
    url = reverse("escenas:private_feed", args=[old, campaign.slug, scene.pk])
    assert client_for(None).get(url).status_code == 200
    new = notifications.feed_token_regenerate(user=player_a).feed_token
    assert client_for(None).get(url).status_code == 404
    new_url = reverse("escenas:private_feed", args=[new, campaign.slug, scene.pk])
    assert client_for(None).get(new_url).status_code == 200
    notifications.feed_token_revoke(user=player_a)
    assert client_for(None).get(new_url).status_code == 404
    assert client_for(None).get(url.replace(old, "")).status_code == 404


def test_the_predicate_and_the_query_agree(cast, campaign, master, char_a, char_b):
    """``post_visible_to`` (one post: e-mails) and ``posts_visible_q`` (lists: pages, feeds,
    search) are the same rule: checked on every secret kind for every member of the cast."""
    from escenas import access as escenas_access

    scene = scenes.offtopic_scene_for(campaign)
    posts = [make_secret(secret, scene, cast) for secret in SECRETS]
    posts.append(write(scene, cast["player_b"], "público"))
    for who, user in cast.items():
        viewer = escenas_access.character_viewer_for(campaign, user)
        access = escenas_access.scene_access(scene, viewer)
        # Lists apply the post rule inside the scenes the viewer may read (scenes_readable_q).
        listed = set(
            Post.objects.filter(
                scene__in=Scene.objects.filter(escenas_access.scenes_readable_q(viewer))
            )
            .filter(escenas_access.posts_visible_q(viewer))
            .values_list("pk", flat=True)
        )
        for post in Post.objects.filter(scene=scene).prefetch_related("whisper_to"):
            one = escenas_access.post_visible_to(post, viewer, access)
            assert one is (post.pk in listed), f"{who}, post {post.body!r}"


def test_a_former_member_reads_what_an_outsider_reads(campaign, master, char_a, player_a):
    """Player A leaves the (public) campaign; ``char_a`` still takes part in its scenes. A then
    reads the public scene like any outsider, and the participants-only one on no surface —
    neither by URL (page, fragment, feed) nor in lists — though A's character is in it."""
    from escenas import access as escenas_access
    from mundo.models import Membership

    private = make_scene("story_private", campaign, master, char_a)
    public = make_scene("story_public", campaign, master, char_a)  # makes the campaign public
    for scene in (private, public):
        write(scene, master, MARK)
    Membership.objects.filter(campaign=campaign, user=player_a).delete()

    viewer = escenas_access.character_viewer_for(campaign, player_a)
    assert not viewer.is_member and char_a.pk in viewer.character_ids
    readable = set(
        Scene.objects.filter(escenas_access.scenes_readable_q(viewer)).values_list("pk", flat=True)
    )
    for scene, can_read in ((private, False), (public, True)):
        access = access_for(scene, player_a)
        assert (access.can_read, access.can_post) == (can_read, False)
        assert (scene.pk in readable) is can_read
        for surface in ("page", "fragment", "feed"):
            status, text = fetch(surface, "player_a", player_a, scene, [], {})
            assert (status == 200 and MARK in text) is can_read, (scene.title, surface)
            if not can_read:
                assert status == 404 and MARK not in text

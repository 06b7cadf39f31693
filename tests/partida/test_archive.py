"""``exportar_partida`` / ``importar_partida``: the demo campaign, exported, imported under
another slug and exported again, is the same archive row for row and file for file once the
primary keys are mapped (partida.archive)."""

from __future__ import annotations

import io
import json
import zipfile
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.files.base import ContentFile
from django.core.management import CommandError, call_command
from django.db.models import FileField

from escenas.models import NonPlayerCharacter
from mundo.models import Campaign
from nucleo.errors import ServiceError
from partida import archive
from personajes.models import Character

USER_LABEL = "auth.user"


@pytest.fixture
def demo(db, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    call_command("cargar_demo", stdout=StringIO())
    campaign = Campaign.objects.get(slug="valle-gris")
    lucia = Character.objects.get(campaign=campaign, name="Lucía Ferrer")
    lucia.portrait.save("retrato-lucia.png", ContentFile(b"\x89PNG retrato"), save=True)
    return campaign


def exported(campaign) -> tuple[bytes, dict]:
    out = io.BytesIO()
    archive.campaign_export(campaign, out)
    data = out.getvalue()
    with zipfile.ZipFile(io.BytesIO(data)) as zipped:
        return data, json.loads(zipped.read("campaign.json"))


def files_of(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as zipped:
        return {n: zipped.read(n) for n in zipped.namelist() if n.startswith("media/")}


def remapped(document: dict, pk_map: dict[str, dict[int, int]], names: dict[str, str]) -> dict:
    """The archived rows as they must read after the import: new pks and foreign keys."""
    result = {}
    for model in archive.campaign_models():
        label = model._meta.label_lower
        fks = {f.name: f.related_model._meta.label_lower for f in archive._links(model)}
        m2m = {f.name: f.related_model._meta.label_lower for f in model._meta.many_to_many}
        files = {f.name for f in model._meta.concrete_fields if isinstance(f, FileField)}
        rows = []
        for row in document["models"][label]:
            new = dict(row, pk=pk_map[label][row["pk"]])
            for name, target in fks.items():
                if row[name] is not None and target in pk_map:
                    new[name] = pk_map[target][row[name]]
            for name, target in m2m.items():
                new[name] = sorted(pk_map[target][pk] for pk in row[name])
            for name in files:
                new[name] = names.get(row[name], row[name])
            for name in archive.POST_MARKS.get(label, ()):  # a post's id, not a foreign key
                new[name] = pk_map["escenas.post"][row[name]] if row[name] else 0
            rows.append(new)
        result[label] = rows
    return result


def test_the_demo_round_trips_row_for_row_and_file_for_file(demo):
    data, before = exported(demo)
    counts = {label: len(rows) for label, rows in before["models"].items()}
    # The whole campaign is in it: members, sheets and history, inventories, scenes, posts and
    # revisions, rolls with their keys, diaries, world state and days, rules and tables.
    for label in (
        "mundo.membership", "mundo.settlement", "mundo.location", "mundo.daytick",
        "mundo.weatherrecord", "mundo.settlementday", "mundo.grid", "mundo.gridday",
        "personajes.character", "personajes.traitvalue",
        "personajes.inventoryitem", "personajes.roll", "personajes.diaryentry",
        "escenas.scene", "escenas.post", "escenas.postroll", "escenas.rollrequest",
        "escenas.combat", "escenas.combatant", "escenas.combatturn", "escenas.combatturnroll",
    ):  # fmt: skip
        assert counts[label] > 0, (label, counts)
    assert "mundo.invitation" not in counts and "partida.apitoken" not in counts
    assert {u["username"] for u in before["users"]} >= {"master", "ana", "bruno", "carla"}
    assert "password" not in before["users"][0]
    # Lucía's portrait (set above) and the thumbnails and portraits the demo drew, its NPC's too.
    fields = ("portrait", "portrait_thumb", "portrait_thumb_2x")
    stored = [
        *Character.objects.filter(campaign=demo).values_list(*fields),
        *NonPlayerCharacter.objects.filter(campaign=demo).values_list(*fields),
    ]
    assert set(files_of(data)) == {f"media/{name}" for pair in stored for name in pair if name}
    assert f"media/{Character.objects.get(name='Lucía Ferrer').portrait.name}" in files_of(data)

    users_before = get_user_model().objects.count()
    result = archive.campaign_import(io.BytesIO(data), slug="valle-gris-copia")
    assert result.campaign.slug == "valle-gris-copia" and result.campaign.pk != demo.pk
    assert result.users_created == 0 and get_user_model().objects.count() == users_before
    assert result.rows == counts

    again, after = exported(result.campaign)
    owners = ("personajes.character", "escenas.nonplayercharacter")
    old_names = [r[f] for o in owners for r in before["models"][o] for f in fields if r[f]]
    new_names = [r[f] for o in owners for r in after["models"][o] for f in fields if r[f]]
    names = dict(zip(old_names, new_names, strict=True))
    expected = remapped(before, result.pk_map, names)
    expected["mundo.campaign"][0]["slug"] = "valle-gris-copia"
    assert after["models"] == expected
    assert list(files_of(again).values()) == list(files_of(data).values())
    # Every row is new: nothing of the original campaign was reused or moved.
    for label, mapping in result.pk_map.items():
        if label != USER_LABEL and mapping:
            assert min(mapping.values()) > max(mapping), label
    assert Campaign.objects.filter(slug="valle-gris").count() == 1


def test_unknown_users_are_created_inactive_without_a_password(demo):
    data, _ = exported(demo)
    get_user_model().objects.filter(username="carla").update(email="otra@example.com")
    result = archive.campaign_import(io.BytesIO(data), slug="otra")
    assert result.users_created == 1
    made = get_user_model().objects.get(
        pk=result.pk_map[USER_LABEL][get_user_model().objects.get(username="carla").pk]
    )
    assert made.username == "carla-2" and made.is_active is False
    assert not made.has_usable_password()
    elena = Character.objects.get(campaign=result.campaign, name="Elena Soto")
    assert elena.player == made


def test_a_taken_slug_and_a_foreign_file_are_refused_and_change_nothing(demo):
    data, _ = exported(demo)
    campaigns = Campaign.objects.count()
    with pytest.raises(ServiceError) as taken:
        archive.campaign_import(io.BytesIO(data))
    assert "slug" in taken.value.message_dict
    with pytest.raises(ServiceError) as reserved:  # the new-campaign form's address
        archive.campaign_import(io.BytesIO(data), slug="nueva")
    assert "elige otro identificador" in reserved.value.message_dict["slug"][0]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as other:
        other.writestr("campaign.json", json.dumps({"format": "otra-cosa"}))
    with pytest.raises(ServiceError) as foreign:
        archive.campaign_import(io.BytesIO(out.getvalue()), slug="x")
    assert "archive" in foreign.value.message_dict
    assert Campaign.objects.count() == campaigns


def test_the_commands_write_and_read_the_archive(demo, tmp_path):
    path = tmp_path / "valle.zip"
    out = StringIO()
    call_command("exportar_partida", "valle-gris", "-o", str(path), stdout=out)
    assert path.is_file() and "filas" in out.getvalue()
    out = StringIO()
    call_command("importar_partida", str(path), "--slug", "valle-2", stdout=out)
    assert "«valle-2» importada" in out.getvalue()
    assert Campaign.objects.get(slug="valle-2").current_day == demo.current_day
    with pytest.raises(CommandError, match="No existe la partida"):
        call_command("exportar_partida", "nadie", stdout=StringIO())
    with pytest.raises(CommandError, match="Ya existe"):  # same slug again
        call_command("importar_partida", str(path), "--slug", "valle-2", stdout=StringIO())
    (tmp_path / "roto.zip").write_bytes(b"no soy un zip")
    with pytest.raises(CommandError, match="No es un archivo de partida"):
        call_command("importar_partida", str(tmp_path / "roto.zip"), stdout=StringIO())


def test_times_keep_their_microseconds(demo):
    # A time at 0.000400 s past the second: JSON with milliseconds would lose the 400 µs.
    from escenas.models import Post

    post = Post.objects.filter(campaign=demo).order_by("pk").first()
    exact = post.created_at.replace(microsecond=400)
    Post.objects.filter(pk=post.pk).update(created_at=exact)
    data, _before = exported(demo)
    result = archive.campaign_import(io.BytesIO(data), slug="valle-gris-copia")
    copy = Post.objects.get(pk=result.pk_map["escenas.post"][post.pk])
    assert copy.created_at == exact


def test_a_fights_turn_rolls_follow_the_import(demo):
    # The demo's finished fight: each turn's rolls, in draw order, become the copy's own rolls
    # (new ids, same dice and keys), not the original campaign's.
    from escenas.models import CombatTurn

    def turns_of(campaign):
        turns = CombatTurn.objects.filter(combat__campaign=campaign).order_by("combat", "number")
        return [
            (
                t.number,
                [
                    (r.roll.pk, r.roll.campaign_id, r.roll.dice, r.roll.generator_key)
                    for r in t.turn_rolls.select_related("roll").order_by("position")
                ],
            )
            for t in turns
        ]

    before = turns_of(demo)
    assert before and all(rolls for _n, rolls in before)
    data, _document = exported(demo)
    copy = archive.campaign_import(io.BytesIO(data), slug="valle-gris-copia").campaign
    after = turns_of(copy)
    assert [n for n, _r in after] == [n for n, _r in before]
    for (_n, old), (_m, new) in zip(before, after, strict=True):
        assert [(dice, key) for _pk, _c, dice, key in new] == [
            (dice, key) for _pk, _c, dice, key in old
        ]
        assert {c for _pk, c, _d, _k in new} == {copy.pk}
        assert not {pk for pk, *_ in new} & {pk for pk, *_ in old}


def test_read_and_notice_marks_point_at_the_same_posts_after_the_import(demo):
    # SceneRead's marks are plain post ids (no foreign key): each reader has read, and been
    # told about, the same posts of the copy as of the original, down to a mark left at a
    # deleted post's id, which falls back to the newest post before it.
    from django.db.models import Count

    from escenas.models import Post, SceneRead

    scene = demo.scenes.annotate(n=Count("posts")).order_by("-n", "pk").first()
    posts = list(Post.objects.filter(scene=scene).order_by("pk").values_list("pk", flat=True))
    assert len(posts) >= 3
    user = get_user_model().objects.get(username="ana")
    SceneRead.objects.update_or_create(
        user=user,
        scene=scene,
        defaults={"last_post_id": posts[1], "notified_post_id": posts[-1] + 1000},
    )
    data, _document = exported(demo)
    copy = archive.campaign_import(io.BytesIO(data), slug="valle-gris-copia").campaign
    copied = copy.scenes.get(title=scene.title)
    mark = SceneRead.objects.get(user=user, scene=copied)
    new_posts = list(Post.objects.filter(scene=copied).order_by("pk").values_list("pk", flat=True))
    assert mark.last_post_id == new_posts[1]
    assert Post.objects.filter(scene=copied, pk__gt=mark.last_post_id).count() == len(posts) - 2
    newest_in_campaign = Post.objects.filter(scene__campaign=copy).order_by("pk").last()
    assert mark.notified_post_id == newest_in_campaign.pk
    # The scene's own newest post ids (the scene list's order) point at the copy's posts too.
    public = Post.objects.filter(scene=copied, deleted_at__isnull=True, is_whisper=False)
    assert copied.last_post_id == new_posts[-1]
    assert copied.last_public_post_id == public.order_by("pk").last().pk

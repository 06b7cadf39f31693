"""The campaign's export page: the master asks for an archive, a task builds it (in-process
here, as on the embedded default) with its progress shown while it builds, the zip is
downloaded through an access-checked view, old exports are cleaned; a failed import leaves no
file behind (partida.exports, partida.export_views, partida.archive)."""

from __future__ import annotations

import datetime
import io
import json
import zipfile

import pytest
from django.core.files.base import ContentFile
from django.utils import timezone

from nucleo.errors import ServiceError
from partida import archive, exports
from partida.models import CampaignExport
from tests.factories import CharacterFactory


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


def page(campaign) -> str:
    return f"/partidas/{campaign.slug}/exportar/"


def stored_files(root) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def ask(client, campaign, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(page(campaign) + "nueva/")
    assert response.status_code == 302 and response.url == page(campaign)
    return CampaignExport.objects.get(campaign=campaign)


def test_the_master_builds_and_downloads_the_whole_campaign(
    client, campaign, master, player_a, media, django_capture_on_commit_callbacks
):
    CharacterFactory(campaign=campaign, player=player_a, name="Ana", status="approved")
    client.force_login(master)
    detail = client.get(campaign.get_absolute_url()).content.decode()
    assert f'href="{page(campaign)}"' in detail
    assert "Todavía no hay ninguna exportación." in client.get(page(campaign)).content.decode()

    export = ask(client, campaign, django_capture_on_commit_callbacks)
    assert (export.status, export.progress, export.requested_by) == ("ready", 100, master)
    assert export.file.name.startswith(f"exports/{campaign.slug}-")
    assert export.size == export.file.size > 0
    shown = client.get(page(campaign)).content.decode()
    url = f"{page(campaign)}{export.pk}/descargar/"
    assert f'href="{url}"' in shown and "hx-get" not in shown

    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    assert response["Cache-Control"] == "private, no-store"
    day = f"{export.created:%Y-%m-%d}"
    assert f'filename="partida-{campaign.slug}-{day}.zip"' in response["Content-Disposition"]
    with zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content))) as zipped:
        document = json.loads(zipped.read("campaign.json"))
    assert [c["name"] for c in document["models"]["personajes.character"]] == ["Ana"]
    assert "partida.campaignexport" not in document["models"]  # the exports are not in it
    # Never by its media path, even to the master.
    assert client.get(f"/media/{export.file.name}").status_code == 404


@pytest.mark.parametrize("who", ["player_a", "outsider", "anonymous"])
def test_only_the_masters_reach_the_page_the_button_and_the_file(
    client, campaign, master, who, request
):
    export = exports.export_request(campaign=campaign, user=master)
    exports.export_build(export.pk)
    if who != "anonymous":
        client.force_login(request.getfixturevalue(who))
    expected = 302 if who == "anonymous" else 404  # anonymous: to the sign-in page
    for response in (
        client.get(page(campaign)),
        client.post(page(campaign) + "nueva/"),
        client.get(f"{page(campaign)}{export.pk}/descargar/"),
    ):
        assert response.status_code == expected
    assert CampaignExport.objects.count() == 1


def test_while_it_builds_the_page_shows_the_progress_polls_and_reloads_without_js(
    client, campaign, master
):
    CampaignExport.objects.create(
        campaign=campaign, requested_by=master, status="building", progress=40
    )
    client.force_login(master)
    html = client.get(page(campaign)).content.decode()
    assert '<progress max="100" value="40"' in html
    assert "Preparando la exportación: 40 %" in html
    assert f'hx-get="{page(campaign)}" hx-trigger="every 2s"' in html
    assert '<noscript><meta http-equiv="refresh" content="3"></noscript>' in html
    assert "disabled" in html  # no second export meanwhile
    fragment = client.get(page(campaign), headers={"HX-Request": "true"}).content.decode()
    assert fragment.lstrip().startswith('<section class="card export" id="export-status"')
    assert "<html" not in fragment


def test_a_double_click_asks_once_and_a_task_delivered_twice_builds_once(campaign, master):
    first = exports.export_request(campaign=campaign, user=master)
    assert exports.export_request(campaign=campaign, user=master) == first
    assert exports.export_build(first.pk).status == "ready"
    assert exports.export_build(first.pk) is None
    assert CampaignExport.objects.count() == 1


def test_the_build_records_its_progress_model_by_model(campaign, master, monkeypatch):
    seen = []
    real = CampaignExport.objects.filter

    def spy(*args, **kwargs):
        qs = real(*args, **kwargs)
        update = qs.update

        def recorded(**values):
            if "progress" in values:
                seen.append(values["progress"])
            return update(**values)

        qs.update = recorded
        return qs

    export = exports.export_request(campaign=campaign, user=master)
    monkeypatch.setattr(CampaignExport.objects, "filter", spy)
    exports.export_build(export.pk)
    assert seen == sorted(seen) and seen[-1] == 80 and len(seen) == len(archive.campaign_models())


def test_a_new_export_deletes_the_old_one_and_its_file(campaign, master, media):
    old = exports.export_request(campaign=campaign, user=master)
    old = exports.export_build(old.pk)
    new = exports.export_build(exports.export_request(campaign=campaign, user=master).pk)
    assert list(CampaignExport.objects.values_list("pk", flat=True)) == [new.pk]
    assert stored_files(media) == {new.file.name}
    # And none outlives KEEP, not even the newest.
    CampaignExport.objects.update(created=timezone.now() - datetime.timedelta(days=3))
    assert exports.exports_clean(campaign) == 1
    assert stored_files(media) == set() and not CampaignExport.objects.exists()


def test_a_failed_build_says_why_and_a_gone_export_is_not_served(
    client, campaign, master, monkeypatch
):
    def broken(*args, **kwargs):
        raise OSError("disco lleno")

    monkeypatch.setattr(exports, "campaign_export", broken)
    export = exports.export_build(exports.export_request(campaign=campaign, user=master).pk)
    assert (export.status, export.error, export.file.name) == ("failed", "disco lleno", "")
    client.force_login(master)
    assert "La exportación ha fallado: disco lleno" in client.get(page(campaign)).content.decode()
    response = client.get(f"{page(campaign)}{export.pk}/descargar/", follow=True)
    assert response.redirect_chain == [(page(campaign), 302)]
    assert "Esta exportación ya no está disponible" in response.content.decode()
    with pytest.raises(ServiceError):
        exports.export_for_download(campaign, export.pk)


def test_a_failed_import_leaves_no_file_in_storage(campaign, player_a, media):
    character = CharacterFactory(campaign=campaign, player=player_a, status="approved")
    character.portrait.save("retrato.png", ContentFile(b"\x89PNG retrato"), save=True)
    out = io.BytesIO()
    archive.campaign_export(campaign, out)
    before = stored_files(media)
    assert before == {character.portrait.name}
    # The same archive with a sheet whose campaign is not in it: the rows fail part-way.
    with zipfile.ZipFile(io.BytesIO(out.getvalue())) as zipped:
        parts = {n: zipped.read(n) for n in zipped.namelist()}
    document = json.loads(parts["campaign.json"])
    document["models"]["personajes.character"][0]["campaign"] = 999_999
    parts["campaign.json"] = json.dumps(document).encode()
    broken = io.BytesIO()
    with zipfile.ZipFile(broken, "w") as zipped:
        for name, content in parts.items():
            zipped.writestr(name, content)
    broken.seek(0)
    with pytest.raises(KeyError):
        archive.campaign_import(broken, slug="copia")
    assert stored_files(media) == before
    assert not type(campaign).objects.filter(slug="copia").exists()

"""Uploaded portraits (issue 12): re-encoded by Pillow with no EXIF or GPS left, thumbnailed,
and served only through a view that checks who may see the character, so a private
campaign's portraits do not leak by URL. Source: personajes/portraits.py, partida/media.py."""

from __future__ import annotations

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from PIL import Image

from personajes import sheets
from personajes.models import Character

pytestmark = pytest.mark.django_db


def jpeg_with_gps(width: int = 3000, height: int = 1500) -> bytes:
    """A JPEG whose EXIF holds a camera model and a GPS position, turned by its orientation."""
    image = Image.new("RGB", (width, height), "navy")
    exif = Image.Exif()
    exif[0x0110] = "Camara Espia 3000"  # Model
    exif[0x0112] = 6  # Orientation: rotate 90° to show it upright
    gps = exif.get_ifd(0x8825)
    gps[1], gps[2] = "N", (40.0, 25.0, 1.0)  # GPSLatitudeRef, GPSLatitude
    gps[3], gps[4] = "W", (3.0, 42.0, 2.0)
    out = io.BytesIO()
    image.save(out, "JPEG", exif=exif)
    return out.getvalue()


@pytest.fixture
def character(campaign, player_a, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    upload = SimpleUploadedFile("yo.jpg", jpeg_with_gps(), "image/jpeg")
    made = sheets.character_create(campaign=campaign, player=player_a, name="Ana", portrait=upload)
    Character.objects.filter(pk=made.pk).update(status=Character.Status.APPROVED)
    return Character.objects.get(pk=made.pk)


def _image(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def test_the_stored_portrait_keeps_no_exif_or_gps_and_is_upright_and_bounded(character):
    raw = character.portrait.open("rb").read()
    assert b"Camara Espia" not in raw and b"Exif" not in raw
    stored = _image(raw)
    assert stored.format == "WEBP" and not stored.getexif()
    assert stored.size == (512, 1024)  # turned upright (orientation 6), longest side 1024
    thumb = _image(character.portrait_thumb.open("rb").read())
    assert thumb.size == (96, 96) and not thumb.getexif()
    retina = _image(character.portrait_thumb_2x.open("rb").read())
    assert retina.size == (192, 192) and not retina.getexif()
    # Stored next to the original: one stem, the side after it.
    stem = character.portrait.name.removesuffix(".webp")
    assert character.portrait_thumb.name == f"{stem}-96.webp"
    assert character.portrait_thumb_2x.name == f"{stem}-192.webp"
    assert not character.portrait.name.endswith("yo.jpg")  # the upload's name is not kept


def test_portraits_are_served_to_who_may_see_the_character_only(character, player_a, outsider):
    url = f"/personajes/{character.pk}/retrato/"
    owner = Client()
    owner.force_login(player_a)
    shown = owner.get(url)
    assert shown.status_code == 200 and shown["Content-Type"] == "image/webp"
    assert shown["Cache-Control"] == "private, max-age=3600"
    assert owner.get(url + "mini/").status_code == 200
    assert owner.get(url + "mini/2x/").status_code == 200
    stranger = Client()
    stranger.force_login(outsider)
    assert stranger.get(url).status_code == 404  # a private campaign's character
    assert Client().get(url).status_code == 404
    # Nor by the file's own path: media serving refuses portraits.
    assert Client().get("/media/" + character.portrait.name).status_code == 404
    assert owner.get("/media/" + character.portrait.name).status_code == 404

"""A character's portrait: the check an uploaded image passes, and the re-encoding that stores
it without what the camera wrote (EXIF, GPS, colour profile, comments) plus its thumbnails
(96 px and 192 px squares, shown beside posts), for characters and the master's NPCs alike.

Portraits are served only through ``personajes.views.character_portrait``, which checks that
the viewer may see the character (a private campaign's portraits do not leak by URL).
Source: RULES.md R5 (the sheet a player builds).
"""

from __future__ import annotations

import io
import mimetypes
import uuid
from typing import IO, Any, NamedTuple

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.http import FileResponse, Http404
from django.utils.translation import gettext as _
from PIL import Image, ImageOps

from nucleo.errors import ServiceError
from personajes.models import PORTRAIT_MAX_BYTES

PORTRAIT_FORMATS = frozenset({"JPEG", "PNG", "WEBP", "GIF"})
"""Pillow format names of the accepted portrait images."""

PORTRAIT_MAX_PIXELS = 40_000_000
"""A 2 MB file can still declare a huge canvas (a decompression bomb); 40 Mpx is plenty."""


def validate_portrait(file: IO[bytes]) -> None:
    """Refuse a portrait over 2 MB (``PORTRAIT_MAX_BYTES``), over 40 Mpx, or that is not a real
    JPEG, PNG, WebP or GIF image.

    The bytes are checked with Pillow (``Image.open(…).verify()``): a text file named ``.png``
    or sent as ``image/png`` is refused. The file is rewound afterwards.
    Raises ServiceError({"portrait": …}). Source: RULES.md R5.
    """
    size = getattr(file, "size", None)
    if size is None:
        file.seek(0, 2)
        size = file.tell()
    if size > PORTRAIT_MAX_BYTES:
        raise ServiceError(
            {
                "portrait": _("The portrait is too large: at most %(mb)d MB.")
                % {"mb": PORTRAIT_MAX_BYTES // (1024 * 1024)}
            }
        )
    not_an_image = ServiceError(
        {"portrait": _("The portrait must be a JPEG, PNG, WebP or GIF image.")}
    )
    try:
        file.seek(0)
        with Image.open(file) as image:
            image_format = image.format
            width, height = image.size
            image.verify()
    except Exception:
        # Pillow raises many types for a broken or foreign file (UnidentifiedImageError,
        # SyntaxError, struct.error, DecompressionBombError…): all mean "not an image we take".
        raise not_an_image from None
    finally:
        file.seek(0)
    if image_format not in PORTRAIT_FORMATS:
        raise not_an_image
    if width * height > PORTRAIT_MAX_PIXELS:
        raise ServiceError({"portrait": _("The portrait has too many pixels.")})


PORTRAIT_MAX_SIDE = 1024
"""The longest side of a stored portrait (px); a larger upload is scaled down."""

PORTRAIT_THUMB_SIDE = 96
"""The side of the square thumbnail shown beside posts and in lists (px)."""

PORTRAIT_THUMB_2X_SIDE = 2 * PORTRAIT_THUMB_SIDE
"""The same thumbnail for screens of two device pixels per CSS pixel (``srcset`` 2x)."""


class PortraitFiles(NamedTuple):
    """The files of one portrait: the picture and its two square thumbnails (1x, 2x), WebP,
    named ``<stem>.webp``, ``<stem>-96.webp`` and ``<stem>-192.webp`` (one fresh random stem,
    so the three are stored next to each other and a new upload never reuses a name)."""

    portrait: ContentFile[bytes]
    thumb: ContentFile[bytes]
    thumb_2x: ContentFile[bytes]


def _webp(image: Image.Image, name: str, quality: int = 85) -> ContentFile[bytes]:
    out = io.BytesIO()
    image.info = {}  # nothing of the upload's metadata is written back
    image.save(out, "WEBP", quality=quality, method=4)
    return ContentFile(out.getvalue(), name=name)


def portrait_files(file: IO[bytes]) -> PortraitFiles:
    """The portrait to store and its thumbnails, all re-encoded as WebP from the pixels alone.

    The upload (already through ``validate_portrait``) is turned upright by its EXIF orientation,
    converted to RGB or RGBA (an animated GIF keeps its first frame), scaled down to at most
    ``PORTRAIT_MAX_SIDE`` px on its longest side, and written anew: no EXIF, GPS, ICC profile or
    comment survives. The thumbnails are centred squares of ``PORTRAIT_THUMB_SIDE`` and
    ``PORTRAIT_THUMB_2X_SIDE`` px. The upload's name is not kept.
    Raises ServiceError({"portrait": …}) when Pillow cannot decode it after all.
    """
    try:
        file.seek(0)
        with Image.open(file) as opened:
            opened.seek(0)
            upright = ImageOps.exif_transpose(opened)
            has_alpha = upright.mode in ("RGBA", "LA", "PA") or "transparency" in upright.info
            image = upright.convert("RGBA" if has_alpha else "RGB")
    except Exception:
        raise ServiceError(
            {"portrait": _("The portrait must be a JPEG, PNG, WebP or GIF image.")}
        ) from None
    finally:
        file.seek(0)
    image.thumbnail((PORTRAIT_MAX_SIDE, PORTRAIT_MAX_SIDE))
    stem = uuid.uuid4().hex
    small, large = PORTRAIT_THUMB_SIDE, PORTRAIT_THUMB_2X_SIDE
    return PortraitFiles(
        _webp(image, f"{stem}.webp"),
        _webp(ImageOps.fit(image, (small, small)), f"{stem}-{small}.webp", quality=80),
        _webp(ImageOps.fit(image, (large, large)), f"{stem}-{large}.webp", quality=80),
    )


def portrait_assign(owner: Any, file: IO[bytes] | None) -> None:
    """Put a new portrait on ``owner`` (a character or an NPC: fields ``portrait``,
    ``portrait_thumb``, ``portrait_thumb_2x``), its thumbnails made now; ``None`` removes all
    three. Not saved: the caller saves (a post fragment's cache key changes on that save,
    ``escenas.fragments.names_changed``). The file must have passed ``validate_portrait``."""
    if file is None:
        owner.portrait = owner.portrait_thumb = owner.portrait_thumb_2x = ""
        return
    owner.portrait, owner.portrait_thumb, owner.portrait_thumb_2x = portrait_files(file)


def portrait_from_admin_form(owner: Any, form: Any) -> None:
    """The admin's portrait upload (or clearing) on ``owner`` with its thumbnails, before
    ``save_model`` saves it: the admin's file field stores the upload as it came, this makes it
    the re-encoded portrait the other pages make. Nothing when the field did not change."""
    if "portrait" not in form.changed_data:
        return
    upload = form.cleaned_data.get("portrait")
    portrait_assign(owner, upload if upload and not isinstance(upload, bool) else None)


def clean_admin_portrait(form: Any) -> Any:
    """An admin form's ``clean_portrait``: ``validate_portrait``'s refusal as the field's error
    (a stored portrait, unchanged, is not checked again)."""
    upload = form.cleaned_data.get("portrait")
    if upload and "portrait" in form.changed_data and hasattr(upload, "seek"):
        try:
            validate_portrait(upload)
        except ServiceError as exc:
            raise ValidationError(exc.message_dict["portrait"]) from None
    return upload


def portrait_response(owner: Any, thumb: bool | str = False) -> FileResponse:
    """The file of ``owner``'s portrait (a character or an NPC, already access-checked):
    ``thumb`` True the 96 px thumbnail, ``"2x"`` the 192 px one (an older upload without
    one falls back to what it has). Raises Http404 when there is none."""
    field = owner.portrait
    if thumb and owner.portrait_thumb:
        field = owner.portrait_thumb
    if thumb == "2x" and owner.portrait_thumb_2x:
        field = owner.portrait_thumb_2x
    if not field:
        raise Http404("No portrait")
    try:
        handle = field.open("rb")
    except FileNotFoundError:
        raise Http404("No portrait") from None
    content_type = mimetypes.guess_type(field.name)[0] or "application/octet-stream"
    response = FileResponse(handle, content_type=content_type)
    response["Cache-Control"] = "private, max-age=3600"
    response["X-Content-Type-Options"] = "nosniff"
    return response


__all__ = [
    "PORTRAIT_FORMATS",
    "PORTRAIT_MAX_PIXELS",
    "PORTRAIT_MAX_SIDE",
    "PORTRAIT_THUMB_2X_SIDE",
    "PORTRAIT_THUMB_SIDE",
    "PortraitFiles",
    "clean_admin_portrait",
    "portrait_assign",
    "portrait_files",
    "portrait_from_admin_form",
    "portrait_response",
    "validate_portrait",
]

"""A character's portrait: the check an uploaded image passes, and the re-encoding that stores
it without what the camera wrote (EXIF, GPS, colour profile, comments) plus a thumbnail.

Portraits are served only through ``personajes.views.character_portrait``, which checks that
the viewer may see the character (a private campaign's portraits do not leak by URL).
Source: RULES.md R5 (the sheet a player builds).
"""

from __future__ import annotations

import uuid
from typing import IO

from django.core.files.base import ContentFile
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

PORTRAIT_THUMB_SIDE = 160
"""The side of the square thumbnail shown beside posts and in lists (px)."""


def _webp(image: Image.Image, quality: int = 85) -> ContentFile[bytes]:
    import io

    out = io.BytesIO()
    image.info = {}  # nothing of the upload's metadata is written back
    image.save(out, "WEBP", quality=quality, method=4)
    return ContentFile(out.getvalue(), name=f"{uuid.uuid4().hex}.webp")


def portrait_files(file: IO[bytes]) -> tuple[ContentFile[bytes], ContentFile[bytes]]:
    """The portrait to store and its thumbnail, both re-encoded as WebP from the pixels alone.

    The upload (already through ``validate_portrait``) is turned upright by its EXIF orientation,
    converted to RGB or RGBA (an animated GIF keeps its first frame), scaled down to at most
    ``PORTRAIT_MAX_SIDE`` px on its longest side, and written anew: no EXIF, GPS, ICC profile or
    comment survives. The thumbnail is a centred square of ``PORTRAIT_THUMB_SIDE`` px.
    Returns ``(portrait, thumbnail)`` with fresh random names (the upload's name is not kept).
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
    thumb = ImageOps.fit(image, (PORTRAIT_THUMB_SIDE, PORTRAIT_THUMB_SIDE))
    return _webp(image), _webp(thumb, quality=80)


__all__ = [
    "PORTRAIT_FORMATS",
    "PORTRAIT_MAX_PIXELS",
    "PORTRAIT_MAX_SIDE",
    "PORTRAIT_THUMB_SIDE",
    "portrait_files",
    "validate_portrait",
]

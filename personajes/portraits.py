"""A character's portrait: the one check an uploaded image passes before it is stored.

Source: RULES.md R5 (the sheet a player builds).
"""

from __future__ import annotations

from typing import IO

from django.utils.translation import gettext as _
from PIL import Image

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


__all__ = ["PORTRAIT_FORMATS", "PORTRAIT_MAX_PIXELS", "validate_portrait"]

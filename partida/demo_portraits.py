"""The demo's portraits: one for each approved demo character, drawn with Pillow at load time.

So that a newcomer sees portraits on the sheets (and the access-checked portrait view,
``personajes.views.character_portrait``) without any image in the repository. Each portrait is
a plain drawing (a coloured background, a head and shoulders) re-encoded and thumbnailed by
``personajes.portraits.portrait_assign`` exactly as an upload is. Idempotent: a character that
already has a portrait (an earlier run's, or one its player uploaded) is left alone.
"""

from __future__ import annotations

import io
from typing import Any

from PIL import Image, ImageDraw

from personajes.models import Character
from personajes.portraits import portrait_assign

SIDE = 256
"""The drawing's side in px (square)."""

COLOURS = [
    ((156, 61, 38), (240, 200, 170)),
    ((52, 88, 61), (214, 180, 150)),
    ((49, 72, 120), (230, 190, 160)),
]
"""(background, skin) RGB pairs, one per character in turn."""


def portrait_png(background: tuple[int, int, int], skin: tuple[int, int, int]) -> io.BytesIO:
    """A SIDE × SIDE PNG of a head and shoulders on ``background`` (RGB), as a file."""
    image = Image.new("RGB", (SIDE, SIDE), background)
    draw = ImageDraw.Draw(image)
    draw.ellipse((48, 170, 208, 330), fill=(40, 40, 40))  # shoulders
    draw.ellipse((83, 50, 173, 160), fill=skin)  # head
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    buffer.seek(0)
    return buffer


def load(characters: list[Character], stdout: Any) -> int:
    """Give each approved character of ``characters`` without a portrait a drawn one (stored
    under MEDIA_ROOT like an upload, with its thumbnails). Returns how many were drawn."""
    drawn = 0
    for index, character in enumerate(characters):
        if character.portrait or character.status != Character.Status.APPROVED:
            continue
        background, skin = COLOURS[index % len(COLOURS)]
        portrait_assign(character, portrait_png(background, skin))
        character.save(update_fields=["portrait", "portrait_thumb", "portrait_thumb_2x"])
        drawn += 1
    if drawn:
        stdout.write(f"  Retratos dibujados: {drawn}")
    return drawn

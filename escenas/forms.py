"""Forms of the scene pages. They check the shape of what was typed; the rules (who may post,
roll, whisper) are the services'. No form has a field for a die, a total or an outcome: those
are made on the server, so nothing a client sends can set them.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from escenas.access import SceneAccess
from escenas.models import (
    BODY_MAX_CHARS,
    NOTE_MAX_CHARS,
    NonPlayerCharacter,
    NotificationPreference,
    Post,
    Scene,
)
from escenas.search import SearchFilters
from escenas.services import RollSpec
from nucleo.bounds import DAY_MAX, ID_MAX
from nucleo.forms import choice_field, model_choice_field
from nucleo.text import CleanCharField
from personajes.models import Character, Roll, Trait

ROLL_NONE = ""
ROLL_NAMES = ("kind", "character", "trait", "threshold", "probability", "expression", "reason")
"""The roll vocabulary of ``personajes.rolls`` as a post form's inputs (``hidden`` aside: the
master's only)."""
EXTRA_ROLL_SLOTS = (1, 2)
"""The form's further roll slots, ``rolls_<i>_<name>`` (the first is ``roll_<name>``): three
rolls in one post without JavaScript."""


def roll_slot_prefix(slot: int) -> str:
    """The input names' prefix of roll slot ``slot``: ``roll_`` for the first (its names
    predate the others), ``rolls_<slot>_`` after it."""
    return "roll_" if slot == 0 else f"rolls_{slot}_"


@dataclass(frozen=True)
class RollSlot:
    """One further roll block of the post form: its number and bound fields by name
    (``fields["kind"]`` is the bound ``rolls_<n>_kind``), for ``escenas/_roll_slot.html``."""

    number: int
    fields: dict[str, forms.BoundField]

    @property
    def has_errors(self) -> bool:
        return any(f.errors for f in self.fields.values())

    @property
    def is_used(self) -> bool:
        value = self.fields["kind"].value()
        return bool(value) or self.has_errors


def new_idempotency_key() -> str:
    """A fresh key for a post form (uuid4 hex, 32 characters)."""
    return uuid.uuid4().hex


class PostForm(forms.Form):
    """A post: voice, text, note to the master, whisper, and up to three rolls to make.

    The first roll's inputs are ``roll_<name>`` for each name of the roll vocabulary
    (``personajes.rolls``: kind, character, trait, threshold, probability, expression, reason,
    hidden), the further ones' ``rolls_<i>_<name>`` (``EXTRA_ROLL_SLOTS``): the API's
    ``rolls`` list, flattened. The service's ``rolls.<i>.<name>`` errors land on them through
    ``error_fields`` (``nucleo.forms.add_service_errors``).

    Built for one ``SceneAccess``: the voices, characters, traits, whisper recipients and pending
    roll requests offered are the viewer's.
    """

    idempotency_key = forms.CharField(widget=forms.HiddenInput, max_length=64)
    voice = forms.ChoiceField(label=_("Write as"))
    npc_name = CleanCharField(label=_("Name of the NPC"), required=False, max_length=80)
    body = CleanCharField(
        multiline=True,
        label=_("Text"),
        required=False,
        max_length=BODY_MAX_CHARS,
        widget=forms.Textarea(attrs={"rows": 8}),
        help_text=_(
            "Markdown: **bold**, *italics*, > quote, - list, [link](https://…), @name to "
            "mention, a spoiler between the lines ::: spoiler and :::."
        ),
    )
    note_to_master = CleanCharField(
        multiline=True,
        label=_("Note to the master"),
        required=False,
        max_length=NOTE_MAX_CHARS,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_("Only you and the master will see it."),
    )
    whisper = forms.BooleanField(
        label=_("Whisper"),
        required=False,
        help_text=_("Only the people you choose and the master will see the post."),
    )
    whisper_to = forms.MultipleChoiceField(
        label=_("Whisper to"), required=False, widget=forms.CheckboxSelectMultiple
    )
    roll_kind = forms.ChoiceField(
        label=_("Roll"),
        required=False,
        widget=forms.RadioSelect,
        choices=[
            (ROLL_NONE, _("No roll")),
            (Roll.Kind.ACTION, _("Action (trait)")),
            (Roll.Kind.EVENT, _("Event (d100)")),
            (Roll.Kind.EXPRESSION, _("Dice (2d6+1…)")),
        ],
    )
    roll_character = forms.TypedChoiceField(label=_("Character"), required=False, coerce=int)
    roll_trait = forms.ChoiceField(label=_("Trait"), required=False)
    roll_threshold = forms.IntegerField(
        label=_("Threshold (%)"),
        required=False,
        min_value=0,
        max_value=100,
        help_text=_("Leave it empty and the master will set it; the dice are rolled now."),
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )
    roll_probability = forms.IntegerField(
        label=_("Probability (%)"),
        required=False,
        min_value=0,
        max_value=100,
        help_text=_("Leave it empty and the master will set it; the die is rolled now."),
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )
    roll_expression = CleanCharField(
        label=_("Dice expression"),
        required=False,
        max_length=200,
        help_text=_("For example 2d6+1, 1d3 or 3d100<=40 (counts successes)."),
        widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false"}),
    )
    roll_reason = CleanCharField(label=_("Reason for the roll"), required=False, max_length=200)
    roll_hidden = forms.BooleanField(
        label=_("Hidden roll (only the master sees the dice)"), required=False
    )
    fulfil = forms.MultipleChoiceField(required=False, widget=forms.MultipleHiddenInput)
    reply_to = forms.IntegerField(
        required=False, min_value=1, max_value=ID_MAX, widget=forms.HiddenInput
    )

    def __init__(
        self,
        *args: Any,
        access: SceneAccess,
        traits: Sequence[Trait] = (),
        requests: Sequence[Any] = (),
        whisper_candidates: Sequence[Any] = (),
        npcs: Sequence[NonPlayerCharacter] = (),
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.access = access
        self.npcs = {n.pk: n for n in npcs}
        self.characters = {c.pk: c for c in access.characters}
        voices: list[tuple[Any, Any]] = []  # choices and one group of them (the NPCs)
        for voice in access.voices:
            if voice == Post.Voice.CHARACTER:
                voices += [(f"character:{c.pk}", c.name) for c in access.characters]
            elif voice == Post.Voice.PLAYER:
                voices.append((voice, _("Myself, out of character")))
            elif voice == Post.Voice.NARRATOR:
                voices.append((voice, _("Narrator")))
            elif voice == Post.Voice.NPC:
                if npcs:  # the master's NPCs (``escenas.npcs``), with their portraits
                    voices.append(
                        (_("Non-player characters"), [(f"npc:{n.pk}", n.name) for n in npcs])
                    )
                voices.append((voice, _("A non-player character (NPC)")))
        choice_field(self, "voice").choices = voices
        if voices and not self.initial.get("voice"):
            self.fields["voice"].initial = voices[0][0]
        choice_field(self, "roll_character").choices = [(c.pk, c.name) for c in access.characters]
        choice_field(self, "roll_trait").choices = [(t.slug, t.name) for t in traits]
        choice_field(self, "whisper_to").choices = [
            (u.pk, u.get_username()) for u in whisper_candidates
        ]
        self.whisper_users = {str(u.pk): u for u in whisper_candidates}
        self.requests = list(requests)
        choice_field(self, "fulfil").choices = [(str(r.pk), str(r.pk)) for r in self.requests]
        if access.is_master:
            del self.fields["note_to_master"]
        else:
            del self.fields["roll_hidden"]
            del self.fields["npc_name"]
        if not access.characters or not traits:
            kinds = choice_field(self, "roll_kind")
            assert isinstance(kinds.choices, list)  # Django keeps a list of choices as a list
            kinds.choices = [c for c in kinds.choices if c[0] != Roll.Kind.ACTION]
        self.fields["body"].widget.attrs.update(
            {"class": "post-body", "aria-describedby": "id_body_helptext"}
        )
        self._add_roll_slots()
        self.error_fields: dict[str, str] = {}
        """Service error keys → this form's inputs (``rolls.1.trait`` → ``rolls_2_trait``
        when the second slot was left empty); set by ``service_kwargs``."""

    def _add_roll_slots(self) -> None:
        """Copy the first roll's fields (their choices set above) for each further slot."""
        names = [*ROLL_NAMES, *(["hidden"] if "roll_hidden" in self.fields else [])]
        for slot in EXTRA_ROLL_SLOTS:
            for name in names:
                field = copy.deepcopy(self.fields[f"roll_{name}"])
                field.help_text = ""
                if name == "trait":
                    traits = choice_field(self, "roll_trait").choices
                    assert isinstance(field, forms.ChoiceField)  # a copy of roll_trait
                    assert isinstance(traits, list)  # set from a list in __init__
                    field.choices = [("", "—"), *traits]
                self.fields[f"{roll_slot_prefix(slot)}{name}"] = field
            self.fields[f"{roll_slot_prefix(slot)}kind"].initial = ROLL_NONE

    def roll_slots(self) -> list[RollSlot]:
        """The further roll blocks, with their bound fields (the template's loop)."""
        return [
            RollSlot(
                number=slot + 1,
                fields={
                    name.removeprefix(roll_slot_prefix(slot)): self[name]
                    for name in self.fields
                    if name.startswith(roll_slot_prefix(slot))
                },
            )
            for slot in EXTRA_ROLL_SLOTS
        ]

    @property
    def shows_whisper(self) -> bool:
        return self.access.scene.kind != Scene.Kind.NOTES

    def voice_and_character(self) -> tuple[str, Character | None]:
        value = self.cleaned_data.get("voice") or ""
        if value.startswith("character:"):
            pk = int(value.split(":", 1)[1])
            return Post.Voice.CHARACTER, self.characters.get(pk)
        if value.startswith("npc:"):
            return Post.Voice.NPC, None
        return value, None

    def chosen_npc(self) -> NonPlayerCharacter | None:
        """The campaign's NPC chosen as the voice (``npc:<id>``), or None."""
        value = self.cleaned_data.get("voice") or ""
        if not value.startswith("npc:"):
            return None
        return self.npcs.get(int(value.split(":", 1)[1]))

    def roll_spec(self, slot: int = 0) -> RollSpec | None:
        """The roll slot ``slot`` asks for, or None when it is left at "no roll"."""
        data, p = self.cleaned_data, roll_slot_prefix(slot)
        kind = data.get(f"{p}kind") or ROLL_NONE
        if kind == ROLL_NONE:
            return None
        _voice, speaking = self.voice_and_character()
        character = self.characters.get(data.get(f"{p}character") or 0) or speaking
        return RollSpec(
            kind=kind,
            character=character,
            trait=data.get(f"{p}trait") or "",
            threshold=data.get(f"{p}threshold"),
            probability=data.get(f"{p}probability"),
            expression=data.get(f"{p}expression") or "",
            reason=data.get(f"{p}reason") or "",
            hidden=bool(data.get(f"{p}hidden")),
        )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        for slot in (0, *EXTRA_ROLL_SLOTS):
            p = roll_slot_prefix(slot)
            kind = data.get(f"{p}kind")
            if kind == Roll.Kind.ACTION and not data.get(f"{p}trait"):
                self.add_error(f"{p}trait", _("Choose the trait to roll."))
            if kind == Roll.Kind.EXPRESSION and not (data.get(f"{p}expression") or "").strip():
                self.add_error(f"{p}expression", _("Write the dice to roll, for example 2d6+1."))
        return data

    def _rolls(self) -> list[RollSpec]:
        """The slots' rolls in order, empty slots skipped; ``error_fields`` maps each one's
        service error keys (``rolls.<i>.<name>``) to its slot's inputs."""
        rolls: list[RollSpec] = []
        self.error_fields = {}
        for slot in (0, *EXTRA_ROLL_SLOTS):
            spec = self.roll_spec(slot)
            if spec is None:
                continue
            for name in (*ROLL_NAMES, "hidden"):
                self.error_fields[f"rolls.{len(rolls)}.{name}"] = roll_slot_prefix(slot) + name
            rolls.append(spec)
        return rolls

    def service_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``services.post_create`` (except access and author); sets
        ``error_fields`` for the service's refusals."""
        data = self.cleaned_data
        voice, character = self.voice_and_character()
        return {
            "idempotency_key": data["idempotency_key"],
            "body": data.get("body") or "",
            "voice": voice,
            "character": character,
            "npc_name": data.get("npc_name") or "",
            "npc": self.chosen_npc(),
            "note_to_master": data.get("note_to_master") or "",
            "whisper": bool(data.get("whisper")) or bool(data.get("whisper_to")),
            "whisper_to": [self.whisper_users[k] for k in data.get("whisper_to") or []],
            "rolls": self._rolls(),
            "fulfil": [int(x) for x in data.get("fulfil") or []],
            "reply_to": data.get("reply_to"),
        }


class PostEditForm(forms.Form):
    """Edit a post's text (its rolls never change)."""

    body = CleanCharField(
        multiline=True,
        label=_("Text"),
        required=False,
        max_length=BODY_MAX_CHARS,
        widget=forms.Textarea(attrs={"rows": 10, "class": "post-body"}),
        help_text=PostForm.base_fields["body"].help_text,
    )
    note_to_master = CleanCharField(
        multiline=True,
        label=_("Note to the master"),
        required=False,
        max_length=NOTE_MAX_CHARS,
        widget=forms.Textarea(attrs={"rows": 2}),
    )


class ThresholdForm(forms.Form):
    """The master sets a roll's threshold (%)."""

    threshold = forms.IntegerField(
        label=_("Threshold (%)"),
        min_value=0,
        max_value=100,
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "class": "threshold-input"}),
    )


class RollRequestForm(forms.Form):
    """The master asks a character for an action roll."""

    character = forms.TypedChoiceField(label=_("Character"), coerce=int)
    trait = forms.ChoiceField(label=_("Trait"))
    threshold = forms.IntegerField(
        label=_("Threshold (%)"),
        required=False,
        min_value=0,
        max_value=100,
        help_text=_("Optional: you can set it on the roll later."),
    )
    reason = CleanCharField(label=_("Reason"), required=False, max_length=200)
    hidden = forms.BooleanField(label=_("Hidden (only the master sees the dice)"), required=False)

    def __init__(
        self, *args: Any, access: SceneAccess, traits: Sequence[Trait] = (), **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.characters = {c.pk: c for c in access.characters}
        self.traits = {t.slug: t for t in traits}
        choice_field(self, "character").choices = [(c.pk, c.name) for c in access.characters]
        choice_field(self, "trait").choices = [(t.slug, t.name) for t in traits]


class ParticipantsField(forms.ModelMultipleChoiceField):
    """Characters as "name (player)", and their status when not alive."""

    def label_from_instance(self, obj: Character) -> str:
        return f"{obj.name} ({obj.player.get_username()})" + (
            "" if obj.is_alive else f" — {obj.get_status_display()}"
        )


class SceneForm(forms.Form):
    """A story scene or master notes: title, summary, readers, participants."""

    kind = forms.ChoiceField(
        label=_("Kind"),
        choices=[(Scene.Kind.STORY, _("Story scene")), (Scene.Kind.NOTES, _("Master notes"))],
        initial=Scene.Kind.STORY,
    )
    title = CleanCharField(label=_("Title"), max_length=120)
    summary = CleanCharField(
        multiline=True, label=_("Summary"), required=False, widget=forms.Textarea(attrs={"rows": 3})
    )
    readers = forms.ChoiceField(
        label=_("Who else may read it"),
        choices=Scene.Readers.choices,
        initial=Scene.Readers.MEMBERS,
        help_text=_("Story scenes: the participants and the master always may."),
    )
    open_to_new_characters = forms.BooleanField(
        label=_("Open to new characters"),
        required=False,
        help_text=_("Story scenes: each character approved from now on joins it."),
    )
    participants = ParticipantsField(
        label=_("Participating characters"),
        queryset=Character.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )

    def __init__(self, *args: Any, campaign: Any, editing: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Every character of the campaign (a dead participant stays in the scene's list; only
        # living ones can post or roll, which the services check).
        model_choice_field(self, "participants").queryset = (
            Character.objects.filter(campaign=campaign).select_related("player").order_by("name")
        )
        if editing:
            del self.fields["kind"]


class SearchForm(forms.Form):
    """The post search (``escenas.search``): words and filters, all optional. Every filter is
    typed, none a list to pick from: a select of the campaign's characters or scenes would
    grow with the campaign (500 characters made the page 150 ms; issue 14)."""

    q = CleanCharField(label=_("Words"), max_length=100, required=False)
    author = CleanCharField(label=_("Written by (user)"), max_length=150, required=False)
    character = CleanCharField(label=_("Character (name)"), max_length=80, required=False)
    scene = CleanCharField(label=_("Scene (part of its title)"), max_length=120, required=False)
    day_from = forms.IntegerField(
        label=_("From day"), min_value=0, max_value=DAY_MAX, required=False
    )
    day_to = forms.IntegerField(label=_("To day"), min_value=0, max_value=DAY_MAX, required=False)
    has_roll = forms.BooleanField(label=_("Only posts with a roll"), required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        low, high = data.get("day_from"), data.get("day_to")
        if low is not None and high is not None and low > high:
            self.add_error("day_to", _("The last day cannot come before the first."))
        return data

    def filters(self) -> SearchFilters:
        """The valid form as ``escenas.search.SearchFilters`` (empty filters when invalid)."""
        if not self.is_valid():
            return SearchFilters()
        d = self.cleaned_data
        return SearchFilters(
            query=d["q"],
            author=d["author"],
            character=d["character"],
            scene=d["scene"],
            day_from=d["day_from"],
            day_to=d["day_to"],
            has_roll=d["has_roll"],
        )


class NotificationForm(forms.Form):
    mode = forms.ChoiceField(
        label=_("E-mail me"),
        choices=NotificationPreference.Mode.choices,
        widget=forms.RadioSelect,
    )

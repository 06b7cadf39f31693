"""A whole campaign as one archive (zip: ``campaign.json`` + ``media/…``), and back.

``campaign_export`` writes every row that belongs to the campaign — found through the models'
foreign keys, so a model added later that points to the campaign (or to one of its rows) is
exported without changes here — and the files its rows name. ``campaign_import`` restores it
into this site in one transaction: new primary keys (every foreign key and many-to-many link
remapped), users matched by e-mail (else by user name with the same e-mail) or created inactive
without a usable password, files saved into the default storage.

Left out on purpose: pending invitations (their tokens are credentials), API tokens,
notification preferences (a user's, not a campaign's) and the campaign's own exports.
A failed import leaves nothing behind: no rows (one transaction) and no files (the ones it had
saved are deleted).
"""

from __future__ import annotations

import bisect
import datetime
import io
import json
import zipfile
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models, transaction
from django.utils.translation import gettext as _

from mundo.models import Campaign, validate_campaign_slug
from nucleo.errors import ServiceError

FORMAT = "partida-campaign"
VERSION = 1
APPS = ("mundo", "personajes", "escenas", "partida")
EXCLUDED = {
    "mundo.invitation",
    "partida.apitoken",
    "partida.campaignexport",
    "escenas.notificationpreference",
}
POST_MARKS = {
    "escenas.sceneread": ("last_post_id", "notified_post_id"),
    "escenas.scene": ("last_post_id", "last_public_post_id"),
}
"""Plain integer columns that hold a post's id as a high-water mark (read up to, told up to,
a scene's newest post): no foreign key says so, so the import remaps them itself
(``_marks_remap``)."""


def _label(model: type[models.Model]) -> str:
    return model._meta.label_lower


def _links(model: type[models.Model]) -> list[models.ForeignKey[Any, Any]]:
    """The model's concrete foreign keys and one-to-ones (``OneToOneField`` is a ForeignKey)."""
    return [f for f in model._meta.concrete_fields if isinstance(f, models.ForeignKey)]


def _user_model() -> type[models.Model]:
    return get_user_model()


def campaign_models() -> list[type[models.Model]]:
    """The models whose rows belong to a campaign, parents before children (foreign keys to
    users do not order). Raises RuntimeError on a cycle of foreign keys between them."""
    user = _user_model()
    candidates = {
        m
        for app in APPS
        for m in apps.get_app_config(app).get_models()
        if _label(m) not in EXCLUDED and m is not user
    }
    inside: set[type[models.Model]] = {Campaign}
    changed = True
    while changed:  # a model belongs when one of its foreign keys reaches a member
        changed = False
        for model in candidates - inside:
            if any(f.related_model in inside for f in _links(model) if not f.null):
                inside.add(model)
                changed = True
    ordered: list[type[models.Model]] = []
    pending = sorted(inside, key=_label)
    while pending:
        ready = [
            m
            for m in pending
            if all(
                target in ordered or target is m or target not in inside
                for target in [f.related_model for f in _links(m)]
                + [f.related_model for f in m._meta.many_to_many]
            )
        ]
        if not ready:
            raise RuntimeError(f"foreign-key cycle among {[_label(m) for m in pending]}")
        ordered += ready
        pending = [m for m in pending if m not in ready]
    return ordered


def _path_to_campaign(model: type[models.Model], inside: set[type[models.Model]]) -> str:
    """The lookup (``post__scene__campaign``) from ``model`` to its campaign, shortest first,
    through required foreign keys."""
    queue: deque[tuple[type[models.Model], str]] = deque([(model, "")])
    seen = {model}
    while queue:
        current, path = queue.popleft()
        for f in _links(current):
            target = f.related_model
            if f.null or target not in inside or target in seen:
                continue
            lookup = f"{path}__{f.name}" if path else f.name
            if target is Campaign:
                return lookup
            seen.add(target)
            queue.append((target, lookup))
    raise RuntimeError(f"{_label(model)} has no required path to its campaign")


def _rows(
    model: type[models.Model], campaign: Campaign, inside: set[type[models.Model]]
) -> models.QuerySet[Any]:
    if model is Campaign:
        return Campaign.objects.filter(pk=campaign.pk)
    path = _path_to_campaign(model, inside)
    return model._default_manager.filter(**{path: campaign}).order_by("pk")


class _LosslessEncoder(DjangoJSONEncoder):
    """DjangoJSONEncoder, except that times keep their microseconds (it cuts them to
    milliseconds, which a round trip would lose)."""

    def default(self, o: Any) -> Any:
        if isinstance(o, datetime.datetime | datetime.time):
            return o.isoformat()
        return super().default(o)


def _serialize(obj: models.Model) -> dict[str, Any]:
    row: dict[str, Any] = {"pk": obj.pk}
    for f in obj._meta.concrete_fields:
        if f.primary_key:
            continue
        if isinstance(f, models.ForeignKey):
            row[f.name] = getattr(obj, f.attname)
        elif isinstance(f, models.FileField):
            row[f.name] = getattr(obj, f.attname).name or ""
        else:
            row[f.name] = f.value_from_object(obj)
    for m2m in obj._meta.many_to_many:
        row[m2m.name] = sorted(getattr(obj, m2m.name).values_list("pk", flat=True))
    return row


@dataclass
class Export:
    """What ``campaign_export`` wrote: rows per model label and the files' names."""

    rows: dict[str, int] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)


def campaign_export(
    campaign: Campaign,
    out: io.BufferedIOBase | io.BytesIO,
    *,
    progress: Callable[[int], None] | None = None,
) -> Export:
    """Write ``campaign`` with every row and file that belongs to it as a zip to ``out``.

    ``progress`` (optional) is called with the share done, 0–100 %, after each model's rows
    are read and after each file is written (rows count for the first 80 %, files the rest).

    One transaction (a consistent snapshot). Archive layout: ``campaign.json`` ``{"format",
    "version", "exported_at", "users": [{pk, username, email, first_name, last_name}],
    "models": {label: [row]}}`` with a row's foreign keys as the exporting site's primary keys,
    and ``media/<name>`` for every file a row names. Returns the counts.
    """
    inside = set(campaign_models())
    data: dict[str, list[dict[str, Any]]] = {}
    result = Export()
    user_ids: set[int] = set()
    user_fields = _user_fields()
    ordered = campaign_models()
    with transaction.atomic():
        for number, model in enumerate(ordered, start=1):
            rows = [_serialize(obj) for obj in _rows(model, campaign, inside)]
            data[_label(model)] = rows
            result.rows[_label(model)] = len(rows)
            for f in model._meta.concrete_fields:
                if f.name in user_fields.get(_label(model), ()):
                    user_ids |= {r[f.name] for r in rows if r[f.name] is not None}
                if isinstance(f, models.FileField):
                    result.files += [r[f.name] for r in rows if r[f.name]]
            for m2m in model._meta.many_to_many:
                if m2m.related_model is _user_model():
                    user_ids |= {pk for r in rows for pk in r[m2m.name]}
            if progress is not None:
                progress(80 * number // len(ordered))
        users = list(
            _user_model()
            ._default_manager.filter(pk__in=user_ids)
            .order_by("pk")
            .values("pk", "username", "email", "first_name", "last_name")
        )
    document = {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": datetime.datetime.now(datetime.UTC).isoformat(),
        "users": users,
        "models": data,
    }
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("campaign.json", json.dumps(document, cls=_LosslessEncoder, indent=1))
        names = sorted(set(result.files))
        for number, name in enumerate(names, start=1):
            if default_storage.exists(name):
                with default_storage.open(name, "rb") as source:
                    archive.writestr(f"media/{name}", source.read())
            if progress is not None:
                progress(80 + 20 * number // len(names))
    return result


def _user_fields() -> dict[str, set[str]]:
    """Per model label, the names of its foreign keys to users."""
    user = _user_model()
    return {
        _label(m): {f.name for f in _links(m) if f.related_model is user} for m in campaign_models()
    }


def _users_match(users: Iterable[dict[str, Any]]) -> dict[int, int]:
    """Old user pk → this site's user: same e-mail (case-insensitive), else created inactive
    with an unusable password (a free user name from the archived one)."""
    user_model = _user_model()
    manager: Any = user_model._default_manager
    mapping = {}
    for user in users:
        found = manager.filter(email__iexact=user["email"]).order_by("pk").first()
        if found is None or not user["email"]:
            username, n = user["username"], 1
            while manager.filter(username=username).exists():
                n += 1
                username = f"{user['username']}-{n}"
            found = manager.create(
                username=username,
                email=user["email"],
                first_name=user["first_name"],
                last_name=user["last_name"],
                is_active=False,
            )
            found.set_unusable_password()
            found.save(update_fields=["password"])
        mapping[user["pk"]] = found.pk
    return mapping


@dataclass
class Import:
    """What ``campaign_import`` made: the new campaign, rows per model label, users created."""

    campaign: Campaign
    rows: dict[str, int] = field(default_factory=dict)
    users_created: int = 0
    pk_map: dict[str, dict[int, int]] = field(default_factory=dict)


def _document(archive: zipfile.ZipFile) -> dict[str, Any]:
    try:
        document: dict[str, Any] = json.loads(archive.read("campaign.json"))
    except (KeyError, ValueError) as error:
        raise ServiceError({"archive": _("This is not a campaign archive.")}) from error
    if document.get("format") != FORMAT or document.get("version") != VERSION:
        raise ServiceError(
            {"archive": _("This archive's format or version is not supported here.")}
        )
    return document


def _build(
    model: type[models.Model], row: dict[str, Any], pk_map: dict[str, dict[int, int]]
) -> models.Model:
    obj = model()
    for f in model._meta.concrete_fields:
        if f.primary_key or f.name not in row:
            continue
        value = row[f.name]
        if isinstance(f, models.ForeignKey) and f.related_model is model:
            setattr(obj, f.attname, None)  # a row of this same batch: linked once all exist
        elif isinstance(f, models.ForeignKey):
            targets = pk_map.get(_label(f.related_model))
            if value is not None and targets is not None:  # else: a row outside campaigns
                value = targets[value]
            setattr(obj, f.attname, value)
        elif isinstance(f, models.FileField):
            setattr(obj, f.attname, value)
        else:
            setattr(obj, f.attname, f.to_python(value))
    return obj


def campaign_import(data: io.BufferedIOBase | io.BytesIO, *, slug: str | None = None) -> Import:
    """Restore an archive of ``campaign_export`` into this site, all or nothing.

    ``slug`` renames the campaign (default: the archived slug). Raises ServiceError
    ``{"archive": …}`` for something else than a campaign archive, ``{"slug": …}`` when the
    slug is taken here or reserved (``mundo.models.RESERVED_CAMPAIGN_SLUGS``). Returns the new
    campaign and counts; ``pk_map`` maps each model label's archived primary keys to the new
    ones.
    """
    with zipfile.ZipFile(data) as archive:
        document = _document(archive)
        files = {
            n.removeprefix("media/"): archive.read(n)
            for n in archive.namelist()
            if n.startswith("media/")
        }
    campaign_row = document["models"][_label(Campaign)][0]
    slug = slug or campaign_row["slug"]
    try:
        validate_campaign_slug(slug)
    except DjangoValidationError as exc:
        raise ServiceError({"slug": exc.messages}) from exc
    if Campaign.objects.filter(slug=slug).exists():
        raise ServiceError(
            {"slug": _("A campaign with the slug “%(slug)s” already exists.") % {"slug": slug}}
        )
    campaign_row["slug"] = slug
    names: dict[str, str] = {}
    try:
        with transaction.atomic():
            before = _user_model()._default_manager.count()
            users = _users_match(document["users"])
            pk_map: dict[str, dict[int, int]] = {_label(_user_model()): users}
            result = Import(campaign=Campaign(), pk_map=pk_map)
            result.users_created = _user_model()._default_manager.count() - before
            _files_save(files, names)
            for model in campaign_models():
                rows = document["models"].get(_label(model), [])
                _rows_create(model, rows, pk_map, names)
                result.rows[_label(model)] = len(rows)
            _marks_remap(document, pk_map)
            campaign_pk = pk_map[_label(Campaign)][campaign_row["pk"]]
            result.campaign = Campaign.objects.get(pk=campaign_pk)
    except BaseException:
        for stored in names.values():  # the rows are rolled back: their files go too
            default_storage.delete(stored)
        raise
    return result


def _marks_remap(document: dict[str, Any], pk_map: dict[str, dict[int, int]]) -> None:
    """Point every ``POST_MARKS`` column at the new id of the newest archived post at or below
    its archived value (0 stays 0: nothing read yet). Posts are created in archived-pk order,
    so new ids keep the old order and "every post up to the mark" keeps its meaning."""
    posts = sorted(pk_map.get("escenas.post", {}).items())
    old = [archived for archived, _new in posts]
    for label, fields in POST_MARKS.items():
        model = apps.get_model(label)
        objs = []
        for row in document["models"].get(label, []):
            obj = model(pk=pk_map[label][row["pk"]])
            for name in fields:
                below = bisect.bisect_right(old, row.get(name) or 0)
                setattr(obj, name, posts[below - 1][1] if below else 0)
            objs.append(obj)
        if objs:
            model._default_manager.bulk_update(objs, list(fields))


def _files_save(files: dict[str, bytes], names: dict[str, str]) -> None:
    """Save each archived file, recording archived name → stored name (the storage may rename)
    in ``names`` as it goes, so a failure part-way knows which files it left."""
    for name, content in files.items():
        names[name] = default_storage.save(name, ContentFile(content))


def _rows_create(
    model: type[models.Model],
    rows: list[dict[str, Any]],
    pk_map: dict[str, dict[int, int]],
    names: dict[str, str],
) -> None:
    """Create the rows (bulk), keep their archived times, then their many-to-many links."""
    label = _label(model)
    objs = [_build(model, row, pk_map) for row in rows]
    for obj, row in zip(objs, rows, strict=True):
        for f in model._meta.concrete_fields:
            if isinstance(f, models.FileField) and row.get(f.name):
                setattr(obj, f.attname, names.get(row[f.name], row[f.name]))
    created = model._default_manager.bulk_create(objs)
    pk_map[label] = {row["pk"]: obj.pk for row, obj in zip(rows, created, strict=True)}
    own = [f for f in model._meta.concrete_fields if getattr(f, "related_model", None) is model]
    if own and created:  # links between rows of this model (a zombie's victim, say)
        for obj, row in zip(created, rows, strict=True):
            for f in own:
                if row.get(f.name) is not None:
                    setattr(obj, f.attname, pk_map[label][row[f.name]])
        model._default_manager.bulk_update(created, [f.name for f in own])
    automatic = [
        f.name
        for f in model._meta.concrete_fields
        if getattr(f, "auto_now", False) or getattr(f, "auto_now_add", False)
    ]
    if automatic and created:  # bulk_create stamped "now": put the archived times back
        for obj, row in zip(created, rows, strict=True):
            for name in automatic:
                stamp = model._meta.get_field(name)
                assert isinstance(stamp, models.Field)  # auto_now fields are concrete
                setattr(obj, name, stamp.to_python(row[name]))
        model._default_manager.bulk_update(created, automatic)
    for m2m in model._meta.many_to_many:
        through: type[models.Model] = m2m.remote_field.through  # type: ignore[assignment]
        target = _label(m2m.related_model)
        source_name = m2m.m2m_field_name()
        target_name = m2m.m2m_reverse_field_name()
        links = [
            through(**{f"{source_name}_id": obj.pk, f"{target_name}_id": pk_map[target][pk]})
            for obj, row in zip(created, rows, strict=True)
            for pk in row[m2m.name]
        ]
        through._default_manager.bulk_create(links)

"""Campaign exports from the campaign's export page: ask for one, build it, clean old ones.

A master asks (``export_request``); the Celery task ``build_campaign_export`` builds the zip
(``export_build``: in-process when Celery runs eagerly, the embedded default; on a worker in
the deployed topology) into the default storage under ``exports/``, recording its progress,
0–100 %, on the row as it goes, so the page can poll it. Only the newest ready export of a
campaign is kept, and none older than ``KEEP``: each new request and each finished build
deletes the others (row and file).

Source: DESIGN.md (campaign export and import; Celery for long work).
"""

from __future__ import annotations

import datetime
import secrets
import tempfile

from celery import shared_task
from django.contrib.auth.models import User
from django.core.files import File
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from mundo.models import Campaign
from nucleo.errors import ServiceError
from nucleo.locks import campaign_lock
from partida.archive import campaign_export
from partida.models import CampaignExport

KEEP = datetime.timedelta(days=2)
"""An export older than this is deleted, even the newest of its campaign."""

STALE = datetime.timedelta(hours=1)
"""A request still waiting or building after this long is taken as lost (a worker died)."""


def export_request(*, campaign: Campaign, user: User) -> CampaignExport:
    """Ask for a new export of ``campaign`` by ``user`` (a master: the view checks it) and queue
    its build after the commit. Returns the new row (``pending``), or the one already waiting
    or building when there is one (a double click asks once). Raises nothing."""
    exports_clean(campaign)
    with campaign_lock(campaign.pk):  # two requests at once: one export
        running = CampaignExport.objects.filter(
            campaign=campaign,
            status__in=[CampaignExport.Status.PENDING, CampaignExport.Status.BUILDING],
            created__gte=timezone.now() - STALE,
        ).first()
        if running is not None:
            return running
        export = CampaignExport.objects.create(campaign=campaign, requested_by=user)
        transaction.on_commit(lambda: build_campaign_export.delay(export.pk))
    return export


@shared_task(name="partida.build_campaign_export", ignore_result=True)
def build_campaign_export(export_id: int) -> str | None:
    """The task that builds the archive a master asked for (``export_build``). Delivered
    twice, it builds once. Returns the export's status, or None when there was nothing to
    build."""
    export = export_build(export_id)
    return None if export is None else export.status


def export_build(export_id: int) -> CampaignExport | None:
    """Build the archive of export ``export_id``: ``building`` with its progress updated as
    the rows and files are written, then ``ready`` with the file and its size (bytes), or
    ``failed`` with the error. Returns the row, or None when it is gone or not ``pending``
    (a task delivered twice builds once)."""
    claimed = CampaignExport.objects.filter(
        pk=export_id, status=CampaignExport.Status.PENDING
    ).update(status=CampaignExport.Status.BUILDING)
    if not claimed:
        return None
    export = CampaignExport.objects.select_related("campaign").get(pk=export_id)

    def progress(percent: int) -> None:
        CampaignExport.objects.filter(pk=export_id).update(progress=percent)

    try:
        with tempfile.TemporaryFile() as out:
            campaign_export(export.campaign, out, progress=progress)
            out.seek(0)
            stamp = timezone.now().strftime("%Y%m%d-%H%M")
            name = f"{export.campaign.slug}-{stamp}-{secrets.token_hex(8)}.zip"
            export.file.save(name, File(out), save=False)
        export.size = export.file.size
        export.status = CampaignExport.Status.READY
    except Exception as error:  # recorded for the master; the build must not retry forever
        export.status = CampaignExport.Status.FAILED
        export.error = str(error)[:300]
    export.progress = 100
    export.finished = timezone.now()
    export.save(update_fields=["file", "size", "status", "error", "progress", "finished"])
    exports_clean(export.campaign)
    return export


def exports_clean(campaign: Campaign) -> int:
    """Delete the exports of ``campaign`` no one needs, with their files: every ready or
    failed one but the newest ready one and the newest of all (the page shows its state or
    error), lost requests (waiting or building for more than ``STALE``) and any older than
    ``KEEP``. Returns how many were deleted."""
    now = timezone.now()
    exports = CampaignExport.objects.filter(campaign=campaign)
    kept = [
        e.pk
        for e in (exports.filter(status=CampaignExport.Status.READY).first(), exports.first())
        if e is not None and e.created >= now - KEEP and not e.in_progress
    ]
    finished = [CampaignExport.Status.READY, CampaignExport.Status.FAILED]
    doomed = exports.filter(
        Q(status__in=finished) | Q(created__lt=now - STALE) | Q(created__lt=now - KEEP)
    ).exclude(pk__in=kept)
    count = 0
    for export in doomed:
        if export.file:
            export.file.delete(save=False)
        export.delete()
        count += 1
    return count


def latest_export(campaign: Campaign) -> CampaignExport | None:
    """The export the page shows: the newest of ``campaign`` (any status), or None."""
    return CampaignExport.objects.filter(campaign=campaign).first()


def export_for_download(campaign: Campaign, export_id: int) -> CampaignExport:
    """The ready export ``export_id`` of ``campaign``. Raises ServiceError when it is not (any
    more) ready to download."""
    export = CampaignExport.objects.filter(
        campaign=campaign, pk=export_id, status=CampaignExport.Status.READY
    ).first()
    if export is None or not export.file:
        raise ServiceError(_("This export is no longer available: make a new one."))
    return export

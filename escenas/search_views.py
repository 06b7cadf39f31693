"""The post search page (``escenas.search`` does the searching)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from escenas import access as scene_access
from escenas import forms
from escenas import search as post_search


def search(request: HttpRequest, slug: str) -> HttpResponse:
    """Search the campaign's posts the visitor may read (``escenas.search``): words ranked on
    PostgreSQL, folded on SQLite, with filters; an invalid filter re-renders with its message."""
    campaign, viewer = scene_access.access_campaign_viewer(request.user, slug=slug)
    form = forms.SearchForm(request.GET or None)
    filters = form.filters()
    asked = form.is_bound and form.is_valid() and any(v for v in form.cleaned_data.values())
    return render(
        request,
        "escenas/search.html",
        {
            "campaign": campaign,
            "form": form,
            "asked": asked,
            "page": post_search.search_posts(campaign, viewer, filters, request.GET.get("page"))
            if asked
            else None,
            "limit": post_search.SEARCH_RESULTS,
        },
    )

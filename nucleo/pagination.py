"""The API's page-number pagination (``REST_FRAMEWORK["DEFAULT_PAGINATION_CLASS"]``).

In a module of its own that imports only DRF's pagination: the setting is imported while
``rest_framework.generics`` is being defined, so the class cannot live beside any view.
"""

from __future__ import annotations

from rest_framework import pagination


class PageNumberPagination(pagination.PageNumberPagination):
    """``?page=N`` (from 1) and ``?page_size=N`` (1..500, default 50); a page past the end
    is 404."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500

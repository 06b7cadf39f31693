"""``{% cached_post slot %}…{% endcached_post %}``: the scene page's per-post fragment cache
around the post partial (``escenas.fragments``). A slot with stored HTML writes it out; one
without renders the body with ``view`` set to the slot's post view, stores the result and
writes it out. The CSRF token goes in on the way out, never into the store.

``{% cached_list page %}…{% endcached_list %}``: the same around a page's whole post list
(``escenas.scene_pages.list_key``); the poller's ``now_ts`` is a placeholder too."""

from __future__ import annotations

from typing import Any

from django import template
from django.template.base import FilterExpression, NodeList, Parser, Token
from django.templatetags.l10n import unlocalize
from django.utils.safestring import SafeString, mark_safe

from escenas import scene_pages
from escenas.fragments import (
    CSRF_PLACEHOLDER,
    NOW_PLACEHOLDER,
    fill,
    fill_csrf,
    store_fragment,
    store_value,
)

register = template.Library()


class CachedPostNode(template.Node):
    def __init__(self, slot: FilterExpression, nodelist: NodeList) -> None:
        self.slot = slot
        self.nodelist = nodelist

    def render(self, context: Any) -> SafeString:
        slot = self.slot.resolve(context)
        html = slot.html
        if html is None:
            with context.push(view=slot.view, csrf_token=CSRF_PLACEHOLDER):
                html = self.nodelist.render(context)
            store_fragment(slot.key, str(html))
        return mark_safe(fill_csrf(html, context.get("csrf_token")))


@register.tag("cached_post")
def cached_post(parser: Parser, token: Token) -> CachedPostNode:
    bits = token.split_contents()
    if len(bits) != 2:
        raise template.TemplateSyntaxError("{% cached_post slot %} takes one argument")
    nodelist = parser.parse(("endcached_post",))
    parser.delete_first_token()
    return CachedPostNode(parser.compile_filter(bits[1]), nodelist)


class CachedListNode(template.Node):
    def __init__(self, page: FilterExpression, nodelist: NodeList) -> None:
        self.page = page
        self.nodelist = nodelist

    def render(self, context: Any) -> SafeString:
        page = self.page.resolve(context)
        html = page.list_html
        if html is None:
            with context.push(csrf_token=CSRF_PLACEHOLDER, now_ts=NOW_PLACEHOLDER):
                html = str(self.nodelist.render(context))
            if page.list_key:
                store_value(page.list_key, scene_pages.stored_list(page, html))
        now = context.get("now_ts")
        return mark_safe(
            fill(html, csrf_token=context.get("csrf_token"), now_ts=unlocalize(now))
            if now is not None and now != NOW_PLACEHOLDER
            else fill(html, csrf_token=context.get("csrf_token"))
        )


@register.tag("cached_list")
def cached_list(parser: Parser, token: Token) -> CachedListNode:
    bits = token.split_contents()
    if len(bits) != 2:
        raise template.TemplateSyntaxError("{% cached_list page %} takes one argument")
    nodelist = parser.parse(("endcached_list",))
    parser.delete_first_token()
    return CachedListNode(parser.compile_filter(bits[1]), nodelist)

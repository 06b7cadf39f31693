"""``{% cached_post slot %}…{% endcached_post %}``: the scene page's per-post fragment cache
around the post partial (``escenas.fragments``). A slot with stored HTML writes it out; one
without renders the body with ``view`` set to the slot's post view, stores the result and
writes it out. The CSRF token goes in on the way out, never into the store."""

from __future__ import annotations

from typing import Any

from django import template
from django.template.base import FilterExpression, NodeList, Parser, Token
from django.utils.safestring import SafeString, mark_safe

from escenas.fragments import CSRF_PLACEHOLDER, fill_csrf, store_fragment

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

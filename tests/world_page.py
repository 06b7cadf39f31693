"""The master's world page as a browser shows it once every task section is opened.

A closed section of the page (``mundo.world_page.SECTIONS``) holds a placeholder that htmx
replaces, on opening, with the section fetched from the placeholder's own ``hx-get`` address
(``HX-Request`` set). ``opened`` does the same with Django's test client, so a test reads the
forms and lists of every section where the page puts them.
"""

from __future__ import annotations

import html as html_lib
import re
from typing import Any

PLACEHOLDER = re.compile(
    r'<div class="task-body" hx-get="(?P<address>[^"]*)" '
    r'hx-trigger="toggle from:closest details once" hx-swap="outerHTML">.*?</div>',
    re.S,
)
"""A closed section's placeholder, with the trigger htmx fetches it on (the details opening,
once): ``opened`` fails on a page whose placeholders it does not find."""


def opened(client: Any, url: str, params: dict[str, Any] | None = None) -> str:
    """The page at ``url`` (with ``params``) fetched by ``client``, each closed section's
    placeholder replaced by the section its address answers (each fetch asserted to be a
    200). The page's own status is asserted to be 200 too."""
    response = client.get(url, params or {})
    assert response.status_code == 200, response.status_code
    page = response.content.decode()

    def section(match: re.Match[str]) -> str:
        address = html_lib.unescape(match["address"])
        answer = client.get(url + address, headers={"HX-Request": "true"})
        assert answer.status_code == 200, (address, answer.status_code)
        return str(answer.content.decode())

    closed = page.count('<div class="task-body" hx-get=')
    opened_page, found = PLACEHOLDER.subn(section, page)
    assert found == closed, f"{closed - found} placeholders not in the expected form"
    return opened_page

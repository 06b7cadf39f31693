"""``django.contrib.admin`` with the project's site as the default one.

Its own module: INSTALLED_APPS imports it before the models are ready, so it names the site by
its dotted path and imports nothing of the project.
"""

from django.contrib.admin.apps import AdminConfig


class PartidaAdminConfig(AdminConfig):
    """The admin app, whose ``admin.site`` is ``partida.admin_site.PartidaAdminSite``."""

    default_site = "partida.admin_site.PartidaAdminSite"

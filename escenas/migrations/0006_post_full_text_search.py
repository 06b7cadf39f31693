"""Full-text search of posts on PostgreSQL (escenas.search): the ``unaccent`` extension, a text
search configuration ``partida_es`` (Spanish stemming after removing accents: "sólo", "SOLO" and
"solo" are one word) and a GIN index on the exact expression the search uses,
``to_tsvector('partida_es', COALESCE(body, ''))``. Nothing on SQLite, whose search folds case and
accents in Python (nucleo.text.fold). Creating an extension needs a role allowed to: the
``postgres`` superuser of compose and CI is; elsewhere run ``CREATE EXTENSION unaccent`` once.
"""

from django.db import migrations

FORWARD = [
    "CREATE EXTENSION IF NOT EXISTS unaccent",
    """DO $$ BEGIN
         IF NOT EXISTS (SELECT 1 FROM pg_ts_config WHERE cfgname = 'partida_es') THEN
           CREATE TEXT SEARCH CONFIGURATION partida_es (COPY = pg_catalog.spanish);
           ALTER TEXT SEARCH CONFIGURATION partida_es
             ALTER MAPPING FOR hword, hword_part, word WITH unaccent, spanish_stem;
         END IF;
       END $$""",
    "CREATE INDEX IF NOT EXISTS post_body_search ON escenas_post "
    "USING gin (to_tsvector('partida_es'::regconfig, COALESCE(body, ''::text)))",
]
BACKWARD = [
    "DROP INDEX IF EXISTS post_body_search",
    "DROP TEXT SEARCH CONFIGURATION IF EXISTS partida_es",
]


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for sql in FORWARD:
            schema_editor.execute(sql)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for sql in BACKWARD:
            schema_editor.execute(sql)


class Migration(migrations.Migration):
    dependencies = [("escenas", "0005_notification_muted_campaigns")]
    operations = [migrations.RunPython(forward, backward, elidable=False)]

"""The OpenAPI schema: valid, complete, and true — schemathesis calls every operation and
checks that nothing answers 5xx and that every answer matches the schema.

Bounded and deterministic: at most ``MAX_EXAMPLES`` valid and ``NEGATIVE_EXAMPLES`` invalid
cases per operation and per round,
``derandomize=True`` (hypothesis derives the examples from the test, not from a clock), no
example database. Rounds per operation: valid requests with generated path parameters (mostly
404s) and with the path parameters of real objects of the ``world`` fixture, and invalid
requests (schemathesis' negative mode) against the real objects; as player_a (a member)
through their token. The rates are raised for the test so the throttles do not hide answers.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any

import pytest
from django.core.management import call_command

MAX_EXAMPLES = 15
NEGATIVE_EXAMPLES = 8


def test_schema_is_valid_without_warnings(tmp_path):
    out = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    text = out.read_text()
    assert "/api/v1/characters/{id}/" in text


@pytest.fixture(scope="module")
def schema_dict(django_db_blocker) -> dict[str, Any]:
    from drf_spectacular.generators import SchemaGenerator

    with django_db_blocker.unblock():
        return SchemaGenerator().get_schema(request=None, public=True)


SELF_EXPLANATORY = {"id", "slug", "name", "title", "next", "previous", "count", "results", "detail"}


def test_every_field_and_error_is_documented(schema_dict):
    """Every property says what it is (units included) unless its name says it all, and every
    operation documents 401 and 429 besides its success."""
    undocumented = []
    for component, body in schema_dict["components"]["schemas"].items():
        for name, prop in body.get("properties", {}).items():
            if name in SELF_EXPLANATORY or prop.get("description") or "$ref" in prop:
                continue
            if prop.get("type") == "boolean" and prop.get("title"):  # a yes/no its name says
                continue
            if "allOf" in prop or (prop.get("readOnly") and prop.get("enum")):
                continue
            undocumented.append(f"{component}.{name}")
    assert not undocumented, undocumented  # write a help_text for each
    for path, item in schema_dict["paths"].items():
        for method, operation in item.items():
            codes = set(operation["responses"])
            assert {"401", "429"} <= codes, (method, path, codes)
            assert operation.get("summary") or operation.get("description"), (method, path)


def test_schema_says_which_language_errors_come_in(schema_dict):
    assert "Accept-Language" in schema_dict["info"]["description"]
    assert "django_language" in schema_dict["info"]["description"]


@pytest.fixture
def no_connection_closing():
    """A raw WSGI call fires request_finished, whose handler would close the test's database
    connection inside its transaction; Django's own test client switches it off the same way."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def high_rates(settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {k: "100000/min" for k in ("anon", "token", "session", "user")},
    }


def known_path_parameters(path: str, world: dict[str, Any], spare_token_pk: int) -> dict[str, Any]:
    """Real objects for the path's parameters, by what the path is about."""
    known: dict[str, Any] = {"slug": world["campaign"].slug, "settlement": world["village"].slug}
    kind = re.search(r"/api/v1/(\w+)/\{", path)
    ids = {
        "characters": world["char_a"].pk,
        "rolls": world["post_roll"].pk,
        "scenes": world["story"].pk,
        # never the token doing the calls: DELETE would revoke it mid-test
        "tokens": spare_token_pk,
    }
    if kind and kind.group(1) in ids:
        known["id"] = ids[kind.group(1)]
    return {name: value for name, value in known.items() if "{" + name + "}" in path}


def test_schemathesis_no_server_errors_and_answers_match_the_schema(
    world, key_a, no_connection_closing, high_rates
):
    import schemathesis
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis.errors import Unsatisfiable
    from schemathesis import GenerationMode
    from schemathesis.checks import not_a_server_error
    from schemathesis.specs.openapi.checks import response_schema_conformance

    from partida.services import token_create
    from partida.wsgi import application

    spare = token_create(user=world["player_a"], name="de repuesto").token
    schema = schemathesis.openapi.from_wsgi("/api/v1/schema/", application)
    headers = {"Authorization": f"Token {key_a}"}
    checks = [not_a_server_error, response_schema_conformance]
    calls: dict[str, int] = {}

    def explore(strategy: Any, label: str, examples: int) -> None:
        @given(case=strategy)
        @settings(
            max_examples=examples,
            derandomize=True,
            database=None,
            deadline=None,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        def run(case: Any) -> None:
            case.call_and_validate(headers=headers, checks=checks)
            calls[label] = calls.get(label, 0) + 1

        # Negative mode may find nothing it can make invalid in some operations.
        with contextlib.suppress(Unsatisfiable):
            run()

    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 14
    for operation in operations:
        label = f"{operation.method.upper()} {operation.path}"
        known = known_path_parameters(operation.path, world, spare.pk)
        # Valid requests with generated and with real path parameters; invalid ones (bad
        # types, missing fields, out of range) against the real objects only.
        rounds = [(GenerationMode.POSITIVE, {})]
        if len(operation.body) or len(operation.query):
            rounds.append((GenerationMode.NEGATIVE, known))
        if known:
            rounds.append((GenerationMode.POSITIVE, known))
        for mode, path_parameters in rounds:
            strategy = operation.as_strategy(
                generation_mode=mode, path_parameters=path_parameters or None
            )
            explore(
                strategy,
                label,
                NEGATIVE_EXAMPLES if mode == GenerationMode.NEGATIVE else MAX_EXAMPLES,
            )
    total = sum(calls.values())
    print(f"schemathesis: {total} calls over {len(calls)} operations")
    assert len(calls) == len(operations)

"""Services of the characters: traits, creation, sheets (R5), review, master edits, inventory.

Cast (tests/conftest.py): ``master`` runs ``campaign`` (private, day 7); ``player_a`` owns the
character under test; ``player_b`` is another player; ``outsider`` belongs to no campaign.
"""

from decimal import Decimal

import pytest
from django.core.exceptions import NON_FIELD_ERRORS
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import IntegrityError, transaction

from mundo.models import Campaign
from nucleo.errors import ServiceError
from personajes import inventory, portraits, selectors, sheets
from personajes.models import (
    PORTRAIT_MAX_BYTES,
    Character,
    InventoryItem,
    SheetChange,
    Trait,
    TraitValue,
)
from personajes.traits import campaign_traits
from reglas.characters import DEFAULT_TRAITS, is_dirt_sensitive
from tests.factories import CampaignFactory, CharacterFactory, ItemTypeFactory, TraitFactory
from tests.personajes.helpers import (
    BRAWLER,
    SCOUT,
    image_file,
    make_character,
    postgres_only,
    run_concurrently,
    sheet,
)

pytestmark = pytest.mark.django_db


def errors_of(excinfo) -> dict[str, list[str]]:
    return excinfo.value.message_dict


# --- traits ------------------------------------------------------------------------------------


def test_first_call_makes_the_ten_default_traits_in_order(campaign):
    traits = campaign_traits(campaign=campaign)
    assert [t.slug for t in traits] == [d.slug for d in DEFAULT_TRAITS]
    assert [t.name for t in traits] == [d.name for d in DEFAULT_TRAITS]
    # R8: only Sigilo is dirt-sensitive by default.
    rules = campaign.rules
    assert [t.slug for t in traits if is_dirt_sensitive(t.slug, rules)] == ["sigilo"]


def test_campaign_traits_is_idempotent(campaign):
    first = campaign_traits(campaign=campaign)
    second = campaign_traits(campaign=campaign)
    assert [t.pk for t in first] == [t.pk for t in second]
    assert Trait.objects.filter(campaign=campaign).count() == 10


def test_dirt_flags_are_the_campaign_setting_before_and_after_the_traits_exist(player_a):
    campaign = CampaignFactory(rule_overrides={"dirt_sensitive_traits": ["sigilo", "percepcion"]})
    character = CharacterFactory(campaign=campaign, player=player_a)
    campaign_traits(campaign=campaign)

    def flagged() -> set[str]:
        fresh = Character.objects.select_related("campaign").get(pk=character.pk)
        return {r.trait.slug for r in selectors.sheet_rows(fresh) if r.dirt_sensitive}

    assert flagged() == {"sigilo", "percepcion"}
    # The master changes the setting later: the campaign's existing traits follow it (one
    # source), and so does the tick's resistance roll (reglas reads the same setting).
    Campaign.objects.filter(pk=campaign.pk).update(
        rule_overrides={"dirt_sensitive_traits": ["pelea"]}
    )
    assert flagged() == {"pelea"}


def test_the_migration_keeps_a_masters_trait_flags_in_the_setting(transactional_db):
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before = [("personajes", "0002_world"), ("mundo", "0004_campaign_rule_tables")]
    after = [("personajes", "0003_dirt_flags_are_the_campaign_setting")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    campaign = old.get_model("mundo", "Campaign").objects.create(
        name="Vieja", slug="vieja", apocalypse_date="2026-01-01", entropy="1", rule_tables={}
    )
    traits = old.get_model("personajes", "Trait").objects
    traits.create(campaign=campaign, slug="sigilo", name="Sigilo", dirt_sensitive=False)
    traits.create(campaign=campaign, slug="pelea", name="Pelea", dirt_sensitive=True)
    executor = MigrationExecutor(connection)
    executor.migrate(after)
    try:
        # Every app forward first: today's Campaign model has columns of later migrations.
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
        migrated = Campaign.objects.get(pk=campaign.pk)
        assert migrated.rule_overrides == {"dirt_sensitive_traits": ["pelea"]}
        assert migrated.rules.dirt_sensitive_traits == ("pelea",)
    finally:  # every app back to its latest migration, for the tests that follow
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())


def test_a_campaign_with_its_own_traits_keeps_them(campaign):
    TraitFactory(campaign=campaign, slug="carisma", name="Carisma")
    assert [t.slug for t in campaign_traits(campaign=campaign)] == ["carisma"]


# --- creation ----------------------------------------------------------------------------------


def test_create_makes_a_draft_with_zero_in_every_trait(campaign, player_a):
    character = sheets.character_create(
        campaign=campaign, player=player_a, name="  Marta Ruiz  ", concept="Enfermera."
    )
    assert character.status == Character.Status.DRAFT
    assert character.name == "Marta Ruiz"
    assert character.concept == "Enfermera."
    assert sheet(character) == {d.slug: 0 for d in DEFAULT_TRAITS}
    assert TraitValue.objects.filter(character=character).count() == 10


@pytest.mark.parametrize(("name", "ok"), [("", False), ("   ", False), ("x" * 80, True)])
def test_the_name_is_required_and_80_characters_at_most(campaign, player_a, name, ok):
    if ok:
        assert sheets.character_create(campaign=campaign, player=player_a, name=name).pk
        return
    with pytest.raises(ServiceError) as excinfo:
        sheets.character_create(campaign=campaign, player=player_a, name=name)
    assert "name" in errors_of(excinfo)


def test_a_name_of_81_characters_is_refused(campaign, player_a):
    with pytest.raises(ServiceError) as excinfo:
        sheets.character_create(campaign=campaign, player=player_a, name="x" * 81)
    assert "name" in errors_of(excinfo)
    assert not Character.objects.exists()


def test_only_members_create_characters(campaign, master, outsider):
    with pytest.raises(ServiceError):
        sheets.character_create(campaign=campaign, player=outsider, name="Intruso")
    # The master may play too.
    assert sheets.character_create(campaign=campaign, player=master, name="PNJ").pk


def test_one_living_character_per_player_by_default(campaign, player_a):
    sheets.character_create(campaign=campaign, player=player_a, name="Uno")
    with pytest.raises(ServiceError):
        sheets.character_create(campaign=campaign, player=player_a, name="Dos")
    assert Character.objects.filter(player=player_a).count() == 1


@pytest.mark.parametrize("status", [Character.Status.DEAD, Character.Status.RISEN])
def test_a_dead_character_does_not_count_against_the_limit(campaign, player_a, status):
    make_character(campaign, player_a, status=status)
    assert sheets.character_create(campaign=campaign, player=player_a, name="Otra vez").pk


@pytest.mark.parametrize(
    "status", [Character.Status.DRAFT, Character.Status.SUBMITTED, Character.Status.APPROVED]
)
def test_every_living_status_counts(campaign, player_a, status):
    make_character(campaign, player_a, status=status)
    with pytest.raises(ServiceError):
        sheets.character_create(campaign=campaign, player=player_a, name="Segunda")


def test_the_limit_is_a_campaign_setting(campaign, player_a, player_b):
    campaign.living_characters_per_player = 2
    campaign.save()
    sheets.character_create(campaign=campaign, player=player_a, name="Uno")
    sheets.character_create(campaign=campaign, player=player_a, name="Dos")
    with pytest.raises(ServiceError):
        sheets.character_create(campaign=campaign, player=player_a, name="Tres")
    # Per player: player B is not affected.
    assert sheets.character_create(campaign=campaign, player=player_b, name="Uno").pk


# --- portraits ---------------------------------------------------------------------------------


@pytest.fixture
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    return tmp_path


def test_a_real_small_png_is_accepted_and_stored(campaign, player_a, media):
    character = sheets.character_create(
        campaign=campaign, player=player_a, name="Con cara", portrait=image_file()
    )
    character.refresh_from_db()
    assert character.portrait.name.startswith("portraits/")
    assert (media / character.portrait.name).stat().st_size > 0


@pytest.mark.parametrize(("fmt", "name"), [("JPEG", "a.jpg"), ("GIF", "a.gif"), ("WEBP", "a.webp")])
def test_jpeg_gif_and_webp_are_accepted(fmt, name):
    file = image_file(fmt, name)
    portraits.validate_portrait(file)
    assert file.tell() == 0  # rewound for whoever saves it next


def test_a_text_file_called_png_is_refused():
    fake = SimpleUploadedFile("retrato.png", b"esto no es una imagen", content_type="image/png")
    with pytest.raises(ServiceError) as excinfo:
        portraits.validate_portrait(fake)
    assert list(errors_of(excinfo)) == ["portrait"]


def test_a_real_image_of_another_format_is_refused():
    with pytest.raises(ServiceError) as excinfo:
        portraits.validate_portrait(image_file("BMP", "retrato.png"))
    assert "portrait" in errors_of(excinfo)


def test_an_oversized_portrait_is_refused(campaign, player_a):
    png = image_file().read()
    big = SimpleUploadedFile(
        "grande.png", png + b"\0" * (PORTRAIT_MAX_BYTES + 1 - len(png)), content_type="image/png"
    )
    assert big.size == PORTRAIT_MAX_BYTES + 1
    with pytest.raises(ServiceError) as excinfo:
        sheets.character_create(campaign=campaign, player=player_a, name="X", portrait=big)
    assert "portrait" in errors_of(excinfo)
    assert not Character.objects.exists()


def test_a_portrait_of_exactly_2_mb_passes_the_size_check():
    png = image_file().read()
    exact = SimpleUploadedFile("exacto.png", png + b"\0" * (PORTRAIT_MAX_BYTES - len(png)))
    portraits.validate_portrait(exact)  # trailing bytes after IEND do not break a PNG


# --- the player's sheet (R5) -------------------------------------------------------------------


@pytest.fixture
def draft(campaign, player_a):
    """Player A's draft, 0 everywhere."""
    return sheets.character_create(campaign=campaign, player=player_a, name="Marta")


def save(character, user, points, **kwargs):
    return sheets.sheet_save(character=character, user=user, allocation=points, **kwargs)


@pytest.mark.parametrize(("total", "ok"), [(9, False), (10, True), (11, False)])
def test_submission_needs_exactly_10_points(draft, player_a, total, ok):
    points = {"fuerza": 5, "agilidad": total - 5}
    if ok:
        saved = save(draft, player_a, points, submit=True)
        assert saved.status == Character.Status.SUBMITTED
        assert sheet(saved)["agilidad"] == 5
        return
    with pytest.raises(ServiceError) as excinfo:
        save(draft, player_a, points, submit=True)
    assert list(errors_of(excinfo)) == [NON_FIELD_ERRORS]
    draft.refresh_from_db()
    assert draft.status == Character.Status.DRAFT
    assert set(sheet(draft).values()) == {0}


@pytest.mark.parametrize(("total", "ok"), [(0, True), (9, True), (10, True), (11, False)])
def test_a_draft_may_hold_fewer_points_but_not_more(draft, player_a, total, ok):
    points = {"resistencia": total // 2, "medicina": total - total // 2}
    if ok:
        assert save(draft, player_a, points).status == Character.Status.DRAFT
        assert sum(sheet(draft).values()) == total
    else:
        with pytest.raises(ServiceError) as excinfo:
            save(draft, player_a, points)
        assert list(errors_of(excinfo)) == [NON_FIELD_ERRORS]
        assert sum(sheet(draft).values()) == 0


def test_zero_and_the_cap_are_allowed_in_a_trait_and_cap_plus_one_is_not(player_a):
    campaign = CampaignFactory(rule_overrides={"trait_cap": 4})
    from tests.factories import MembershipFactory

    MembershipFactory(campaign=campaign, user=player_a)
    character = sheets.character_create(campaign=campaign, player=player_a, name="Tope")
    points = {"fuerza": 4, "agilidad": 4, "sigilo": 2, "medicina": 0}
    assert save(character, player_a, points, submit=True).status == "submitted"
    other = make_character(campaign, player_a)
    with pytest.raises(ServiceError) as excinfo:
        save(other, player_a, {"fuerza": 5, "agilidad": 5})
    assert set(errors_of(excinfo)) == {"fuerza", "agilidad"}


def test_the_default_cap_is_10(draft, player_a):
    assert save(draft, player_a, {"pelea": 10}, submit=True).status == "submitted"


@pytest.mark.parametrize("bad", [-1, "-1", "2.5", 2.5, "x", True, "3 puntos"])
def test_bad_values_are_refused_by_trait_and_nothing_is_saved(draft, player_a, bad):
    save(draft, player_a, {"fuerza": 2, "agilidad": 1}, name="Marta")
    with pytest.raises(ServiceError) as excinfo:
        save(draft, player_a, {"fuerza": bad, "agilidad": 3}, name="Otra", concept="Nada")
    assert list(errors_of(excinfo)) == ["fuerza"]
    draft.refresh_from_db()
    assert (sheet(draft)["fuerza"], sheet(draft)["agilidad"]) == (2, 1)
    assert (draft.name, draft.concept) == ("Marta", "")


def test_an_unknown_trait_is_refused_under_its_own_slug(draft, player_a):
    with pytest.raises(ServiceError) as excinfo:
        save(draft, player_a, {"fuerza": 3, "carisma": 2})
    assert list(errors_of(excinfo)) == ["carisma"]
    assert sheet(draft)["fuerza"] == 0
    assert not Trait.objects.filter(slug="carisma").exists()


def test_form_text_is_accepted_and_blank_counts_zero(draft, player_a):
    saved = save(draft, player_a, {**{k: str(v) for k, v in BRAWLER.items()}, "medicina": ""})
    assert sheet(saved) == {d.slug: BRAWLER.get(d.slug, 0) for d in DEFAULT_TRAITS}


def test_traits_left_out_count_zero(draft, player_a):
    save(draft, player_a, {"fuerza": 4, "sigilo": 2})
    save(draft, player_a, {"fuerza": 1})
    assert (sheet(draft)["fuerza"], sheet(draft)["sigilo"]) == (1, 0)


def test_name_and_concept_change_with_the_sheet(draft, player_a):
    saved = save(draft, player_a, SCOUT, name=" Marta Gil ", concept="Pastora.")
    assert (saved.name, saved.concept) == ("Marta Gil", "Pastora.")
    with pytest.raises(ServiceError) as excinfo:
        save(draft, player_a, SCOUT, name=" ")
    assert "name" in errors_of(excinfo)


def test_another_player_cannot_edit_the_sheet(draft, player_b, master, outsider):
    for user in (player_b, master, outsider):
        with pytest.raises(ServiceError) as excinfo:
            save(draft, user, {"fuerza": 1})
        assert not hasattr(excinfo.value, "error_dict")  # a permission message, not a field
    assert sheet(draft)["fuerza"] == 0


@pytest.mark.parametrize(
    "status",
    [
        Character.Status.SUBMITTED,
        Character.Status.APPROVED,
        Character.Status.DEAD,
        Character.Status.RISEN,
    ],
)
def test_only_a_draft_can_be_edited_by_its_player(campaign, player_a, master, status):
    character = make_character(campaign, player_a, status=status, points=BRAWLER)
    for user in (player_a, master):
        with pytest.raises(ServiceError):
            save(character, user, SCOUT)
    assert sheet(character) == {d.slug: BRAWLER.get(d.slug, 0) for d in DEFAULT_TRAITS}


# --- review ------------------------------------------------------------------------------------


@pytest.fixture
def submitted(draft, player_a):
    return save(draft, player_a, BRAWLER, submit=True)


def test_the_master_approves_a_submitted_sheet(submitted, master):
    approved = sheets.sheet_review(character=submitted, master=master, approve=True)
    assert approved.status == Character.Status.APPROVED
    submitted.refresh_from_db()
    assert submitted.status == Character.Status.APPROVED


def test_returning_needs_a_comment_and_keeps_it_for_the_player(submitted, master, player_a):
    with pytest.raises(ServiceError) as excinfo:
        sheets.sheet_review(character=submitted, master=master, approve=False, comment="  ")
    assert "comment" in errors_of(excinfo)
    submitted.refresh_from_db()
    assert submitted.status == Character.Status.SUBMITTED

    returned = sheets.sheet_review(
        character=submitted, master=master, approve=False, comment="Demasiada fuerza."
    )
    assert (returned.status, returned.review_comment) == ("draft", "Demasiada fuerza.")
    # The player edits the draft again; the comment stays until the next review.
    edited = save(returned, player_a, SCOUT)
    assert (edited.status, edited.review_comment) == ("draft", "Demasiada fuerza.")
    resubmitted = save(edited, player_a, SCOUT, submit=True)
    assert resubmitted.review_comment == "Demasiada fuerza."
    approved = sheets.sheet_review(character=resubmitted, master=master, approve=True)
    assert approved.review_comment == ""


def test_only_the_master_reviews(submitted, player_a, player_b, outsider):
    for user in (player_a, player_b, outsider):
        with pytest.raises(ServiceError):
            sheets.sheet_review(character=submitted, master=user, approve=True)
    submitted.refresh_from_db()
    assert submitted.status == Character.Status.SUBMITTED


@pytest.mark.parametrize("status", ["draft", "approved", "dead"])
def test_only_a_submitted_sheet_is_reviewed(campaign, player_a, master, status):
    character = make_character(campaign, player_a, status=status, points=BRAWLER)
    with pytest.raises(ServiceError):
        sheets.sheet_review(character=character, master=master, approve=True)
    character.refresh_from_db()
    assert character.status == status


def test_approval_rechecks_the_points_against_the_current_rules(submitted, master, campaign):
    campaign.rule_overrides = {"creation_points": 12}
    campaign.save()
    with pytest.raises(ServiceError):
        sheets.sheet_review(character=submitted, master=master, approve=True)
    submitted.refresh_from_db()
    assert submitted.status == Character.Status.SUBMITTED


# --- the master's edits ------------------------------------------------------------------------


@pytest.fixture
def approved(campaign, player_a):
    return make_character(campaign, player_a, status=Character.Status.APPROVED, points=BRAWLER)


def test_master_edit_is_logged_with_old_new_and_who(approved, master):
    changes = sheets.sheet_master_edit(
        character=approved,
        master=master,
        allocation={"fuerza": 4, "agilidad": "2"},  # agilidad unchanged: no row
        condition={"hunger_days": 2, "dirty": True},
        reason="Entrenamiento",
    )
    rows = [(c.field, c.old_value, c.new_value) for c in changes]
    hunger = str(Character._meta.get_field("hunger_days").verbose_name)
    dirty = str(Character._meta.get_field("dirty").verbose_name)
    assert rows[0] == ("Fuerza", "3", "4")
    assert rows[1][:2] == (hunger, "0") and rows[1][2] == "2"
    assert rows[2][0] == dirty
    assert len(rows) == 3
    stored = SheetChange.objects.filter(character=approved)
    assert stored.count() == 3
    assert {c.changed_by for c in stored} == {master}
    assert {c.reason for c in stored} == {"Entrenamiento"}
    approved.refresh_from_db()
    assert (approved.hunger_days, approved.dirty) == (2, True)
    assert sheet(approved)["fuerza"] == 4
    assert approved.status == Character.Status.APPROVED


def test_no_change_no_rows(approved, master):
    assert (
        sheets.sheet_master_edit(
            character=approved, master=master, allocation={"fuerza": 3}, condition={"dirty": False}
        )
        == []
    )
    assert not SheetChange.objects.exists()


def test_the_creation_total_and_cap_do_not_bind_the_master(approved, master):
    sheets.sheet_master_edit(character=approved, master=master, allocation={"fuerza": 15})
    assert sum(sheet(approved).values()) == 22


@pytest.mark.parametrize(
    ("allocation", "condition", "key"),
    [
        ({"fuerza": -1}, None, "fuerza"),
        ({"fuerza": "2.5"}, None, "fuerza"),
        ({"fuerza": 1000}, None, "fuerza"),  # 1001 dice: over the engine's limit
        ({"carisma": 1}, None, "carisma"),
        (None, {"hunger_days": -1}, "hunger_days"),
        (None, {"hunger_days": "x"}, "hunger_days"),
        (None, {"dirty": "quizá"}, "dirty"),
        (None, {"mood": 3}, "mood"),
        (None, {"disease_day": 3}, "disease_day"),  # past a duration of 0
    ],
)
def test_master_edit_refuses_bad_values_and_saves_nothing(
    approved, master, allocation, condition, key
):
    with pytest.raises(ServiceError) as excinfo:
        sheets.sheet_master_edit(
            character=approved,
            master=master,
            allocation={"agilidad": 5, **(allocation or {})},
            condition={"thirst_days": 1, **(condition or {})},
        )
    assert key in errors_of(excinfo)
    approved.refresh_from_db()
    assert (sheet(approved)["agilidad"], approved.thirst_days) == (2, 0)
    assert not SheetChange.objects.exists()


def test_master_sets_a_disease_within_its_duration(approved, master):
    sheets.sheet_master_edit(
        character=approved, master=master, condition={"disease_day": "1", "disease_duration": 5}
    )
    approved.refresh_from_db()
    assert (approved.disease_day, approved.disease_duration) == (1, 5)


def test_players_cannot_use_the_master_edit(approved, player_a, player_b):
    for user in (player_a, player_b):
        with pytest.raises(ServiceError):
            sheets.sheet_master_edit(character=approved, master=user, allocation={"fuerza": 9})
    assert sheet(approved)["fuerza"] == 3


def test_master_edit_of_a_trait_added_later_logs_from_zero(approved, master, campaign):
    TraitFactory(campaign=campaign, slug="carisma", name="Carisma", position=200)
    changes = sheets.sheet_master_edit(character=approved, master=master, allocation={"carisma": 2})
    assert [(c.field, c.old_value, c.new_value) for c in changes] == [("Carisma", "0", "2")]
    assert sheet(approved)["carisma"] == 2


# --- inventory ---------------------------------------------------------------------------------


@pytest.fixture
def can(campaign):
    return ItemTypeFactory(campaign=campaign, name="Lata de conservas", kcal_per_unit=400)


def test_inventory_adds_up(approved, can):
    inventory.inventory_add(character=approved, item_type=can, quantity=2)
    item = inventory.inventory_add(character=approved, item_type=can, quantity="1,5")
    assert item.quantity == Decimal("3.5")
    assert InventoryItem.objects.get(character=approved, item_type=can).quantity == Decimal("3.5")


def test_inventory_removes_down_to_zero_never_below(approved, can):
    inventory.inventory_add(character=approved, item_type=can, quantity=Decimal("2"))
    with pytest.raises(ServiceError) as excinfo:
        inventory.inventory_remove(character=approved, item_type=can, quantity=3)
    assert "quantity" in errors_of(excinfo)
    assert InventoryItem.objects.get(character=approved, item_type=can).quantity == 2
    item = inventory.inventory_remove(character=approved, item_type=can, quantity=2)
    assert item.quantity == 0


def test_removing_what_was_never_there_is_refused(approved, can):
    with pytest.raises(ServiceError):
        inventory.inventory_remove(character=approved, item_type=can, quantity=1)
    assert not InventoryItem.objects.exists()


@pytest.mark.parametrize(
    "quantity", [0, -1, "-1", "0,0", "x", "", None, True, float("nan"), "Infinity", "0.0001"]
)
def test_bad_quantities_are_refused(approved, can, quantity):
    for service in (inventory.inventory_add, inventory.inventory_remove):
        with pytest.raises(ServiceError) as excinfo:
            service(character=approved, item_type=can, quantity=quantity)
        assert "quantity" in errors_of(excinfo)
    assert not InventoryItem.objects.exists()


def test_another_campaigns_item_is_refused(approved):
    foreign = ItemTypeFactory(campaign=CampaignFactory(), name="Lata de conservas")
    with pytest.raises(ServiceError) as excinfo:
        inventory.inventory_add(character=approved, item_type=foreign, quantity=1)
    assert "item_type" in errors_of(excinfo)


def test_the_database_refuses_a_negative_quantity(approved, can):
    item = inventory.inventory_add(character=approved, item_type=can, quantity=1)
    with pytest.raises(IntegrityError), transaction.atomic():
        InventoryItem.objects.filter(pk=item.pk).update(quantity=-1)
    item.refresh_from_db()
    assert item.quantity == 1


# --- concurrency (PostgreSQL) ------------------------------------------------------------------


@postgres_only
def test_two_first_calls_at_once_make_the_ten_traits_once(campaign):
    results, errors = run_concurrently(lambda: campaign_traits(campaign=campaign), 3)
    assert errors == []
    assert len({tuple(t.pk for t in traits) for traits in results}) == 1
    assert Trait.objects.filter(campaign=campaign).count() == 10


@postgres_only
def test_two_creations_at_once_cannot_pass_the_living_limit(campaign, player_a):
    results, errors = run_concurrently(
        lambda: sheets.character_create(campaign=campaign, player=player_a, name="Gemela"), 2
    )
    assert (len(results), [type(e) for e in errors]) == (1, [ServiceError])
    assert Character.objects.filter(player=player_a).count() == 1

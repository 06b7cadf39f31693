"""The master's admin for characters: logged edits, the approval action, read-only records.

Cast: ``master`` runs ``campaign`` and is made staff + superuser here (the demo master is);
``root`` is a superuser who is NOT the campaign's master: the admin lets them look, but the
logged changes (trait points, condition) and approvals are the master's only.
"""

from html.parser import HTMLParser

import pytest
from django.contrib.admin.sites import site
from django.test import Client, RequestFactory

from personajes.admin import RollAdmin, SheetChangeAdmin
from personajes.models import Character, Roll, SheetChange
from personajes.rolls import roll_action_for_character
from tests.factories import ItemTypeFactory, UserFactory
from tests.personajes.helpers import BRAWLER, make_character, sheet

pytestmark = pytest.mark.django_db


class FormValues(HTMLParser):
    """The values a browser would submit from the page's main form (admin change form)."""

    def __init__(self) -> None:
        super().__init__()
        self.data: dict[str, list[str]] = {}
        self._select: str | None = None
        self._textarea: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        name = a.get("name")
        if tag == "input" and name and "disabled" not in a:
            kind = a.get("type", "text")
            if kind in ("checkbox", "radio"):
                if "checked" in a:
                    self.data.setdefault(name, []).append(a.get("value", "on"))
            elif kind not in ("submit", "button", "file", "image"):
                self.data.setdefault(name, []).append(a.get("value", ""))
        elif tag == "select" and name and "disabled" not in a:
            self._select = name
            self.data.setdefault(name, [])
        elif tag == "option" and self._select and "selected" in a:
            self.data[self._select].append(a.get("value", ""))
        elif tag == "textarea" and name and "disabled" not in a:
            self._textarea = name
            self.data[name] = [""]

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None

    def handle_data(self, data):
        if self._textarea:
            self.data[self._textarea][0] += data


def change_form_data(client, url) -> dict[str, list[str]]:
    response = client.get(url)
    assert response.status_code == 200
    parser = FormValues()
    parser.feed(response.content.decode())
    data = {k: v for k, v in parser.data.items() if k not in ("csrfmiddlewaretoken", "q")}
    # Textareas start with a newline in Django's rendering.
    return {k: [x.lstrip("\n") for x in v] for k, v in data.items()}


def trait_row_prefix(data, character, slug) -> str:
    """The inline form prefix (``trait_values-N``) of a trait's row."""
    from personajes.models import TraitValue

    row = TraitValue.objects.get(character=character, trait__slug=slug)
    for key, values in data.items():
        if key.startswith("trait_values-") and key.endswith("-id") and values == [str(row.pk)]:
            return key.removesuffix("-id")
    raise AssertionError(f"no inline row for {slug}")


@pytest.fixture
def admin_master(master):
    master.is_staff = master.is_superuser = True
    master.save()
    client = Client()
    client.force_login(master)
    return client


@pytest.fixture
def root_client():
    root = UserFactory(username="root", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(root)
    return client


@pytest.fixture
def approved(campaign, player_a):
    return make_character(campaign, player_a, status=Character.Status.APPROVED, points=BRAWLER)


def url(character) -> str:
    return f"/admin/personajes/character/{character.pk}/change/"


def test_every_list_and_form_page_opens(admin_master, approved, player_a, campaign):
    ItemTypeFactory(campaign=campaign, name="Lata")
    roll_action_for_character(character=approved, trait="fuerza", threshold=30, made_by=player_a)
    for model in ("character", "trait", "itemtype", "inventoryitem", "sheetchange", "roll"):
        assert admin_master.get(f"/admin/personajes/{model}/").status_code == 200, model
    assert admin_master.get(url(approved)).status_code == 200
    roll = Roll.objects.get()
    page = admin_master.get(f"/admin/personajes/roll/{roll.pk}/change/")
    assert page.status_code == 200
    assert b'name="_save"' not in page.content  # view only


def test_changing_trait_points_in_the_admin_is_logged(admin_master, approved, master):
    data = change_form_data(admin_master, url(approved))
    prefix = trait_row_prefix(data, approved, "fuerza")
    data[f"{prefix}-value"] = ["5"]
    response = admin_master.post(url(approved), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert sheet(approved)["fuerza"] == 5
    change = SheetChange.objects.get(character=approved)
    assert (change.field, change.old_value, change.new_value, change.changed_by) == (
        "Fuerza",
        "3",
        "5",
        master,
    )


def test_changing_the_condition_in_the_admin_is_logged(admin_master, approved, master):
    data = change_form_data(admin_master, url(approved))
    data["hunger_days"] = ["2"]
    data["name"] = ["Marta Gil"]
    response = admin_master.post(url(approved), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    approved.refresh_from_db()
    assert (approved.hunger_days, approved.name) == (2, "Marta Gil")
    change = SheetChange.objects.get(character=approved)
    hunger = str(Character._meta.get_field("hunger_days").verbose_name)
    assert (change.field, change.old_value, change.new_value) == (hunger, "0", "2")


def test_saving_without_changes_logs_nothing(admin_master, approved):
    data = change_form_data(admin_master, url(approved))
    assert admin_master.post(url(approved), data).status_code == 302
    assert not SheetChange.objects.exists()


def test_a_superuser_who_is_not_the_master_cannot_change_points(root_client, approved):
    data = change_form_data(root_client, url(approved))
    prefix = trait_row_prefix(data, approved, "fuerza")
    data[f"{prefix}-value"] = ["9"]
    data["thirst_days"] = ["1"]
    response = root_client.post(url(approved), data)
    assert response.status_code == 200  # the form again, with the errors
    errors = [str(e) for e in response.context["errors"]]
    assert len(errors) == 2  # one for the condition (form), one for the points (inline)
    assert all("máster" in e or "master" in e for e in errors)
    approved.refresh_from_db()
    assert (sheet(approved)["fuerza"], approved.thirst_days) == (3, 0)
    assert not SheetChange.objects.exists()


def test_approve_action_approves_submitted_sheets_only(admin_master, campaign, player_a, player_b):
    submitted = make_character(campaign, player_a, status="submitted", points=BRAWLER)
    draft = make_character(campaign, player_b, status="draft", points=BRAWLER)
    response = admin_master.post(
        "/admin/personajes/character/",
        {"action": "approve_sheets", "_selected_action": [submitted.pk, draft.pk]},
        follow=True,
    )
    assert response.status_code == 200
    submitted.refresh_from_db()
    draft.refresh_from_db()
    assert (submitted.status, draft.status) == ("approved", "draft")
    messages = [str(m) for m in response.context["messages"]]
    assert any(draft.name in m for m in messages)  # the draft's refusal is reported


def test_rolls_and_the_change_log_cannot_be_added_changed_or_deleted(master):
    request = RequestFactory().get("/admin/")
    master.is_staff = master.is_superuser = True
    request.user = master
    for admin_class, model in ((RollAdmin, Roll), (SheetChangeAdmin, SheetChange)):
        model_admin = admin_class(model, site)
        assert not model_admin.has_add_permission(request)
        assert not model_admin.has_change_permission(request)
        assert not model_admin.has_delete_permission(request)
        assert model_admin.has_view_permission(request)


def test_the_roll_add_page_is_forbidden(admin_master):
    assert admin_master.get("/admin/personajes/roll/add/").status_code == 403

"""Drafts keep the post form's inputs; the roll's inputs were renamed to the one roll vocabulary
(``roll_<name>``, the API's ``roll`` object flattened), so a draft saved before keeps its roll."""

from django.db import migrations

RENAMED = {
    "trait": "roll_trait",
    "threshold": "roll_threshold",
    "probability": "roll_probability",
    "expression": "roll_expression",
    "reason": "roll_reason",
}


def forwards(apps, schema_editor):
    Draft = apps.get_model("escenas", "Draft")
    for draft in Draft.objects.exclude(data={}).iterator():
        data = {RENAMED.get(key, key): value for key, value in draft.data.items()}
        if data != draft.data:
            Draft.objects.filter(pk=draft.pk).update(data=data)


def backwards(apps, schema_editor):
    Draft = apps.get_model("escenas", "Draft")
    back = {new: old for old, new in RENAMED.items()}
    for draft in Draft.objects.exclude(data={}).iterator():
        data = {back.get(key, key): value for key, value in draft.data.items()}
        if data != draft.data:
            Draft.objects.filter(pk=draft.pk).update(data=data)


class Migration(migrations.Migration):
    dependencies = [("escenas", "0001_initial")]

    operations = [migrations.RunPython(forwards, backwards)]

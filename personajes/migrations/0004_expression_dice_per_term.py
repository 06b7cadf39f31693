"""Expression rolls stored by the daily tick before this migration kept their dice as plain
numbers (``[4]``); every other expression roll keeps one entry per dice term (``[{"expression":
"1d6", "sign": 1, "faces": [4], …}]``). Rewrite the old rows to that one shape, from their own
stored expression and faces, so the pages read a single shape (the dice themselves do not
change: the stored faces are the record)."""

from django.db import migrations


def per_term(apps, schema_editor):
    from reglas.errors import RulesError
    from reglas.expression_terms import term_rolls

    Roll = apps.get_model("personajes", "Roll")
    for roll in Roll.objects.filter(kind="expression").only("id", "expression", "dice").iterator():
        dice = roll.dice
        if not dice or not all(isinstance(d, int) for d in dice):
            continue
        try:
            terms = [t.as_dict() for t in term_rolls(roll.expression, dice)]
        except RulesError:
            terms = [
                {
                    "expression": f"{len(dice)}d?",
                    "sign": 1,
                    "faces": dice,
                    "successes": None,
                    "value": sum(dice),
                }
            ]
        # An update, not save(): Roll.save refuses to change a stored roll.
        Roll.objects.filter(pk=roll.pk).update(dice=terms)


class Migration(migrations.Migration):
    dependencies = [("personajes", "0003_dirt_flags_are_the_campaign_setting")]

    operations = [migrations.RunPython(per_term, migrations.RunPython.noop)]

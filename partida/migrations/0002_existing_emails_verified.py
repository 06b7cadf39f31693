"""Accounts made before allauth keep signing in: their e-mail becomes their verified address.

Sign-up now verifies the address (ACCOUNT_EMAIL_VERIFICATION = "mandatory"), and allauth would
stop every existing user at their next sign-in to verify theirs. Those addresses have been the
accounts' password-reset addresses all along, so they are taken as verified. When several
accounts share one address (the old sign-up did not always refuse it), only the oldest gets it
verified; the others verify it or change it at their next sign-in.
"""

from django.conf import settings
from django.db import migrations


def forwards(apps, schema_editor):
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    EmailAddress = apps.get_model("account", "EmailAddress")
    seen = set(EmailAddress.objects.filter(verified=True).values_list("email", flat=True))
    seen = {email.lower() for email in seen}
    have = set(EmailAddress.objects.values_list("user_id", flat=True))
    rows = []
    for user_id, email in User.objects.exclude(email="").order_by("pk").values_list("pk", "email"):
        if user_id in have:
            continue
        verified = email.lower() not in seen
        seen.add(email.lower())
        rows.append(EmailAddress(user_id=user_id, email=email, verified=verified, primary=True))
    EmailAddress.objects.bulk_create(rows, batch_size=500)


class Migration(migrations.Migration):
    dependencies = [
        ("partida", "0001_initial"),
        ("account", "0009_emailaddress_unique_primary_email"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]

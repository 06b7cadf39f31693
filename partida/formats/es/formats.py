"""Spanish formats: Django's, with the zone label after each time."""

DATETIME_FORMAT = r"j \d\e F \d\e Y \a \l\a\s H:i T"
SHORT_DATETIME_FORMAT = "d/m/Y H:i T"

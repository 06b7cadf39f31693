"""English formats: Django's, with the zone label after each time."""

DATETIME_FORMAT = "N j, Y, H:i T"
SHORT_DATETIME_FORMAT = "m/d/Y H:i T"

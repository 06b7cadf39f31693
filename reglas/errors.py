"""Errors raised by the rules engine."""


class RulesError(ValueError):
    """Bad input to a rule: the message is a complete Spanish sentence for the user.

    Nothing has been rolled when this is raised.
    """

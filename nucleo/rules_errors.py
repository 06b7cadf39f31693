"""The rules engine's refusals worded in the reader's language.

``reglas`` raises ``RulesError(code, message, **params)``: ``message`` is the Spanish sentence the
CLI prints; the apps show ``rules_message(exc)`` instead, which looks ``code`` up in
``MESSAGES`` (an English msgid with one ``%(name)s`` per param, translated through Django
i18n) and fills in the params. A test scans ``reglas`` and checks that every code raised is
here, is translated to Spanish and names exactly the params its raise sites give.
"""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from reglas.errors import RulesError

MESSAGES: dict[str, Promise] = {
    # --- dice and trait values (R1, R3, R4) ---
    "number_invalid": _("%(what)s must be a number (%(value)s)."),
    "number_not_finite": _("%(what)s must be a finite number (%(value)s)."),
    "integer_invalid": _("%(what)s must be a whole number (%(value)s)."),
    "integer_below_minimum": _("%(what)s cannot be less than %(minimum)s (%(value)s)."),
    "trait_too_many_dice": _(
        "A trait value of %(value)s would roll %(dice)s dice; the maximum is %(maximum)s."
    ),
    "d100_face_invalid": _("A d100 cannot roll %(face)s."),
    "dice_too_many": _("Cannot roll %(count)s dice at once (at most %(maximum)s)."),
    "die_too_many_faces": _("A die of %(faces)s faces is over the maximum of %(maximum)s."),
    "d100_faces_invalid": _("A d100 only rolls 1 to 100 (%(faces)s)."),
    "action_dice_count": _("A trait of %(trait)s rolls %(expected)s dice, not %(got)s."),
    "thresholds_not_finite": _("Thresholds must be finite numbers."),
    "trait_values_not_int": _("Trait values must be whole numbers."),
    "trait_values_range": _("Trait values must be between 0 and %(maximum)s."),
    "penalty_not_modifier": _("Each penalty line must be a Modifier (%(line)s)."),
    "trait_invalid": _("Trait «%(slug)s»: %(detail)s"),
    "trait_allocation_invalid": _("The trait points are not valid: %(detail)s"),
    # --- dice expressions (R4) ---
    "expression_not_text": _("The dice expression must be text, such as 2d6+1."),
    "expression_too_long": _(
        "The dice expression is too long (%(length)s characters; at most %(maximum)s)."
    ),
    "expression_empty": _("The dice expression is empty: write something like 2d6+1 or 1d100."),
    "expression_too_many_terms": _(
        "The expression «%(text)s» is not valid: it has more than %(maximum)s terms."
    ),
    "expression_missing_term": _(
        "The expression «%(text)s» is not valid: a die or a number is missing at the end."
    ),
    "expression_missing_faces": _(
        "The expression «%(text)s» is not valid: the number of faces is missing after «d» "
        "(for example %(example)s)."
    ),
    "expression_unexpected": _(
        "The expression «%(text)s» is not valid: a die (such as 2d6) or a number was expected "
        "and there is «%(found)s»."
    ),
    "expression_number_too_big": _(
        "The expression «%(text)s» is not valid: the number %(number)s is too big."
    ),
    "expression_missing_number": _(
        "The expression «%(text)s» is not valid: the number after «%(operator)s» is missing."
    ),
    "expression_comparison_without_dice": _(
        "The expression «%(text)s» is not valid: a comparison can only follow dice (3d100<=40)."
    ),
    "expression_comparison_unknown": _(
        "The expression «%(text)s» is not valid: unknown comparison: use <=, <, >= or >."
    ),
    "expression_two_comparisons": _(
        "The expression «%(text)s» is not valid: only one comparison per dice roll is allowed."
    ),
    "expression_extra_text": _(
        "The expression «%(text)s» is not valid: «%(found)s» is left over after «%(after)s»."
    ),
    "expression_missing_operator": _(
        "The expression «%(text)s» is not valid: a «+» or a «-» is missing before «%(word)s»."
    ),
    "expression_comment_start": _(
        "The expression «%(text)s» is not valid: the comment after the roll must start with a "
        "letter, not «%(char)s»."
    ),
    "expression_no_dice": _(
        "The expression «%(text)s» is not valid: «%(count)sd%(faces)s» rolls no dice."
    ),
    "expression_too_many_dice_in_term": _(
        "The expression «%(text)s» is not valid: «%(term)s» rolls %(count)s dice and the "
        "maximum is %(maximum)s per term."
    ),
    "expression_one_face": _(
        "The expression «%(text)s» is not valid: a die of 1 face does not exist "
        "(at least %(minimum)s)."
    ),
    "expression_too_few_faces": _(
        "The expression «%(text)s» is not valid: a die of %(faces)s faces does not exist "
        "(at least %(minimum)s)."
    ),
    "expression_too_many_faces": _(
        "The expression «%(text)s» is not valid: a die of %(faces)s faces is over the maximum "
        "of %(maximum)s."
    ),
    "expression_too_many_dice": _(
        "The expression «%(text)s» is not valid: it rolls %(dice)s dice and the maximum is "
        "%(maximum)s in all."
    ),
    "roll_count_invalid": _("The number of rolls must be a non-negative whole number (%(size)s)."),
    "expression_faces_mismatch": _("The roll %(expression)s has %(expected)s dice, not %(given)s."),
    "roll_generators_mismatch": _("There are %(rolls)s rolls and %(generators)s generators."),
    # --- verifiable dice (reglas.verify, issue 16) ---
    "share_hash": _("«%(what)s» must be a SHA-256 in hexadecimal (64 digits)."),
    "entropy_value": _("The entropy or the player's share is not valid."),
    "draw_plan": _("A roll of the archive has a draw plan that cannot be replayed."),
    "dice_shape": _("The stored dice of a roll cannot be read."),
    "roll_kind_unknown": _("Unknown kind of roll: «%(kind)s»."),
    "archive_format": _("This is not a Partida dice archive of a closed period (version 1)."),
    "engine_version": _(
        "A roll was made by engine «%(version)s», which this verifier cannot reproduce."
    ),
    # --- character state and the day's arrays (R6–R9, R12, R13, R15) ---
    "column_shape": _("«%(name)s» must have shape (%(n)s,), not %(shape)s."),
    "column_negative": _("«%(name)s» cannot be negative."),
    "column_not_finite": _("«%(name)s» must hold finite numbers."),
    "column_not_int": _("«%(name)s» must hold whole numbers."),
    "column_below_minimum": _("«%(name)s» cannot be less than %(minimum)s."),
    "unknown_columns": _("Unknown columns: %(names)s."),
    "state_unknown_fields": _("Unknown fields in the state: %(names)s."),
    "state_field_not_bool": _("«%(name)s» must be true or false (%(value)s)."),
    "state_field_not_int": _("«%(name)s» must be a whole number (%(value)s)."),
    "state_field_negative": _("«%(name)s» cannot be negative (%(value)s)."),
    "field_not_non_negative_int": _("«%(name)s» must be a non-negative whole number (%(value)s)."),
    "resistance_negative": _("«resistencia» cannot be negative."),
    "day_records_mismatch": _("There are %(states)s states and %(records)s day records."),
    "health_records_mismatch": _("There are %(states)s states and %(records)s health records."),
    "kcal_needed_invalid": _("The kcal needed must be a non-negative number (%(value)s)."),
    "food_invalid": _("The food «%(item)s» has invalid %(what)s (%(value)s)."),
    "shelter_index_out_of_range": _("A shelter index has no stash (out of range)."),
    # --- health (R10, R12, R13) ---
    "already_sick": _("The character is already sick."),
    "disease_duration_invalid": _(
        "The duration of the disease must be a positive whole number (%(duration)s)."
    ),
    "medicine_needed": _("At least 1 point of Medicine is needed to try."),
    "shelter_sick_shape": _("«shelter» and «sick» must have the same shape."),
    "min_temp_invalid": _("The minimum temperature must be a number (%(value)s)."),
    "min_temp_not_finite": _("The minimum temperature must be a finite number."),
    "sick_housemates_negative": _("The number of sick people in the shelter cannot be negative."),
    # --- days, seasons, weather, utilities, supplies (R10, R11, R16) ---
    "day_negative": _("The day cannot be negative."),
    "day_negative_given": _("The day cannot be negative (got %(day)s)."),
    "day_shape": _("The day must be a number or a list as long as the networks' one."),
    "utilities_lengths": _("power_on and water_on must be lists of the same length."),
    "season_not_exist": _(
        "The season «%(season)s» does not exist: use invierno, primavera, verano or otoño."
    ),
    "season_unknown": _("Unknown season «%(season)s»: use invierno, primavera, verano or otoño."),
    "weather_season_missing": _("The weather table has no season «%(season)s»."),
    "sky_die_range": _("The sky die must be between 1 and 100 (got %(die)s)."),
    "sky_unknown": _("Unknown sky kind «%(slug)s»."),
    "shop_type_unknown": _("Unknown shop type «%(shop_type)s»: use one of %(known)s."),
    # --- population and encounters (R17, R18) ---
    "population_k_invalid": _("The population (K) must be a non-negative whole number."),
    "population_k_invalid_given": _(
        "The population (K) must be a non-negative whole number (got %(k)s)."
    ),
    "population_t_invalid": _("The day (t) must be 0 or more."),
    "population_t_invalid_given": _("The day (t) must be 0 or more (got %(t)s)."),
    "population_r_invalid": _("The growth rate (r) must be greater than 0."),
    "population_r_invalid_given": _("The growth rate (r) must be greater than 0 (got %(r)s)."),
    "population_p0_invalid": _("P0 must be greater than 0."),
    "population_p0_invalid_given": _("P0 must be greater than 0 (got %(p0)s)."),
    "population_shapes": _("K, t, r and P0 must have compatible shapes."),
    "population_adjustments_negative": _("The population adjustments cannot be negative."),
    "population_count_negative": _("The number of %(what)s cannot be negative (got %(value)s)."),
    "number_negative_given": _("%(what)s must be a number of 0 or more (got %(value)s)."),
    "zombies_negative": _("The number of zombies cannot be negative (got %(zombies)s)."),
    "cells_negative": _("The number of usable spaces cannot be negative (%(cells)s)."),
    "area_under_one_cell": _("The area is smaller than one usable space (2 × 2 m): no cells."),
    "cells_walked_negative": _("The number of spaces walked cannot be negative."),
    "cell_probability_range": _("The probability per space must be between 0 and 1."),
    "detection_mode_unknown": _("Unknown mode «%(mode)s»: use normal or agresivo."),
    # --- combat (R19–R23) ---
    "distance_negative": _("The distance cannot be negative (got %(distance_m)s m)."),
    "weapon_class_unknown": _("Unknown weapon class «%(slug)s»: use one of %(known)s."),
    "caliber_unknown": _("Unknown caliber «%(slug)s»: use one of %(known)s."),
    "weapon_unknown": _("Unknown weapon «%(slug)s»: use one of %(known)s."),
    "firearm_without_caliber": _("The firearm «%(weapon)s» has no caliber."),
    "fight_needs_zombie": _("A fight against zombies needs at least one zombie."),
    "fight_zombie_ids_repeated": _("The zombies' ids must be distinct."),
    "zombie_not_in_fight": _("The zombie «%(zombie_id)s» is not in this fight."),
    "escape_trait_not_allowed": _("Escaping uses %(allowed)s, not «%(chosen)s»."),
    # --- the odds calculator (reglas.combat.odds) ---
    "odds_penalty_invalid": _("The action penalty must be a whole number."),
    "odds_grabbed_choice": _(
        "When grabbed, a fighter attacks the zombie («attack») or escapes from it («escape»)."
    ),
    "odds_count_range": _(
        "%(what)s must be a whole number between %(minimum)s and %(maximum)s (%(value)s)."
    ),
    "odds_interval_invalid": _("Impossible interval: %(successes)s of %(n)s simulations."),
    "odds_too_much_work": _(
        "Too much to compute (%(simulations)s fights × %(turns)s turns × %(zombies)s zombies × "
        "%(members)s people; at most %(maximum)s): lower the simulations or the fight's size."
    ),
    "fight_victim_dead": _("The victim is already dead: the fight is over."),
    "fight_no_zombie_standing": _("No zombie is left standing: the fight is over."),
    "zombie_destroyed": _("The zombie «%(zombie)s» is already destroyed."),
    "zombie_not_grabbing": _(
        "The zombie «%(zombie)s» is not grabbing the victim: nothing to escape from."
    ),
    "fight_grabbed_attacks_grabber": _(
        "The victim is grabbed: they can only attack a zombie that grabs them."
    ),
    # --- rule settings (principle 1) ---
    "settings_not_object": _("The rule settings must be a JSON object (key: value)."),
    "setting_unknown": _("The setting «%(key)s» does not exist."),
    "setting_not_bool": _("The setting «%(key)s» must be true or false."),
    "setting_not_int": _("The setting «%(key)s» must be a whole number."),
    "setting_not_number": _("The setting «%(key)s» must be a number."),
    "setting_not_finite": _("The setting «%(key)s» must be a finite number."),
    "setting_not_text": _("The setting «%(key)s» must be text."),
    "setting_not_text_list": _("The setting «%(key)s» must be a list of texts."),
    "setting_negative": _("The setting «%(key)s» cannot be negative (%(value)s)."),
    "setting_percent_over": _(
        "The setting «%(key)s» is a percentage: it cannot be over 100 (%(value)s)."
    ),
    "setting_at_least_one": _("The setting «%(key)s» must be at least 1."),
    "setting_fraction_over": _(
        "The setting «%(key)s» is a fraction: it cannot be over 1 (%(value)s)."
    ),
    "forecast_amount_invalid": _("«%(name)s» must be a finite number, 0 or more."),
    "forecast_residents_invalid": _("A shelter's residents must be 1 or more."),
    "setting_not_positive": _("The setting «%(key)s» must be greater than 0 (%(value)s)."),
    "setting_roll_invalid": _("The setting «%(key)s» is not a valid roll: %(detail)s"),
    "setting_roll_not_simple": _("The setting «%(key)s» must be a simple roll such as 1d6+2."),
    "setting_roll_too_short": _(
        "The setting «%(key)s» must last at least 1 day (minimum %(minimum)s)."
    ),
    # --- rule tables (principle 1) ---
    "campaign_tables_not_object": _("A campaign's tables must be a JSON object (name: table)."),
    "table_file_not_object": _("The table file «%(name)s.json» does not hold a JSON object."),
    "table_not_object": _("Invalid table: the field «%(path)s» must be a JSON object."),
    "table_missing": _("Invalid table: the field «%(path)s» is missing."),
    "table_unknown_field": _("Invalid table: the field «%(path)s» does not exist (a typo?)."),
    "table_empty": _("Invalid table: the field «%(path)s» cannot be empty."),
    "table_bad_key": _("Invalid table: the field «%(path)s» has an empty or non-text key."),
    "table_not_list": _("Invalid table: the field «%(path)s» must be a list."),
    "table_not_int": _(
        "Invalid table: the field «%(path)s» must be a whole number (got %(value)s)."
    ),
    "table_below_minimum": _(
        "Invalid table: the field «%(path)s» must be at least %(minimum)s (got %(value)s)."
    ),
    "table_above_maximum": _(
        "Invalid table: the field «%(path)s» must be at most %(maximum)s (got %(value)s)."
    ),
    "table_not_number": _("Invalid table: the field «%(path)s» must be a number (got %(value)s)."),
    "table_not_finite": _("Invalid table: the field «%(path)s» must be a finite number."),
    "table_not_positive": _(
        "Invalid table: the field «%(path)s» must be greater than 0 (got %(value)s)."
    ),
    "table_negative": _("Invalid table: the field «%(path)s» cannot be negative (got %(value)s)."),
    "table_not_bool": _(
        "Invalid table: the field «%(path)s» must be true or false (got %(value)s)."
    ),
    "table_not_text": _("Invalid table: the field «%(path)s» must be text (got %(value)s)."),
    "table_slug_chars": _(
        "Invalid table: the field «%(path)s» only takes lowercase letters without accents, "
        "digits and «_»."
    ),
    "table_slug_repeated": _("Invalid table: the field «%(path)s» repeats «%(slug)s»."),
    "table_upto_null_early": _(
        "Invalid table: the field «%(path)s» can only be null in the last band."
    ),
    "table_upto_not_null": _(
        "Invalid table: the field «%(path)s» must be null in the last band (no limit)."
    ),
    "table_maximum_below_minimum": _(
        "Invalid table: the field «%(path)s» cannot be less than min_pct "
        "(%(maximum)s < %(minimum)s)."
    ),
    "table_unknown_name": _(
        "Invalid table: the field «%(path)s» is not a table («traits», «weather», «search», …)."
    ),
    "table_band_not_increasing": _(
        "Invalid table: the field «%(path)s» must be greater than the previous band's."
    ),
    "table_unarmed_missing": _(
        "Invalid table: the field «%(path)s» must include «%(unarmed)s» (unarmed)."
    ),
    "table_firearm_reserved": _(
        "Invalid table: the field «%(path)s» is a name reserved for firearms."
    ),
    "table_caliber_unknown": _(
        "Invalid table: the field «%(path)s» names a caliber that does not exist (%(caliber)s)."
    ),
    "table_weapon_kind": _(
        "Invalid table: the field «%(path)s» must be «%(firearm)s» or a class of "
        "«%(table)s.wound.classes»."
    ),
    "table_caliber_not_null": _(
        "Invalid table: the field «%(path)s» must be null for a weapon that is not a firearm."
    ),
    "table_sky_unknown": _(
        "Invalid table: the field «%(path)s» names a sky that is not in «%(table)s.skies» "
        "(%(sky)s)."
    ),
    "table_sky_bands_short": _(
        "Invalid table: the field «%(path)s» must cover the d100 up to 100 (the last band "
        "ends at 100)."
    ),
    # --- the command line (reglas.cli_world) ---
    "cli_until_before_day": _("--hasta (%(hasta)s) cannot be before --dia (%(dia)s)."),
    "cli_curve_too_long": _("The curve cannot be longer than %(maximum)s days."),
    "cli_area_twice": _("Use --area or else --ancho and --largo, not both."),
    "cli_size_negative": _("The width and the length cannot be negative."),
    "cli_area_missing": _("Give the area with --area or with --ancho and --largo (in metres)."),
    "cli_date_invalid": _("Invalid date «%(fecha)s»: use YYYY-MM-DD."),
    "cli_traits_negative": _("Traits cannot be negative."),
    "cli_penalty_negative": _("The penalty is given in positive points (they are subtracted)."),
}
"""Each engine error code → its English msgid, placeholders named as the raise sites' params."""

LABELS: dict[str, Promise] = {
    "trait_value": _("The trait value"),
    "die": _("The die"),
    "threshold": _("The threshold"),
    "dice_count": _("The number of dice"),
    "faces_count": _("The number of faces"),
    "probability": _("The probability"),
    "area_m2": _("The area (m²)"),
    "path_m": _("The route (m)"),
    "radius_m": _("The detection radius (m)"),
    "destroyed": _("destroyed zombies"),
    "rescued": _("rescued survivors"),
    "risen": _("risen characters"),
    "kcal_per_unit": _("kcal per unit"),
    "units": _("units"),
    "simulations": _("The number of simulations"),
    "zombies": _("The number of zombies"),
    "turns": _("The number of turns"),
    "members": _("The number of people in the party"),
    "rivals": _("The number of rivals"),
    "days": _("The number of days"),
    "penalty": _("The penalty"),
}
"""The quantity a shared check names (param ``what``, a slug of ``reglas.errors.LABELS``)."""


def rules_message(exc: RulesError) -> str:
    """``exc`` worded in the active language: its code's msgid filled with its params.

    The ``what`` param (a quantity's slug) is worded through ``LABELS``; a ``detail`` param
    (another engine error's sentence, wrapped) is worded from the error it wraps
    (``exc.__cause__``). Falls back to ``str(exc)``, the engine's Spanish sentence, for a code
    not in ``MESSAGES`` or params that do not fill its msgid. Never raises.
    """
    msgid = MESSAGES.get(getattr(exc, "code", ""))
    if msgid is None:
        return str(exc)
    params = dict(exc.params)
    if "what" in params and params["what"] in LABELS:
        params["what"] = str(LABELS[params["what"]])
    if "detail" in params and isinstance(exc.__cause__, RulesError):
        params["detail"] = rules_message(exc.__cause__)
    try:
        return str(msgid) % params
    except (KeyError, TypeError, ValueError):
        return str(exc)

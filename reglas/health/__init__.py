"""Health: disease onset, the course of a disease, infection by bites, and their deaths.

One module per rulebook topic: ``onset`` (R10, the daily disease probability), ``disease``
(R12, the onset roll and duration, the Medicina cure, the resistance roll), ``infection``
(R13, bites and amputation) and ``tick`` (the vectorised health step of the daily tick:
``advance_health``, arrays in, arrays out). Every public name is re-exported here, so
``from reglas.health import advance_health`` stays the way to use them.

Timeline (our reading of "day x of y"): a disease that starts at the tick closing day N runs
on days N+1 … N+y, ``disease_day`` = 1 … y; the tick closing its last day rolls resistance.
A bite on day N makes that day infection day 1; the tick closing infection day y kills and
raises the character. The R9 penalty counts the current disease day (day 1 already costs 5).

Source: RULES.md R10, R12, R13, R14 (seed: "Salud/Enfermedad", "Sistema, salud, enfermedad y
muerte").
"""

from reglas.health.disease import (
    MEDICINE_TRAIT,
    RESISTANCE_TRAIT,
    DiseaseOutcome,
    DiseaseStep,
    OnsetRoll,
    advance_disease,
    cure_disease,
    resistance_modifiers,
    roll_medicine_cure,
    roll_onset,
    roll_resistance,
    start_disease,
)
from reglas.health.infection import BiteOutcome, advance_infection, bite
from reglas.health.onset import (
    DiseaseInputArrays,
    DiseaseInputs,
    DiseaseOdds,
    cold_degrees,
    count_sick_housemates,
    disease_odds,
    disease_probability,
)
from reglas.health.tick import (
    CAUSE_DISEASE,
    CAUSE_INFECTION,
    HealthDayArrays,
    HealthOutcome,
    RollRng,
    advance_health,
)

__all__ = [
    "CAUSE_DISEASE",
    "CAUSE_INFECTION",
    "MEDICINE_TRAIT",
    "RESISTANCE_TRAIT",
    "BiteOutcome",
    "DiseaseInputArrays",
    "DiseaseInputs",
    "DiseaseOdds",
    "DiseaseOutcome",
    "DiseaseStep",
    "HealthDayArrays",
    "HealthOutcome",
    "OnsetRoll",
    "RollRng",
    "advance_disease",
    "advance_health",
    "advance_infection",
    "bite",
    "cold_degrees",
    "count_sick_housemates",
    "cure_disease",
    "disease_odds",
    "disease_probability",
    "resistance_modifiers",
    "roll_medicine_cure",
    "roll_onset",
    "roll_resistance",
    "start_disease",
]

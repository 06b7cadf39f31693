"""What the odds simulators share: the fighters, their per-roll chances, the estimates.

Every roll of a simulated fight is drawn as one uniform number against the roll's exact
success probability: an event roll succeeds with T/100, an action roll with
1 − (1 − T/100)^(1+X) (R3), which is the distribution of throwing its 1 + X d100 and keeping
the best. The simulators count the dice those rolls stand for (``dice``), so a benchmark can
compare them with a bare draw of as many d100.

Source: RULES.md R1, R3, R13, R19, R20, R21.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from reglas.combat.attacks import to_hit_threshold, to_hit_trait, wound_threshold
from reglas.core import clamp_threshold
from reglas.dice import action_success_probability, check_trait_value
from reglas.errors import LABELS, RulesError
from reglas.health.disease import _check_medicine
from reglas.settings import DEFAULT_SETTINGS, RuleSettings
from reglas.tables import DEFAULT_COMBAT, CombatTable, Weapon

MAX_SIMULATIONS = 1_000_000
"""Most simulated fights in one call."""
MAX_TURNS = 100
"""Most turns of one simulated fight."""
MAX_ZOMBIES = 100
"""Most zombies in one simulated fight."""
MAX_HUMANS = 20
"""Most humans on one side of a simulated fight."""
MAX_WORK = 2_000_000_000
"""Most fights × turns × zombies × humans in one call (about a minute of work at worst; the
benchmark's 100 000 × 10 × 5 × 1 takes a quarter of a second)."""
CHUNK = 100_000
"""Fights simulated at once (memory bound; results do not depend on it for a given seed)."""
DEFAULT_SIMULATIONS = 100_000
"""Simulated fights when the caller does not say."""
Z_95 = 1.959963984540054
"""The normal quantile of a two-sided 95 % interval."""

GrabbedChoice = Literal["attack", "escape"]
"""What a grabbed fighter does: attack the grabbing zombie (−20 to hit) or escape from it."""


@dataclass(frozen=True, slots=True)
class PartyMember:
    """A human in a simulated fight: ``traits`` by slug (missing → 0), its ``weapon``, its
    action ``penalty`` (R9, points subtracted from its action rolls), the ``distance_m`` (m) it
    shoots from, what it does when grabbed (``when_grabbed``) and the ``escape_trait`` it
    escapes with (None → the higher of Agilidad and Pelea, as ``resolve_zombie_turn``).
    Source: RULES.md R19, R20, R21."""

    name: str
    weapon: Weapon
    traits: Mapping[str, int]
    penalty: int = 0
    distance_m: float = 0.0
    when_grabbed: GrabbedChoice = "attack"
    escape_trait: str | None = None


@dataclass(frozen=True, slots=True)
class MemberChances:
    """One fighter's exact per-roll chances (0..1) and the dice each roll throws.

    ``hit`` to hit when free, ``hit_grabbed`` when grabbed (−20), ``wound`` to wound once hit,
    ``escape`` to break free; ``kill`` = hit × wound, ``kill_grabbed`` = hit_grabbed × wound.
    Source: RULES.md R3, R19, R20."""

    hit: float
    hit_grabbed: float
    wound: float
    escape: float
    hit_dice: int
    wound_dice: int
    escape_dice: int
    escapes: bool

    @property
    def kill(self) -> float:
        """Chance that one attack when free destroys its target."""
        return self.hit * self.wound

    @property
    def kill_grabbed(self) -> float:
        """Chance that one attack when grabbed destroys the grabbing zombie."""
        return self.hit_grabbed * self.wound


def _trait(traits: Mapping[str, int], slug: str) -> int:
    try:
        return check_trait_value(traits.get(slug, 0))
    except RulesError as exc:
        raise RulesError(
            "trait_invalid", f"Rasgo «{slug}»: {exc}", slug=slug, detail=str(exc)
        ) from exc


def _escape_trait(member: PartyMember, table: CombatTable) -> str:
    if member.escape_trait is not None:
        if member.escape_trait not in table.escape_traits:
            allowed = " o ".join(table.escape_traits)
            raise RulesError(
                "escape_trait_not_allowed",
                f"Para zafarse se usa {allowed}, no «{member.escape_trait}».",
                allowed=allowed,
                chosen=member.escape_trait,
            )
        return member.escape_trait
    return max(table.escape_traits, key=lambda slug: _trait(member.traits, slug))


def member_chances(member: PartyMember, table: CombatTable = DEFAULT_COMBAT) -> MemberChances:
    """The exact chances of ``member``'s rolls with ``table``, computed as ``attack`` and
    ``resolve_zombie_turn`` roll them: thresholds clamp(base + range modifiers − penalty), the
    grabbed −20 on top, the caliber's d100 without penalty, the Fuerza roll with it.
    Raises RulesError for a bad weapon, trait, penalty, distance or escape trait.
    Source: RULES.md R3, R19, R20."""
    if isinstance(member.penalty, bool) or not isinstance(member.penalty, int):
        raise RulesError("odds_penalty_invalid", "La penalización debe ser un número entero.")
    if member.when_grabbed not in ("attack", "escape"):
        raise RulesError(
            "odds_grabbed_choice",
            "Agarrado, se ataca al zombi («attack») o se zafa de él («escape»).",
        )
    base, range_mods = to_hit_threshold(member.weapon, member.distance_m, table)
    to_hit = base + sum(m.points for m in range_mods) - member.penalty
    hit_value = _trait(member.traits, to_hit_trait(member.weapon, table))
    if member.weapon.is_firearm:
        wound = wound_threshold(member.weapon, table) / 100
        wound_dice = 1
    else:
        fuerza = _trait(member.traits, table.trait_wound)
        t = wound_threshold(member.weapon, table) - member.penalty
        wound = action_success_probability(fuerza, clamp_threshold(t))
        wound_dice = 1 + fuerza
    escape_value = _trait(member.traits, _escape_trait(member, table))
    return MemberChances(
        hit=action_success_probability(hit_value, clamp_threshold(to_hit)),
        hit_grabbed=action_success_probability(
            hit_value, clamp_threshold(to_hit - table.grabbed_to_hit_penalty)
        ),
        wound=wound,
        escape=action_success_probability(
            escape_value, clamp_threshold(table.escape - member.penalty)
        ),
        hit_dice=1 + hit_value,
        wound_dice=wound_dice,
        escape_dice=1 + escape_value,
        escapes=member.when_grabbed == "escape",
    )


def amputation_chance(
    medicina: int | None, settings: RuleSettings = DEFAULT_SETTINGS
) -> tuple[float, int]:
    """Exact chance (0..1) of the amputation try after a bite and its dice; (0, 0) when nobody
    with Medicina is present (``medicina`` None). Raises RulesError as ``amputation_roll``.
    Source: RULES.md R13."""
    if medicina is None:
        return 0.0, 0
    value = _check_medicine(medicina, settings)
    return action_success_probability(value, settings.amputation_threshold), 1 + value


def check_count(value: object, what: str, minimum: int, maximum: int) -> int:
    """An int in minimum..maximum, else RulesError naming ``what`` (a slug of
    ``reglas.errors.LABELS``)."""
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
        raise RulesError(
            "odds_count_range",
            f"{LABELS[what]} debe ser un número entero entre {minimum} y {maximum} ({value!r}).",
            what=what,
            minimum=minimum,
            maximum=maximum,
            value=repr(value),
        )
    return value


def check_party(party: Sequence[PartyMember], what: str = "members") -> tuple[PartyMember, ...]:
    """The party as a tuple: 1..MAX_HUMANS members (``what``: ``members`` or ``rivals``, for
    the message). Raises RulesError otherwise."""
    members = tuple(party)
    check_count(len(members), what, 1, MAX_HUMANS)
    return members


@dataclass(frozen=True, slots=True)
class Estimate:
    """A simulated probability: ``successes`` of ``n`` fights, ``p`` = successes / n (0..1),
    and its 95 % Wilson interval ``low``..``high``. Source: statistics (Wilson 1927)."""

    successes: int
    n: int
    p: float
    low: float
    high: float

    @classmethod
    def of(cls, successes: int, n: int) -> Estimate:
        """The estimate of ``successes`` out of ``n`` (n ≥ 1)."""
        low, high = wilson_interval(successes, n)
        return cls(int(successes), int(n), successes / n, low, high)

    def contains(self, p: float) -> bool:
        """``p`` lies inside the interval."""
        return self.low <= p <= self.high

    def as_dict(self) -> dict[str, object]:
        """JSON-able: ``p``, ``low``, ``high``, ``successes``, ``n``."""
        return {
            "p": self.p,
            "low": self.low,
            "high": self.high,
            "successes": self.successes,
            "n": self.n,
        }

    def describe(self) -> str:
        """Spanish text: ``42,1 % (IC 95 %: 41,8–42,4 %)``."""
        return f"{percent(self.p)} (IC 95 %: {percent(self.low, '')}–{percent(self.high)})"


def wilson_interval(successes: int, n: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval (0..1) of a binomial proportion; ``z`` 1.96 → 95 %.

    Raises RulesError if n < 1 or successes outside 0..n."""
    if n < 1 or not 0 <= successes <= n:
        raise RulesError(
            "odds_interval_invalid",
            f"Intervalo imposible: {successes} de {n} simulaciones.",
            successes=successes,
            n=n,
        )
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


def percent(p: float, unit: str = " %") -> str:
    """A probability 0..1 as Spanish percent text with one decimal: ``42,1 %``."""
    return f"{100 * p:.1f}".replace(".", ",") + unit


def chunk_sizes(simulations: int) -> list[int]:
    """``simulations`` split into runs of at most ``CHUNK`` fights (the last one shorter)."""
    full, rest = divmod(simulations, CHUNK)
    return [CHUNK] * full + ([rest] if rest else [])


def intervals(estimates: Mapping[str, Estimate]) -> dict[str, list[float]]:
    """The ``[low, high]`` interval of each estimate, by the same key (for JSON)."""
    return {k: [e.low, e.high] for k, e in estimates.items()}

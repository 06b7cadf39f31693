"""The daily tick: ``advance_day`` closes one in-game day of a campaign and opens the next.

A thin shell over the rules: ``world`` (weather, utilities, populations), ``load`` (ORM →
arrays), ``reglas.day.live_characters_day`` (the characters' day, pure), ``save`` (bulk writes,
rolls through ``nucleo.ledger``), ``run`` (lock, exactly once, ``DayTick``, ``on_commit``),
``posts`` (the diary posts task), ``messages`` (its words).

Order (RULES.md R24), for a campaign on day N:
1. day += 1 → N + 1;
2. weather (R11) of the day that opens, N + 1 (the day that closes, N, keeps the weather rolled
   when it opened; a campaign's first tick rolls it then);
3. utilities (R16): each grid still on is cut with probability N + 1 % (the day that opens);
4. populations (R17) on day N + 1, with the master's tally;
5. per living (approved) character, for the day that closes (N), all at once over numpy arrays:
   a medicine dose for the sick, consumption (R15), needs (R6), hygiene and dirt (R7, R8),
   disease course or onset (R10, R12), infection (R13), deaths (R14); risen characters add a
   zombie to their settlement;
6. one ``DiaryEntry`` per character for day N (the R25 table, as fields);
7. diary posts and their notifications (``escenas.diary.diary_posts_create``), made by a
   task queued for after the commit (``diary_posts_for_day``).

Timeline reading (shared with ``reglas.survival`` and ``reglas.health``): the tick *closes* day
N — its inputs are what happened on day N (the master's ``DayRecord`` of day N, day N's weather,
the grids as they were during day N) and its outputs are the counters for day N + 1. The diary
entry of day N shows the counters and the R9 penalty as the tick leaves them (they apply to
day N + 1's rolls).

Exactly once: see ``partida.tick.run``.

Queries: a fixed number per tick, whatever the number of characters (25 in
tests/partida/test_tick.py for 10 and for 200): reads straight into numpy arrays
(``nucleo.bulk.read_columns``; on PostgreSQL one binary array per column, ``array_send``),
writes with one statement per table (``nucleo.bulk``: UPDATE from arrays unnested in step,
COPY of the roll rows on PostgreSQL, the diary rows by one INSERT … SELECT of arrays with its
breakdowns and weather sent once per distinct value, ``bulk.Coded``; numbers formatted once
per distinct value).

Storage (personajes migrations 0009 and 0012, mundo 0010): the characters', carried items' and
stashes' tables have fill factor 50, so the tick's daily UPDATE of nearly every row stays on its
page (a HOT update: no index written); no index of a table the tick writes duplicates the
leading column of a unique constraint. Column reads drop the models' ``Meta.ordering``
(``nucleo.bulk.read_columns``): no join or sort the tick does not need.

Random numbers: one generator per step and subject, ``make_rng(entropy, [day, PURPOSE, subject,
0])`` — the weather of each climate, the cut dice of each grid, one for the health step's
onset dice — so adding a character or a settlement changes no one else's weather or grid. The
rolls the ledger stores (resistance rolls, new diseases' durations) are each drawn from their
own key, ``[day, HEALTH, character, 0]`` (``save.health_roll_key``), so every stored key
reproduces its dice; their seeds are worked out for every character at once
(``reglas.seeds.keyed_rngs``: the same streams as ``make_rng``, without a ``SeedSequence``
built per roll).

Readings of the rules chosen here (see also ``reglas.day``):
- Only approved characters tick (a draft or a submitted sheet has not entered play).
- A day "treated" (R12) = a sick character took a medicine dose that day: the tick gives one
  dose automatically, from what it carries, then from its shelter's stash (as R15 feeds it).
- A character with no shelter lives in the open: it can always go apart (place OK), but needs
  paper or a substitute like anyone (R7). A character in a shelter uses the shelter's latrine.
- Running water = the shelter has plumbing and its grid's water was on during the day.
- A shower with stored water is paid when the master marks it (``personajes.days``); the tick
  then counts the character as washed. "Got dirty" marks apply before the day's wash.
- Perishable food spoils ``spoil_after_power_cut_days`` days after its grid's power was cut
  (0, the default: never): edible through day cut + that many days, skipped from the day
  after (as ``take_food`` skips ``spoil_day < today``).
- Sick housemates (R10) count characters with a running disease or infection (R13).
- The day's consumption writes no ``personajes.Movement`` rows (every other stock change
  does): it would be up to characters × items rows a day (tens of thousands for 10 000
  characters), one more statement and most of the tick's write volume, for what the diary
  already records per character and day (kcal eaten, litres drunk, R25). The stacks' new
  quantities are still written in one UPDATE per table, as before.
"""

from __future__ import annotations

from partida.tick.posts import diary_posts_for_day
from partida.tick.run import TickRefused, TickResult, advance_day

__all__ = ["TickRefused", "TickResult", "advance_day", "diary_posts_for_day"]

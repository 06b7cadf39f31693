"""The demo's scenes: a story scene at a petrol station with the two approved demo characters,
posts with an action roll (the rulebook's door, R3), an event roll (26 %, R2), a free dice roll
(R4), an action roll waiting for the master's threshold, a pending roll request, a whisper and a
note to the master, a post with two rolls and an NPC with a portrait (``partida.demo_npcs``);
the off-topic scene with a short exchange; a diary for every character.

``load(campaign, stdout)`` is idempotent: every post is written through
``escenas.services.post_create`` with a fixed idempotency key (``demo-…``), which returns the
stored post — and makes no second roll — when the demo is loaded again; the scene is found by
its title and the roll request by (character, trait, reason).

The demo's history is not e-mailed: its posts are recorded as already notified, so loading the
demo does not print a dozen e-mails on the console (new posts written in the browser are).
Called by ``manage.py cargar_demo`` after the characters and the world exist.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from escenas import notifications, scenes, services
from escenas.access import access_scene
from escenas.models import RollRequest, Scene
from escenas.quoting import quote_markdown
from escenas.sheet_notices import sheet_topic
from mundo.models import Campaign, Membership
from nucleo.mail import outbox_withdraw
from partida import demo_combat, demo_npcs
from personajes.models import Character, Trait

STORY_TITLE = "La gasolinera de la N-420"
STORY_SUMMARY = (
    "Al caer la tarde, Lucía y Tomás llegan a la gasolinera abandonada de la carretera de "
    "Robledo buscando agua y gasoil. La persiana de la tienda está bajada."
)


def _users(campaign: Campaign) -> dict[str, Any]:
    return {
        m.user.username: m.user
        for m in Membership.objects.filter(campaign=campaign).select_related("user")
    }


def _approved(campaign: Campaign, username: str) -> Character | None:
    return (
        Character.objects.filter(
            campaign=campaign, player__username=username, status=Character.Status.APPROVED
        )
        .order_by("pk")
        .first()
    )


def _post(scene: Scene, user: Any, key: str, **kwargs: Any) -> Any:
    access = access_scene(user, scene.pk, campaign=scene.campaign)
    return services.post_create(access=access, author=user, idempotency_key=key, **kwargs)[0]


@transaction.atomic
def load(campaign: Campaign, stdout: Any) -> None:
    """Load the demo scenes into ``campaign`` (the demo users master, ana and bruno must be
    members; ana's and bruno's approved characters take part). Idempotent. One transaction, so
    the posts are marked as notified before any e-mail task runs (after the commit).

    Writes one line on ``stdout``: what was loaded, or why only part of it was (missing users:
    the off-topic scene and the diaries; no approved characters: the off-topic exchange too).
    """
    users = _users(campaign)
    master, ana, bruno = users.get("master"), users.get("ana"), users.get("bruno")
    offtopic = scenes.offtopic_scene_for(campaign)
    scenes.diaries_ensure(campaign=campaign)
    if master is None or ana is None or bruno is None:
        stdout.write("Escenas de demostración: faltan usuarios de la demo; sólo el off topic.")
        return
    lucia, tomas = _approved(campaign, "ana"), _approved(campaign, "bruno")
    _offtopic_posts(offtopic, master=master, ana=ana)
    if lucia is None or tomas is None:
        stdout.write("Escenas de demostración: sin personajes aprobados de ana y bruno.")
        _mark_notified(campaign)
        return

    story = _story_scene(campaign, master=master, participants=[lucia, tomas])
    _story_door_posts(story, master=master, ana=ana, lucia=lucia)
    _story_store_posts(story, ana=ana, bruno=bruno, lucia=lucia, tomas=tomas)
    _story_roll_request(campaign, story, master=master, tomas=tomas)
    demo_combat.load(story, master=master, lucia=lucia, tomas=tomas)
    demo_npcs.load(story, master=master, bruno=bruno, tomas=tomas)
    _mark_notified(campaign)
    diaries = Scene.objects.filter(campaign=campaign, kind=Scene.Kind.DIARY).count()
    stdout.write(
        f"Escenas: «{story.title}» ({story.posts.count()} mensajes, una tirada pedida a "
        f"{tomas.name}, dos combates), off topic y {diaries} diarios."
    )


def _offtopic_posts(offtopic: Scene, *, master: Any, ana: Any) -> None:
    """Ana and the master agree the pace of play, out of character, in the off-topic scene.

    Idempotent through the posts' keys ``demo-offtopic-1`` and ``-2``."""
    _post(
        offtopic, ana, "demo-offtopic-1", body="¿Os va bien escribir una vez al día, por la noche?"
    )
    _post(
        offtopic,
        master,
        "demo-offtopic-2",
        voice="player",
        body=(
            "Perfecto. El **día** avanza solo a las 06:00; si alguien se queda atrás, "
            "le espero. Las tiradas las hace el servidor al enviar el mensaje."
        ),
    )


def _story_scene(campaign: Campaign, *, master: Any, participants: list[Character]) -> Scene:
    """The petrol-station story scene, found by its title or created by ``master``, public,
    with ``participants`` (Lucía and Tomás) in it, open to new characters (Elena joins it
    when the master approves her sheet)."""
    story = Scene.objects.filter(campaign=campaign, title=STORY_TITLE).first()
    if story is None:
        story = scenes.scene_create(
            campaign=campaign,
            master=master,
            title=STORY_TITLE,
            summary=STORY_SUMMARY,
            readers=Scene.Readers.PUBLIC,
            participants=participants,
            open_to_new_characters=True,
        )
    elif not story.open_to_new_characters:
        Scene.objects.filter(pk=story.pk).update(open_to_new_characters=True)
    return story


def _story_door_posts(story: Scene, *, master: Any, ana: Any, lucia: Character) -> None:
    """The shutter: the master's narration, Lucía's action roll to force it (the rulebook's
    door, R3) and the master's event roll for a zombie inside (26 %, R2).

    Idempotent through the posts' keys ``demo-escena-01`` to ``-03``: a second load rolls nothing.
    """
    _post(
        story,
        master,
        "demo-escena-01",
        voice="narrator",
        body=(
            "El viento arrastra bolsas de plástico entre los surtidores. La **persiana** de la "
            "tienda está bajada y, detrás del mostrador, algo ha volcado los expositores.\n\n"
            "> Ni luz ni ruido. Sólo el zumbido de una nevera que aún tiene corriente."
        ),
    )
    _post(
        story,
        ana,
        "demo-escena-02",
        voice="character",
        character=lucia,
        body="Lucía mete la palanca bajo la persiana y tira con todo el cuerpo.",
        roll=services.RollSpec(
            kind="action",
            character=lucia,
            trait="fuerza",
            threshold=30,  # the rulebook's door: 30 %, one success is enough (R3)
            reason="Forzar la persiana",
        ),
    )
    _post(
        story,
        master,
        "demo-escena-03",
        voice="narrator",
        body=(
            "A la primera o a la tercera, la persiana acaba cediendo con un chirrido que se oye "
            "en medio valle. ¿Hay alguien dentro?"
        ),
        roll=services.RollSpec(
            kind="event", probability=26, reason="¿Algún zombi en la tienda? (26 %)"
        ),
    )


def _story_store_posts(
    story: Scene, *, ana: Any, bruno: Any, lucia: Character, tomas: Character
) -> None:
    """Inside the shop: Tomás's free dice roll with a note to the master (R4), his whisper to
    ana, Lucía's action roll that waits for the master's threshold (R3), and Tomás's reply
    quoting her post and mentioning her (issue 15, writing).

    Idempotent through the posts' keys ``demo-escena-04`` to ``-07``: a second load rolls nothing.
    """
    _post(
        story,
        bruno,
        "demo-escena-04",
        voice="character",
        character=tomas,
        body="Tomás cubre la puerta con la escopeta y cuenta los cartuchos que le quedan.",
        roll=services.RollSpec(kind="expression", expression="1d6+2 cartuchos en la caja"),
        note_to_master="Si encuentro munición, me guardo dos cartuchos sin decírselo a Lucía.",
    )
    _post(
        story,
        bruno,
        "demo-escena-05",
        voice="character",
        character=tomas,
        body="(en voz baja) He oído algo en el almacén. No entres sola.",
        whisper=True,
        whisper_to=[ana],
    )
    lookout = _post(
        story,
        ana,
        "demo-escena-06",
        voice="character",
        character=lucia,
        body="Lucía se asoma a la ventanilla del almacén antes de abrir la puerta.",
        roll=services.RollSpec(
            kind="action", character=lucia, trait="percepcion", reason="Mirar dentro"
        ),  # no threshold: the master sets it later; the dice are already rolled
    )
    # A reply that quotes Lucía's post and mentions her (her player, ana, is told).
    _post(
        story,
        bruno,
        "demo-escena-09",  # 07 and 08 are the NPC's (partida.demo_npcs)
        voice="character",
        character=tomas,
        body=quote_markdown(lookout)
        + f"@{lucia.name}, espera: déjame ir delante con la escopeta. Tú abre cuando te diga.",
        reply_to=lookout.pk,
    )


def _story_roll_request(campaign: Campaign, story: Scene, *, master: Any, tomas: Character) -> None:
    """The master asks Tomás, in ``story`` of ``campaign``, for a stealth roll (sigilo, 40 %)
    that he has not answered yet.

    Made once: skipped when the request, found by (scene, character, reason), exists, or when
    the campaign has no ``sigilo`` trait."""
    sigilo = Trait.objects.filter(campaign=campaign, slug="sigilo").first()
    reason = "Acercarte al almacén sin hacer ruido"
    if (
        sigilo is not None
        and not RollRequest.objects.filter(scene=story, character=tomas, reason=reason).exists()
    ):
        services.roll_request_create(
            access=access_scene(master, story.pk, campaign=campaign),
            master=master,
            character=tomas,
            trait=sigilo,
            threshold=40,
            reason=reason,
        )


def _mark_notified(campaign: Campaign) -> None:
    """Record every post of the demo as already e-mailed to whoever would be told about it, and
    withdraw the sheet notices its history queued: the demo's past is not e-mailed."""
    notifications.notifications_mark_sent(post_ids=campaign.posts.values_list("pk", flat=True))
    ids = campaign.characters.values_list("pk", flat=True)
    outbox_withdraw([sheet_topic(pk) for pk in ids])

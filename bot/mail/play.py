"""Commands for everyone, players and observers: help, list, create, join, observe, status,
map, log, legal, standing, decide, undo, resign — and order lines in the game's notation.
"""

from __future__ import annotations

import contextlib
import hashlib

from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.events import GM, PUBLIC
from bot import commands as catalogue
from bot import listing, seat_secrets
from bot.deadlines import duration
from bot.mail.commands import Line
from bot.mail.session import LIST_LIMIT, Refusal, Session, number
from bot.service import ServiceError
from bot.web.settings import link_url

HELP_HEAD = """\
Write one command per line in the body of a mail to Umpire; quoted text and your
signature are ignored. Say which game with [umpire GAMEID] in the subject (replies keep
it) or a line 'game GAMEID'. A seat acts only with its secret: add a line
'password YOUR-SECRET' to every mail for that game.
"""
#: The lines of a mail that are orders, whatever the game (read by the service).
HELP_ORDERS = """\
  ORDER                      an order in the game's notation, e.g. 'move 24pz to 56';
                             several lines are applied in turn
  decide N | decide ...      answer the decision you owe (option N of the list)
  standing [KIND POLICY]     standing orders that answer decisions at once (private)
  resign                     give the game up
"""
HELP_TAIL = """\
Secret orders (hidden units, mines, bids) are taken only from a mail addressed to
Umpire alone: never copy your opponent.
"""


def help_text(games: str) -> str:
    """The mail's ``help``: the catalogue's email commands (:mod:`bot.commands`), by who
    may use them, and the lines that are orders."""
    return "\n".join([
        HELP_HEAD.rstrip("\n"), "", "Anyone:", *catalogue.help_lines("email", ("anyone",)),
        "Players:", HELP_ORDERS.rstrip("\n"), *catalogue.help_lines("email", ("player",)),
        "The GM (with the GM's password):", *catalogue.help_lines("email", ("gm",)),
        f"Games you may create: {games}.", HELP_TAIL.rstrip("\n")])


def cmd_help(s: Session, line: Line) -> None:
    """``help``; ``help GAME`` (its orders); ``help [GAME] VERB`` (one order in full)."""
    words = [w.lower() for w in line.words[1:]]
    games = s.desk.games
    rules = None
    if words and words[0] in games:
        rules = s.service.game_rules(games[words.pop(0)])
    elif s.game_id:
        with contextlib.suppress(Refusal, ServiceError):
            rules = s.rules(s.info(s.game_id))
    named = catalogue.command(words[0]) if len(words) == 1 else None
    if named is not None and words[0] in catalogue.names("email", aliases=True):
        s.say("  " + named.help())  # help map: the command, as every frontend says it
        return
    if rules is None and words:
        raise Refusal(f"no help on {' '.join(words)!r}: 'help' lists the commands, "
                      f"'help GAME' a game's orders ({', '.join(games)})")
    if not words and not line.words[1:]:
        s.say(*help_text(", ".join(games)).splitlines())
    if rules is not None:
        try:
            text = rules.help(words[0] if words else None)
        except RuleError as error:
            raise Refusal(str(error)) from error
        s.say("", f"{rules.title} — orders:" if not words else f"{rules.title}:",
              *("  " + part for part in text.splitlines()))
        if not words:
            s.say(f"  {'resign':<44} give the game up")


def cmd_list(s: Session, line: Line) -> None:
    games = s.service.games_for(s.actor)
    if not games:
        s.say("  you hold no seat in any game ('create GAME' or 'join GAMEID SIDE')")
    for info in games:
        mine = ", ".join(seat.side or "GM" for seat in s.claimed(info))
        turn = f", to act: {info.to_act}" if info.to_act and info.status == "active" else ""
        s.say(f"  {info.id}: {info.game} {info.scenario_name} — {info.status}{turn} — "
              f"you: {mine}".replace("  —", " —"))


def cmd_create(s: Session, line: Line) -> None:
    words = line.words[1:]
    games = s.desk.games
    if not words:
        raise Refusal(f"create which game? {', '.join(games)}")
    name = words[0].lower()
    if name not in games:
        raise Refusal(f"unknown game {words[0]!r}; choose from {', '.join(games)}")
    scenario = words[1] if len(words) > 1 else None
    # The same mail read twice creates the same game once.
    game_id = hashlib.sha256(f"{s.inbound.key}:{line.number}".encode()).hexdigest()[:10]
    secret = seat_secrets.new_secret()
    try:
        info = s.service.info(game_id, contacts=True)
    except ServiceError:
        info = s.call(s.service.create_game, s.actor, games[name], scenario, game_id=game_id,
                      bindings={"email": True}, creator_secret=secret)
    else:  # created by this mail before: a fresh secret, since the first may be lost
        s.call(s.service.set_seat_secret, game_id, s.actor, secret, holder=s.actor)
    s.game_id = info.id
    s.touch(info)
    s.hands_secret = True
    s.desk.ledger.set_cursor(info.id, s.sender, info.head_seq)
    rules = s.rules(info)
    s.say(f"  game {info.id} created: {rules.title}, scenario "
          f"{info.scenario_name}; you are its GM.",
          f"  Your GM secret: {secret}",
          "  Keep it to yourself; put 'password " + secret + "' in every mail for this game.",
          f"  Players join with 'join {info.id} SIDE' (sides: {', '.join(rules.sides)}); "
          "you seat them yourself with 'seat SIDE ADDRESS'. Then 'start'.",
          f"  Dice commitment: {info.commitment}")


def cmd_join(s: Session, line: Line) -> None:
    words = line.words[1:]
    if len(words) == 2:
        info, side = s.game(words[0]), words[1].lower()
    elif len(words) == 1:
        info, side = s.game(), words[0].lower()
    else:
        raise Refusal("join SIDE (in a game's mail) or join GAMEID SIDE")
    s.game_id = info.id
    secret = seat_secrets.new_secret()
    info = s.call(s.service.seat, info.id, s.actor, side, s.actor, secret=secret)
    s.hands_secret = True
    s.desk.ledger.set_cursor(info.id, s.sender, info.head_seq)
    s.say(f"  you play {side} in game {info.id}.",
          f"  Your seat secret: {secret}",
          f"  Keep it to yourself; put 'password {secret}' in every mail for this game. "
          "A mail without it cannot act for your seat.")
    web = s.desk.config.web_url
    if web:
        link = s.call(s.service.issue_link, info.id, s.actor, side=side)
        s.say(f"  Your web page for this game (secret too: whoever has it plays {side}): "
              f"{link_url(web, link.path)}")


def cmd_link(s: Session, line: Line) -> None:
    """``link [new | observers]``: a new secret link to the mail's seat's web page (docs/
    web.md); ``new`` ends every older link of the seat. A seat's link is its secret: given
    only with the seat's password, in a mail to Umpire alone."""
    info = s.game()
    web = s.desk.config.web_url
    if not web:
        raise Refusal("this Umpire serves no web pages (its operator set no web_url)")
    words = [w.lower() for w in line.words[1:]]
    if any(w not in ("new", "observers") for w in words):
        raise Refusal("link, link new or link observers")
    if s.others:
        raise Refusal("a link is a seat's secret, and this mail was also sent to "
                      f"{', '.join(s.others)}: send it to Umpire alone")
    new = "new" in words
    if "observers" in words:
        if not s.seats(info):
            raise Refusal(s._no_seat(info, "a seat"))
        link = s.call(s.service.observer_link, info.id, s.actor, new=new)
    else:
        sides = s.sides(info)
        if not sides and not s.is_gm(info):
            raise Refusal(s._no_seat(info, "a seat"))
        side = s.require_side(info) if sides else None
        link = s.call(s.service.issue_link, info.id, s.actor, side=side, new=new)
    s.hands_secret = True
    who = link.side or ("the GM" if link.role == "gm" else "observers")
    s.say(f"  Web page of game {info.id} ({who}): {link_url(web, link.path)}",
          "  Keep it secret: whoever has it " + ("watches the public view." if
                                                 link.role == "observer" else "acts as you.")
          + (f" Your {link.revoked} older link(s) no longer work." if link.revoked else ""))


def cmd_observe(s: Session, line: Line) -> None:
    info = s.game(line.words[1] if len(line.words) > 1 else None)
    s.game_id = info.id
    on = line.name == "observe"
    changed = s.desk.ledger.observe(info.id, s.sender, on)
    if on:
        s.desk.ledger.set_cursor(info.id, s.sender, info.head_seq)
        s.touch(info, map_viewer=PUBLIC)
    s.say(f"  you {'now observe' if on else 'no longer observe'} game {info.id}"
          + ("" if changed else " (already so)"))


def cmd_status(s: Session, line: Line) -> None:
    info = s.game(line.words[1] if len(line.words) > 1 else None)
    rules = s.rules(info)
    gm = s.is_gm(info)
    s.say(f"  game {info.id}: {rules.title}, scenario {info.scenario_name} — "
          f"{info.status}" + (f" ({info.result})" if info.result else ""))
    for seat in info.seats:
        where = ("by mail" + (f" ({seat.email})" if gm else "") if seat.email
                 else "on Discord" if seat.discord_id else "")
        s.say(f"  {seat.side or 'GM'}: {where}")
    if info.status == "active" and info.to_act:
        s.say(f"  to act: {info.to_act}" + deadline_text(info.deadline_at, s.desk.clock()))
    s.say(f"  actions so far: {info.head_seq}; dice commitment {info.commitment}")


def deadline_text(deadline_at: float | None, now: float) -> str:
    if deadline_at is None:
        return ""
    return f" — deadline in {duration(deadline_at - now)}"


def cmd_brief(s: Session, line: Line) -> None:
    """``brief [GAMEID]``: the scenario's briefing (public: sides, length, victory, special
    rules), as Discord's and the console's ``brief`` show it (issue 23)."""
    info = s.game(line.words[1] if len(line.words) > 1 else None)
    briefing = s.call(s.service.briefing, info.id, s.actor)
    s.say(*("  " + text for text in briefing.text().splitlines()))


def cmd_placed(s: Session, line: Line) -> None:
    """``placed``: the seat's own secret set-up so far, and what is left (the service's
    set-up guide). Its side's secret: answered only to its player, in a mail to Umpire
    alone (25.7)."""
    info = s.game()
    if s.others:
        raise Refusal("'placed' lists your side's secret set-up, and this mail was also "
                      f"sent to {', '.join(s.others)}: send it to Umpire alone")
    side = s.require_side(info)
    guide = s.call(s.service.setup_guide, info.id, s.actor)
    if guide is None:
        raise Refusal(f"{side} is not entering a secret set-up now: nothing to list")
    s.say(f"  {side} has set up ({len(guide.placed)}):",
          *(f"    {text}" for text in guide.placed or ["nothing yet"]))
    if guide.left:
        s.say("  left to place: " + "; ".join(guide.left))


def cmd_map(s: Session, line: Line) -> None:
    info = s.game()
    wanted = line.words[1].lower() if len(line.words) > 1 else s.audience(info)
    allowed = {PUBLIC, s.audience(info), *s.sides(info)}
    if s.is_gm(info):
        allowed |= {GM, *s.rules(info).sides}
    if wanted not in allowed:
        raise Refusal(f"you may not see the {wanted} view; yours: {', '.join(sorted(allowed))}")
    s.touch(info, map_viewer=wanted)
    view = s.call(s.service.view, info.id, s.actor, wanted)
    s.say(*("  " + text for text in s.rules(info).board_text(view).splitlines()))
    s.say(f"  (the {wanted} map is attached)")


def cmd_log(s: Session, line: Line) -> None:
    info = s.game()
    count = number(line.words[1], "log N (the last N actions)") if len(line.words) > 1 else 10
    entries = s.call(s.service.log, info.id, s.actor, min(count, 200),
                     audience=s.audience(info))
    if not entries:
        s.say("  no actions yet")
    for entry in entries:
        s.say("  " + entry.summary())


def cmd_legal(s: Session, line: Line) -> None:
    """The side's legal orders, read and filtered as at the console (:mod:`bot.listing`:
    the complete listing, a family of orders on one line; verbs, units, places)."""
    info = s.game()
    side = s.require_side(info)
    words = line.words[1:]
    everything = any(w.lower() == "all" for w in words)  # as at the console: every line
    words = [w for w in words if w.lower() != "all"]
    found = s.call(s.service.legal_entries, info.id, s.actor, side)
    wanted = s.call(s.service.legal_filter, info.id, s.actor, side, words)
    page = listing.listing(found, wanted, side, len(found), brief=not everything)
    if not found:
        s.say(f"  {side} has no order to give now" + (f" (to act: {info.to_act})"
                                                         if info.to_act else ""))
    elif not page.lines:
        s.say(f"  none of {side}'s {len(found)} legal orders matches: {wanted.describe()}")
    else:
        s.say(f"  {side} may give: {page.title}")
        lines, left = page.page(LIST_LIMIT)
        for text in lines:
            s.say("  " + text)
        if left:
            s.say(f"  (+{left} more lines: narrow it with 'legal UNIT | PLACE | VERB')")


def cmd_policies(s: Session, line: Line) -> None:
    info = s.game()
    side = s.require_side(info)
    view = s.call(s.service.view, info.id, s.actor, side)
    for policy in s.rules(info).standing_policies():
        mark = " (yours now)" if view.standing.get(policy.kind) == policy.policy else ""
        s.say(f"  standing {policy.kind} {policy.policy}{mark}: {policy.description}")


def decision_order(s: Session, line: Line) -> str:
    """``decide N`` as the text of option N of the decision the mail's side owes."""
    words = line.words
    if len(words) != 2 or not words[1][:1].isdigit():
        return line.text  # an option's text (``decide lose``), read by the game
    chosen = number(words[1], "decide N (N: the number of an option)")
    info = s.game()
    side = s.require_side(info)
    view = s.call(s.service.view, info.id, s.actor, side)
    pending = view.pending
    if pending is None or pending.side != side or not pending.options:
        raise Refusal(f"{side} owes no decision now")
    if not 1 <= chosen <= len(pending.options):
        raise Refusal(f"choose an option between 1 and {len(pending.options)}")
    return str(pending.options[chosen - 1].order)


def cmd_undo(s: Session, line: Line) -> None:
    info = s.game()
    s.require_side(info)
    result = s.service.undo(info.id, s.actor)
    s.result(result, [line])

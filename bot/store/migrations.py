"""One schema history for both backends: migration N is the same change on SQLite and on
PostgreSQL (``schema_migrations`` records the versions applied on either).

SQLite's half of each step is a function (through sqlite-utils), PostgreSQL's is SQL; a
:class:`Migration` holds both, and may hold a data step that rewrites rows in Python, the
same code on both backends (portable SQL through a :class:`~bot.store.base.Tx`). Types
map one to one: TEXT → text, INTEGER → bigint, REAL → double precision, BLOB → bytea; an
``INTEGER PRIMARY KEY`` → an identity column; JSON stays text (written and read by the
same code). PostgreSQL's ``games`` has an identity column ``rowid`` standing for SQLite's
implicit one (the order games were created in). Triggers refuse what SQLite's triggers
refuse, and ``TRUNCATE``, which SQLite does not have. A test compares the two schemas
after every migration.

Never edit a shipped migration: append one, with both halves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.store.base import ACTION_KINDS, KINDS_V1, Refused, Tx
from bot.store.codec import compacted

if TYPE_CHECKING:
    from sqlite_utils import Database


# ---- SQLite ---------------------------------------------------------------------------

def _sqlite_1(db: Database) -> None:
    db.table("games").create(
        {
            "id": str, "game": str, "scenario": str, "options": str,
            "pack_path": str, "pack_hash": str, "status": str, "created": float,
            "created_by": str, "bindings": str, "dice_id": str, "server_seed": bytes,
            "commitment": str, "seed_revealed": int, "branch": int, "head_seq": int,
            "next_roll": int, "forced_dice": str, "state_hash": str, "to_act": str,
            "result": str, "deadline_seconds": float, "reminder_fractions": str,
            "deadline_side": str, "deadline_start": float, "deadline_at": float,
            "reminders_sent": str,
        },
        pk="id",
        not_null=["game", "status", "created", "dice_id", "commitment", "branch",
                  "head_seq", "next_roll", "options", "bindings", "forced_dice"],
        defaults={"options": "{}", "bindings": "{}", "forced_dice": "[]", "branch": 0,
                  "head_seq": 0, "next_roll": 0, "seed_revealed": 0,
                  "reminder_fractions": "[]", "reminders_sent": "[]"},
    )
    db.table("seats").create(
        {"id": int, "game_id": str, "side": str, "role": str, "discord_id": str,
         "email": str, "password_hash": str, "created": float},
        pk="id", not_null=["game_id", "role", "created"],
        foreign_keys=[("game_id", "games", "id")],
    )
    db.table("entropy").create(
        {"id": int, "game_id": str, "actor": str, "text": str, "created": float},
        pk="id", not_null=["game_id", "actor", "text", "created"],
        foreign_keys=[("game_id", "games", "id")],
    )
    db.table("actions").create(
        {"game_id": str, "seq": int, "branch": int, "actor": str, "side": str, "kind": str,
         "text": str, "order_json": str, "payload": str, "rolls": str, "events": str,
         "applied": str, "next_roll": int, "state_hash": str, "created": float,
         "reverted_by": int},
        pk=("game_id", "seq"),
        not_null=["branch", "actor", "kind", "rolls", "events", "applied", "next_roll",
                  "state_hash", "created"],
        foreign_keys=[("game_id", "games", "id")],
    )
    db.table("snapshots").create(
        {"game_id": str, "seq": int, "state": bytes, "state_hash": str, "created": float},
        pk=("game_id", "seq"), not_null=["state", "state_hash", "created"],
        foreign_keys=[("game_id", "games", "id")],
    )
    db.table("idempotency").create(
        {"game_id": str, "key": str, "actor": str, "result": str, "created": float},
        pk=("game_id", "key"), not_null=["actor", "result", "created"],
        foreign_keys=[("game_id", "games", "id")],
    )
    db.table("meta").create({"key": str, "value": str}, pk="key")
    db.table("seats").create_index(["game_id"])
    db.table("seats").create_index(["discord_id"])
    db.table("seats").create_index(["email"])
    db.executescript(
        f"""
        CREATE TRIGGER actions_kind_check BEFORE INSERT ON actions
        WHEN NEW.kind NOT IN ({", ".join(repr(k) for k in KINDS_V1)})
        BEGIN SELECT RAISE(ABORT, 'unknown action kind'); END;
        CREATE TRIGGER actions_no_delete BEFORE DELETE ON actions
        BEGIN SELECT RAISE(ABORT, 'the action log is append-only'); END;
        CREATE TRIGGER actions_only_revert BEFORE UPDATE ON actions
        WHEN OLD.reverted_by IS NOT NULL OR NEW.reverted_by IS NULL
          OR NEW.game_id IS NOT OLD.game_id OR NEW.seq IS NOT OLD.seq
          OR NEW.branch IS NOT OLD.branch OR NEW.actor IS NOT OLD.actor
          OR NEW.side IS NOT OLD.side OR NEW.kind IS NOT OLD.kind
          OR NEW.text IS NOT OLD.text OR NEW.order_json IS NOT OLD.order_json
          OR NEW.payload IS NOT OLD.payload OR NEW.rolls IS NOT OLD.rolls
          OR NEW.events IS NOT OLD.events OR NEW.applied IS NOT OLD.applied
          OR NEW.next_roll IS NOT OLD.next_roll OR NEW.state_hash IS NOT OLD.state_hash
          OR NEW.created IS NOT OLD.created
        BEGIN SELECT RAISE(ABORT, 'actions are append-only: only reverted_by may be set'); END;
        CREATE TRIGGER seats_role_check BEFORE INSERT ON seats
        WHEN NEW.role NOT IN ('player', 'gm')
        BEGIN SELECT RAISE(ABORT, 'a seat role is player or gm'); END;
        """
    )


def _sqlite_2(db: Database) -> None:
    """Pause/resume and seat history.

    * two more action kinds, ``pause`` and ``resume`` (a GM stops and restarts the clock;
      they change no game state and replay as no-ops);
    * ``games.paused_at``, ``paused_by``, ``pause_reason`` while a game is paused;
    * ``seats.removed``, ``removed_by``, ``removed_reason``: a replaced player's seat is
      closed, never deleted, so the record keeps who played which side when.
    """
    db.execute("DROP TRIGGER actions_kind_check")
    db.execute(
        f"""
        CREATE TRIGGER actions_kind_check BEFORE INSERT ON actions
        WHEN NEW.kind NOT IN ({", ".join(repr(k) for k in ACTION_KINDS)})
        BEGIN SELECT RAISE(ABORT, 'unknown action kind'); END;
        """
    )
    games = db.table("games")
    games.add_column("paused_at", float)
    games.add_column("paused_by", str)
    games.add_column("pause_reason", str)
    seats = db.table("seats")
    seats.add_column("removed", float)
    seats.add_column("removed_by", str)
    seats.add_column("removed_reason", str)
    db.executescript(
        """
        CREATE TRIGGER seats_no_delete BEFORE DELETE ON seats
        BEGIN SELECT RAISE(ABORT, 'seats are closed, never deleted'); END;
        """
    )


def _sqlite_3(db: Database) -> None:
    """The email gateway's bookkeeping (seat secrets live in ``seats.password_hash``).

    * ``mail_inbox``: every mail handled, by Message-ID (a mail delivered twice is
      answered once; a crash before the mail is marked handled re-reads it harmlessly);
    * ``mail_cursors``: per game and address, the last action that address was told of;
    * ``mail_observers``: addresses that follow a game's public mail;
    * ``mail_rate``: mails per address in the current window (flood limit);
    * ``mail_rollbacks``: a GM's previewed rollback waiting for its confirmation code
      (moved into ``held_rollbacks`` by schema 8);
    * ``mail_reminders``: deadline reminders already mailed.
    """
    db.table("mail_inbox").create(
        {"message_key": str, "sender": str, "game_id": str, "received": float,
         "outcome": str}, pk="message_key", not_null=["received", "outcome"])
    db.table("mail_cursors").create({"game_id": str, "address": str, "seq": int},
                                    pk=("game_id", "address"), not_null=["seq"])
    db.table("mail_observers").create({"game_id": str, "address": str, "since": float},
                                      pk=("game_id", "address"), not_null=["since"])
    db.table("mail_rate").create({"address": str, "window_start": float, "count": int,
                                  "warned": int}, pk="address",
                                 not_null=["window_start", "count", "warned"])
    db.table("mail_rollbacks").create(
        {"code": str, "game_id": str, "gm": str, "to_seq": int, "reason": str,
         "head_seq": int, "created": float}, pk="code",
        not_null=["game_id", "gm", "to_seq", "reason", "head_seq", "created"])
    db.table("mail_reminders").create(
        {"game_id": str, "deadline_start": float, "fraction": float},
        pk=("game_id", "deadline_start", "fraction"))


def _sqlite_4(db: Database) -> None:
    """Dice epochs, the audit trail, idempotency keys scoped per actor.

    * ``games.seed_from_branch``: the first dice branch of the game's current server seed.
      A game reopened after its end (its seed revealed) goes on with a new committed seed;
      ``dice_seeds`` keeps every earlier (revealed) seed, its commitment and branch.
    * ``audit``: who read a secret of the game and when (every dice seed read);
      append-only.
    * ``idempotency``: keys are stored scoped to their actor (``ACTOR NUL KEY``), with a
      fingerprint of the request they were first used for (``request``).
    """
    db.table("games").add_column("seed_from_branch", int, not_null_default=0)
    db.table("dice_seeds").create(
        {"game_id": str, "from_branch": int, "seed": bytes, "commitment": str,
         "created": float},
        pk=("game_id", "from_branch"), not_null=["seed", "commitment", "created"],
        foreign_keys=[("game_id", "games", "id")])
    db.table("audit").create(
        {"id": int, "game_id": str, "actor": str, "kind": str, "detail": str,
         "created": float},
        pk="id", not_null=["game_id", "actor", "kind", "created"],
        foreign_keys=[("game_id", "games", "id")])
    db.table("audit").create_index(["game_id"])
    db.executescript(
        """
        CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
        BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END;
        CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
        BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END;
        CREATE TRIGGER dice_seeds_no_delete BEFORE DELETE ON dice_seeds
        BEGIN SELECT RAISE(ABORT, 'dice seeds are kept'); END;
        """
    )
    db.table("idempotency").add_column("request", str)
    db.execute("UPDATE idempotency SET key = actor || char(0) || key")


def _sqlite_5(db: Database) -> None:
    """Leases and held rollbacks; idempotency keys as ``LEN:ACTOR:KEY``.

    * ``leases``: a named job (ticking deadlines, following a mailbox) and the process
      holding it until ``expires`` (by the database's clock);
    * ``held_rollbacks``: a GM's previewed rollback waiting for confirmation, readable by
      every process (a button pressed on one bot process, confirmed on another);
    * ``idempotency.key``: ``ACTOR NUL KEY`` becomes ``LEN:ACTOR:KEY`` (PostgreSQL's text
      holds no NUL character; both backends store the same).
    """
    db.table("leases").create({"name": str, "holder": str, "expires": float}, pk="name",
                              not_null=["holder", "expires"])
    db.table("held_rollbacks").create(
        {"token": str, "game_id": str, "gm": str, "to_seq": int, "reason": str,
         "head_seq": int, "expires": float}, pk="token",
        not_null=["game_id", "gm", "to_seq", "reason", "head_seq", "expires"])
    # (SQLite's text functions stop at a NUL character: the keys are rewritten here)
    for game_id, key, actor in db.execute("SELECT game_id, key, actor FROM idempotency"
                                          ).fetchall():
        if key.startswith(actor + "\x00"):
            db.execute("UPDATE idempotency SET key = ? WHERE game_id = ? AND key = ?",
                       [f"{len(actor)}:{actor}:{key[len(actor) + 1:]}", game_id, key])


def _sqlite_6(db: Database) -> None:
    """No change of schema (see :func:`_compact_idempotency`, run on both backends)."""


def _sqlite_7(db: Database) -> None:
    """An index of the active actions: the action log keeps every reverted action, so a
    long game's log is mostly reverted rows after many rollbacks; marking the actions a
    rollback reverts, reading the last active actions and the newest snapshot at an active
    action then read only active rows, whatever the log's length."""
    db.execute("CREATE INDEX actions_active ON actions (game_id, seq) "
               "WHERE reverted_by IS NULL")


#: How long the email gateway held a previewed rollback when schema 8 was written (its
#: ``mail_rollbacks`` kept the time held, ``held_rollbacks`` keeps the time it expires).
MAIL_ROLLBACK_TTL_8 = 24 * 3600.0

#: Schema 8 on both backends but for the conflict clause (SQLite's ``OR IGNORE``).
_MOVE_MAIL_ROLLBACKS = (
    "INSERT {ignore}INTO held_rollbacks (token, game_id, gm, to_seq, reason, head_seq, expires) "
    "SELECT 'mail:' || lower(code), game_id, gm, to_seq, reason, head_seq, created + {ttl} "
    "FROM mail_rollbacks{on_conflict};\n"
    "DROP TABLE mail_rollbacks;"
)


def _sqlite_8(db: Database) -> None:
    """One table of rollbacks held for their GM's confirmation: the email gateway's
    ``mail_rollbacks`` (a code mailed to the GM) move into ``held_rollbacks`` (a Discord
    button's token), ``mail:CODE`` as the token (a Discord token holds no colon, so
    neither frontend can take the other's), the time held plus the gateway's day as the
    time it expires."""
    for statement in _MOVE_MAIL_ROLLBACKS.format(ignore="OR IGNORE ", ttl=MAIL_ROLLBACK_TTL_8,
                                                 on_conflict="").split(";\n"):
        db.execute(statement.rstrip(";"))


def _sqlite_9(db: Database) -> None:
    """The web page's secret links (``web_links``): one row per link, keyed by the hash of
    its token (the token itself is never stored); ``kind`` ``seat`` (a player's or a GM's
    seat, ``seat_id``) or ``observer`` (the game's public link); ``revoked`` once it stops
    working (a re-issue or a GM's revocation)."""
    db.table("web_links").create(
        {"token_hash": str, "game_id": str, "kind": str, "seat_id": int, "created": float,
         "created_by": str, "revoked": float, "revoked_by": str},
        pk="token_hash", not_null=["game_id", "kind", "created", "created_by"],
        foreign_keys=[("game_id", "games", "id")])
    db.table("web_links").create_index(["game_id"])


def _sqlite_10(db: Database) -> None:
    """No change on SQLite: its append checks the sequence and the idempotency key with
    statements of its own in one file lock (PostgreSQL's half, :data:`PG_10`, is a function
    that checks both on the server)."""


# ---- both backends --------------------------------------------------------------------

def _compact_idempotency(tx: Tx) -> None:
    """Schema 6: compact idempotency results. A row keeps the result's outcome and sequence
    numbers (``bot.store.codec.compact_result``), no longer every audience's messages; what
    was applied and told is read back from those actions. Rows that do not parse are left
    as they are (they read back as before). Snapshots written from now on are compressed;
    older ones stay readable as they are (``bot.store.codec.unpack_state``)."""
    for row in tx.query("SELECT game_id, key, result FROM idempotency"):
        try:
            result = compacted(str(row["result"]))
            if result != row["result"]:
                tx.execute("UPDATE idempotency SET result = ? WHERE game_id = ? AND key = ?",
                           [result, row["game_id"], row["key"]])
        except (ValueError, TypeError, AttributeError, Refused):
            continue


# ---- PostgreSQL -----------------------------------------------------------------------



def _kinds(kinds: tuple[str, ...]) -> str:
    return ", ".join(f"'{k}'" for k in kinds)


def _refuse(table: str, name: str, message: str, event: str = "DELETE") -> str:
    """A trigger refusing ``event`` on ``table`` (and TRUNCATE, for DELETE)."""
    sql = (f"CREATE TRIGGER {name} BEFORE {event} ON {table} FOR EACH ROW "
           f"EXECUTE FUNCTION umpire_refuse('{message}');\n")
    if event == "DELETE":
        sql += (f"CREATE TRIGGER {name}_truncate BEFORE TRUNCATE ON {table} "
                f"FOR EACH STATEMENT EXECUTE FUNCTION umpire_refuse('{message}');\n")
    return sql


PG_1 = f"""
CREATE FUNCTION umpire_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION '%', TG_ARGV[0] USING ERRCODE = 'integrity_constraint_violation'; END
$$;
CREATE TABLE games (
    id text PRIMARY KEY, game text NOT NULL, scenario text,
    options text NOT NULL DEFAULT '{{}}', pack_path text, pack_hash text,
    status text NOT NULL, created double precision NOT NULL, created_by text,
    bindings text NOT NULL DEFAULT '{{}}', dice_id text NOT NULL, server_seed bytea,
    commitment text NOT NULL, seed_revealed bigint DEFAULT 0,
    branch bigint NOT NULL DEFAULT 0, head_seq bigint NOT NULL DEFAULT 0,
    next_roll bigint NOT NULL DEFAULT 0, forced_dice text NOT NULL DEFAULT '[]',
    state_hash text, to_act text, result text, deadline_seconds double precision,
    reminder_fractions text DEFAULT '[]', deadline_side text,
    deadline_start double precision, deadline_at double precision,
    reminders_sent text DEFAULT '[]',
    rowid bigint GENERATED BY DEFAULT AS IDENTITY UNIQUE
);
CREATE TABLE seats (
    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    game_id text NOT NULL REFERENCES games (id), side text, role text NOT NULL,
    discord_id text, email text, password_hash text, created double precision NOT NULL
);
CREATE TABLE entropy (
    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    game_id text NOT NULL REFERENCES games (id), actor text NOT NULL, text text NOT NULL,
    created double precision NOT NULL
);
CREATE TABLE actions (
    game_id text REFERENCES games (id), seq bigint, branch bigint NOT NULL,
    actor text NOT NULL, side text, kind text NOT NULL, text text, order_json text,
    payload text, rolls text NOT NULL, events text NOT NULL, applied text NOT NULL,
    next_roll bigint NOT NULL, state_hash text NOT NULL, created double precision NOT NULL,
    reverted_by bigint,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE snapshots (
    game_id text REFERENCES games (id), seq bigint, state bytea NOT NULL,
    state_hash text NOT NULL, created double precision NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE idempotency (
    game_id text REFERENCES games (id), key text, actor text NOT NULL, result text NOT NULL,
    created double precision NOT NULL,
    PRIMARY KEY (game_id, key)
);
CREATE TABLE meta (key text PRIMARY KEY, value text);
CREATE INDEX idx_seats_game_id ON seats (game_id);
CREATE INDEX idx_seats_discord_id ON seats (discord_id);
CREATE INDEX idx_seats_email ON seats (email);

CREATE FUNCTION umpire_action_kind() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT NEW.kind = ANY (TG_ARGV) THEN
        RAISE EXCEPTION 'unknown action kind' USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER actions_kind_check BEFORE INSERT ON actions FOR EACH ROW
    EXECUTE FUNCTION umpire_action_kind({_kinds(KINDS_V1)});
{_refuse("actions", "actions_no_delete", "the action log is append-only")}
CREATE FUNCTION umpire_only_revert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.reverted_by IS NOT NULL OR NEW.reverted_by IS NULL
       OR (to_jsonb(NEW) - 'reverted_by') <> (to_jsonb(OLD) - 'reverted_by') THEN
        RAISE EXCEPTION 'actions are append-only: only reverted_by may be set'
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER actions_only_revert BEFORE UPDATE ON actions FOR EACH ROW
    EXECUTE FUNCTION umpire_only_revert();
CREATE FUNCTION umpire_seat_role() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.role NOT IN ('player', 'gm') THEN
        RAISE EXCEPTION 'a seat role is player or gm'
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER seats_role_check BEFORE INSERT ON seats FOR EACH ROW
    EXECUTE FUNCTION umpire_seat_role();
"""

PG_2 = f"""
DROP TRIGGER actions_kind_check ON actions;
CREATE TRIGGER actions_kind_check BEFORE INSERT ON actions FOR EACH ROW
    EXECUTE FUNCTION umpire_action_kind({_kinds(ACTION_KINDS)});
ALTER TABLE games ADD COLUMN paused_at double precision, ADD COLUMN paused_by text,
    ADD COLUMN pause_reason text;
ALTER TABLE seats ADD COLUMN removed double precision, ADD COLUMN removed_by text,
    ADD COLUMN removed_reason text;
{_refuse("seats", "seats_no_delete", "seats are closed, never deleted")}
"""

PG_3 = """
CREATE TABLE mail_inbox (message_key text PRIMARY KEY, sender text, game_id text,
    received double precision NOT NULL, outcome text NOT NULL);
CREATE TABLE mail_cursors (game_id text, address text, seq bigint NOT NULL,
    PRIMARY KEY (game_id, address));
CREATE TABLE mail_observers (game_id text, address text, since double precision NOT NULL,
    PRIMARY KEY (game_id, address));
CREATE TABLE mail_rate (address text PRIMARY KEY, window_start double precision NOT NULL,
    count bigint NOT NULL, warned bigint NOT NULL);
CREATE TABLE mail_rollbacks (code text PRIMARY KEY, game_id text NOT NULL, gm text NOT NULL,
    to_seq bigint NOT NULL, reason text NOT NULL, head_seq bigint NOT NULL,
    created double precision NOT NULL);
CREATE TABLE mail_reminders (game_id text, deadline_start double precision,
    fraction double precision, PRIMARY KEY (game_id, deadline_start, fraction));
"""

PG_4 = f"""
ALTER TABLE games ADD COLUMN seed_from_branch bigint NOT NULL DEFAULT 0;
CREATE TABLE dice_seeds (
    game_id text REFERENCES games (id), from_branch bigint, seed bytea NOT NULL,
    commitment text NOT NULL, created double precision NOT NULL,
    PRIMARY KEY (game_id, from_branch)
);
CREATE TABLE audit (
    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    game_id text NOT NULL REFERENCES games (id), actor text NOT NULL, kind text NOT NULL,
    detail text, created double precision NOT NULL
);
CREATE INDEX idx_audit_game_id ON audit (game_id);
{_refuse("audit", "audit_no_delete", "the audit trail is append-only")}
{_refuse("audit", "audit_no_update", "the audit trail is append-only", "UPDATE")}
{_refuse("dice_seeds", "dice_seeds_no_delete", "dice seeds are kept")}
ALTER TABLE idempotency ADD COLUMN request text;
UPDATE idempotency SET key = length(actor) || ':' || actor || ':' || key;
"""

PG_5 = """
CREATE TABLE leases (name text PRIMARY KEY, holder text NOT NULL,
    expires double precision NOT NULL);
CREATE TABLE held_rollbacks (token text PRIMARY KEY, game_id text NOT NULL,
    gm text NOT NULL, to_seq bigint NOT NULL, reason text NOT NULL, head_seq bigint NOT NULL,
    expires double precision NOT NULL);
"""

#: Schema 6 changes rows only (:func:`_compact_idempotency`); this records the step.
PG_6 = "SELECT 6;"

PG_7 = "CREATE INDEX actions_active ON actions (game_id, seq) WHERE reverted_by IS NULL;"

PG_8 = _MOVE_MAIL_ROLLBACKS.format(ignore="", ttl=MAIL_ROLLBACK_TTL_8,
                                   on_conflict=" ON CONFLICT (token) DO NOTHING")


PG_9 = """
CREATE TABLE web_links (token_hash text PRIMARY KEY,
    game_id text NOT NULL REFERENCES games (id), kind text NOT NULL, seat_id bigint,
    created double precision NOT NULL, created_by text NOT NULL,
    revoked double precision, revoked_by text);
CREATE INDEX idx_web_links_game_id ON web_links (game_id);
"""

#: Schema 10 (PostgreSQL only; SQLite's half changes nothing): the append's claim on the
#: server. ``umpire_claim`` locks the game's row, aborts the transaction when its head is not
#: the sequence the writer planned from (SQLSTATE ``UM002``; ``UM001``: no such game) and
#: records the idempotency key, aborting when the key was used already (``UM003``, the
#: first result and request in the error's detail as a JSON array) — so an append is one
#: pipeline from BEGIN to COMMIT, whose later statements run only if the claim held.
PG_10 = """
CREATE FUNCTION umpire_claim(p_game text, p_expected bigint, p_key text, p_actor text,
                             p_result text, p_request text, p_created double precision)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    head bigint;
    first_result text;
    first_request text;
BEGIN
    SELECT head_seq INTO head FROM games WHERE id = p_game FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no game %', quote_literal(p_game) USING ERRCODE = 'UM001';
    END IF;
    IF head <> p_expected THEN
        RAISE EXCEPTION 'game % is at action %, not %', p_game, head, p_expected
            USING ERRCODE = 'UM002';
    END IF;
    IF p_key IS NOT NULL THEN
        INSERT INTO idempotency (game_id, key, actor, result, request, created)
            VALUES (p_game, p_key, p_actor, p_result, p_request, p_created)
            ON CONFLICT (game_id, key) DO NOTHING;
        IF NOT FOUND THEN
            SELECT result, request INTO first_result, first_request FROM idempotency
                WHERE game_id = p_game AND key = p_key AND actor = p_actor;
            RAISE EXCEPTION 'idempotency key already used' USING ERRCODE = 'UM003',
                DETAIL = json_build_array(first_result, first_request)::text;
        END IF;
    END IF;
END
$$;
"""


@dataclass(frozen=True)
class Migration:
    version: int
    summary: str
    sqlite: Callable[[Database], None]
    postgres: str
    #: rows rewritten after the schema step, the same code on both backends
    data: Callable[[Tx], None] | None = None


MIGRATIONS: list[Migration] = [
    Migration(1, "games, seats, entropy, the action log, snapshots, idempotency keys",
              _sqlite_1, PG_1),
    Migration(2, "pause and resume; seat history", _sqlite_2, PG_2),
    Migration(3, "the email gateway's bookkeeping", _sqlite_3, PG_3),
    Migration(4, "dice epochs, the audit trail, idempotency keys scoped per actor",
              _sqlite_4, PG_4),
    Migration(5, "leases (one process does a job), rollbacks held for confirmation; "
                 "idempotency keys scoped as LEN:ACTOR:KEY", _sqlite_5, PG_5),
    Migration(6, "compact idempotency results (outcome and sequence numbers)", _sqlite_6,
              PG_6, _compact_idempotency),
    Migration(7, "an index of the active actions", _sqlite_7, PG_7),
    Migration(8, "one table of rollbacks held for confirmation (mail's codes join "
                 "Discord's tokens)", _sqlite_8, PG_8),
    Migration(9, "the web page's secret links (only their tokens' hashes)", _sqlite_9, PG_9),
    Migration(10, "the append's sequence and idempotency checks on the server "
                  "(PostgreSQL)", _sqlite_10, PG_10),
]

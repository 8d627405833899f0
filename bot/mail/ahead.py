"""The seat secrets of a batch of mail, checked ahead in worker threads.

A seat's secret is checked with scrypt, slow by design (``bot.seat_secrets``: tens of
milliseconds, once per seat and process, then remembered). In a burst every mail is the
first from its seat: the gateway would hash one secret after another, each mail's reply
waiting for all the hashes before it. While the gateway answers the batch's mails in turn,
:class:`SecretsAhead` hashes the secrets of the mails behind in worker threads (scrypt runs
without Python's lock: on another core), so a mail's check is usually done when its turn
comes. Nothing is decided here: the desk checks each mail as before and finds the result
remembered.

Only what the desk itself would check is hashed, by the service's own check
(``GameService.unlocked_seats``): the secret of the mail's ``password`` line against the
seats the sender's address holds in the game its subject names, one mail per sender and
game in a batch — a stranger's mail, a forged one, or one the desk would not read costs
nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor

from bot.mail.commands import parse_script
from bot.mail.inbound import Inbound
from bot.service import Actor, GameService

#: Worker threads hashing secrets while the gateway answers (two cores' worth).
WORKERS = 2


class SecretsAhead:
    """A batch's secret checks under way (:meth:`wait` for one mail's; :meth:`close`)."""

    def __init__(self, service: GameService, max_commands: int,
                 checkable: Callable[[Inbound], bool]) -> None:
        self.service = service
        self.max_commands = max_commands
        #: Whether the desk would read the mail at all (not silent, not forged, ...).
        self.checkable = checkable
        self._pool: ThreadPoolExecutor | None = None
        self._checks: dict[str, Future[object]] = {}

    def start(self, mails: Mapping[str, Inbound]) -> None:
        """Start checking the secrets of ``mails`` (by uid), in their order."""
        asked: set[tuple[str, str]] = set()
        for uid, inbound in mails.items():
            if inbound.sender is None or not self.checkable(inbound):
                continue
            script = parse_script(inbound.subject, inbound.text, self.max_commands)
            game_id, secret = script.subject_game, script.password
            if not game_id or not secret or (inbound.sender, game_id) in asked:
                continue
            asked.add((inbound.sender, game_id))
            if self._pool is None:
                self._pool = ThreadPoolExecutor(WORKERS, "mail-secrets")
            self._checks[uid] = self._pool.submit(
                self.service.unlocked_seats, game_id, Actor.mail(inbound.sender), secret)

    def wait(self, uid: str) -> None:
        """Until the check of mail ``uid`` is done (the desk then finds it remembered)."""
        check = self._checks.pop(uid, None)
        if check is not None:
            check.exception()  # a failure is the desk's to meet again, and to report

    def close(self) -> None:
        """Drop the checks not started; wait for those running."""
        self._checks.clear()
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


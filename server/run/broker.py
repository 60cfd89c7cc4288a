"""kombu's filesystem transport, made safe for the embedded default.

The stock transport creates a message file and then writes it; a consumer polling at that moment can take the
empty file and the worker dies on it (kombu issue 1551). Here a message is written under a hidden name, which
the consumer ignores, and renamed into place, which is atomic within a folder. Messages and exchange tables are 0600,
readable by their owner only (the broker's folders are in the data folder).
"""

from __future__ import annotations

import os
import threading
import uuid
from pathlib import Path
from time import monotonic

from kombu.exceptions import ChannelError
from kombu.transport import TRANSPORT_ALIASES, filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps

from ..config import PRIVATE_FILE, write_private


class Channel(filesystem.Channel):
    def _put(self, queue: str, payload: object, **kwargs: object) -> None:  # type: ignore[override]
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        hidden = os.path.join(self.data_folder_out, f".{name}.part")  # _get only takes "<stamp>.<queue>.msg"
        try:
            write_private(Path(hidden), str_to_bytes(dumps(payload)))  # 0600, as every file of the data folder
            os.replace(hidden, final)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc

    def _queue_bind(self, exchange: str, routing_key: str, pattern: str, queue: str) -> None:
        super()._queue_bind(exchange, routing_key, pattern, queue)
        os.chmod(self._exchange_file(exchange), PRIVATE_FILE)  # kombu writes the exchange's table with the umask


#: set in a worker asked to stop (``worker_main``): its transport takes no more messages and returns at once, instead
#: of polling out the 2 seconds of each of Celery's last two waits for messages.
stopping = threading.Event()


class Transport(filesystem.Transport):
    Channel = Channel

    def drain_events(self, connection: object, timeout: float | None = None) -> object:  # type: ignore[override]
        """kombu's polling (deliver a message, or wait ``polling_interval`` and look again until ``timeout``), one
        poll at a time, so that it ends, delivering nothing more, as soon as the worker is ``stopping``."""
        step = self.polling_interval or 0.1
        started = monotonic()
        while not stopping.is_set():
            left = step if timeout is None else min(step, timeout - (monotonic() - started))
            try:
                return super().drain_events(connection, timeout=max(left, 0.001))
            except TimeoutError:
                if timeout is not None and monotonic() - started >= timeout:
                    raise
        raise TimeoutError()

    @property
    def default_connection_params(self) -> dict[str, object]:
        """No host: a folder has none (kombu's default, "localhost", makes it warn that none was given)."""
        return {}


def register() -> None:
    """Make ``filesystem://`` URLs use this transport, in this process."""
    TRANSPORT_ALIASES["filesystem"] = "server.run.broker:Transport"

"""Starting the worker (with beat embedded) as a child process, for ``deadmail up`` and ``deadmail demo --auto``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

from sqlalchemy.engine import make_url

from ..config import Settings, private_dir, write_private

#: the umask of the embedded processes (``deadmail up``, ``deadmail demo --auto``) and of the worker they start
#: (it inherits it): whatever they or their libraries create (the SQLite database and its WAL, beat's schedule, the
#: broker's files, mail files) is their owner's only. Files deadmail writes itself get 0600 whatever the umask.
PRIVATE_UMASK = 0o077


def private_umask() -> None:
    """Everything this process and its children create from now on is readable by their owner only."""
    os.umask(PRIVATE_UMASK)


#: the file of the data folder that says a ``deadmail up`` is serving it, and where (see ``running_up``).
UP_FILE = "up.json"


def _where(settings: Settings) -> dict[str, str]:
    """What must be the same for two processes to share a game: the database and the broker (passwords left out)."""
    return {
        "database": make_url(settings.database_url).render_as_string(hide_password=True),
        "broker": settings.broker_url.split("@")[-1],
    }


def local_url(host: str, port: int) -> str:
    """The address a process of this machine reaches a server listening on ``host``:``port`` at."""
    if host in {"", "0.0.0.0", "*"}:
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def announce_up(settings: Settings, url: str) -> Path:
    """Say in the data folder that this process serves it at ``url`` (``deadmail demo --auto`` then plays there);
    the caller removes the file when it stops (``withdraw_up``)."""
    path = private_dir(settings.data_dir) / UP_FILE
    write_private(path, json.dumps({"pid": os.getpid(), "url": url, **_where(settings)}).encode())
    return path


def withdraw_up(path: Path) -> None:
    """Remove the file ``announce_up`` wrote, unless another ``deadmail up`` has written its own there since."""
    try:
        if json.loads(path.read_text()).get("pid") == os.getpid():
            path.unlink()
    except (OSError, ValueError, AttributeError):
        pass


def running_up(settings: Settings) -> str | None:
    """The address of the ``deadmail up`` serving this data folder, with the same database and broker, when one is
    running and answers; else None (none started, stopped, killed, or it serves another database)."""
    try:
        up = json.loads((settings.data_dir / UP_FILE).read_text())
        url, pid = str(up["url"]), int(up["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if any(up.get(key) != value for key, value in _where(settings).items()) or not _alive(pid):
        return None
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=3) as reply:
            return url if json.loads(reply.read()).get("ok") is True else None
    except (OSError, ValueError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: not ours
        return False
    return True


def start_worker(settings: Settings, beat: bool = True, loglevel: str = "warning") -> subprocess.Popen[bytes]:
    private_dir(settings.data_dir)  # beat keeps its schedule there
    env = {
        **os.environ,
        "DEADMAIL_DATA_DIR": str(settings.data_dir),
        "DATABASE_URL": settings.database_url,
        "CELERY_BROKER_URL": settings.broker_url,
        "DEADMAIL_SECRET_KEY": settings.secret_key,
        "DEADMAIL_BASE_URL": settings.base_url,
        "DEADMAIL_API_TOKEN": settings.api_token,
        "DEADMAIL_SWEEP_SECONDS": str(settings.sweep_every),
        "DEADMAIL_QUEUE": settings.queue,
        "DEADMAIL_SMTP_URL": settings.smtp_url,
        "DEADMAIL_MAIL_FROM": settings.mail_from,
        "DEADMAIL_REPLY_DOMAIN": settings.reply_domain,
    }
    args = [
        sys.executable,
        "-m",
        "server.run.worker_main",  # ``celery``, without its warning about root (see there)
        "-q",
        "-A",
        "worker.app",
        "worker",
        "--pool=solo",
        f"--loglevel={loglevel}",
        "--without-gossip",
        "--without-mingle",
        "-n",
        f"deadmail-{os.getpid()}@%h",
    ]
    if beat:
        args += ["-B", "-s", str(settings.data_dir / "beat-schedule")]
    # stdout stays for the command's own output; a process group of its own: a Ctrl+C in the terminal reaches the
    # command only, which stops the worker (``stop``) and says so
    return subprocess.Popen(args, env=env, stdout=sys.stderr, process_group=0)


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


class Supervised:
    """The worker as a child process, started again when it stops on its own (``deadmail up``)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.process = start_worker(settings)
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="worker-supervisor", daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._stopping.wait(2.0):
            code = self.process.poll()
            if code is not None and not self._stopping.is_set():
                print(f"deadmail: the worker stopped (exit status {code}); starting it again", file=sys.stderr)
                self.process = start_worker(self.settings)

    def stop(self) -> None:
        self._stopping.set()
        stop(self.process)

"""Starting the worker (with beat embedded) as a child process, for ``deadmail up`` and ``deadmail demo --auto``."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

from ..config import Settings, private_dir

#: the umask of the embedded processes (``deadmail up``, ``deadmail demo --auto``) and of the worker they start
#: (it inherits it): whatever they or their libraries create (the SQLite database and its WAL, beat's schedule, the
#: broker's files, mail files) is their owner's only. Files deadmail writes itself get 0600 whatever the umask.
PRIVATE_UMASK = 0o077


def private_umask() -> None:
    """Everything this process and its children create from now on is readable by their owner only."""
    os.umask(PRIVATE_UMASK)


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
    return subprocess.Popen(args, env=env, stdout=sys.stderr)  # stdout stays for the command's own output


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

"""Starting the worker (with beat embedded) as a child process, for ``deadmail up`` and ``deadmail demo --auto``."""

from __future__ import annotations

import os
import subprocess
import sys

from .config import Settings


def start_worker(settings: Settings, beat: bool = True, loglevel: str = "warning") -> subprocess.Popen[bytes]:
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
    }
    args = [
        sys.executable,
        "-m",
        "celery",
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

"""A PostgreSQL cluster of a test's own, on a free port, for fault tests that stop and restart the database: the
shared PostgreSQL on 5432 is never touched. Debian's binaries (/usr/lib/postgresql/<version>/bin, or
DEADMAIL_TEST_PG_BIN); ``initdb`` refuses to run as root, so as root the cluster is made and run as the
``postgres`` user, in a directory of its own under /tmp."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from tests.conftest import need
from tests.support import free_port


def _bin_dir() -> Path:
    configured = os.environ.get("DEADMAIL_TEST_PG_BIN")
    if configured:
        return Path(configured)
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    if not found:
        raise FileNotFoundError("no /usr/lib/postgresql/*/bin/initdb (set DEADMAIL_TEST_PG_BIN)")
    return found[-1].parent


class OwnPostgres:
    """One cluster: ``url`` to its database ``postgres`` (trust, user postgres); ``stop``, ``start``, ``restart``."""

    def __init__(self, folder: Path, bin_dir: Path, port: int) -> None:
        self.folder, self.bin, self.port = folder, bin_dir, port
        self.data = folder / "data"
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"

    def _run(self, tool: str, *args: str) -> None:
        command = [str(self.bin / tool), *args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def init(self) -> None:
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8")

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.folder / "log"), "-w", "start")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def restart(self) -> None:
        """Stop and start (``pg_ctl restart`` would leave the server writing to this process's pipes)."""
        self.stop()
        self.start()


@contextmanager
def own_postgres() -> Iterator[OwnPostgres]:
    """A fresh cluster, started; stopped and removed afterwards (skipped, or failed on CI, when it cannot start)."""
    folder = Path(tempfile.mkdtemp(prefix="deadmail-pg-"))
    try:
        if os.geteuid() == 0:
            shutil.chown(folder, "postgres", "postgres")
        cluster = OwnPostgres(folder, _bin_dir(), free_port())
        cluster.init()
        cluster.start()
    except (OSError, LookupError, subprocess.SubprocessError) as exc:
        shutil.rmtree(folder, ignore_errors=True)
        need("an own PostgreSQL cluster", exc)
        raise
    try:
        yield cluster
    finally:
        with suppress(subprocess.SubprocessError):  # already stopped by the test
            cluster.stop()
        shutil.rmtree(folder, ignore_errors=True)

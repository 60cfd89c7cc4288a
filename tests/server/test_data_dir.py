"""The data folder (the SQLite database with every hand, mail files with working links, the organiser token and the
secret key, the broker's messages) is its owner's only: folders 0700, files 0600, whether ``deadmail up`` made them
or the app factory and the services did; one that others can read is closed at start."""

from __future__ import annotations

import logging
import os
import stat
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.config import Settings, prepare_data_dir
from server.db import Database
from server.mail.send import send_one
from server.mail.transports import FileTransport
from server.run.migrate import upgrade
from server.run.queue import Queue
from server.web.app import create_app
from tests.support import DEADMAIL, clean_env, demo_link, free_port, health, outbox_ids, people
from tests.waiting import wait_for


def modes(folder: Path) -> dict[str, int]:
    """The permission bits of the folder and of everything in it (by path inside it)."""
    found = {".": stat.S_IMODE(folder.stat().st_mode)}
    for path in folder.rglob("*"):
        if not path.is_symlink():
            found[str(path.relative_to(folder))] = stat.S_IMODE(path.lstat().st_mode)
    return found


def not_private(folder: Path) -> dict[str, str]:
    """What in the folder others may read: folders not 0700, files not 0600."""
    wrong = {}
    for name, mode in modes(folder).items():
        if mode != (0o700 if (folder / name).is_dir() else 0o600):
            wrong[name] = oct(mode)
    return wrong


@pytest.fixture
def umask_022() -> Iterator[None]:
    """The usual umask of a shell, whatever the test process had: only deadmail's own modes can make files private."""
    before = os.umask(0o022)
    yield
    os.umask(before)


def test_deadmail_up_keeps_its_data_folder_private(tmp_path: Path) -> None:
    """``deadmail up`` from a shell with umask 022, on a fresh folder: the data folder, the database and its WAL, the
    tokens, the broker's folders and messages, beat's schedule and the mail written by its worker are the owner's
    only, while it runs and after it stops."""
    port = free_port()
    env = clean_env(tmp_path)
    shell = 'umask 022 && exec "$@"'
    up = subprocess.Popen(
        ["sh", "-c", shell, "sh", *DEADMAIL, "up", "--port", str(port)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    data = tmp_path / "deadmail-data"
    try:
        assert wait_for(lambda: health(port), timeout=30, what="deadmail up to answer") == {"ok": True}
        link = demo_link(tmp_path, env, "sh", "-c", shell, "sh")
        with urllib.request.urlopen(link, timeout=5) as page:
            assert page.status == 200
        wait_for(lambda: sorted((data / "mail").glob("*.eml")), timeout=60, what="the worker to write the mail")
        running = modes(data)
        wrong = not_private(data)
    finally:
        up.terminate()
        up.communicate(timeout=30)
    made = ("deadmail.db", "deadmail.db-wal", "deadmail.db-shm", "api_token", "secret_key", "vapid_private_key")
    for name in (*made, "broker/queue"):
        assert name in running, sorted(running)
    assert any(name.startswith("beat-schedule") for name in running) and any(n.endswith(".eml") for n in running)
    assert wrong == {}
    assert not_private(data) == {}


def test_the_app_factory_and_the_services_keep_the_data_folder_private(tmp_path: Path, umask_022: None) -> None:
    """In a process with umask 022 (a gunicorn or a celery started by hand): the settings, the migrations, the app,
    a game made through the API (its tasks are broker messages) and its mail written to files."""
    env = clean_env(tmp_path) | {"DEADMAIL_DATA_DIR": str(tmp_path / "data"), "DEADMAIL_QUEUE": "private-test"}
    settings = prepare_data_dir(Settings.from_env(env))
    upgrade(settings.database_url)
    db = Database(settings.database_url, tasks=Queue(settings))
    try:
        client = create_app(settings, db).test_client()
        organiser = {"Authorization": f"Bearer {settings.api_token}"}  # the token the settings stored
        assert client.post("/api/games", json={"players": people(3), "seed": 3}, headers=organiser).status_code == 201
        rows = outbox_ids(db)
        assert rows and all(send_one(db, row, FileTransport(settings.mail_dir), settings) == "sent" for row in rows)
        found = modes(settings.data_dir)
    finally:
        db.dispose()
    assert {"deadmail.db", "secret_key", "api_token", "vapid_private_key"} <= set(found)
    assert any(name.startswith("broker/queue/") for name in found)  # the game's kicks, waiting for a worker
    assert len([name for name in found if name.endswith(".eml")]) == len(rows)
    assert not_private(settings.data_dir) == {}


def test_a_data_folder_others_can_read_is_closed_at_start(
    tmp_path: Path, umask_022: None, caplog: pytest.LogCaptureFixture
) -> None:
    """A data folder made by an earlier release (0755, files 0644): the first start closes it, and says so."""
    data = tmp_path / "data"
    (data / "mail").mkdir(parents=True)
    for name in ("secret_key", "api_token", "deadmail.db", "mail/0001.eml", "backup.sh"):
        (data / name).write_text("x")
        (data / name).chmod(0o644)
    (data / "backup.sh").chmod(0o755)  # the operator's own script keeps its owner's bits
    (data / "mail").chmod(0o755)
    data.chmod(0o755)
    assert not_private(data)

    with caplog.at_level(logging.WARNING, logger="deadmail.config"):
        prepare_data_dir(Settings.from_env(clean_env(tmp_path) | {"DEADMAIL_DATA_DIR": str(data)}))

    assert not_private(data) == {"backup.sh": "0o700"}  # the operator's script: its owner's bits, no more
    assert f"the data folder {data} could be read by others: group and others lost their access to it" in caplog.text
    caplog.clear()
    prepare_data_dir(Settings.from_env(clean_env(tmp_path) | {"DEADMAIL_DATA_DIR": str(data)}))
    assert caplog.text == ""  # closed once


def test_the_settings_only_read_and_preparing_the_data_folder_writes_what_they_need(tmp_path: Path) -> None:
    """``Settings.from_env`` writes nothing (an empty key and token stand for the stored ones); ``prepare_data_dir``
    makes the embedded broker's folders and stores a key and a token, the same ones at every start."""
    data = tmp_path / "data"
    env = clean_env(tmp_path) | {"DEADMAIL_DATA_DIR": str(data)}
    read = Settings.from_env(env)
    assert not data.exists() and (read.secret_key, read.api_token) == ("", "")

    prepared = prepare_data_dir(read)
    assert prepared.secret_key and prepared.api_token and prepared.secret_key != prepared.api_token
    assert {path.name for path in (data / "broker").iterdir()} == {"queue", "processed", "control"}
    assert (data / "secret_key").read_text() == prepared.secret_key
    assert not_private(data) == {}
    again = prepare_data_dir(Settings.from_env(env))
    assert (again.secret_key, again.api_token) == (prepared.secret_key, prepared.api_token)
    given = Settings.from_env(env | {"DEADMAIL_SECRET_KEY": "k", "DEADMAIL_API_TOKEN": "t"})
    assert (prepare_data_dir(given).secret_key, prepare_data_dir(given).api_token) == ("k", "t")

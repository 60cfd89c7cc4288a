"""The embedded broker never hands a worker a message that is still being written (kombu issue 1551)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from kombu import Connection
from kombu.transport.virtual import Empty

from server.run import broker


def channel(folder: Path) -> broker.Channel:
    broker.register()
    options = {
        "data_folder_in": str(folder),
        "data_folder_out": str(folder),
        "processed_folder": str(folder),
        "control_folder": str(folder / "control"),
    }
    conn = Connection("filesystem://", transport_options=options)
    assert isinstance(conn.transport, broker.Transport)
    opened = conn.channel()
    assert isinstance(opened, broker.Channel)
    return opened


def test_a_message_is_invisible_until_it_is_complete(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ch = channel(tmp_path)
    real_replace = os.replace
    checked = []

    def replace_after_looking(src: str, dst: str) -> None:
        assert Path(src).read_bytes()  # the whole message is written before it gets its visible name
        with pytest.raises(Empty):
            ch._get("deadmail")  # a consumer polling now finds nothing to take
        checked.append(src)
        real_replace(src, dst)

    monkeypatch.setattr(broker.os, "replace", replace_after_looking)
    ch._put("deadmail", {"body": "advance 7"})
    assert len(checked) == 1
    assert ch._get("deadmail") == {"body": "advance 7"}
    assert [p.name for p in tmp_path.iterdir() if p.is_file()] == []  # taken and removed


def test_queue_names_with_dots_still_match(tmp_path: Path) -> None:
    ch = channel(tmp_path)
    ch._put("deadmail.mail", {"body": "send 3"})
    with pytest.raises(Empty):
        ch._get("deadmail")
    assert ch._get("deadmail.mail") == {"body": "send 3"}

"""The server's VAPID key (RFC 8292), which will sign its Web Push requests: from DEADMAIL_VAPID_PRIVATE_KEY, or made
once and kept in the data folder (the owner's only, like the secret key); its public key as browsers take it; a key
that is not a P-256 private key stops the start with a message naming the variable."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from py_vapid import Vapid02

from server.config import Settings, prepare_data_dir
from tests.push_service import b64, unb64


def settings(tmp_path: Path, **env: str) -> Settings:
    return Settings.from_env({"DEADMAIL_DATA_DIR": str(tmp_path / "data"), **env})


def public_point(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


def test_a_new_data_folder_makes_one_key_and_keeps_it_private(tmp_path: Path) -> None:
    first = prepare_data_dir(settings(tmp_path))
    stored = tmp_path / "data" / "vapid_private_key"
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600
    assert first.vapid_private_key == stored.read_text().strip() and len(unb64(first.vapid_private_key)) == 32
    assert prepare_data_dir(settings(tmp_path)).vapid_private_key == first.vapid_private_key  # kept, not made again
    point = unb64(first.vapid_public_key)
    assert len(point) == 65 and point[0] == 4  # what PushManager.subscribe takes as applicationServerKey
    private = ec.derive_private_key(int.from_bytes(unb64(first.vapid_private_key), "big"), ec.SECP256R1())
    assert point == public_point(private)


def test_the_environments_key_is_used_raw_or_der_and_nothing_is_written(tmp_path: Path) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    raw = b64(key.private_numbers().private_value.to_bytes(32, "big"))
    der = b64(
        key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    for given in (raw, der):
        made = prepare_data_dir(settings(tmp_path, DEADMAIL_VAPID_PRIVATE_KEY=given))
        assert made.vapid_private_key == given and unb64(made.vapid_public_key) == public_point(key)
    assert not (tmp_path / "data" / "vapid_private_key").exists()


@pytest.mark.parametrize(
    "given",
    [
        "not a key",
        b64(bytes(32)),  # zero is no private value
        b64(b"\xff" * 32),  # above the curve's order
        b64(
            rsa.generate_private_key(65537, 1024).private_bytes(
                serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        ),
        b64(
            ec.generate_private_key(ec.SECP384R1()).private_bytes(
                serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        ),
    ],
    ids=["text", "zero", "too-large", "rsa", "p384"],
)
def test_a_key_that_is_not_p256_stops_the_start_naming_the_variable(tmp_path: Path, given: str) -> None:
    with pytest.raises(ValueError, match="DEADMAIL_VAPID_PRIVATE_KEY"):
        settings(tmp_path, DEADMAIL_VAPID_PRIVATE_KEY=given)


def test_a_vapid_token_signed_with_the_key_verifies_with_the_public_key(tmp_path: Path) -> None:
    """RFC 8292: the ``vapid t=<JWT>,k=<public key>`` header py-vapid makes with the server's key is an ES256 JWT
    that the key browsers were given verifies (what a push service checks)."""
    made = prepare_data_dir(settings(tmp_path))
    claims = {"aud": "https://push.example.net", "exp": 2_000_000_000, "sub": "mailto:ops@deadmail.test"}
    header = Vapid02.from_string(made.vapid_private_key).sign(dict(claims))["Authorization"]
    token, key = header.removeprefix("vapid t=").split(",k=")
    assert key == made.vapid_public_key
    head, body, signature = token.split(".")
    assert json.loads(unb64(head))["alg"] == "ES256" and json.loads(unb64(body)) == claims
    raw = unb64(signature)
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(made.vapid_public_key))
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public.verify(der, f"{head}.{body}".encode(), ec.ECDSA(hashes.SHA256()))  # raises when it does not verify

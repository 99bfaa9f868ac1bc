"""initData verification (bot.webapp.init_data) against vectors built as Telegram builds them."""

from __future__ import annotations

import hashlib
import hmac
import time
from urllib.parse import parse_qsl, urlencode

import pytest

from bot.webapp.init_data import InitDataError, verify_init_data
from tests.webapp.support import telegram_init_data

TOKEN = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11"
ALICE = {"id": 1001, "first_name": "Alice", "last_name": "Liddell", "language_code": "ru"}
NOW = 1_700_000_000


def test_a_fixed_vector_spelled_out_as_in_telegrams_documentation() -> None:
    # The data-check string, the secret key and the hash, each written out by hand.
    check = 'auth_date=1700000000\nquery_id=Q1\nuser={"id":7,"first_name":"Bob"}'
    secret = hmac.new(b"WebAppData", TOKEN.encode(), hashlib.sha256).digest()
    digest = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    init_data = urlencode(
        {
            "query_id": "Q1",
            "user": '{"id":7,"first_name":"Bob"}',
            "auth_date": "1700000000",
            "hash": digest,
        }
    )
    user = verify_init_data(init_data, TOKEN, now=NOW + 5)
    assert (user.id, user.name, user.auth_date) == (7, "Bob", NOW)


def test_a_good_init_data_names_its_user() -> None:
    init_data = telegram_init_data(TOKEN, ALICE, auth_date=NOW, start_param="g42")
    user = verify_init_data(init_data, TOKEN, now=NOW + 60)
    assert user.id == 1001
    assert user.name == "Alice Liddell"
    assert user.language_code == "ru"
    assert user.start_param == "g42"


def _with(init_data: str, **changes: str) -> str:
    fields = dict(parse_qsl(init_data))
    fields.update(changes)
    return urlencode(fields)


@pytest.mark.parametrize(
    "forge",
    [
        # Another user's id under Alice's signature.
        lambda d: _with(d, user='{"id":1002,"first_name":"Mallory"}'),
        # A later auth_date under the old signature.
        lambda d: _with(d, auth_date=str(NOW + 100)),
        # A hash with one digit changed.
        lambda d: _with(d, hash=dict(parse_qsl(d))["hash"][:-1] + "0"),
        lambda d: _with(d, hash=""),
        # No hash at all.
        lambda d: urlencode({k: v for k, v in parse_qsl(d) if k != "hash"}),
        # Signed with another bot's token.
        lambda _d: telegram_init_data("654321:other-token", ALICE, auth_date=NOW),
    ],
)
def test_forged_init_data_is_refused(forge) -> None:
    genuine = telegram_init_data(TOKEN, ALICE, auth_date=NOW)
    if dict(parse_qsl(genuine))["hash"].endswith("0"):
        genuine = telegram_init_data(TOKEN, ALICE, auth_date=NOW + 1)
    with pytest.raises(InitDataError):
        verify_init_data(forge(genuine), TOKEN, now=NOW + 200)


def test_stale_and_future_init_data_are_refused() -> None:
    init_data = telegram_init_data(TOKEN, ALICE, auth_date=NOW)
    assert verify_init_data(init_data, TOKEN, now=NOW + 24 * 3600).id == 1001
    with pytest.raises(InitDataError, match="too old"):
        verify_init_data(init_data, TOKEN, now=NOW + 24 * 3600 + 1)
    with pytest.raises(InitDataError, match="too old"):
        verify_init_data(init_data, TOKEN, now=NOW - 3600)


@pytest.mark.parametrize("init_data", ["", "garbage", "hash=abc", "a=1&a=2&hash=x"])
def test_missing_or_malformed_init_data_is_refused(init_data: str) -> None:
    with pytest.raises(InitDataError):
        verify_init_data(init_data, TOKEN, now=time.time())


def test_a_signed_init_data_without_a_user_is_refused() -> None:
    fields = {"auth_date": str(NOW), "query_id": "Q"}
    check = "\n".join(f"{k}={fields[k]}" for k in sorted(fields))
    secret = hmac.new(b"WebAppData", TOKEN.encode(), hashlib.sha256).digest()
    fields["hash"] = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    with pytest.raises(InitDataError, match="no user"):
        verify_init_data(urlencode(fields), TOKEN, now=NOW)


@pytest.mark.parametrize("user_id", [10**30, 2**63, 2**52, 0, -1, "1001", 1001.5, True, None, [1]])
def test_a_signed_init_data_whose_user_id_is_no_telegram_id_is_refused(user_id: object) -> None:
    # Telegram's user ids are positive integers of at most 52 significant bits: anything
    # else is refused before any database sees it, however well signed.
    init_data = telegram_init_data(TOKEN, {**ALICE, "id": user_id}, auth_date=NOW)
    with pytest.raises(InitDataError):
        verify_init_data(init_data, TOKEN, now=NOW + 5)
    biggest = telegram_init_data(TOKEN, {**ALICE, "id": 2**52 - 1}, auth_date=NOW)
    assert verify_init_data(biggest, TOKEN, now=NOW + 5).id == 2**52 - 1


def test_string_fields_of_another_type_are_taken_as_missing() -> None:
    odd = {**ALICE, "language_code": 7, "username": ["x"]}
    user = verify_init_data(telegram_init_data(TOKEN, odd, auth_date=NOW), TOKEN, now=NOW + 5)
    assert user.language_code is None and user.username is None

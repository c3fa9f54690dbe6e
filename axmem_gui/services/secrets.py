"""API keys in the OS keyring (service "axmem", one entry per provider).

Keys live only there or in an environment variable the user names; they are never written
to the workspace, a session, an export or a log. On a machine without a keyring backend,
reads return nothing and writes raise a clear error.
"""

from __future__ import annotations

import os

# keyring is imported where a key is read or written: importing it (and its backends)
# takes a noticeable part of the app's start-up, and the first window needs no key.
from axmem_gui.core.errors import InputError

KEYRING_SERVICE = "axmem"


def keyring_available() -> bool:
    import keyring

    try:
        backend = keyring.get_keyring()
    except Exception:  # a broken backend is the same as none for us
        return False
    return not type(backend).__module__.startswith("keyring.backends.fail")


def get_api_key(provider: str) -> str | None:
    import keyring
    from keyring.errors import KeyringError

    try:
        return keyring.get_password(KEYRING_SERVICE, provider)
    except (KeyringError, RuntimeError):
        return None


def set_api_key(provider: str, key: str) -> None:
    if not key:
        raise InputError("the API key is empty")
    import keyring
    from keyring.errors import KeyringError, NoKeyringError

    try:
        keyring.set_password(KEYRING_SERVICE, provider, key)
    except NoKeyringError:
        raise InputError(
            "no OS keyring is available on this machine; put the key in an environment "
            "variable and name it in the provider settings instead"
        ) from None
    except KeyringError as exc:
        raise InputError(f"the OS keyring refused to store the key: {exc}") from None


def delete_api_key(provider: str) -> bool:
    import keyring
    from keyring.errors import KeyringError, PasswordDeleteError

    try:
        keyring.delete_password(KEYRING_SERVICE, provider)
    except PasswordDeleteError:
        return False
    except KeyringError as exc:
        raise InputError(f"the OS keyring refused to delete the key: {exc}") from None
    return True


def env_api_key(variable: str) -> str:
    """The key in a named environment variable, or an InputError naming it."""
    value = os.environ.get(variable)
    if not value:
        raise InputError(f"environment variable {variable} is not set (it should hold the API key)")
    return value

"""Shared fixtures. ``tests/`` is on sys.path (pytest rootdir conftest)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from loopback_openai import LoopbackOpenAI
from skips import pytest_report_teststatus  # noqa: F401 - a hook: a missing program is said in the summary line

#: Files other tools read or wrote (an inspect_ai task needs inspect_ai): data, not test modules.
collect_ignore_glob = ["data/*"]


@pytest.fixture(scope="session", autouse=True)
def session_cache_folder(tmp_path_factory):
    """The session's user cache folder, for session fixtures (an OpenCompass run) made before any test's own."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache-session")))
        yield


@pytest.fixture(autouse=True)
def user_cache_folder(tmp_path_factory, monkeypatch):
    """Each test's own user cache folder (the default verdict caches live there): never the real ~/.cache."""
    folder = tmp_path_factory.mktemp("xdg-cache")
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder))
    return folder / "gpassk-opencompass"


@pytest.fixture(autouse=True)
def bars_on_a_terminal_only(monkeypatch):
    """Each test starts as a gpassk command does: bars drawn on a terminal only. A GPassKEvaluator built in an
    earlier test of the same process (inside OpenCompass it lets its bars into the task log) leaves no trace."""
    from gpassk_opencompass import console

    monkeypatch.setitem(console._INTO_LOGS, "on", False)


@pytest.fixture
def loopback_openai():
    """Factory: ``loopback_openai(responder, latency=0.0)`` -> a started server.

    Every server started through it is stopped at the end of the test.
    """
    servers = []

    def start(responder, latency: float = 0.0, model_name: str = "loopback-model"):
        server = LoopbackOpenAI(responder, latency=latency, model_name=model_name).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def loguru_messages():
    """Messages loguru logs during the test (warnings and up)."""
    from loguru import logger

    messages = []
    handler = logger.add(lambda message: messages.append(str(message)), level="WARNING")
    yield messages
    logger.remove(handler)


@pytest.fixture(scope="session")
def tiny_opencompass_run(tmp_path_factory):
    """One real ``opencompass`` run shared by the end-to-end tests (see opencompass_e2e.tiny_run_config)."""
    from opencompass_e2e import run_tiny_opencompass

    return run_tiny_opencompass(tmp_path_factory.mktemp("tiny_opencompass"))


@pytest.fixture
def compass_cache(tmp_path, monkeypatch):
    """An empty ``COMPASS_DATA_CACHE``, a ``HOME`` without ``~/.cache/opencompass``, no ``DATASET_SOURCE``."""
    monkeypatch.setenv("COMPASS_DATA_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("DATASET_SOURCE", raising=False)
    return tmp_path / "cache"


@pytest.fixture
def offline_env(tmp_path, monkeypatch):
    """The environment of an offline OpenCompass run (``opencompass_e2e.offline_environment``) for the whole test,
    with ``tmp_path`` as the working folder (OpenCompass's local runner writes ``tmp/`` there); the data root."""
    from opencompass_e2e import offline_environment

    data_root = tmp_path / "data_root"
    for name, value in offline_environment(data_root, tmp_path).items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("DATASET_SOURCE", raising=False)
    monkeypatch.chdir(tmp_path)
    return data_root


#: Fixtures that launch the real opencompass CLI: a test using one is an end-to-end test.
E2E_FIXTURES = frozenset({"tiny_opencompass_run", "real_dump"})


def pytest_collection_modifyitems(items):
    """Mark every test that uses a real-OpenCompass fixture ``e2e`` (its module may not say so)."""
    for item in items:
        if E2E_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.e2e)

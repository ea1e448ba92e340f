"""A real headless Chromium for the HTML pages: the operating system's binary, driven by
playwright (only its driver: no browser is ever downloaded).

Fixtures:
- ``browser``: one Chromium for the session, offline and without a sandbox of its own.
- ``page``: a fresh page at ``viewport`` (1280×800 unless a test parametrizes
  ``viewport``), whose console errors, page errors and requests ``page_log`` records.
- ``artefacts``: where screenshots go, ``$ARENA_TEST_ARTEFACTS`` or a temporary directory.

Everything here skips, saying why, only when no Chromium binary exists
(``scripts/setup.sh`` installs Debian's ``chromium``; ``$ARENA_CHROMIUM`` names another).

This directory has no ``__init__.py``: as a package it would be imported as ``html`` and
collide with the standard library's module of that name.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, Playwright, Request, sync_playwright

# Offline and quiet: no update checks, no sync, no QUIC probes, nothing that would show
# up as a request the page did not make.
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
# A script listing the elements that reach past the viewport's right edge, outside the
# boxes that scroll: a page that fits its viewport lists none.
WIDER = """() => [...document.body.querySelectorAll('*')].filter((node) => {
  if (node.closest('.scroll')) return false;
  const box = node.getBoundingClientRect();
  return box.width > 0 && (box.right > window.innerWidth + 0.5 || box.width > window.innerWidth);
}).map((node) => node.tagName + '#' + node.id + '.' + node.className)"""


def chromium_binary() -> str | None:
    """The Chromium to drive: ``$ARENA_CHROMIUM``, else Debian's, else any on the PATH."""
    named = os.environ.get("ARENA_CHROMIUM")
    if named:
        return named if Path(named).is_file() else None
    for candidate in ("/usr/bin/chromium", "chromium", "chromium-browser"):
        found = shutil.which(candidate)
        if found:
            return found
    return None


# Per module, not per session: while the sync driver runs, its event loop is the running
# loop of the test thread, so every later test that calls asyncio.run (a referee, a run in
# this process) would fail with "cannot be called from a running event loop".
@pytest.fixture(scope="module")
def playwright_driver() -> Iterator[Playwright]:
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="module")
def browser(playwright_driver: Playwright) -> Iterator[Browser]:
    binary = chromium_binary()
    if binary is None:
        pytest.skip(
            "no Chromium binary: scripts/setup.sh installs Debian's chromium "
            "(or set ARENA_CHROMIUM to one)"
        )
    # playwright gives every launch a fresh, temporary user-data-dir of its own.
    launched = playwright_driver.chromium.launch(
        executable_path=binary, headless=True, args=list(CHROMIUM_ARGS)
    )
    yield launched
    launched.close()


@dataclass
class PageLog:
    """What a page did besides drawing: console errors, uncaught errors, requests."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    @property
    def errors(self) -> list[str]:
        return self.console_errors + self.page_errors

    def requests_besides(self, *urls: str) -> list[str]:
        """Every request but those for the documents opened (``urls``)."""
        return [request for request in self.requests if request not in urls]


@pytest.fixture
def viewport() -> dict[str, int]:
    return dict(DESKTOP)


@pytest.fixture
def page_log() -> PageLog:
    return PageLog()


@pytest.fixture
def page(browser: Browser, viewport: dict[str, int], page_log: PageLog) -> Iterator[Page]:
    context = browser.new_context(viewport=viewport, service_workers="block")  # type: ignore[arg-type]
    opened = context.new_page()

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            page_log.console_errors.append(message.text)

    def on_request(request: Request) -> None:
        page_log.requests.append(request.url)

    opened.on("console", on_console)
    opened.on("pageerror", lambda error: page_log.page_errors.append(str(error)))
    opened.on("request", on_request)
    yield opened
    context.close()


@pytest.fixture(scope="session")
def artefacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The directory for screenshots: ``$ARENA_TEST_ARTEFACTS`` (CI keeps it) or a temp dir."""
    named = os.environ.get("ARENA_TEST_ARTEFACTS")
    directory = Path(named) if named else tmp_path_factory.mktemp("artefacts")
    directory.mkdir(parents=True, exist_ok=True)
    return directory

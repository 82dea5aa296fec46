"""A browser that is not there: what the task seam and code blocks get instead of Chromium.

Runs INSIDE the skyvern-1.0.56 virtual environment (imported by ``seams.py``). One fake state per
run; its page remembers the last URL navigated to, because a later task block without a ``url``
inherits the page's URL (and a first task without any URL fails, as the engine says). Anything
else asked of it answers with a permissive stand-in.
"""

from __future__ import annotations

from typing import Any


class Anything:
    """A permissive stand-in: every attribute, call and await gives another one."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Anything()

    def __call__(self, *args: Any, **kwargs: Any) -> Anything:
        return Anything()

    def __await__(self):
        if False:  # pragma: no cover - makes this a generator
            yield
        return Anything()

    async def __aenter__(self) -> Anything:
        return self

    async def __aexit__(self, *exc: Any) -> bool:
        return False

    def __iter__(self):
        return iter(())

    def __bool__(self) -> bool:
        return True

    def __str__(self) -> str:
        return ""


class FakePage(Anything):
    def __init__(self) -> None:
        self.url = "about:blank"

    async def goto(self, url: str, *args: Any, **kwargs: Any) -> None:
        self.url = url

    async def title(self) -> str:
        return ""

    async def content(self) -> str:
        return "<html></html>"

    async def screenshot(self, *args: Any, **kwargs: Any) -> bytes:
        return b""

    def is_closed(self) -> bool:
        return False


class FakeArtifacts(Anything):
    def __init__(self) -> None:
        from skyvern.webeye.browser_artifacts import DownloadBinding

        self.download_binding = DownloadBinding.RUN_DIR
        self.applied_browser_profile_id = None
        self.video_artifacts = []
        self.har_path = None
        self.traces_dir = None
        self.browser_session_dir = None
        self.browser_console_log_path = None


class FakeBrowserState(Anything):
    """One per run: remembers the page URL, because a later task without a ``url`` inherits it."""

    def __init__(self) -> None:
        self.page = FakePage()
        self.browser_artifacts = FakeArtifacts()
        self.browser_context = Anything()
        self.browser_cleanup = None
        self.pw = None
        self.engine_selection = None
        self.browser_context_route_policy_url = None

    async def must_get_working_page(self) -> FakePage:
        return self.page

    async def get_working_page(self) -> FakePage:
        return self.page

    async def get_or_create_page(self, *args: Any, **kwargs: Any) -> FakePage:
        return self.page

    async def navigate_to_url(self, page: Any = None, url: str = "", *args: Any, **kwargs: Any) -> None:
        self.page.url = url

    async def check_and_fix_state(self, *args: Any, **kwargs: Any) -> None:
        return None

    async def take_fullpage_screenshot(self, *args: Any, **kwargs: Any) -> None:
        return None

    async def take_post_action_screenshot(self, *args: Any, **kwargs: Any) -> None:
        return None

    async def close(self, *args: Any, **kwargs: Any) -> None:
        return None

    def is_connected(self) -> bool:
        return True

    async def list_valid_pages(self, *args: Any, **kwargs: Any) -> list:
        return [self.page]


BROWSERS: dict[str, FakeBrowserState] = {}


def browser_for(run_id: str | None) -> FakeBrowserState:
    key = run_id or "-"
    if key not in BROWSERS:
        BROWSERS[key] = FakeBrowserState()
    return BROWSERS[key]

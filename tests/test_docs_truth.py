"""No page says what the code does not do: every `wflint` command line a page writes (in code:
a block or an inline span) names a command and options the CLI has, and every endpoint of the
mock a page names is served, answering the status the page says it answers.

Generic on purpose: it reads every page of README.md and docs/ (``readme_snippets.PAGES``), so a
page added later is held to it too. The CLI is read from click (each command's parameters), the
mock from its application (its routes, and a request to each endpoint a page says "answers"
some status)."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import click
import pytest

from readme_snippets import PAGES, ROOT
from wflint.cli import main

# ============================================================================ command lines

#: a `wflint` command line in code: up to the end of the span or line, a pipe, `&&`, `;` or a comment
_COMMAND = re.compile(r"(?<![\w./-])(?<!from )(?<!import )wflint((?:[ \t]+(?:\\\n[ \t]*)?[^\s`|;&#>)]+)+)")
_INLINE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_FENCE = re.compile(r"^```[\w-]*\n(.*?)^```", re.M | re.S)


@dataclass(frozen=True)
class Mention:
    page: Path
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}: {self.text}"


def _code_spans(page: Path) -> list[tuple[int, str]]:
    """(line, text) of each fenced block and inline code span of ``page``."""
    text = page.read_text(encoding="utf-8")
    out, fenced = [], []
    for m in _FENCE.finditer(text):
        # a usage synopsis continues on indented lines that start with `[`: one command line
        out.append((text.count("\n", 0, m.start(1)) + 1, re.sub(r"\n[ \t]+(?=\[)", " ", m.group(1))))
        fenced.append((m.start(), m.end()))
    for m in _INLINE.finditer(text):
        if not any(a <= m.start() < b for a, b in fenced):
            out.append((text.count("\n", 0, m.start()) + 1, m.group(1)))
    return out


def command_mentions() -> list[Mention]:
    out = []
    for page in PAGES:
        for line, code in _code_spans(page):
            for m in _COMMAND.finditer(code):
                out.append(Mention(page, line + code.count("\n", 0, m.start()), "wflint" + m.group(1)))
    return out


def _words(text: str) -> list[str]:
    try:
        return shlex.split(text.replace("\\\n", " "), comments=False)
    except ValueError:  # an unclosed quote cut off by the span's end
        return text.split()


def _problem(mention: Mention) -> str | None:
    """Why ``mention`` names something the CLI does not have, or None."""
    words = _words(mention.text)[1:]
    ctx = click.Context(main)
    command: click.Command = main
    while words and not words[0].startswith("-"):
        if not isinstance(command, click.Group):
            break
        name = words[0]
        if not re.fullmatch(r"[a-z][a-z-]*", name):
            return None  # a placeholder (`wflint <command>`), not a command
        sub = command.get_command(ctx, name)
        if sub is None:
            return f"no command `{name}`"
        command, words = sub, words[1:]
    known = {opt for p in command.params for opt in (*p.opts, *p.secondary_opts)}
    if command is main:
        known |= {"--help", "-h"}
    for word in words:
        # `--format`, `--format=json`, and in a usage synopsis `[--diff]`, `[-o schemas]`, `--a|--b`
        for option in _OPTION.findall(word):
            if option not in known and option not in ("--help", "-h"):
                return f"`{command.name}` has no option `{option}`"
    return None


_OPTION = re.compile(r"(?:^|[\[(|])(--?[A-Za-z][\w-]*)")


def test_pages_name_wflint_command_lines():
    found = command_mentions()
    pages = {m.page for m in found}
    assert len(found) > 100 and len(pages) >= 10, [str(m) for m in found]  # the scan reads what it should
    words = {w for m in found for w in _words(m.text)}
    assert {"check", "fix", "simulate", "test", "serve", "--unsafe-fixes"} <= words


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_wflint_command_line_names_commands_and_options_that_exist(page):
    wrong = [f"{m}  <- {why}" for m in command_mentions() if m.page == page and (why := _problem(m))]
    assert not wrong, "\n".join(wrong)


def test_the_check_catches_what_it_should():
    """The checker itself, on lines that are wrong and right."""
    def problem(text: str) -> str | None:
        return _problem(Mention(ROOT / "README.md", 1, text))

    assert problem("wflint chek flows/") == "no command `chek`"
    assert problem("wflint check --formatt json") == "`check` has no option `--formatt`"
    assert problem("wflint fix --unsafe-fix") == "`fix` has no option `--unsafe-fix`"
    assert problem("wflint fix --unsafe-fixes --diff flows/") is None
    assert problem("wflint check --format=json --fail-level warning -") is None
    assert problem("wflint --version") is None
    assert problem("wflint <command>") is None
    assert problem("wflint fix [PATHS]... [--diff] [--check]") is None
    assert problem("wflint fix [PATHS]... [--dif]") == "`fix` has no option `--dif`"
    assert problem("wflint schema [-o schemas] [-x]") == "`schema` has no option `-x`"


# ============================================================================ endpoints of the mock

_METHODS = "GET|POST|PUT|DELETE|PATCH"
#: a path of the mock in code, with an optional method before it (`POST /v1/run/workflows`)
_ENDPOINT = re.compile(rf"`(?:({_METHODS})\s+)?(/(?:v1|api|_mock|healthz|openapi)[^`\s]*)`")
#: "answer(s) 501", "answers **501**", "is a 422": the status a sentence claims
_ANSWERS = re.compile(r"\banswers?(?: with)?\s+\**(\d{3})\b")


@dataclass(frozen=True)
class Endpoint:
    page: Path
    line: int
    method: str | None
    path: str
    claimed: int | None  # the status the sentence says it answers

    def __str__(self) -> str:
        said = f" answers {self.claimed}" if self.claimed else ""
        return f"{self.page.relative_to(ROOT)}:{self.line}: {self.method or ''} {self.path}{said}".replace(":  ", ": ")


def _sentences(text: str) -> list[tuple[int, str]]:
    """Table rows and prose sentences (of paragraphs outside code blocks), with their line."""
    out = []
    for m in re.finditer(r"(?:^|\n\n)((?:(?!\n\n).)+)", _FENCE.sub(lambda f: "\n" * f.group(0).count("\n"), text), re.S):
        para, start = m.group(1), text.count("\n", 0, m.start(1)) + 1
        if para.lstrip().startswith("|"):
            for i, row in enumerate(para.split("\n")):
                out.append((start + i, row))
            continue
        offset = 0
        for sentence in re.split(r"(?<=[.:;])\s+(?=[A-Z*`(])", para):
            out.append((start + para.count("\n", 0, offset), sentence))
            offset += len(sentence) + 1
    return out


def endpoint_mentions() -> list[Endpoint]:
    out = []
    for page in PAGES:
        for line, sentence in _sentences(page.read_text(encoding="utf-8")):
            claims = _ANSWERS.findall(sentence)
            claimed = int(claims[0]) if len(set(claims)) == 1 else None
            for m in _ENDPOINT.finditer(sentence):
                path = m.group(2).rstrip(".,")
                out.append(Endpoint(page, line + sentence.count("\n", 0, m.start()), m.group(1), path, claimed))
    return out


def _concrete(path: str) -> str:
    """A path a request can be sent to: `{run_id}`, `wpid_...` and a trailing `...` filled in."""
    path = re.sub(r"\{[^}]+\}", "x_1", path)
    path = path.replace("wpid_...", "wpid_1").replace("wr_...", "wr_1")
    return path[:-3] if path.endswith("...") else path


@pytest.fixture(scope="module")
def mock():
    pytest.importorskip("starlette")
    from wflint.server.testing import make_client

    return make_client()


def _served(client, path: str) -> bool:
    from starlette.routing import Match

    for route in client.app.routes:
        scope = {"type": "http", "path": path, "method": "GET", "root_path": "", "query_string": b"", "headers": []}
        match, _ = route.matches(scope)
        if match != Match.NONE:
            return True
    return False


def test_pages_name_endpoints_and_say_what_some_answer():
    found = endpoint_mentions()
    assert len(found) > 20 and len({e.page for e in found}) >= 2, [str(e) for e in found]
    assert any(e.claimed for e in found)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_endpoint_a_page_names_is_served_and_answers_as_it_says(page, mock):
    wrong = []
    for e in endpoint_mentions():
        if e.page != page:
            continue
        path = _concrete(e.path)
        if "..." in path or "<" in path:
            continue  # a pattern for a family of paths, said as prose
        if not _served(mock, path):
            wrong.append(f"{e}  <- the mock has no such path")
            continue
        method = e.method or ("GET" if e.claimed is None else "POST" if "/run" in path else "GET")
        r = mock.request(method, path, headers={"x-api-key": "key-a"}, json={})
        if r.status_code == 405:
            wrong.append(f"{e}  <- the mock does not serve {method} there")
        elif e.claimed is not None and r.status_code != e.claimed:
            wrong.append(f"{e}  <- it answers {r.status_code}")
    assert not wrong, "\n".join(wrong)


def test_the_endpoint_check_catches_a_wrong_claim(mock):
    """The checker itself: a page claiming 501 for an endpoint that runs workflows is caught."""
    page = ROOT / "README.md"
    r = mock.request("POST", _concrete("/v1/run/workflows"), headers={"x-api-key": "key-a"}, json={})
    assert r.status_code != 501  # the mock runs workflows: a page saying 501 there is stale
    assert _served(mock, "/v1/runs/wr_1") and not _served(mock, "/v1/nothing-here")
    (one,) = [e for e in _parse_sentence(page, "`POST /v1/run/tasks` answers 501 with a message.")]
    assert (one.method, one.path, one.claimed) == ("POST", "/v1/run/tasks", 501)


def _parse_sentence(page: Path, sentence: str) -> list[Endpoint]:
    claims = _ANSWERS.findall(sentence)
    claimed = int(claims[0]) if len(set(claims)) == 1 else None
    return [Endpoint(page, 1, m.group(1), m.group(2), claimed) for m in _ENDPOINT.finditer(sentence)]

"""Template rendering as the engine does it (``models/_jinja.py``, ``Block.format_block_parameter_…``).

One sandboxed environment with Jinja's default (lax) ``Undefined``, no finalize (so a dict renders
as its Python repr) and the engine's one extra filter, ``json``. A syntax or render error becomes
:class:`TemplateFailure`, whose text is the engine's ``FailedToFormatJinjaStyleParameter``.
"""

from __future__ import annotations

import io
import json
import tokenize
from typing import Any

from ..checks.jinja_bounds import MAX_LENGTH, BoundedEnvironment, TemplateTooCostly
from . import semantics, stops
from .available_keys import available_keys

#: wflint's cut-off for rendering one template (the engine has none: a template that loops for
#: hours holds its run for hours)
RENDER_SECONDS = 10.0


class TemplateFailure(Exception):
    """A template the engine could not render; ``str()`` is the engine's message."""

    def __init__(self, template: str, message: str, available_keys: list[str] | None = None) -> None:
        self.template = template
        self.message = message
        self.available_keys = available_keys or []
        super().__init__(semantics.JINJA_FORMAT_ERROR.format(template=template, message=message))


def _json_filter(value: Any) -> str:
    marker = semantics.JSON_FILTER_MARKER
    return f"{marker}{json.dumps(value, default=str)}{marker}"


class TemplateStopped(TemplateFailure):
    """A template wflint would not finish computing (too costly, or past its time budget); the
    engine would not finish it either. ``str()`` says why, in wflint's words."""

    def __init__(self, template: str, reason: str) -> None:
        super().__init__(template, reason)
        self.args = (reason,)

    def __str__(self) -> str:
        return self.message


# the engine's SandboxedEnvironment, compiled without constant folding and with the costly
# operators checked first (``checks/jinja_bounds.py``): what finishes renders the same
ENV = BoundedEnvironment()
ENV.filters["json"] = _json_filter
_CACHE: dict[str, Any] = {}


def compile_template(text: str) -> Any:
    template = _CACHE.get(text)
    if template is None:
        try:
            template = ENV.from_string(text)
        except Exception as exc:  # syntax errors, and whatever else the parser raises
            raise TemplateFailure(text, str(exc)) from exc
        if len(_CACHE) < 4096:
            _CACHE[text] = template
    return template


def render(text: str | None, namespace: dict[str, Any]) -> str | None:
    """``format_block_parameter_template_from_workflow_run_context``: empty text stays as is."""
    if not text:
        return text
    template = compile_template(text)
    try:
        with stops.interruptible(RENDER_SECONDS, stops.CURRENT.get(), what="rendering this template"):
            return _bounded_render(template, namespace)
    except TemplateFailure:
        raise
    except (TemplateTooCostly, stops.BudgetExceeded) as exc:
        raise TemplateStopped(text, f"wflint stopped this template: {exc}; the engine has no such bound (it would hang, or run out of memory)") from exc
    except stops.RunStopped:
        raise
    except Exception as exc:
        raise TemplateFailure(text, str(exc), available_keys(text, namespace)) from exc


def _bounded_render(template: Any, namespace: dict[str, Any]) -> str:
    """``template.render`` with the output's length bounded as it is produced."""
    parts, size = [], 0
    for part in template.generate(namespace):
        size += len(part)
        if size > MAX_LENGTH:
            raise TemplateTooCostly(f"its output passes {MAX_LENGTH:,} characters")
        parts.append(part)
    return "".join(parts)


def render_json_value(value: Any, namespace: dict[str, Any]) -> Any:
    """``render_templates_in_json_value``: render every string, and turn a whole-string
    ``{{ x | json }}`` back into the native value (mixed with other text it is an error)."""
    marker = semantics.JSON_FILTER_MARKER
    if isinstance(value, str):
        rendered = render(value, namespace) or ""
        if rendered.startswith(marker) and rendered.endswith(marker) and len(rendered) >= 2 * len(marker):
            raw = rendered[len(marker):-len(marker)]
            try:
                return json.loads(raw)
            except json.JSONDecodeError as exc:
                raise TemplateFailure(value, f"Raw JSON filter produced invalid JSON: {raw}") from exc
        if marker in rendered:
            raise TemplateFailure(value, semantics.JSON_FILTER_MIXED)
        return rendered
    if isinstance(value, list):
        return [render_json_value(item, namespace) for item in value]
    if isinstance(value, dict):
        return {render_json_value(k, namespace): render_json_value(v, namespace) for k, v in value.items()}
    return value


def render_code(code: str, namespace: dict[str, Any]) -> str:
    """Code blocks: ``{{ }}`` inside ``#`` comments is masked before rendering, then restored."""
    masked, comments = _mask_comments(code)
    rendered = render(masked, namespace) or ""
    for sentinel, comment in comments.items():
        rendered = rendered.replace(sentinel, comment)
    return rendered


def _mask_comments(source: str) -> tuple[str, dict[str, str]]:
    if not any(d in source for d in ("{{", "{%", "{#")):
        return source, {}
    try:
        comments = [
            tok for tok in tokenize.generate_tokens(io.StringIO(source).readline)
            if tok.type == tokenize.COMMENT and any(d in tok.string for d in ("{{", "{%", "{#"))
        ]
    except (SyntaxError, tokenize.TokenError, ValueError):
        return source, {}
    lines = source.splitlines(keepends=True)
    masked: dict[str, str] = {}
    for index, tok in reversed(list(enumerate(comments))):
        sentinel = f"# __SKYVERN_MASKED_COMMENT_{index}__"
        masked[sentinel] = tok.string
        row = tok.start[0] - 1
        line = lines[row]
        lines[row] = line[: tok.start[1]] + sentinel + line[tok.end[1]:]
    return "".join(lines), masked

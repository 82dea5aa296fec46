"""A Jinja template in a templated field does not parse.

**What it checks.** Every string the service renders as a Jinja template (block goals,
prompts, URLs, HTTP headers and bodies, e-mail fields, branch expressions, ``workflow_trigger``
payload leaves, ``workflow_system_prompt``, a ``code`` block's code, ...: the fields the
model marks ``templated``) is parsed with Jinja's own parser, as the service does. A syntax
error is reported at its line and column in the file.

**Why.** Two templates are parsed when the workflow is saved: the ``code`` of every ``code``
block (after masking Jinja inside Python ``#`` comments) and the string leaves of a top-level
``workflow_trigger`` block's ``payload``. The service refuses those with 422. Every other
template is only rendered when its block runs, so the save succeeds and the block fails at run
time ("Failed to format Jinja style parameter").

It also reports a template holding a constant Jinja would compute while compiling and that does
not finish (``{{ 9**999999999 }}``, ``{{ 'a' * 1500000000 }}``): the service's compile never
ends, so a code block's save never answers, and any other template's block never finishes.

**Bad**::

    blocks:
      - block_type: navigation
        label: search
        navigation_goal: "Search for {{ product_name }"

**Good**::

    blocks:
      - block_type: navigation
        label: search
        navigation_goal: "Search for {{ product_name }}"
"""

import sys

from ..checks import template_sites
from .verdicts import service_verdict
from ..core.patterns import lazy

CODE = "WF401"
NAME = "template-syntax"
SEVERITY = "error"

_TAGS = ("if", "elif", "else", "endif", "for", "endfor", "set", "endset", "raw", "endraw", "macro",
         "endmacro", "call", "endcall", "filter", "endfilter", "with", "endwith", "block", "endblock",
         "autoescape", "endautoescape", "include", "import", "from", "extends", "do")


def check(wf):
    rule = sys.modules[__name__]
    top = {id(b): i for i, b in enumerate(wf.blocks)}
    order = {id(b): i for i, b in enumerate(wf.all_blocks)}
    leaf_seq: dict[int, int] = {}
    for site in template_sites.sites(wf):
        problem = site.analysis.error
        b = site.block
        if b is not None and site.field == "payload" and b.tag == "workflow_trigger":
            # G4 meets the leaves of one block in order and stops at the first bad one
            leaf_seq[id(b)] = leaf_seq.get(id(b), -1) + 1
        if problem is not None and problem.limit:
            continue  # a template over the depth limit is WF007's
        if problem is None:
            if site.kind == "code" and b is not None and wf.release.has_check("code_jinja"):
                yield from _code_compile_error(wf, rule, site, b, order[id(b)])
            yield from _costly_constant(wf, rule, site)
            continue
        what = "code" if site.kind == "code" else "template"
        where_line = f" (line {problem.lineno} of the {what})" if "\n" in site.text else ""
        jinja = problem.message.rstrip(".")
        start, end = template_sites.span(wf, site, *_error_span(site.text, problem.offset))
        verdict = None
        if not problem.exact:
            message = f"invalid Jinja in {template_sites.describe_site(site)}: {jinja}; {_consequence(site)}"
        elif site.kind == "code" and not wf.release.has_check("code_jinja"):
            message = (f"invalid Jinja in the code of code block '{b.label}'{where_line}: {jinja}; release "
                       f"{wf.release.version} saves it, and the block fails when it runs")
        elif site.kind == "code":
            detail = f"Invalid Jinja2 in code block '{b.label}' on line {problem.lineno}: {problem.message}"
            verdict = service_verdict(422, detail, "G", 5, order[id(b)])
            message = (f"invalid Jinja in the code of code block '{b.label}'{where_line}: {jinja}; "
                       "the service refuses to save the workflow (422)")
        elif b is not None and b.tag == "workflow_trigger" and site.field == "payload" and id(b) in top:
            path = template_sites.dotted_path(site.path[len(b.path):])
            detail = (f"Invalid Jinja2 in workflow_trigger block '{b.label}': {problem.message} "
                      f"(line {problem.lineno}) at {path}: {site.value!r}")
            verdict = service_verdict(422, detail, "G", 4, top[id(b)], leaf_seq[id(b)])
            message = (f"invalid Jinja in {path} of workflow_trigger block '{b.label}'{where_line}: "
                       f"{jinja}; the service refuses to save the workflow (422)")
        else:
            message = f"invalid Jinja in {template_sites.describe_site(site)}{where_line}: {jinja}; {_consequence(site)}"
        yield wf.diag(rule, message, site.path, help=hint(problem.message), service=verdict, start=start, end=end)


_CLOSER = lazy(r"[}%#]}")


def _error_span(text: str, offset: int) -> tuple[int, int]:
    """Where Jinja stopped, to the end of that tag (its ``}}``, ``%}`` or ``#}``) or, for a tag
    never closed, of the template's line: never an empty range, which CI annotations and
    SARIF viewers would show as nothing."""
    line_end = text.find("\n", offset)
    line_end = len(text) if line_end < 0 else line_end
    closer = _CLOSER.search(text, offset, line_end)
    end = closer.end() if closer else line_end
    if end > offset:
        return offset, end
    return (offset - 1, offset) if offset > 0 else (offset, min(len(text), offset + 1))


def _consequence(site) -> str:
    if site.block is not None:
        return "the block fails at run time"
    if site.field == "workflow_system_prompt":
        return "every block that uses the system prompt fails at run time"
    if site.field == "browser_profile_key":
        return "the service fails with a 500 when it saves the workflow"
    return "rendering it fails at run time"


def hint(message: str) -> str | None:
    """A suggestion for the most common Jinja mistakes."""
    if message.startswith("Encountered unknown tag"):
        import difflib  # here: only a template that fails to parse asks

        name = message.split("'")[1] if "'" in message else ""
        close = difflib.get_close_matches(name, _TAGS, n=1, cutoff=0.6)
        if close and close[0] != name:
            return f"did you mean '{{% {close[0]} %}}'?"
        return "an end tag without its opening tag, or a tag Jinja does not know"
    if "Jinja was looking for the following tags" in message:
        return "close the block with the end tag named above"
    if "end of print statement" in message and "unexpected end of template" in message:
        return "close the expression with '}}'"
    if "end of statement block" in message and "unexpected end of template" in message:
        return "close the tag with '%}'"
    if message.startswith("unexpected '}'"):
        return "close expressions with '}}' and tags with '%}'"
    if message.startswith("unexpected char"):
        return ("only a Jinja expression may stand between the braces: check the quotes, or write "
                "literal braces as {{ '{{' }} or inside {% raw %}...{% endraw %}")
    if "comment" in message:
        return "close the comment with '#}'"
    return None


def _costly_constant(wf, rule, site):
    """A constant expression Jinja would compute while compiling and that does not finish: the
    service's compile (at save for a code block, when the block runs for the rest) hangs."""
    from ..checks.template_analysis import costly_constant

    found = costly_constant(site.text)
    if found is None:
        return
    reason, lineno = found
    where_line = f" (line {lineno})" if "\n" in site.text else ""
    if site.kind == "code" and wf.release.has_check("code_jinja"):
        consequence = ("the service compiles a code block's template when the workflow is saved, "
                       "so the save request never answers")
    else:
        consequence = "the engine compiles it when the block runs, so the run never finishes"
    yield wf.diag(rule, f"{template_sites.describe_site(site)}{where_line} holds a constant Jinja computes "
                  f"while compiling: {reason}; {consequence} (wflint refuses to compute it)", site.path,
                  help="compute the value in a code block, or write the number out, well within the limit")


def _code_compile_error(wf, rule, site, b, position):
    """A code block that parses but does not compile (an unknown filter): refused at save (G5)."""
    from ..checks.template_analysis import compile_error

    if not template_sites.has_jinja(site.text):
        return
    found = compile_error(site.text)
    if found is None:
        return
    message, lineno = found
    detail = f"Invalid Jinja2 in code block '{b.label}' on line {lineno}: {message}"
    yield wf.diag(rule, f"invalid Jinja in the code of code block '{b.label}' (line {lineno} of the code): "
                  f"{message.rstrip('.')}; the service refuses to save the workflow (422)", site.path,
                  help="use one of Jinja's filters, or escape the braces if they are Python",
                  service=service_verdict(422, detail, "G", 5, position))

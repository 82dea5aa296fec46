"""What a code block may do, as release 1.0.56's engine decides it (``code_block_safety.py``).

Declared once, as data, and read by both sides of the code runtime: the engine (``blocks.code``
refuses before anything runs) and the worker process (``code_worker``, which checks again and
builds the namespace from the same tables). Standard library only: the worker loads this file
by path, with no site-packages.

* :func:`refusal` is ``is_safe_code``: the engine's ``_validate_tree`` with the settings that
  function passes (no imports at all, no private or dunder name, the blocked attributes, no
  class keywords or metaclasses, no positional ``match`` class patterns). It answers the
  engine's own detail message; the block's failure reason is always ``"Insecure code
  detected."`` (``CodeBlock._execute`` drops the detail), and wflint shows the detail beside it.
* ``BUILTINS_DENIED`` are the builtins the engine leaves out of ``safe_builtins()``.
* ``SHIMS`` names what each module shim offers: the engine hands code ``SimpleNamespace``
  objects holding these attributes, not the modules (so ``json.codecs`` is an AttributeError).
* ``LATE_SAFE_GLOBALS``: names a parameter of the same name still shadows (wrapper argument).
"""

from __future__ import annotations

import ast
import functools
import textwrap

#: ``BLOCKED_ATTRS``: attribute names refused anywhere in the code, whatever they are read on.
BLOCKED_ATTRS: frozenset[str] = frozenset({
    "create_subprocess_exec", "create_subprocess_shell", "subprocess_exec", "subprocess_shell",
    "system", "popen", "Popen", "exec", "spawn", "spawnl", "spawnle", "spawnlp", "spawnlpe",
    "spawnv", "spawnve", "spawnvp", "spawnvpe", "posix_spawn", "posix_spawnp", "check_call",
    "check_output", "execv", "execve", "execvp", "execvpe", "fexecve", "execl", "execle", "execlp",
    "execlpe", "fork", "forkpty", "open_connection", "start_server", "create_connection",
    "create_server", "f_globals", "f_locals", "f_builtins", "f_code", "co_code", "co_consts",
    "co_names", "co_varnames", "gi_frame", "gi_code", "cr_frame", "cr_code", "tb_frame", "tb_next",
    "mro", "listdir", "makedirs", "rmdir", "codecs", "modules", "builtins", "stdout", "stderr",
    "stdin", "getattr", "setattr", "delattr", "globals", "dictConfig", "fileConfig", "locals",
    "eval", "vars", "format", "format_map", "vformat", "get_field", "get_type_hints",
})

#: ``ALWAYS_DENIED_BUILTINS | SANDBOX_ONLY_BUILTINS``: left out of the code's builtins (a use is
#: a NameError); every ``_``-prefixed builtin is left out too.
BUILTINS_DENIED: frozenset[str] = frozenset({
    "eval", "exec", "compile", "open", "input", "breakpoint", "help", "exit", "quit", "copyright",
    "credits", "license", "BaseException", "BaseExceptionGroup", "GeneratorExit",
    "KeyboardInterrupt", "SystemExit", "format", "memoryview",
    "getattr", "setattr", "delattr", "vars", "globals", "locals", "type", "super", "staticmethod",
    "classmethod", "property",
})

#: ``module_shims()``: each name is bound to a namespace with these attributes only. ``datetime``'s
#: ``datetime`` / ``date`` are the engine's subclasses (``code_worker`` builds them per execution).
SHIMS: dict[str, tuple[str, ...]] = {
    "asyncio": ("sleep",),
    "re": ("match", "search", "findall", "finditer", "fullmatch", "sub", "compile", "split", "escape",
           "I", "S", "IGNORECASE", "MULTILINE", "DOTALL"),
    "json": ("dumps", "loads"),
    "html": ("escape",),
    "datetime": ("datetime", "date", "timedelta", "timezone", "UTC"),
}

#: ``build_safe_vars``'s browser and platform helpers. They exist (a name check passes) but need the
#: service (a browser, an OTP source, storage): ``code_worker`` binds each to a stand-in that fails.
PLATFORM_HELPERS: tuple[str, ...] = (
    "otp", "solve_captcha", "click_and_claim_download", "attach_authorized_file", "search_web",
    "open_page", "clear_browser_data", "publish_file", "set_dialog_policy",
)

#: ``_LATE_SAFE_GLOBALS``: safe globals a parameter of the same name still shadows.
LATE_SAFE_GLOBALS: frozenset[str] = frozenset(
    {"attach_authorized_file", "clear_browser_data", "open_page", "publish_file", "html", "datetime"})
#: ``CODE_BLOCK_DIALOG_POLICY_HELPER_NAME``: no parameter may be called this.
RESERVED_PARAMETER = "set_dialog_policy"

#: ``USER_CODE_MODULE_NAME``: ``__name__`` in the code's builtins (a class's ``__module__``).
CODE_MODULE_NAME = "skyvern.code_block"
#: ``CODE_BLOCK_FILENAME`` / ``CODE_LINE_OFFSET``: the wrapper adds two lines above the code.
CODE_FILENAME = "<code_block>"
CODE_LINE_OFFSET = 2

#: ``OUTPUT_PARAMETER_MAX_VALUE_BYTES``: a stored output larger than this (as JSON) is replaced by
#: a marker (``db/utils.py`` ``_guard_jsonb_size``).
OUTPUT_MAX_BYTES = 100 * 1024 * 1024

#: ``ErrorCode``'s own argument checks (``ERROR_CODE_MAX_LENGTH``, ``..._REASONING_MAX_LENGTH``).
ERROR_CODE_MAX_LENGTH = 128
ERROR_CODE_REASONING_MAX_LENGTH = 2000
ERROR_CODE_BAD_CODE = "ErrorCode code must be a trimmed, non-empty string of at most 128 characters"
ERROR_CODE_BAD_REASONING = "ErrorCode reasoning must be a trimmed, non-empty string of at most 2000 characters"
ERROR_CODE_MESSAGE = "CodeBlock raised a declared error"
#: ``_code_block_build_class``: a class head keyword that got past the static check.
CLASS_KEYWORDS_AT_RUN_TIME = "Code blocks do not support metaclasses or keywords in class definitions"

# The engine's detail messages (``_validate_tree``), in the words it raises them.
CLASS_KEYWORDS = "Not allowed to use metaclasses or keywords in class definitions"
PRIVATE = "Not allowed to access private methods or attributes"
BLOCKED = "Not allowed to access '{name}'"
POSITIONAL_PATTERN = "Not allowed to use positional patterns in match statements"
WILDCARD_IMPORT = "Wildcard imports are not allowed"
IMPORT = "Not allowed to import modules"


def refusal(code: str) -> str | None:
    """Why the engine refuses ``code`` before running it, in its words, or None.

    Raises ``SyntaxError`` when the (dedented) code does not parse, as ``ast.parse`` does in the
    engine (the block then fails with that SyntaxError). Nodes are visited in ``ast.walk`` order
    and the first refusal wins, so the detail is the one the engine raises.
    """
    return inspect(code)[0]


@functools.lru_cache(maxsize=512)  # a loop runs the same rendered code again and again
def inspect(code: str) -> tuple[str | None, frozenset[str]]:
    """:func:`refusal`, and every name the code mentions (as the parser normalises it): code
    can reach a global only by naming it, so the worker builds only the shims it names."""
    tree = ast.parse(textwrap.dedent(code))
    names = set()
    for node in ast.walk(tree):
        why = _node_refusal(node)
        if why is not None:
            return why, frozenset()
        if isinstance(node, ast.Name):
            names.add(node.id)
    return None, frozenset(names)


def _node_refusal(node: ast.AST) -> str | None:
    if isinstance(node, ast.ClassDef) and node.keywords:
        return CLASS_KEYWORDS
    if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
        return PRIVATE
    # a match class pattern reads attributes with no Attribute node
    if isinstance(node, ast.MatchClass):
        for attr in node.kwd_attrs:
            if attr.startswith("_"):
                return PRIVATE
            if attr in BLOCKED_ATTRS:
                return BLOCKED.format(name=attr)
        if node.patterns:
            return POSITIONAL_PATTERN
    if isinstance(node, ast.Name) and node.id.startswith("__"):
        return PRIVATE
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names):
            return WILDCARD_IMPORT
        return IMPORT
    if isinstance(node, ast.Attribute) and node.attr in BLOCKED_ATTRS:
        return BLOCKED.format(name=node.attr)
    return None

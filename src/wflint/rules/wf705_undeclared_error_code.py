"""A code block raises an ``ErrorCode`` the engine will not accept.

**What it checks.** Every ``raise ErrorCode('<code>', '<reasoning>')`` in a ``code`` block:
the code must be a key of the block's ``error_code_mapping`` or of the workflow's (the
block's entries win), and the call must have the
shape the engine requires (exactly two positional arguments, the first a string literal,
constructed directly in a ``raise``, one ``raise`` per line).

**Why.** Just before running the code the engine checks every ``ErrorCode`` call
(``_validate_code_block_error_code_calls``); a wrong shape fails the block before any line
runs: "Failed to execute code block. Reason: SyntaxError: ErrorCode requires exactly two
positional arguments". A well-formed raise of a code missing from the block's mapping is not
reported as the declared error: the block fails with "ErrorCode is not declared in the
effective error_code_mapping". The service saves both.

**Bad**::

    - block_type: code
      label: check_total
      code: |
        if total != expected:
            raise ErrorCode('TOTAL_MISMATCH', 'the lines do not add up')

**Good**::

    - block_type: code
      label: check_total
      error_code_mapping:
        TOTAL_MISMATCH: The invoice lines do not add up to the total
      code: |
        if total != expected:
            raise ErrorCode('TOTAL_MISMATCH', 'the lines do not add up')
"""

import sys

from ..engine.semantics import effective_error_code_mapping, error_code_raises
from .runtime import code_blocks, code_pos

CODE = "WF705"
NAME = "undeclared-error-code"
SEVERITY = "error"


def check(wf):
    rule = sys.modules[__name__]
    for block, code, parsed in code_blocks(wf):
        if "ErrorCode" not in code:
            continue
        raises, problem = error_code_raises(code, parsed.nodes)
        if problem is not None:
            message, line = problem
            start, end = code_pos(wf, block, code, line, 0)
            yield wf.diag(
                rule,
                f"code block '{block.label}' fails before it runs: the engine refuses its ErrorCode call "
                f"(\"SyntaxError: {message}\")",
                block.path + ("code",),
                help="write raise ErrorCode('<CODE>', '<reasoning>') with a code from error_code_mapping",
                start=start,
                end=end,
            )
            continue
        declared = effective_error_code_mapping(block.data, (wf.definition or {}).get("error_code_mapping"))
        for line, col, name in raises:
            if name in declared:
                continue
            start, end = code_pos(wf, block, code, line, col)
            yield wf.diag(
                rule,
                f"code block '{block.label}' raises ErrorCode '{name}', which neither its error_code_mapping nor "
                f"the workflow's declares: the block fails with \"ErrorCode is not declared in the effective error_code_mapping\"",
                block.path + ("code",),
                help=f"declare '{name}' in the block's error_code_mapping (or the workflow's)",
                start=start,
                end=end,
            )

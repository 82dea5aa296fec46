"""A code block reads a workflow parameter or block output it was not given.

**What it checks.** Every name a ``code`` block's Python reads that is a workflow parameter's
key or a block's ``<label>_output``, is not bound by the code itself and is missing from the
block's ``parameter_keys``.

**Why.** The engine runs the code inside ``async def wrapper(<parameter_keys>=...)`` with only
its safe builtins as globals (``CodeBlock.generate_async_user_function``): a code block sees
exactly the names listed in ``parameter_keys``. Reading any other one raises ``NameError``
and the block fails: "Failed to execute code block. Reason: NameError: name 'amount' is not
defined". The service saves the workflow without a word.

**Bad**::

    parameters:
      - {parameter_type: workflow, key: amount, workflow_parameter_type: integer}
    blocks:
      - block_type: code
        label: double
        code: "doubled = amount * 2"

**Good**::

    blocks:
      - block_type: code
        label: double
        parameter_keys: [amount]
        code: "doubled = amount * 2"
"""

import sys

from .runtime import CODE_BLOCK_GLOBALS, code_blocks, code_pos, loaded_names

CODE = "WF704"
NAME = "code-name-not-passed"
SEVERITY = "error"


def check(wf):
    rule = sys.modules[__name__]
    found = code_blocks(wf)
    if not found:
        return
    run_names = set(wf.param_keys) | wf.output_keys
    for block, code, parsed in found:
        keys = block.data.get("parameter_keys")
        given = {k for k in keys if isinstance(k, str)} if isinstance(keys, list) else set()
        bound = parsed.stored_names | given | CODE_BLOCK_GLOBALS
        reported: set[str] = set()
        for node in loaded_names(parsed.nodes):
            name = node.id
            if name in bound or name not in run_names or name in reported:
                continue
            reported.add(name)
            what = "block output" if name in wf.output_keys and name not in wf.param_keys else "workflow parameter"
            start, end = code_pos(wf, block, code, node.lineno, node.col_offset)
            end = type(start)(start.line, start.col + len(name), start.offset + len(name)) \
                if end.line == start.line else end
            yield wf.diag(
                rule,
                f"code block '{block.label}' reads {what} '{name}', which is not in its parameter_keys: "
                f"the engine gives a code block only those names, so the run fails with NameError here",
                block.path + ("code",),
                help=f"add '{name}' to parameter_keys",
                start=start,
                end=end,
            )

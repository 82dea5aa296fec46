"""The words the server teaches with: its instructions to the client, and the prompt that
walks an agent through the author-check-fix-simulate loop."""

from __future__ import annotations

INSTRUCTIONS = """\
wflint checks Skyvern workflow definitions (YAML or JSON) offline, as the Skyvern service of a \
given release judges them when they are saved, and simulates their runs. Before saving or \
running a workflow you wrote: call check (the whole file: every finding has a JSON path, the \
service's answer and, where one exists, a fix), call fix to apply the fixes (unsafe=true also \
renames near-miss names), edit what is left by hand, check again until clean, then simulate \
with cases that stub the browser and the LLM. block_schema tells the fields of a block type; \
explain_rule explains a finding's code. Give a workflow as text or as a path."""


LOOP = """\
You are writing a Skyvern workflow{goal}. Work in this loop, and do not hand the workflow over \
until it is done:

1. **Author.** Write the request: `title` and `workflow_definition` with `parameters` and \
`blocks`. For each block type you use, call `block_schema` (block_type, target_version) and use \
only the fields it lists; required fields must be present. Reference a parameter in a template \
as `{{{{ key }}}}` and a block's output as `{{{{ label_output }}}}`; list the parameters a block \
reads in its `parameter_keys`.
2. **Check.** Call `check` with the text (or path) and the target release. Each finding has a \
`code`, a `severity`, a `message`, a `json_path` (the value it is about) and `service` (the HTTP \
status the service answers on save, when it refuses). Read `service.accepts` for the verdict on \
the whole file. `explain_rule` explains a code.
3. **Fix.** Call `fix` to apply every safe fix (and `unsafe=true` to also rename misspelt keys, \
labels, parameter keys and template variables to their one near match; review its `diff`). Use \
its `text` from then on. For a finding without a fix, change the value at its `json_path` as \
its message and `suggestion` say.
4. **Repeat** check and fix until `clean` is true (or only findings you can justify remain: \
`fails` false and `service.accepts` true).
5. **Simulate.** Call `simulate` with cases that stub what a run cannot do offline (the \
browser's pages, the LLM's answers): `{{"name": ..., "parameters": {{key: value}}, "tasks": \
{{label: {{"status": "completed", "extracted_information": ...}}}}, "llm": {{label: answer}}}}` \
(the resource wflint://guide/cases lists every stub). Read each case's `summary`, `failed_block` and `failure_reason`; fix the \
workflow and go back to step 2 until every case does what the workflow is for.
6. Optionally call `graph` and show the Mermaid picture of the routing.
"""


def loop_prompt(goal: str | None = None) -> str:
    return LOOP.format(goal=f" that should: {goal.strip()}" if goal and goal.strip() else "")


CASES = """\
A simulate case stubs what a run cannot do offline; everything else runs as the service's engine \
(release 1.0.56) runs it. Every key is optional:

```yaml
name: big order
parameters: {order_id: B-7, amount: 900}     # run parameters, as a run request gives them
tasks:                                       # browser-agent blocks (task, navigation, extraction, login, action ...)
  read_order: {status: completed, extracted_information: {total: 900}}
  login: [{status: failed, failure_reason: "wrong password"}, {status: completed}]   # one entry per attempt
llm:                                         # text_prompt answers
  summarise: "a plain answer"                # text becomes {"llm_response": "..."}
  classify: {answer: refund}                 # a mapping is the JSON answer
  flaky: {raise: "LLM unavailable"}          # the LLM call raises
prompt_branches:                             # natural-language branch criteria of conditional blocks
  route: [false, true]                       # one result per branch, in order
blocks:                                      # replace any block's execution
  notify: {output: {status_code: 200}}       # completes with this output
  upload: {fail: "bucket is full"}           # fails with this reason
  guard: {status: terminated, fail: "stop"}  # any status
```

A list in place of one entry is used one entry per execution (loop iteration, retry); when it \
runs out its last entry repeats. A browser block without a stub completes with no extracted \
information, and the case's summary lists it under "ran on defaults". With network off (the \
default) an http_request block without a stub fails clearly instead of reaching the network.
"""

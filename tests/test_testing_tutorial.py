"""docs/testing-tutorial.md, run as written: each YAML block whose first line names a file
(``# lead_sync.yaml``) is written to a scratch directory, in page order, and each command block
is run there, its output compared with the text block that follows it (times aside). The page's
last workflow and test file are the fixtures under fixtures/simulate/tutorial, which the
scenario suite runs too."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "testing-tutorial.md"
FIXTURES = ROOT / "fixtures" / "simulate" / "tutorial"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```\n", re.S | re.M)
TIME = re.compile(r" in \d+\.\d+s$", re.M)


def steps():
    """(language, text) of every fenced block of the page, in order."""
    return [(m.group(1), m.group(2)) for m in BLOCK.finditer(PAGE.read_text(encoding="utf-8"))]


def test_every_file_and_command_of_the_tutorial_runs_and_prints_what_the_page_shows(tmp_path):
    blocks = steps()
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", "NO_COLOR": "1"}
    written, ran = {}, 0
    for index, (language, text) in enumerate(blocks):
        if language == "yaml" and text.startswith("# ") and text.split("\n", 1)[0].endswith((".yaml", ".yml")):
            name = text.split("\n", 1)[0][2:].strip()
            (tmp_path / name).write_text(text, encoding="utf-8")
            written[name] = text
        elif language == "sh" and not text.startswith("wflint record"):
            shown = blocks[index + 1]
            assert shown[0] == "text", f"the command {text!r} is followed by its output"
            result = subprocess.run(["bash", "-c", text], cwd=tmp_path, env=env, capture_output=True, text=True,
                                    timeout=300)
            assert TIME.sub(" in <t>", result.stdout + result.stderr) == TIME.sub(" in <t>", shown[1]), text
            ran += 1
    assert ran == 4 and set(written) == {"lead_sync.yaml", "lead_sync.test.yaml"}
    # the page's final files are the fixtures (less the fixtures' own header comment)
    assert _body(written["lead_sync.yaml"]) == _body((FIXTURES / "lead_sync.yaml").read_text())
    assert _body(written["lead_sync.test.yaml"]) == _body((FIXTURES / "lead_sync.test.yaml").read_text())


def _body(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.startswith("#")).strip()

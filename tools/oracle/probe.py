"""Ask real releases what they answer to some files, and what wflint says.

    python tools/oracle/probe.py FILE... [--release 1.0.56 ...] [--json]

Each file is sent as its bytes would be (a YAML file as ``yaml_definition``, a JSON file as
``json_definition``, an update body as it is; see ``harness.body_of``) through the real update
endpoint of each release (``driver.py`` in the release's cached environment), and checked by
``wflint check --target-version``. Prints one line per file and release: the service's status
and body, and wflint's verdict read from ``service_status``. This is how a new fixture gets
its label.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import harness  # noqa: E402

RELEASES = ("1.0.56", "1.0.55", "1.0.48")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--release", action="append", default=[])
    ap.add_argument("--json", action="store_true", help="one JSON object per file and release")
    ap.add_argument("--write", type=Path, metavar="VERDICTS.json",
                    help="merge each reply into this file: {file name: {release: {accepted, status, detail}}}")
    args = ap.parse_args(argv)
    cases = [harness.file_case(f, f.as_posix()) for f in args.files]
    labels = json.loads(args.write.read_text()) if args.write and args.write.exists() else {}
    for release in args.release or RELEASES:
        replies = harness.run_service(release, cases, install=False)
        for case in cases:
            got = replies[case.id]
            body = got["body"]
            label = {"accepted": 200 <= got["status"] < 300, "status": got["status"]}
            if isinstance(body, dict) and isinstance(body.get("detail"), str) and not label["accepted"]:
                label["detail"] = re.sub(r"wpid_[0-9]+", "wpid_...", body["detail"])  # stable across runs
            labels.setdefault(Path(case.id).name, {})[release] = label
            mine = harness.wflint_verdict(case, release)
            if args.json:
                print(json.dumps({"file": case.id, "release": release, "status": got["status"], "body": got["body"],
                                  "wflint": mine["status"], "code": mine.get("code")}))
            else:
                agree = "agree" if (mine["status"] == 200) == (200 <= got["status"] < 300) else "DISAGREE"
                print(f"{release} {case.id}: service {got['status']} {json.dumps(got['body'])[:300]}\n"
                      f"    wflint {mine['status']} {mine.get('code') or ''} [{agree}]")
    if args.write:
        args.write.write_text(json.dumps(labels, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

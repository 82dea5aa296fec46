"""The differential harness: the real service release against ``wflint check --target-version``.

    python tools/oracle/harness.py 1.0.55 [--count 3000] [--seed 1] [--fixtures DIR ...]
                                          [--no-install] [--verdicts FILE] [--show N]

Cases: every fixture under the repository's ``fixtures/`` (plus any ``--fixtures`` folder),
and ``--count`` generated ones (``generate.py``, seeded). Each case goes to the real app of the
release (``driver.py``, run in the release's cached environment: YAML files as
``yaml_definition``, JSON as ``json_definition``, update bodies as they are) and to wflint's
linter for that release. Compared per case:

* verdict: the service accepted (2xx) ⇔ wflint reports no error carrying a service verdict;
* status: the service's status ⇔ the status of wflint's first rejection (the service's
  pipeline order), counted over every case (an accepted case is "200" on both sides);
* message: for shape-D replies (``{"detail": "..."}``), the service's text ⇔ wflint's.

Cases whose answer depends on the server's configuration, not on the release (a webhook
URL, the ui-tars engine, an explicit browser_type) are labelled ``config`` and left out of
the counts. Prints each disagreement and one summary line; exit 1 below the thresholds.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))

import venvs  # noqa: E402
from generate import Case, cases as generated  # noqa: E402
import real_seeds  # noqa: E402
import shapes  # noqa: E402

VERDICT_GOAL, STATUS_GOAL = 99.5, 99.0


# --------------------------------------------------------------------------- cases


def fixture_cases(folders: list[Path]) -> list[Case]:
    out = []
    for folder in folders:
        for f in sorted(folder.rglob("*")):
            if f.suffix not in (".json", ".yaml", ".yml") or not f.is_file() or f.name.endswith(".fixed.json"):
                continue
            if ".fixed." in f.name:
                continue
            if f.parent.name == "WF007" and f.name.startswith("bad_"):
                # past wflint's own limits on purpose (deep nesting, deep loops): the real service
                # has no such limit and spends minutes or its stack on them, and wflint's answer is
                # WF007 by design, not a verdict of the service's
                continue
            try:
                rel = f.relative_to(REPO).as_posix()
            except ValueError:
                rel = f"{folder.name}/{f.relative_to(folder).as_posix()}"
            out.append(file_case(f, rel))  # every file, whatever it holds: the user named it
    return out


def _yaml_body(text: str) -> dict[str, Any] | None:
    import yaml

    try:
        data = yaml.safe_load(text)
    except (yaml.YAMLError, RecursionError):  # the hostile-input fixtures nest past any stack
        return None
    if isinstance(data, dict) and ("json_definition" in data or "yaml_definition" in data):
        return json.loads(json.dumps(data, default=str))
    return None


def config_dependent(case: Case) -> str | None:
    """Why the service's answer depends on its configuration, or None."""
    text = case.text
    if "webhook_callback_url" in text and _internal_webhook(case):
        return "webhook URL validation (ENABLE_URL_VALIDATION)"
    if "ui-tars" in text:
        return "ui-tars engine (ENABLE_VOLCENGINE)"
    if re.search(r"browser_type[\"']?\s*:\s*(?!null\b|~|None\b)[\"']?(msedge|chrome|stealth-chromium)", text):
        return "explicit browser_type (dynamic browsers)"  # a valid value: refused by some runtimes only
    if re.search(r"credential_ids[\"']?\s*:\s*\[?\s*[\"'-]?\s*\w", text) and not re.search(
            r"credential_ids[\"']?\s*:\s*(null|~)", text):
        return "stored credentials (credential_ids must name existing ones)"
    return None


def _internal_webhook(case: Case) -> bool:
    """Whether the case's webhook URL (or one it cannot be read for) names a host only some
    deployments block (loopback, private): its scheme and form are the release's to judge."""
    from wflint.checks.webhook_url import internal_host

    found = re.findall(r"webhook_callback_url[\"']?\s*:\s*[\"']?([^\"'\s,}]*)", case.text)
    return not found or any(internal_host(url) for url in found if url)


# --------------------------------------------------------------------------- the two sides


def file_case(path: Path, case_id: str, tags: tuple[str, ...] = ("fixture",)) -> Case:
    """Any file as a case, whatever it holds: a YAML file is sent as ``yaml_definition`` (an
    update body written in YAML as the JSON it reads as), a JSON file as ``json_definition``
    (its bytes in place, so a file that is not JSON is a malformed body) or, when it is an
    update body, as the body itself."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix in (".yaml", ".yml"):
        return Case(case_id, "yaml-body" if _yaml_body(text) is not None else "yaml", text, list(tags))
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        data = None
    body = isinstance(data, dict) and ("json_definition" in data or "yaml_definition" in data)
    return Case(case_id, "body" if body else "json", text, list(tags))


def wire(case: Case) -> dict[str, Any]:
    """How ``case`` goes to the driver: a JSON body, or the raw bytes of one."""
    if case.kind == "yaml":
        return {"body": {"yaml_definition": case.text}}
    if case.kind == "json":
        return {"raw": '{"json_definition": ' + case.text + "\n}"}
    if case.kind == "body":
        return {"raw": case.text}
    try:
        return {"body": case.body()}
    except ValueError:
        return {"body": None}


def real_exports(release: str, seeds: list[Case], install: bool, seed: int, count: int) -> list[Case]:
    """The real service's stored form of every seed it saves, as files a team keeps: the
    GET answer whole, and the definition exported without ids and output parameters (as
    ``skyvern workflow get --definition-file`` writes it); then ``count`` of them edited by
    hand (``generate.Gen.mutate``). Made by this release, so a release's exports carry its
    own stored fields (1.0.48's SMTP objects on send_email ...)."""
    import random

    creates = list(seeds)
    replies = run_service(release, creates, install, create=True)
    out: list[Case] = []
    for c in creates:
        got = replies.get(c.id)
        if not got or got["status"] != 200 or not isinstance(got["body"], dict):
            continue
        stored = got["body"]
        definition = stored.get("workflow_definition")
        if not isinstance(definition, dict):
            continue
        exported = {"title": stored.get("title"), "workflow_definition": _without_ids(definition)}
        if stored.get("proxy_location") is not None:
            exported["proxy_location"] = stored["proxy_location"]
        tags = [t for t in c.tags if t in ("real", "fixture")] or ["generated"]
        out.append(Case(f"getanswer:{c.id}", "json", json.dumps(stored, indent=2, default=str), [*tags, "export"]))
        out.append(Case(f"export:{c.id}", "json", json.dumps(exported, indent=2, default=str), [*tags, "export"]))
    from generate import Gen

    g = Gen(seed)
    made = [c for c in out if c.id.startswith("export:")]
    for i in range(min(count, 4 * len(made))):
        base = random.Random(seed + i).choice(made) if made else None
        if base is None:
            break
        try:
            req, tags = g.mutate(json.loads(base.text))
        except (KeyError, TypeError, IndexError, AttributeError):
            continue
        out.append(Case(f"edited-{i:05d}:{base.id}", "json", json.dumps(req, indent=2), [*base.tags, "edited", *tags]))
    return out


def _without_ids(definition: dict[str, Any]) -> dict[str, Any]:
    """The stored definition with ids, timestamps and output parameters taken out."""
    def clean(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()
                    if not (k.endswith("_id") and k.endswith(("parameter_id", "workflow_id", "organization_id")))
                    and k not in ("created_at", "modified_at", "deleted_at", "output_parameter")}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value
    out = clean(definition)
    if isinstance(out.get("parameters"), list):
        out["parameters"] = [p for p in out["parameters"] if not (isinstance(p, dict) and p.get("parameter_type") == "output")]
    return out


def run_service(release: str, cases: list[Case], install: bool, create: bool = False) -> dict[str, dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="wflint-oracle-") as tmp:
        src, dst = Path(tmp) / "cases.jsonl", Path(tmp) / "results.jsonl"
        with src.open("w", encoding="utf-8") as fh:
            for c in cases:
                fh.write(json.dumps({"id": c.id, **wire(c), **({"create": True} if create else {})}) + "\n")
        done = venvs.run_in(release, "driver.py", str(src), str(dst), install=install, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"oracle: the {release} driver failed:\n{done.stderr[-3000:]}")
        sys.stderr.write(done.stderr.strip().splitlines()[-1] + "\n" if done.stderr.strip() else "")
        return {r["id"]: r for r in map(json.loads, dst.read_text(encoding="utf-8").splitlines())}


def wflint_verdict(case: Case, release: str) -> dict[str, Any]:
    from wflint.api import check_text
    from wflint.project.config import Config

    from wflint.api import InternalError

    try:
        diags = check_text(case.text, path="case" + case.suffix, config=Config(target_version=release))
    except InternalError as exc:
        return {"status": -1, "detail": None, "code": "crash", "message": str(exc)}
    rejections = [d for d in diags if d.service is not None]
    if not rejections:
        return {"status": 200, "detail": None, "code": None}
    first = min(rejections, key=lambda d: _order_key(d.service.order))
    return {"status": first.service.status, "detail": first.service.detail, "code": first.code,
            "message": first.message}


class Mock:
    """wflint's mock service answering as the release, in-process: its full reply is what
    the message comparison uses (the 422 list and joined-string forms included)."""

    def __init__(self, release: str) -> None:
        from wflint.server.testing import make_client

        self.client = make_client(keys=("oracle=o_1",), target_version=release)
        self.headers = {"x-api-key": "oracle"}
        self.n = 0
        self._seed()

    def _seed(self) -> None:
        seed = {"title": "oracle seed", "workflow_definition": {"parameters": [], "blocks": [
            {"block_type": "wait", "label": "seed_wait", "wait_sec": 1}]}}
        r = self.client.post("/v1/workflows", json={"json_definition": seed}, headers=self.headers)
        self.wpid = r.json()["workflow_permanent_id"]

    def answer(self, body: Any) -> tuple[int, Any]:
        self.n += 1
        if self.n % 200 == 0:
            self._seed()
        r = self.client.post(f"/v1/workflows/{self.wpid}", json=body, headers=self.headers)
        try:
            return r.status_code, r.json()
        except ValueError:
            return r.status_code, r.text


def same_reply(service: Any, mock: Any) -> bool:
    """The refusal bodies agree: the same detail string, or the same errors (type, location,
    message) in the 422 list form."""
    if not isinstance(service, dict) or not isinstance(mock, dict):
        return service == mock
    a, b = service.get("detail"), mock.get("detail")
    if isinstance(a, list) and isinstance(b, list):
        def key(items):
            return [(e.get("type"), tuple(e.get("loc", ())), e.get("msg")) for e in items if isinstance(e, dict)]
        return key(a) == key(b)
    return a == b


def _order_key(order: tuple) -> tuple:
    return tuple((0, x) if isinstance(x, (int, float)) else (1, str(x)) for x in order)


# --------------------------------------------------------------------------- comparing


def compare(release: str, cases: list[Case], service: dict[str, dict[str, Any]], show: int) -> dict[str, Any]:
    counts: Counter = Counter()
    lines: list[str] = []
    verdicts: dict[str, Any] = {}
    mock = None
    if mock_wanted() and not NO_MOCK[0]:
        try:
            mock = Mock(release)
        except Exception as exc:  # noqa: BLE001 - the message comparison is optional
            print(f"oracle: wflint serve could not be started in-process ({type(exc).__name__}: {exc}); "
                  "message agreement not measured", file=sys.stderr)
    mismatches: list[str] = []
    for c in cases:
        got = service.get(c.id)
        if got is None:
            continue
        svc_status = got["status"]
        accepted = 200 <= svc_status < 300
        body = got["body"]
        svc_detail = body.get("detail") if isinstance(body, dict) and isinstance(body.get("detail"), str) else None
        verdicts[c.id] = {"accepted": accepted, "status": svc_status, **({"detail": svc_detail} if svc_detail else {})}
        why = config_dependent(c)
        if why:
            counts["config"] += 1
            continue
        w = wflint_verdict(c, release)
        counts["cases"] += 1
        group = "fixtures" if "fixture" in c.tags else "real" if "real" in c.tags else "generated"
        counts[group] += 1
        counts["accepted"] += accepted
        w_accepts = w["status"] == 200
        if w_accepts == accepted:
            counts["verdict"] += 1
            counts[group + "_verdict"] += 1
        if (w["status"] if not w_accepts else 200) == (svc_status if not accepted else 200):
            counts["status"] += 1
        if not accepted and mock is not None and 400 <= svc_status < 500:
            counts["refusals"] += 1
            try:
                m_status, m_body = mock.answer(c.body())
            except ValueError:
                m_status, m_body = 0, None
            if m_status == svc_status and same_reply(body, m_body):
                counts["message"] += 1
            else:
                mismatches.append(f"{c.id}: service {svc_status} {json.dumps(body)[:300]}\n    mock    {m_status} "
                                  f"{json.dumps(m_body)[:300]}")
        if w_accepts != accepted or (not accepted and w["status"] != svc_status):
            shown = json.dumps(body)[:400] if not accepted else "accepted"
            lines.append(f"{c.id} [{', '.join(c.tags)}]: service {svc_status} {shown}\n"
                         f"    wflint {w['status']} {w.get('code') or ''} {w.get('message') or ''}"[:900])
    for line in lines[:show]:
        print(line)
    if len(lines) > show:
        print(f"... and {len(lines) - show} more disagreements")
    if MESSAGES_SHOWN[0]:
        print(f"message mismatches ({len(mismatches)}):")
        for line in mismatches[:MESSAGES_SHOWN[0]]:
            print(line)
    return {"counts": counts, "verdicts": verdicts, "disagreements": len(lines)}


def write_verdicts(path: Path, release: str, verdicts: dict[str, Any]) -> None:
    """Merge this release's verdicts on the fixtures beside ``path`` (its folder) into it:
    {fixture: {release: {accepted, status[, detail]}}}."""
    try:
        prefix = path.resolve().parent.relative_to(REPO).as_posix() + "/"
    except ValueError:
        prefix = ""
    merged = json.loads(path.read_text()) if path.exists() else {}
    for case_id, verdict in verdicts.items():
        if case_id.startswith(prefix) and not case_id.startswith("gen-"):
            if "detail" in verdict:  # a 500's text names the workflow: keep the file stable
                verdict = {**verdict, "detail": re.sub(r"wpid_[0-9]+", "wpid_...", verdict["detail"])}
            merged.setdefault(case_id[len(prefix):], {})[release] = verdict
    path.write_text(json.dumps(merged, indent=1, sort_keys=True) + "\n")


MESSAGES_SHOWN = [0]
NO_MOCK = [False]


def mock_wanted() -> bool:
    try:
        import starlette  # noqa: F401  (the serve extra)
    except ImportError:
        return False
    return True


def pct(a: int, b: int) -> float:
    return 100.0 * a / b if b else 100.0


def summary(release: str, counts: Counter, seconds: float) -> str:
    n = counts["cases"]
    return (f"oracle {release}: {n} cases ({counts['generated']} generated, {counts['real']} real, {counts['fixtures']} fixtures; "
            f"{counts['accepted']} accepted by the service), {counts['config']} config-dependent set aside; "
            f"verdict agreement {pct(counts['verdict'], n):.2f}%, status agreement {pct(counts['status'], n):.2f}%, "
            f"message agreement (wflint serve's reply) {pct(counts['message'], counts['refusals']):.2f}% of "
            f"{counts['refusals']} 4xx refusals; {seconds:.0f} s\n"
            f"oracle {release}: verdict agreement on generated seeds {pct(counts['generated_verdict'], counts['generated']):.2f}% "
            f"of {counts['generated']}, on real seeds {pct(counts['real_verdict'], counts['real']):.2f}% of {counts['real']} "
            f"(fixtures {pct(counts['fixtures_verdict'], counts['fixtures']):.2f}% of {counts['fixtures']})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("release")
    ap.add_argument("--count", type=int, default=3000, help="generated cases (default 3000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fixtures", type=Path, action="append", default=[], help="another fixture folder")
    ap.add_argument("--no-repo-fixtures", action="store_true")
    ap.add_argument("--no-install", action="store_true")
    ap.add_argument("--show", type=int, default=50, help="disagreements to print")
    ap.add_argument("--verdicts", type=Path, help="write the service's verdict per fixture case (JSON)")
    ap.add_argument("--results", type=Path, help="write the service's raw reply per case (JSON lines)")
    ap.add_argument("--show-messages", type=int, default=0, help="message mismatches to print")
    ap.add_argument("--real-seeds", type=Path, metavar="GIT_DIR",
                    help="a clone of the service's repository: its own definitions, as they are and mutated")
    ap.add_argument("--real-count", type=int, default=1500, help="mutated cases made from the real seeds")
    ap.add_argument("--shape-count", type=int, default=500, help="shape-mutated cases made from generated seeds")
    ap.add_argument("--exports", type=int, default=0, metavar="N",
                    help="also the release's own stored form of every seed it saves (GET answers, exports), and N "
                         "of them edited by hand")
    ap.add_argument("--replay", type=Path, help="read the service's replies from a --results file instead of asking it")
    ap.add_argument("--no-mock", action="store_true", help="do not measure wflint serve's replies")
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    MESSAGES_SHOWN[0] = args.show_messages
    NO_MOCK[0] = args.no_mock
    folders = ([] if args.no_repo_fixtures else [REPO / "fixtures"]) + args.fixtures
    made = generated(args.seed, args.count)
    all_cases = fixture_cases(folders) + made + shapes.mutated(made, args.seed, args.shape_count, "genshape", "generated")
    if args.real_seeds:
        real = real_seeds.seeds(args.real_seeds)
        all_cases += real + shapes.mutated(real, args.seed, args.real_count, "realmut", "real")
    if args.exports and not args.replay:
        seeds = [c for c in all_cases if c.kind != "body" and ("real" in c.tags or "none" in c.tags or "fixture" in c.tags)]
        all_cases += real_exports(args.release, seeds, not args.no_install, args.seed, args.exports)
    if args.replay:
        service = {r["id"]: r for r in map(json.loads, args.replay.read_text(encoding="utf-8").splitlines())}
    else:
        service = run_service(args.release, all_cases, not args.no_install)
    if args.results:
        args.results.write_text("".join(json.dumps(r) + "\n" for r in service.values()))
    result = compare(args.release, all_cases, service, args.show)
    if args.verdicts:
        write_verdicts(args.verdicts, args.release, result["verdicts"])
    counts = result["counts"]
    print(summary(args.release, counts, time.monotonic() - t0))
    ok = pct(counts["verdict"], counts["cases"]) >= VERDICT_GOAL and pct(counts["status"], counts["cases"]) >= STATUS_GOAL
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

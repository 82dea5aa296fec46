"""Runs INSIDE a release's virtual environment (not wflint's): starts the real service app
in-process on an in-memory database and sends each case through the real update endpoint.

    python driver.py CASES.jsonl RESULTS.jsonl

Each input line is ``{"id": ..., "body": {...}}`` (the update body as sent), ``{"id": ...,
"raw": "..."}`` (the body's bytes, for a file that is not valid JSON) or ``{"id": ..., "body":
{...}, "create": true}`` (a create, whose reply is the stored form); each output line
``{"id": ..., "status": int, "body": <reply JSON or text>}``. This file imports only the
standard library and the release's own packages, because it runs with the release's Python.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("SKYVERN_TELEMETRY", "false")
os.environ.setdefault("LOG_LEVEL", "WARNING")
os.environ.setdefault("ANALYTICS_ID", "oracle")

RESEED_EVERY = 200
SEED_WORKFLOW = {
    "title": "oracle seed",
    "workflow_definition": {
        "parameters": [],
        "blocks": [{"block_type": "wait", "label": "seed_wait", "wait_sec": 1}],
    },
}


def _quiet() -> None:
    import logging

    logging.disable(logging.CRITICAL)
    try:
        import structlog

        structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.CRITICAL))
    except Exception:  # noqa: BLE001 - logging set-up must never stop the run
        pass


async def _client():
    """The release's app behind an httpx client, on an in-memory database."""
    from skyvern.library.embedded_server_factory import create_embedded_server

    try:
        return create_embedded_server(use_in_memory_db=True)
    except TypeError:  # older signature
        return create_embedded_server()


def _reply(resp) -> object:
    try:
        return resp.json()
    except ValueError:
        return resp.text


async def main(cases_path: str, out_path: str) -> int:
    _quiet()
    t0 = time.monotonic()
    client = await _client()
    r = await client.post("/v1/workflows", json={"json_definition": SEED_WORKFLOW})
    if r.status_code != 200:
        print(f"driver: cannot create the seed workflow: {r.status_code} {r.text[:500]}", file=sys.stderr)
        return 2
    wpid = r.json()["workflow_permanent_id"]
    started = time.monotonic() - t0
    n = 0
    with open(cases_path, encoding="utf-8") as src, open(out_path, "w", encoding="utf-8") as out:
        for line in src:
            case = json.loads(line)
            if n and n % RESEED_EVERY == 0:
                # every accepted update stores a version; a fresh workflow keeps updates fast
                r = await client.post("/v1/workflows", json={"json_definition": SEED_WORKFLOW})
                wpid = r.json()["workflow_permanent_id"]
            try:
                # a create's reply is the stored form the service answers (what GET returns and
                # what exports are made from); an update's is the verdict on the case
                path = "/v1/workflows" if case.get("create") else f"/v1/workflows/{wpid}"
                if "raw" in case:
                    resp = await client.post(path, content=case["raw"].encode("utf-8", "surrogatepass"),
                                             headers={"content-type": "application/json"})
                else:
                    resp = await client.post(path, json=case["body"])
                status, body = resp.status_code, _reply(resp)
            except Exception as exc:  # noqa: BLE001 - an exception escaping the app is a 500
                status, body = 500, f"{type(exc).__name__}: {exc}"
            out.write(json.dumps({"id": case["id"], "status": status, "body": body}, default=str) + "\n")
            n += 1
    print(f"driver: {n} cases, start-up {started:.1f}s, total {time.monotonic() - t0:.1f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1], sys.argv[2])))

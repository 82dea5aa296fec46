"""Create and update: the service's save-time pipeline (reference §6), stage by stage.

A5 body model (422 list form) → B1 path choice → B2 YAML parse, sanitizer and model (422
string form) → C service pre-checks → D–G definition checks → persistence. The C–G checks
are collected as ``ServiceVerdict``s, from this module (the ones that need the store or the
server's configuration) and from wflint's engine (the rest), and sorted in the service's
order: the first one is the answer. Every stage raises ``errors.Reply`` to answer early.
"""

from __future__ import annotations

import sqlite3
from typing import Any, TYPE_CHECKING

from pydantic import BaseModel, ValidationError

from ...core.diagnostics import ServiceVerdict
from ...workflow.sanitizer import sanitize
from ...checks.service_checks import normalize_credential_ids
from . import verdict as engine_bridge, models
from ..protocol.budget import check_budget
from ..protocol.errors import Reply, detail, missing_body, not_found, shape_l, shape_s
from ..protocol.limits import ServerLimits
from .webhook_url import webhook_url_error
from .versions import Submission, build_workflow, present, submission
from .yamlload import YamlLimitError, YamlSyntaxError, load_definition
from ..protocol.intake import MISSING

if TYPE_CHECKING:  # the state is the mock's wiring, above this stage: it is handed in
    from ..state import ServerState

NO_DEFINITION = "Invalid workflow definition. Workflow should be provided in either yaml or json format."


# --------------------------------------------------------------------------- stages A5 and B


def loop_depth(request: Any) -> int:
    """How deep ``loop_blocks`` nest in a request (plain data, any shape); iterative."""
    definition = request.get("workflow_definition") if isinstance(request, dict) else None
    blocks = definition.get("blocks") if isinstance(definition, dict) else None
    deepest, stack = 0, [(blocks, 0)]
    while stack:
        items, depth = stack.pop()
        if not isinstance(items, list):
            continue
        deepest = max(deepest, depth)
        stack.extend((b.get("loop_blocks"), depth + 1) for b in items if isinstance(b, dict))
    return deepest


def refuse_deep_loops(request: Any, limits: ServerLimits | None) -> None:
    limit = (limits or ServerLimits()).loop_depth
    if loop_depth(request) > limit:
        raise detail(422, f"Loops are nested deeper than {limit} levels (the mock's 'loop-depth' limit; "
                          "raise it with --limit loop-depth=N)")


def parse_envelope(body: Any, target_version: str | None = None, limits: ServerLimits | None = None) -> BaseModel:
    """A5: the body model, with a full validation of ``json_definition``."""
    if body is MISSING or body is None:
        raise missing_body()
    if isinstance(body, dict):
        refuse_deep_loops(body.get("json_definition"), limits)
    try:
        return models.validate_json_path(models.envelope_class(target_version), body)
    except ValidationError as exc:
        raise shape_l(exc) from None


def choose_definition(envelope: BaseModel, body: dict[str, Any], *, sanitize_yaml: bool = True,
                      target_version: str | None = None, limits: ServerLimits | None = None) -> tuple[dict[str, Any], str, BaseModel]:
    """B1/B2: (raw request the engine checks, "json"|"yaml", validated request model).
    Only the legacy raw-YAML update skips the sanitizer."""
    if envelope.yaml_definition:
        try:
            document = load_definition(envelope.yaml_definition, limits)
        except YamlSyntaxError as exc:
            raise detail(422, exc.detail) from None
        except YamlLimitError as exc:
            raise detail(422, str(exc)) from None
        if not isinstance(document, dict):
            # the service calls dict() on the document: a list of pairs becomes a mapping
            # (a two-key mapping item gives its two keys); anything else fails with a 500,
            # which the mock answers as a clear 422
            try:
                document = dict(document)
            except (TypeError, ValueError):
                raise detail(422, "yaml_definition must hold a mapping (a whole request with title and "
                                  "workflow_definition); the service fails with a 500 on anything else") from None
        refuse_deep_loops(document, limits)
        raw = sanitize(document).request if sanitize_yaml else document
        try:
            return raw, "yaml", models.validate_yaml_path(raw, target_version)
        except ValidationError as exc:
            raise shape_s(exc) from None
    if envelope.json_definition is not None:
        return body["json_definition"], "json", envelope.json_definition
    raise detail(422, NO_DEFINITION)


# --------------------------------------------------------------------------- stage C (server side)


def _credential_verdicts(state: ServerState, sub: Submission) -> list[ServiceVerdict]:
    """C4 step 7: every rotation and fallback id must name an existing credential. The mock
    knows only the ids given with ``--credential``."""
    out = []
    for i, p in enumerate(sub.data["workflow_definition"]["parameters"]):
        if p["parameter_type"] != "credential":
            continue
        _, ids, fallbacks = normalize_credential_ids(p["credential_id"], p.get("credential_ids"),
                                                     p.get("fallback_credential_ids"))
        unknown = [x for x in dict.fromkeys([*(ids or []), *(fallbacks or [])]) if x not in state.config.credentials]
        if unknown:
            message = f"Invalid credential ID: {', '.join(unknown)}. Failed to resolve to a valid credential."
            out.append(ServiceVerdict(400, message, ("C", 4, i, 7)))
    return out


def server_verdicts(state: ServerState, sub: Submission, previous: tuple[bool, Any] | None,
                    wpid: str | None) -> list[ServiceVerdict]:
    """The checks against the store and the server's settings. ``previous`` is, for an
    update, (whether the workflow exists, its stored ``webhook_callback_url``)."""
    data, out = sub.data, []
    browser_type = data.get("browser_type")
    if browser_type is not None and not state.config.browser_type_supported:
        out.append(ServiceVerdict(400, (
            f"browser_type={browser_type!r} is not supported by this runtime: it has no "
            "dynamic-browser capability to honor an explicit engine selection. Remove the "
            "browser_type setting or run on Skyvern Cloud."), ("C", 1)))
    if data.get("recording_id"):
        # the mock stores no browser recordings, so every id is unknown (as on create)
        out.append(ServiceVerdict(404, f"Browser recording {data['recording_id']} not found", ("C", 3)))
    out.extend(_credential_verdicts(state, sub))
    exists, stored_url = previous if previous is not None else (False, None)
    if wpid is not None and not exists:
        out.append(ServiceVerdict(404, not_found(wpid), ("C", 5)))
    url = data.get("webhook_callback_url")
    from ...model.releases import NEWEST, has_check

    checked = has_check("webhook_url", state.config.target_version or NEWEST)
    if checked and url and (not exists or url != stored_url):
        message = webhook_url_error(url, state.config.blocked_webhook_hosts)
        if message:
            out.append(ServiceVerdict(400, message, ("C", 6)))
    return out


def _browser_profile_key_error(sub: Submission) -> str | None:
    """The service answers 500 for a key that is not a valid Jinja template; the mock 422."""
    key = sub.data.get("browser_profile_key")
    if not isinstance(key, str) or not key.strip():
        return None
    import jinja2

    try:
        jinja2.Environment().parse(key.strip())
    except jinja2.TemplateSyntaxError as exc:
        return f"browser_profile_key is not a valid Jinja template: {exc.message} (line {exc.lineno})"
    except RecursionError:
        return "browser_profile_key is nested too deeply to be parsed as a Jinja template"
    return None


# --------------------------------------------------------------------------- the whole pipeline


def _server_error(target: str | None) -> str:
    """The mock's answer where the release fails the save with a 500."""
    return (f"release {target} fails this save with a 500 (Internal Server Error); "
            f"`wflint check --target-version {target}` says why")


def _first_rejection(verdicts: list[ServiceVerdict]) -> ServiceVerdict | None:
    return min(verdicts, key=lambda v: engine_bridge.order_key(v.order), default=None)


def save_workflow(
    state: ServerState,
    organization_id: str,
    body: Any,
    *,
    wpid: str | None = None,
    create: bool = False,
    folder_id: str | None = None,
    idempotent: bool = False,
    sanitize_yaml: bool = True,
) -> tuple[dict[str, Any], bool]:
    """Create (``create=True``; ``wpid`` given for idempotent or seeded creates) or update
    ``wpid``. Returns (reply object, whether a version was written)."""
    target = state.config.target_version
    envelope = parse_envelope(body, target, state.config.limits)
    if create and idempotent and wpid is not None:
        existing = state.store.first_version(organization_id, wpid)
        if existing is not None:  # returned as is, without looking at the new body (§9.3)
            return present(existing), False
    raw, mode, request = choose_definition(envelope, body, sanitize_yaml=sanitize_yaml, target_version=target,
                                           limits=state.config.limits)
    check_budget()  # between stages: a request answered 503 stops here
    sub = submission(request)
    previous = None if create else state.store.latest_webhook(organization_id, wpid or "")
    verdicts = server_verdicts(state, sub, previous, None if create else wpid)
    check_budget()
    engine = engine_bridge.evaluate(raw, mode, target)
    check_budget()
    verdicts += [v for v in engine.rejections if engine_bridge.stage_of(v) not in ("A", "B", "C1", "C3", "C5", "C6")]
    rejection = _first_rejection(verdicts)
    if rejection is not None:
        if rejection.status >= 500:
            # older releases fail some saves with a 500; the mock names the problem instead
            raise Reply(422, {"detail": rejection.detail or _server_error(target)})
        raise Reply(rejection.status, {"detail": rejection.detail})
    problem = _browser_profile_key_error(sub)
    if problem:
        raise detail(422, problem)
    if state.config.strict and engine.errors:
        raise Reply(422, engine_bridge.strict_body(engine.errors))
    if create:
        chosen_folder = folder_id if folder_id is not None else sub.data.get("folder_id")
        if chosen_folder is not None and chosen_folder not in state.config.folders:
            # the service fails with a database error (500); the mock names the problem
            raise detail(404, f"Folder not found. folder_id={chosen_folder}")
        wpid = wpid or state.new_id("wpid")
    else:
        chosen_folder = None
    return _persist(state, organization_id, sub, wpid, chosen_folder, only_if_new=create and idempotent)


def _persist(state: ServerState, organization_id: str, sub: Submission, wpid: str, folder_id: str | None,
             *, only_if_new: bool) -> tuple[dict[str, Any], bool]:
    def build(previous: dict[str, Any] | None, version: int) -> tuple[dict[str, Any], list[str]]:
        return build_workflow(sub, previous=previous, organization_id=organization_id, wpid=wpid,
                              version=version, workflow_id=state.new_id("w"), now=state.now(),
                              new_id=state.new_id, folder_id=folder_id)

    try:
        doc, created = state.store.write_version(organization_id, wpid, build, only_if_new=only_if_new)
    except sqlite3.IntegrityError:
        raise detail(409, f"Concurrent update detected for workflow {wpid}. Please retry.") from None
    return present(doc), created

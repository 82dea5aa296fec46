"""Unwrap the request forms a file can hold into workflow views.

A file is either a bare create/update request (``title``, ``workflow_definition`` ...) or an
update body (``json_definition`` and/or ``yaml_definition``). The service reads a bare YAML
file sent as ``yaml_definition`` through its sanitizer and a JSON one as ``json_definition``
(§2.1, §8); an embedded ``yaml_definition`` string is parsed in place, positions mapped back to
the outer file.
"""

from __future__ import annotations

from typing import Any

from . import view
from ..core.diagnostics import Diagnostic, ServiceVerdict, make
from ..document.nodes import Node
from ..document.limits import DEFAULT, Limits
from ..document.parse import parse_embedded
from .sanitizer import sanitize
from . import stored_form, wrapper
from .size_limits import first_excess
from ..document.source import SourceFile
from ..core.records import MutableRecord, assign, fresh, replace

ENVELOPE_KEYS = ("json_definition", "yaml_definition")


class Unwrapped(MutableRecord):
    def __init__(
        self,
        workflows: list[view.Workflow] = fresh(list),
        diagnostics: list[Diagnostic] = fresh(list),
        #: offsets of the keys of a stored form that only the service writes: the one WF012 note
        #: speaks for them, so the unknown-field findings they would each draw (WF104, or WF109 where a
        #: stored name is close to a request field, e.g. ``smtp_username``) are left out
        server_keys: frozenset[int] = frozenset(),
    ) -> None:
        assign(self, locals())

    def keep(self, d: Diagnostic) -> bool:
        """Whether a rule's finding on this file stays (see ``server_keys``)."""
        return not (d.code in ("WF104", "WF109") and d.service is None and d.offset in self.server_keys)


def is_envelope(root: Node) -> bool:
    return root.kind == "map" and any(k in ENVELOPE_KEYS for k in root.keys())


def workflow_for(source_path: str, mode: str, root: Node, *, schema_only: bool = False,
                 source: SourceFile | None = None, data: Any = None, release: str | None = None,
                 limits: Limits = DEFAULT) -> view.Workflow:
    data = root.to_data() if data is None else data
    if not isinstance(data, dict):
        data = {}
    if mode == "yaml":
        result = sanitize(data, share_unchanged=True)  # data is this call's own copy
        return view.build(source_path, mode, root, result.request, sanitized=result,
                          schema_only=schema_only, source=source, release=release, limits=limits)
    return view.build(source_path, mode, root, data, schema_only=schema_only, source=source,
                      release=release, limits=limits)


def _add_workflow(out: "Unwrapped", source_path: str, mode: str, root: Node, limits: Limits, **kw: Any) -> None:
    """The workflow of ``root``, or the WF007 finding of the first limit it exceeds."""
    source = kw.get("source")
    excess = first_excess(root, limits, source_path, None if source is None else len(source.text))
    if excess is not None:
        out.diagnostics.append(excess)
    else:
        out.workflows.append(workflow_for(source_path, mode, root, limits=limits, **kw))


#: The rules this stage reports, as (code, name, severity). Their documentation lives with the
#: rule modules, which sit above this stage; a test holds these equal to the registry's.
NOT_A_MAPPING = ("WF002", "not-a-mapping", "error")
EMPTY_REQUEST = ("WF010", "empty-request", "error")
BOTH_DEFINITIONS = ("WF011", "both-definitions", "warning")
WRONG_TYPE = ("WF102", "wrong-type", "error")
STORED_FORM = ("WF012", "stored-form", "warning")
MISSING_WRAPPER = ("WF013", "missing-wrapper", "error")
REPORTED_RULES = (NOT_A_MAPPING, EMPTY_REQUEST, BOTH_DEFINITIONS, WRONG_TYPE, STORED_FORM, MISSING_WRAPPER)


def _report(rule: tuple[str, str, str], message: str, node: Node, path: str, *, end: bool = True, **kw: Any) -> Diagnostic:
    """A diagnostic of ``rule`` spanning ``node`` (or at its start only)."""
    code, name, severity = rule
    return make(code, name, severity, message, node.start, node.end if end else node.start, path=path, **kw)


def yaml_root_verdict(root: Node | None) -> ServiceVerdict:
    """How the service answers a YAML document that is not a mapping: it calls ``dict()`` on
    it, which fails (500) unless every item is a pair (a two-key mapping gives its two keys,
    so ``- {title: .., workflow_definition: ..}`` reads as ``{"title": "workflow_definition"}``),
    and then the request model refuses what it got (422)."""
    try:
        dict(root.to_data() if root is not None else None)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return ServiceVerdict(500, None, ("B", 2))
    return ServiceVerdict(422, None, ("B", 2))


def with_yaml_root_verdict(d: Diagnostic, root: Node | None) -> Diagnostic:
    """A WF002 of a YAML document, with the service's answer attached."""
    if d.code != "WF002" or d.service is not None:
        return d
    return replace(d, service=yaml_root_verdict(root))


#: the service's reply when neither definition is usable (§6.3 B1): an empty yaml_definition
#: string, or a json_definition of null
NO_DEFINITION = ServiceVerdict(
    422, "Invalid workflow definition. Workflow should be provided in either yaml or json format.", ("B", 1))


def no_definition_verdict(release: str | None) -> ServiceVerdict:
    """``NO_DEFINITION`` as ``release`` answers it: before 1.0.47 the update route wrapped the
    422 it raised into a 500 ("Failed to update workflow with ID ... <HTTPException: 422: ...>")."""
    from ..model.releases import NEWEST, has_check

    if has_check("update_http_errors", release or NEWEST):
        return NO_DEFINITION
    return ServiceVerdict(500, None, ("B", 1))


def with_document_verdict(d: Diagnostic, root: Node | None, mode: str, text: str,
                          release: str | None = None) -> Diagnostic:
    """A parse finding of a whole file, with the service's answer to the file's bytes sent as
    ``mode`` attached: a syntax error or a document that is not a mapping is refused whatever
    the parser's wording. A YAML file goes as ``yaml_definition`` (an empty string counts as
    no definition; a parse error is 422; a non-mapping 500 or 422, ``yaml_root_verdict``); a
    JSON file as ``json_definition`` in the body (a syntax error makes the body malformed, 422;
    ``null`` is no definition; any other non-object fails the body model, 422)."""
    if d.service is not None or d.code not in ("WF001", "WF002"):
        return d
    if mode == "yaml":
        if d.code == "WF001":
            return replace(d, service=ServiceVerdict(422, None, ("B", 2)))
        return replace(d, service=no_definition_verdict(release) if text == "" else yaml_root_verdict(root))
    if d.code == "WF001" or root is None:
        return replace(d, service=ServiceVerdict(422, None, ("A", 2)))
    if root.kind == "scalar" and root.value is None:
        return replace(d, service=no_definition_verdict(release))
    return replace(d, service=ServiceVerdict(422, None, ("A", 5)))


def unwrap(source: SourceFile, root: Node, file_format: str, mode: str = "auto",
           release: str | None = None, limits: Limits = DEFAULT, *, stored: bool | None = None) -> Unwrapped:
    """The workflows to check in ``root``, and the envelope-level diagnostics. ``release``
    is the service release to judge by (default: the newest modelled one); ``stored``,
    whether ``root`` is a stored form, when the caller has asked already (recognition does)."""
    out = Unwrapped()
    if not is_envelope(root):
        chosen = file_format if mode == "auto" else mode
        missing = wrapper.find(root)
        if missing is not None:
            # refused as sent; checked as the request its author meant
            out.diagnostics.append(_missing_wrapper(missing, root, chosen, source.path))
            root, stored = missing.meant, None
        if stored_form.is_stored_form(root) if stored is None else stored:
            # checked as the service reads it (what it does not know dropped), not as converted
            _stored_note(root, source.path, out)
            out.server_keys = frozenset(stored_form.server_key_offsets(root))
        _add_workflow(out, source.path, chosen, root, limits, source=source, release=release)
        return out

    yaml_node = root.get("yaml_definition")
    json_node = root.get("json_definition")
    yaml_used = yaml_node is not None and yaml_node.is_str() and yaml_node.value != ""
    json_used = json_node is not None and json_node.kind == "map"

    if yaml_used:
        inner = parse_embedded(source, yaml_node, limits)
        out.diagnostics.extend(with_yaml_root_verdict(d, inner.root) for d in inner.diagnostics)
        if inner.root is not None and inner.root.kind == "map":
            _add_workflow(out, source.path, "yaml", inner.root, limits, source=inner.source or source, release=release)
        elif inner.root is not None and not any(d.code == "WF002" for d in inner.diagnostics):
            out.diagnostics.append(_report(
                NOT_A_MAPPING, "yaml_definition must hold a mapping (a whole request with title and "
                "workflow_definition); the service fails with a 500 on anything else",
                yaml_node, source.path, service=ServiceVerdict(500, None, ("B", 2))))
    if json_used:
        # validated during body parsing even when yaml_definition wins (§2.1)
        _add_workflow(out, source.path, "json", json_node, limits, schema_only=yaml_used, source=source,
                      release=release)
        if yaml_used:
            out.diagnostics.append(_report(
                BOTH_DEFINITIONS, "both json_definition and yaml_definition are set: the service uses "
                "yaml_definition and ignores json_definition (which must still be valid)",
                root.key_node("json_definition") or json_node, source.path,
                help="remove one of the two definitions"))
    if not yaml_used and not json_used:
        out.diagnostics.append(_report(
            EMPTY_REQUEST, "the update body holds neither a json_definition object nor a non-empty yaml_definition string",
            root, source.path, end=False, service=no_definition_verdict(release)))
    for key, want in (("json_definition", "an object (the request)"), ("yaml_definition", "a string holding YAML")):
        value = root.get(key)
        if value is None or (value.kind == "scalar" and value.value is None):
            continue
        if value.kind != ("map" if key == "json_definition" else "scalar") or (key == "yaml_definition" and not value.is_str()):
            out.diagnostics.append(_report(WRONG_TYPE, f"'{key}' must be {want} or null", value, source.path,
                                           service=ServiceVerdict(422, None, ("A", 5))))
    return out


def _stored_note(root: Node, path: str, out: Unwrapped) -> None:
    """The one WF012 note of a stored form. It carries no status: whether the service saves
    the file as it is sent is the other findings' to say (output parameters, a for_loop whose
    source is the stored ``loop_over`` object ...), as for any request."""
    stored = root.to_data()
    dropped = stored_form.server_field_count(stored, stored_form.to_request(stored))
    code, name, _ = STORED_FORM
    out.diagnostics.append(make(
        code, name, "warning",
        f"this file holds the workflow as the service stores and returns it (a GET/list answer or an export of "
        f"it: {dropped} server-written value{'s' if dropped != 1 else ''}), not a request: the service reads it "
        "as a request, dropping what a request does not have, and the other findings say what it answers",
        root.start, root.start, path=path, help="run `wflint fix` to convert it to the request it came from"))


def _missing_wrapper(missing: wrapper.Wrapper, root: Node, mode: str, path: str) -> Diagnostic:
    """The WF013 finding of a request without its ``workflow_definition`` wrapper."""
    if mode == "yaml":
        verdict = ServiceVerdict(422, wrapper.yaml_detail(missing, root), ("B", 2))
    else:
        verdict = ServiceVerdict(422, None, ("A", 5))
    at = missing.key if missing.key is not None else root
    return _report(MISSING_WRAPPER, wrapper.message(missing), at, path, end=missing.key is not None,
                   service=verdict, help=wrapper.help_text(missing))

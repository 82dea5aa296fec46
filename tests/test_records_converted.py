"""Every class the one-file check used to make as a dataclass is a record now
(``wflint.core.records``), with that dataclass's behaviour: its fields, equality, hashing, repr,
frozenness, pickling and ``replace``, held against a dataclass twin made from the old
declaration (fields and options listed here) and on real instances from checking fixtures."""

from __future__ import annotations

import pickle
from dataclasses import FrozenInstanceError, field
from typing import Any

import pytest

from wflint.core.records import MutableRecord, Record, field_names, replace


#: every class the one-file check made as a dataclass, with that dataclass's fields in order and
#: its flavour: "frozen" (frozen=True), "mutable" (eq by fields, unhashable), "identity" (eq=False;
#: frozen too for Release); "slots" when it was slots=True; the fields it had with compare=False
CONVERTED = [
    ("wflint.project.config", "Config", "mutable", "select ignore fail_level mode exclude include per_file_ignores "
     "respect_gitignore severity limits source target_version docs_url origins skip_non_workflows pin_problem", ""),
    ("wflint.core.diagnostics", "Pos", "frozen slots", "line col offset", ""),
    ("wflint.core.diagnostics", "ServiceVerdict", "frozen slots", "status detail order", ""),
    ("wflint.core.diagnostics", "Diagnostic", "frozen slots", "path line column end_line end_column code name severity "
     "message help service offset related", "offset"),
    ("wflint.document.limits", "Limits", "frozen slots", "file_bytes depth nodes alias_nodes alias_chars string_chars "
     "blocks parameters loop_depth template_depth code_depth", ""),
    ("wflint.rules", "Rule", "frozen", "code name severity doc check module", ""),
    ("wflint.model.release_view", "Release", "frozen identity", "version BLOCK_TYPES PARAMETER_TYPES OBJECTS "
     "COMMON_BLOCK_FIELDS REQUEST DEFINITION ENVELOPE BLOCK_TYPE PARAMETER_TYPE", ""),
    ("wflint.checks.schema_findings", "Finding", "frozen", "code path message help key", ""),
    ("wflint.checks.template_analysis", "SyntaxProblem", "frozen slots", "message lineno offset exact limit", ""),
    ("wflint.checks.template_analysis", "Analysis", "frozen slots", "error reads tags", ""),
    ("wflint.checks.template_analysis", "Read", "frozen slots", "name offset attrs", ""),
    ("wflint.rules.unknown_keys", "UnknownKey", "frozen", "path key obj kind detail", ""),
    ("wflint.workflow.routing", "Route", "frozen", "edges start unreachable dangling cyclic", ""),
    ("wflint.workflow.routing", "ScopeBlock", "frozen", "label next conditional branches ref", "ref"),
    ("wflint.workflow.routing", "Finding", "frozen", "kind loop labels message edge", ""),
    ("wflint.workflow.routing", "Edge", "frozen", "source target via", ""),
    ("wflint.workflow.routing", "Scope", "frozen", "loop blocks", ""),
    ("wflint.report.statistics", "RuleCount", "frozen", "code name severity count", ""),
    ("wflint.workflow.wrapper", "Wrapper", "frozen", "layout key meant has_title", ""),
    ("wflint.project.discovery", "Candidate", "frozen", "path shown explicit declared", ""),
    ("wflint.project.discovery", "Problem", "frozen", "shown message", ""),
    ("wflint.project.discovery", "Discovery", "mutable", "candidates skipped problems", ""),
    ("wflint.report.color", "Style", "frozen", "enabled", ""),
    ("wflint.workflow.sanitizer", "Sanitized", "mutable", "request label_map key_map", ""),
    ("wflint.workflow.unwrap", "Unwrapped", "mutable", "workflows diagnostics server_keys", ""),
    ("wflint.workflow.view", "Workflow", "identity", "path mode root request sanitized schema_only params blocks "
     "cache source release limits", ""),
    ("wflint.workflow.view", "Block", "identity", "path data tag tag_guessed parent children", ""),
    ("wflint.workflow.view", "Param", "identity", "index path data", ""),
    ("wflint.workflow.recognize", "Recognition", "frozen", "kind reason", ""),
    ("wflint.report.suppressions", "Suppression", "mutable", "line col offset target selectors used", ""),
    ("wflint.api", "Report", "mutable", "diagnostics checked skipped reasons", ""),
    ("wflint.api", "FileResult", "mutable", "diagnostics reason read", ""),
    ("wflint.api", "Evaluation", "mutable", "workflow diagnostics", ""),
    ("wflint.api", "Inspection", "mutable", "path workflows diagnostics", ""),
    ("wflint.document.parse_result", "ParseResult", "mutable", "root diagnostics format source", ""),
]
_IDS = [f"{module.rsplit('.', 1)[-1]}.{name}" for module, name, *_ in CONVERTED]


def _class(module: str, name: str) -> type:
    import importlib

    return getattr(importlib.import_module(module), name)


def _twin(cls: type, flavour: str, fields: list[str], uncompared: list[str]) -> type:
    """The dataclass ``cls`` was (same name, fields, options), made here to compare against."""
    from dataclasses import make_dataclass

    return make_dataclass(cls.__name__, [(f, Any, field(compare=f not in uncompared)) for f in fields],
                          frozen="frozen" in flavour, eq="identity" not in flavour, slots="slots" in flavour)


@pytest.mark.parametrize("module, name, flavour, fields, uncompared", CONVERTED, ids=_IDS)
def test_each_converted_class_keeps_its_dataclass_behaviour(module, name, flavour, fields, uncompared):
    cls, fields, uncompared = _class(module, name), fields.split(), uncompared.split()
    assert not hasattr(cls, "__dataclass_fields__") and issubclass(cls, (Record, MutableRecord))
    assert field_names(cls) == tuple(fields)
    twin = _twin(cls, flavour, fields, uncompared)
    # one distinct value per field, given by keyword: a store spelt out in __init__ (Diagnostic,
    # Pos, ScopeBlock, Edge, Block, Param) that named the wrong field would show here
    values = {f: f"<{f}>" for f in fields}
    record, copy_of_twin = cls(**values), twin(**values)
    assert all(getattr(record, f) is values[f] for f in fields)
    assert repr(record) == repr(copy_of_twin)
    assert ("__dict__" in dir(record)) == ("slots" not in flavour)
    if "identity" in flavour:
        assert record != cls(**values) and cls.__eq__ is object.__eq__ and cls.__hash__ is object.__hash__
    else:
        for f in fields:  # equal unless a compared field differs, as the twin is
            changed = dict(values, **{f: "<other>"})
            assert (record == cls(**changed)) == (copy_of_twin == twin(**changed)) == (f in uncompared), f
    if flavour == "mutable":
        assert cls.__hash__ is None
        record.__setattr__(fields[0], "changed")
        assert getattr(record, fields[0]) == "changed"
    elif "frozen" in flavour:
        if "identity" not in flavour:
            assert hash(record) == hash(copy_of_twin)
        with pytest.raises(FrozenInstanceError):
            setattr(record, fields[0], "changed")
        with pytest.raises(FrozenInstanceError):
            delattr(record, fields[0])
    else:
        record.__setattr__(fields[0], "changed")
        assert getattr(record, fields[0]) == "changed"


def _records_within(value: Any, found: dict[type, list[Any]], seen: set[int]) -> None:
    """Every record reachable from ``value`` through records, containers and view caches (a
    release's model is not entered: it is made of declaration types, tested in test_model)."""
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, (Record, MutableRecord)):
        found.setdefault(type(value), []).append(value)
        if type(value).__name__ == "Release":
            return
        inner = [getattr(value, f) for f in field_names(value)]
    elif isinstance(value, dict):
        inner = list(value.values())
    elif isinstance(value, (list, tuple, set, frozenset)):
        inner = list(value)
    else:
        return
    for item in inner:
        _records_within(item, found, seen)


@pytest.fixture(scope="module")
def real_records(tmp_path_factory) -> dict[type, list[Any]]:
    """Instances of every converted class, made by checking fixtures as the command line does."""
    from pathlib import Path

    from wflint import api
    from wflint.project.config import Config, from_table
    from wflint.project.discovery import discover
    from wflint.document.parse import parse
    from wflint.document.source import decode
    from wflint.report import color, statistics, suppressions
    from wflint.rules import registry
    from wflint.workflow import routing, unwrap, wrapper
    from wflint.workflow.recognize import recognize
    from wflint.checks.template_analysis import analyze

    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    broken = tmp_path_factory.mktemp("broken")
    (broken / "gone.yaml").symlink_to(broken / "nowhere.yaml")  # a walk reports it (a discovery Problem)
    config = from_table({"select": ["ALL"], "severity": {"WF213": "error"}, "limits": {"blocks": 900}}, "test")
    report = api.check_paths([fixtures / "invalid", fixtures / "valid"], config, jobs=1)
    found: dict[type, list[Any]] = {}
    seen: set[int] = set()
    roots: list[Any] = [config, Config(), report, color.Style(True), statistics.count_by_rule(report.diagnostics),
                        registry()["WF104"], discover([fixtures / "valid", broken], config),
                        analyze("{{ extract_output.price }} {% if %}"), analyze("{{ a.b }} {{ c }}")]
    for path in sorted((fixtures / "invalid").iterdir()) + sorted((fixtures / "valid").iterdir()):
        if path.suffix not in (".yaml", ".json"):
            continue
        data = path.read_bytes()
        inspection = api.inspect_bytes(data, str(path), config)
        roots += [inspection, api.check_stdin(data, str(path), config)]
        source, _ = decode(data, str(path))
        parsed = parse(source)
        roots += [parsed, recognize(parsed.root, source.text), source.pos(len(source.text) // 2)]
        if parsed.root is not None:
            roots.append(unwrap.unwrap(source, parsed.root, parsed.format))
        for wf in inspection.workflows:
            for loop, members in routing.scopes(wf):  # as workflow_findings and wflint graph make them
                blocks = tuple(routing.scope_block(b) for b in members)
                roots += [routing.Scope(None if loop is None else routing.scope_block(loop), blocks),
                          routing.route(blocks, wf.version >= 2, wf.finally_label if loop is None else None)]
            roots.append(routing.workflow_findings(wf))
    flat = b'{"title": "t", "blocks": [{"block_type": "wait", "label": "w", "wait_sec": 1}]}'
    source, _ = decode(flat, "flat.json")
    roots.append(wrapper.find(parse(source).root))
    source, _ = decode(b"title: t  # wflint: disable=WF104\n", "s.yaml")
    roots.append(suppressions.find(source))
    roots.append(api.evaluate({"title": "t", "workflow_definition": {"parameters": [], "blocks": []}}))
    for root in roots:
        _records_within(root, found, seen)
    return found


def _hash_or_none(record: Any) -> int | None:
    try:
        return hash(record)
    except TypeError:  # a field holds a dict (a model's ``extra``): unhashable, as the dataclass was
        return None


#: classes whose real instances hold what does not pickle (a parsed Node's position function,
#: a rule's module), as the dataclasses' did; the rest must pickle
UNPICKLABLE = {"Rule", "Wrapper", "Unwrapped", "Workflow", "Inspection", "ParseResult"}


@pytest.mark.parametrize("module, name, flavour, fields, uncompared", CONVERTED, ids=_IDS)
def test_real_instances_compare_show_pickle_and_replace_as_before(real_records, module, name, flavour, fields,
                                                                   uncompared):
    cls = _class(module, name)
    instances = real_records.get(cls, [])
    assert instances, f"checking the fixtures made no {name}"
    twin = _twin(cls, flavour, fields.split(), uncompared.split())
    pickled = 0
    for record in instances[:40]:
        values = [getattr(record, f) for f in field_names(record)]
        if name not in ("Block", "Workflow", "Inspection", "Evaluation", "Unwrapped"):
            # the twin's repr of the same values (a block's repr meets itself through its parent's
            # children, which a twin holding the real blocks would not: the base tests hold that)
            assert repr(record) == repr(twin(*values))
        same = replace(record)  # a new record, every field the same object
        assert type(same) is cls and same is not record
        assert all(getattr(same, f) is v for f, v in zip(field_names(record), values))
        if "identity" not in flavour:
            assert same == record and not (same != record) and _hash_or_none(same) == _hash_or_none(record)
        try:
            values_back = pickle.loads(pickle.dumps(values))
        except (AttributeError, TypeError, pickle.PicklingError):
            assert name in UNPICKLABLE
            continue
        back = pickle.loads(pickle.dumps(record))
        pickled += 1
        assert type(back) is cls
        if name != "Evaluation":  # its view holds the release model, whose frozensets may unpickle reordered
            assert repr(back) == repr(record)
        if "identity" not in flavour:  # equal again as the twin is (a view inside compares by identity)
            assert (back == record) == (twin(*values_back) == twin(*values))
            assert _hash_or_none(back) == _hash_or_none(record)
    assert pickled or name in UNPICKLABLE


def test_a_parallel_check_brings_its_results_back_across_processes():
    # FileResult, Diagnostic, ServiceVerdict and Candidate are pickled between the workers and
    # the parent (a fork pool): the parallel report equals the serial one
    from pathlib import Path

    from wflint import api
    from wflint.project.config import Config

    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    paths = [fixtures / "invalid", fixtures / "valid", fixtures / "rules"]
    serial = api.check_paths(paths, Config(), jobs=1)
    assert serial.files_checked >= api.PARALLEL_THRESHOLD and any(d.service for d in serial.diagnostics)
    assert api.check_paths(paths, Config(), jobs=2) == serial


@pytest.mark.parametrize("folder", ["valid", "invalid"])
def test_checking_one_file_makes_no_dataclass(folder):
    # each dataclass made cost about 0.55 ms of start-up; the check does not even import the module
    import subprocess
    import sys
    from pathlib import Path

    code = ("import sys\nfrom wflint.entry import main\nsys.argv = ['wflint', 'check', sys.argv[1]]\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\nprint('dataclasses' in sys.modules)\n")
    target = next(p for p in sorted((Path(__file__).resolve().parents[1] / "fixtures" / folder).iterdir())
                  if p.suffix == ".yaml")
    out = subprocess.run([sys.executable, "-c", code, str(target)], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[-1] == "False", out.stdout + out.stderr

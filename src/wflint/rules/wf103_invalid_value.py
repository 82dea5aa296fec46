"""A value is not one of the allowed values.

**What it checks.** Enumerations: ``block_type``, ``parameter_type``, ``proxy_location``,
``status``, ``engine``, ``workflow_parameter_type``, ``file_type``, ``format``,
``storage_type``, ``download_target``, ``criteria_type`` and the rest. Matching is exact and
case-sensitive, as in the service. The closest valid value is suggested.

Two accepted values are warned about: a ``proxy_location`` object that is not a valid
GeoTarget (the service stores null: the run gets no proxy), and ``engine: ui-tars``, which
servers without that engine refuse with 400.

**Why.** The service answers 422 listing the allowed values.

**Bad**::

    proxy_location: residential

**Good**::

    proxy_location: RESIDENTIAL
"""

import functools
import sys

from ..checks.service_checks import BROWSER_TYPES, browser_type_error, geo_target_country_error, timezone_error
from .model_findings import yield_findings
from .verdicts import model_verdict
from .wording import suggest

CODE = "WF103"
NAME = "invalid-value"
SEVERITY = "error"
STAGE = "model"


def check(wf):
    rule = sys.modules[__name__]
    for d in yield_findings(wf, rule):
        yield _with_release_note(wf, d)
    # two values the service checks with its own rules rather than an enumeration
    browser_type = wf.request.get("browser_type")
    if isinstance(browser_type, str) and browser_type_error(browser_type) and wf.release.has_check("browser_type_values"):
        yield wf.diag(rule, f"{browser_type!r} is not a valid browser_type; allowed: {', '.join(BROWSER_TYPES)}",
                      ("browser_type",), help=suggest(browser_type, BROWSER_TYPES) or "remove browser_type",
                      service=model_verdict(wf, ("browser_type",)))
    for b in wf.all_blocks:
        if b.data.get("engine") == "ui-tars":
            # a valid value that depends on the deployment (§6.8 G6): worth knowing before a deploy
            yield wf.diag(rule, f"{b.tag} block '{b.label}' uses the ui-tars engine: servers where it is not enabled "
                          "refuse the save (400 \"Block ... uses the ui-tars engine, which is not enabled on this server\")",
                          b.path + ("engine",), severity="warning",
                          help="check that your server enables ui-tars, or remove engine to use the default")
    proxy = wf.request.get("proxy_location")
    if isinstance(proxy, dict) and not _valid_geo_target(proxy):
        # accepted, but the service stores null: the run gets no proxy at all
        yield wf.diag(rule, "proxy_location is an object but not a valid GeoTarget (country: a supported two-letter "
                      "code; subdivision up to 10 and city up to 100 characters); the service accepts it and stores "
                      "null, so the run uses no proxy", ("proxy_location",), severity="warning",
                      help='write e.g. {country: US, subdivision: CA} or a proxy name such as RESIDENTIAL')
    settings = (wf.definition or {}).get("browser_settings")
    zone = settings.get("timezone_id") if isinstance(settings, dict) else None
    # the zone database is listed (a directory walk) only for a name that looks wrong
    if (isinstance(zone, str) and wf.release.has_check("browser_settings_timezone") and timezone_error(zone)
            and _have_zone_data()):
        path = ("workflow_definition", "browser_settings", "timezone_id")
        yield wf.diag(rule, f"timezone_id {zone!r} is not an IANA time-zone name (UTC offsets are refused)", path,
                      help="use a name such as 'Europe/Berlin' or 'America/New_York'", service=model_verdict(wf, path))


def _value_at(data, path):
    for part in path:
        if isinstance(data, dict) and isinstance(part, str):
            data = data.get(part)
        elif isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data):
            data = data[part]
        else:
            return None
    return data


def _with_release_note(wf, d):
    """Say when a later modelled release accepts the value, or that none does."""
    from ..model import NEWEST_RELEASE, types as t
    from ..core.records import replace
    from .versions import newest_hint, tag_from_later_release, value_from_later_release

    path = _finding_path(wf, d)
    if not path or not isinstance(path[-1], str):
        return d
    key, value = path[-1], _value_at(wf.request, path)
    if not isinstance(value, str):
        return d
    rel = wf.release
    if key in ("block_type", "parameter_type"):
        what = "block type" if key == "block_type" else "parameter type"
        later = tag_from_later_release(rel, "block" if key == "block_type" else "parameter", value)
    else:
        enum = next((f.type for m in NEWEST_RELEASE.OBJECTS.values()
                     for f in (*m.fields, *NEWEST_RELEASE.COMMON_BLOCK_FIELDS)
                     if f.name == key and isinstance(f.type, t.Enum)), None)
        if enum is None:
            return d
        what = f"{key} value"
        later = value_from_later_release(rel, enum.name, value)
    if later is not None:
        return replace(d, message=f"{d.message}; '{value}' is {'an' if what[0] in 'aeiou' else 'a'} {what} from {later}, "
                       f"your target is {rel.version}",
                       help=f"set target-version to {later} if your service runs it")
    if d.help is None:
        return replace(d, help=newest_hint(rel, what))
    return d


def _finding_path(wf, d):
    from .model_findings import schema_findings

    for f in schema_findings(wf):
        if f.code == CODE and d.message.startswith(f.message):
            return f.path
    return None


def _valid_geo_target(value):
    from ..checks.schema_findings import validator

    country = value.get("country")
    return validator("GeoTarget").is_valid(value) and geo_target_country_error(str(country).upper()) is None


@functools.lru_cache(maxsize=1)
def _have_zone_data():
    """Without a time-zone database every name would look invalid: then say nothing."""
    import zoneinfo

    return bool(zoneinfo.available_timezones())

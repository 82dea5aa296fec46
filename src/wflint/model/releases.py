"""The service releases wflint models, and how one declaration describes all of them.

Every block type, parameter type, field, enumeration value and save-time check may carry a
``since`` mark (the first modelled release that has it) and an ``until`` mark (the first
modelled release that no longer has it); no mark means "every modelled release". A field
whose shape changed (required in one release, optional in the next) is declared twice with
disjoint spans. ``view.release(X)`` derives the model of one release from those marks, and
everything downstream (schemas, validators, known keys, the rules' checks, the mock server)
reads that view.

Taking in a new release is a local change: add it to ``RELEASES`` and mark what it added,
removed or changed (``docs/new-service-release.md`` gives the steps; the model audit lists
the differences).
"""

from __future__ import annotations

#: the modelled releases, oldest first; the last one is the default target
RELEASES: tuple[str, ...] = (
    "1.0.40", "1.0.41", "1.0.42", "1.0.43", "1.0.44", "1.0.45", "1.0.46", "1.0.47", "1.0.48", "1.0.55", "1.0.56",
)
NEWEST: str = RELEASES[-1]

#: the service's save-time checks that not every modelled release runs, by the name the
#: rules and the mock server ask for: (since, until) as for fields, and what the check does in
#: words (``docs/releases.md`` lists them per release)
CHECKS: dict[str, tuple[str | None, str | None, str]] = {
    "code_parameters_key": ("1.0.42", None,
                            "a code block's key `parameters` is refused (422); before, it was dropped"),
    "version_inference": ("1.0.44", None,
                          "`version` may be null and is inferred (2 with top-level routing); version 1 with "
                          "routing is refused (422); before, `version` defaulted to 1, null was refused and a "
                          "version-1 definition was never graph-checked"),
    "loop_merge_edges": ("1.0.44", None,
                         "a loop body joins a conditional's branch ends to its merge point, as the top level "
                         "does; before, such a loop body was \"disconnected\" (422)"),
    "bitwarden_item_skips_url": ("1.0.44", None,
                                 "a Bitwarden login with `bitwarden_item_id` needs no `url_parameter_key`; "
                                 "before, any `bitwarden_collection_id` without one was refused (400)"),
    "send_email_smtp_keys_422": ("1.0.47", None,
                                 "send_email naming an undefined SMTP key is a 422; before, the save failed (500)"),
    "update_http_errors": ("1.0.47", None,
                           "an update body without a definition is refused with 422; before, the route "
                           "wrapped it into a 500"),
    "code_block_forbidden_keys": ("1.0.55", None,
                                  "a code block refuses the key `error_code` and limits `error_code_mapping` (422)"),
    "code_jinja": ("1.0.55", None, "a code block's code is parsed as Jinja at save time (422)"),
    "code_steps_rebuilt": ("1.0.55", None,
                           "code steps are ignored and rebuilt from the code; before, each step's "
                           "`action_type` was validated (422)"),
    "wait_sec_422": ("1.0.55", None, "`wait_sec` out of range is a 422; before, the save failed (500)"),
    "d8_loop_source": ("1.0.55", None,
                       "an undefined `loop_over_parameter_key` is a 422 listing it; before, the save failed (500)"),
    "webhook_url": ("1.0.55", None,
                    "`webhook_callback_url` is checked as a URL, AWS load-balancer hosts refused (400); "
                    "before, any text was stored"),
    "browser_type_values": ("1.0.55", None, "`browser_type` must be msedge, chrome or stealth-chromium (422)"),
    "send_email_transport": ("1.0.56", None,
                             "send_email's transport rules: gmail vs custom SMTP, sender unless gmail, cc/bcc "
                             "only with gmail (422)"),
    "browser_settings_timezone": ("1.0.56", None, "`browser_settings.timezone_id` must be an IANA name (422)"),
}


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


class UnknownRelease(ValueError):
    """A target version wflint does not model."""


def normalize(version: str) -> str:
    """A release as teams write it, in the form ``RELEASES`` holds: surrounding blanks and a
    leading ``v`` (``v1.0.44``, as a git tag names it) dropped."""
    text = version.strip()
    if text[:1] in ("v", "V") and text[1:2].isdigit():
        text = text[1:]
    return text


def check_release(version: str) -> str:
    """The modelled release ``version`` names (``1.0.44`` or ``v1.0.44``); otherwise an error
    that lists the modelled ones."""
    name = normalize(version)
    if name in RELEASES:
        return name
    raise UnknownRelease(
        f"wflint does not model release {version!r}; modelled releases: {', '.join(RELEASES)}"
    )


def within(since: str | None, until: str | None, version: str) -> bool:
    """Does the span [since, until) contain ``version``?"""
    key = version_key(version)
    if since is not None and key < version_key(since):
        return False
    return until is None or key < version_key(until)


def first_release_with(spans: list[tuple[str | None, str | None]], after: str) -> str | None:
    """The first modelled release later than ``after`` inside any of ``spans``, or None."""
    for r in RELEASES:
        if version_key(r) > version_key(after) and any(within(s, u, r) for s, u in spans):
            return r
    return None


def releases_within(since: str | None, until: str | None) -> list[str]:
    return [r for r in RELEASES if within(since, until, r)]


def has_check(name: str, version: str) -> bool:
    """Does ``version`` run the save-time check ``name``? (Unlisted checks run in all.)"""
    since, until, _ = CHECKS.get(name, (None, None, ""))
    return within(since, until, version)

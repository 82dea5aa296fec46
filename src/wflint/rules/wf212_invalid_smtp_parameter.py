"""A ``send_email`` SMTP secret key is undefined, or not an ``aws_secret`` parameter.

**What it checks.** A ``send_email`` block that sends through the platform's SMTP (no
``custom_smtp_host``, no ``transport: gmail``) reads four secrets: ``smtp_host``,
``smtp_port``, ``smtp_username`` and ``smtp_password``, or the keys named by the
``smtp_*_secret_parameter_key`` overrides. Every override must name a declared parameter, and
every declared parameter under one of those keys must be an ``aws_secret`` parameter.
(Undeclared default keys are fine: the service adds them itself.)

**Why.** The service refuses the save (422): "Send email block 'mail' references undefined
parameter(s): ..." or "... needs parameter 'smtp_host' to be an AWS secret parameter". The
YAML sanitizer does not rewrite the override keys.

**Bad**::

    - block_type: send_email
      label: mail
      smtp_host_secret_parameter_key: my_smtp_host
      ...

**Good**::

    parameters:
      - {parameter_type: aws_secret, key: my_smtp_host, aws_key: SMTP_HOST}
"""

import sys

from .verdicts import e_order, service_verdict

CODE = "WF212"
NAME = "invalid-smtp-parameter"
SEVERITY = "error"

SLOTS = ("smtp_host", "smtp_port", "smtp_username", "smtp_password")


def _blank(v):
    return v is None or (isinstance(v, str) and not v.strip())


def check(wf):
    rule = sys.modules[__name__]
    model = wf.release.BLOCK_TYPES.get("send_email")
    fields = set(model.field_names) if model is not None else set()
    for b in wf.blocks_of("send_email"):
        # a key the release does not have is dropped before the SMTP slots are read
        if ("custom_smtp_host" in fields and not _blank(b.data.get("custom_smtp_host"))) \
                or ("transport" in fields and b.data.get("transport") == "gmail"):
            continue
        label = b.label
        overrides = {s: b.data.get(f"{s}_secret_parameter_key") for s in SLOTS}
        undefined = sorted({k for k in overrides.values() if isinstance(k, str) and k and k not in wf.param_keys})
        if undefined:
            detail = (
                f"Send email block '{label}' references undefined parameter(s): {', '.join(undefined)}. "
                "Declare these parameters in the workflow before using them."
            )
            for slot, key in overrides.items():
                if key in undefined:
                    yield wf.diag(
                        rule,
                        f"{slot}_secret_parameter_key '{key}' of send_email '{label}' names no parameter; the service rejects it",
                        b.path + (f"{slot}_secret_parameter_key",),
                        help=f"declare an aws_secret parameter '{key}'",
                        # before 1.0.47 the conversion looked the key up and the save failed (500)
                        service=(service_verdict(422, detail, "E", e_order(wf, b))
                                 if wf.release.has_check("send_email_smtp_keys_422")
                                 else service_verdict(500, None, "E", e_order(wf, b))),
                    )
            continue
        for slot, key in overrides.items():
            name = key if isinstance(key, str) and key else slot
            params = wf.param_keys.get(name)
            if not params or params[0].type == "aws_secret":
                continue
            ptype = params[0].type
            detail = (
                f"Send email block '{label}' needs parameter '{name}' to be an AWS secret parameter, but the "
                f"workflow declares it as {ptype}. Rename that parameter or send via custom_smtp_host."
            )
            where = b.path + (f"{slot}_secret_parameter_key",) if key else params[0].path + ("parameter_type",)
            yield wf.diag(
                rule,
                f"send_email '{label}' reads its SMTP {slot[5:]} from parameter '{name}', which is a {ptype} "
                "parameter, not an aws_secret; the service rejects it",
                where,
                help="declare it as an aws_secret parameter, rename it, or use custom_smtp_host",
                service=service_verdict(422, detail, "E", e_order(wf, b)),
            )
            break

"""A value is not one of the allowed values.

**What it checks.** Enumerations: ``block_type``, ``parameter_type``, ``proxy_location``,
``status``, ``engine``, ``workflow_parameter_type``, ``file_type``, ``format``,
``storage_type``, ``download_target``, ``criteria_type`` and the rest. Matching is exact and
case-sensitive, as in the service. The closest valid value is suggested.

**Why.** The service answers 422 listing the allowed values.

**Bad**::

    proxy_location: residential

**Good**::

    proxy_location: RESIDENTIAL
"""

import sys

from ._common import yield_findings

CODE = "WF103"
NAME = "invalid-value"
SEVERITY = "error"
STAGE = "model"


def check(wf):
    yield from yield_findings(wf, sys.modules[__name__])

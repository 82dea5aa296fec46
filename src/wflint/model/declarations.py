"""Every declaration of the model, over all modelled releases (with their since/until marks).

Consumers read a release's view (``release_view.release``) instead; this module only gathers
the declarations by tag and name for it.
"""

from __future__ import annotations

from .blocks import COMMON_BLOCK_FIELDS
from .blocks_io import IO_MODELS
from .blocks_other import OTHER_MODELS
from .blocks_task import TASK_STYLE_MODELS
from .parameters import PARAMETER_MODELS
from .toplevel import DEFINITION, ENVELOPE, REQUEST, TOPLEVEL_OBJECTS
from .types import ObjectModel

DECLARED_BLOCKS: dict[str, ObjectModel] = {
    m.tag: m for m in (*TASK_STYLE_MODELS, *OTHER_MODELS, *IO_MODELS)  # type: ignore[misc]
}
DECLARED_PARAMETERS: dict[str, ObjectModel] = {m.tag: m for m in PARAMETER_MODELS}  # type: ignore[misc]

__all__ = ["COMMON_BLOCK_FIELDS", "DECLARED_BLOCKS", "DECLARED_PARAMETERS", "DEFINITION", "ENVELOPE",
           "REQUEST", "TOPLEVEL_OBJECTS"]

"""List, get, versions and delete (reference §9.5-§9.7), with query parameters validated like
the service's (422 list form located at ``["query", name, ...]``)."""

from __future__ import annotations

from typing import Annotated, Any, Callable, Mapping, TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ... import model as M
from ..protocol.errors import Reply, detail, shape_l
from .models import python_enum
from .pipeline import not_found
from ..protocol.budget import check_budget
from ..store.search import LikeMatcher
from ..store.database import Listed
from .versions import present

if TYPE_CHECKING:  # the state is the mock's wiring, above this stage: it is handed in
    from ..state import ServerState

WorkflowStatus = python_enum(M.enums.WORKFLOW_STATUS)
DEFAULT_STATUSES = ("published", "draft")


class ListQuery(BaseModel):
    model_config = ConfigDict(extra="ignore")
    page: Annotated[int, Field(ge=1)] = 1
    page_size: Annotated[int, Field(ge=1)] = 10
    only_saved_tasks: bool = False
    only_workflows: bool = False
    only_templates: bool = False
    search_key: str | None = None
    title: str = ""
    folder_id: str | None = None
    status: list[WorkflowStatus] | None = None  # type: ignore[valid-type]
    tags: Annotated[list[str], Field(max_length=20)] | None = None
    template: bool = False


class GetQuery(BaseModel):
    model_config = ConfigDict(extra="ignore")
    version: int | None = None
    template: bool = False


class ExpectedVersionQuery(BaseModel):
    model_config = ConfigDict(extra="ignore")
    expected_version: Annotated[int, Field(ge=1)] | None = None


class TemplateQuery(BaseModel):
    model_config = ConfigDict(extra="ignore")
    template: bool = False


def parse_query(cls: type[BaseModel], params: Any) -> Any:
    """``params`` is a multi-dict (Starlette's ``QueryParams``): list fields take every value,
    other fields the last one, as FastAPI does."""
    data: dict[str, Any] = {}
    for name, info in cls.model_fields.items():
        values = params.getlist(name)
        if not values:
            continue
        is_list = "list" in str(info.annotation)
        data[name] = values if is_list else values[-1]
    try:
        return cls.model_validate(data)
    except ValidationError as exc:
        raise shape_l(exc, ("query",)) from None


# --------------------------------------------------------------------------- search


def _check_term_length(term: str, limit: int, name: str) -> None:
    """A term over the ``search-chars`` limit is a 422 in the query's validation shape."""
    if len(term) <= limit:
        return
    raise Reply(422, {"detail": [{"type": "string_too_long", "loc": ["query", name],
                        "msg": f"String should have at most {limit} characters",
                        "input": term[:100] + "…", "ctx": {"max_length": limit}}]})


def _matches(listed: Listed, term: str, like: LikeMatcher, folders: Mapping[str, str]) -> bool:
    folder_title = folders.get(listed.folder_id or "")
    texts = [listed.title or "", folder_title or "", *listed.search_terms]
    if any(like.matches(t) for t in texts):
        return True
    return term.lower() in listed.workflow_permanent_id.lower()  # literal for the id


def list_workflows(state: ServerState, organization_id: str, params: Any) -> list[dict[str, Any]]:
    select = _list_page(state, organization_id, params)
    return [present(doc, listed=True) for doc in state.store.documents(select())]


def list_workflows_json(state: ServerState, organization_id: str, params: Any,
                        dumps: Callable[[Any], str]) -> str:
    """The list reply as ``dumps`` renders it, each workflow on the page rendered once per
    store generation (``Store.rendered``): the JSON of a list is its items' JSON joined."""
    select = _list_page(state, organization_id, params)
    return "[" + ",".join(state.store.rendered(select, lambda doc: dumps(present(doc, listed=True)))) + "]"


def _list_page(state: ServerState, organization_id: str, params: Any) -> Callable[[], list[Listed]]:
    """The query's checks (400s raised here), and the function that selects its page."""
    q = parse_query(ListQuery, params)
    if q.only_saved_tasks and q.only_workflows:
        raise detail(400, "only_saved_tasks and only_workflows cannot be used together")
    tags = [t.strip() for raw in (q.tags or []) for t in raw.split(",") if t.strip()]
    if q.template:
        if tags:
            raise detail(400, "tags filter is not supported with template=true")
        return list  # the mock has no global templates
    if q.only_templates or tags:
        return list  # the mock has no org templates and no tags
    statuses = [s.value for s in q.status] if q.status else list(DEFAULT_STATUSES)
    saved = True if q.only_saved_tasks else False if q.only_workflows else None

    def select() -> list[Listed]:
        rows = state.store.latest_of_each(organization_id, statuses=statuses, is_saved_task=saved,
                                          folder_id=q.folder_id)
        term = q.search_key or q.title
        if term:
            _check_term_length(term, state.config.limits.search_chars, "search_key" if q.search_key else "title")
            like = LikeMatcher(term, check_budget)
            kept = []
            for r in rows:
                check_budget()  # a 503 stops the scan, not just the wait for it
                if _matches(r, term, like, state.config.folders):
                    kept.append(r)
            rows = kept
        start = (q.page - 1) * q.page_size
        return rows[start:start + q.page_size]

    return select


# --------------------------------------------------------------------------- one workflow


def get_workflow(state: ServerState, organization_id: str, wpid: str, params: Any) -> dict[str, Any]:
    q = parse_query(GetQuery, params)
    if q.template:
        raise detail(400, f"Invalid template workflow permanent id: {wpid}. Please make sure the workflow is a valid template.")
    if q.version is None:
        doc = state.store.latest(organization_id, wpid, include_deleted=False)
        if doc is None:
            raise detail(404, not_found(wpid))
    else:
        # a number SQLite cannot hold names no version (the service's database fails on it: 500)
        in_range = -(2**63) <= q.version < 2**63
        doc = state.store.version(organization_id, wpid, q.version) if in_range else None
        if doc is None:
            raise detail(404, f"{not_found(wpid)}, version={q.version}")
    return present(doc, get_one=True)


def workflow_versions(state: ServerState, organization_id: str, wpid: str, params: Any) -> list[dict[str, Any]]:
    q = parse_query(TemplateQuery, params)
    if q.template:
        return []  # no global templates in the mock
    return [present(doc) for doc in state.store.versions(organization_id, wpid)]


def delete_workflow(state: ServerState, organization_id: str, wpid: str) -> None:
    state.store.soft_delete(organization_id, wpid, state.now())

"""The official client's gap, as docs/mock.md and DIFFERENCES.md state it: skyvern 1.0.56's reply
models lack the `terminate`, `web_search` and `data_export` blocks, so every call whose reply
holds such a workflow raises pydantic's ValidationError (create and update after the write was
made), its raw-response variant too, while plain HTTP reads the workflow. The mock is faithful
here: the service answers the same bodies."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

skyvern_client = pytest.importorskip("skyvern.client")
from pydantic import ValidationError  # noqa: E402

from wflint.server.testing import make_client  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
KEY = "key-a"
BODY = {"title": "stop early", "workflow_definition": {"parameters": [], "blocks": [
    {"block_type": "for_loop", "label": "each", "loop_variable_reference": "{{ [1, 2] }}",
     "loop_blocks": [{"block_type": "terminate", "label": "stop", "reason": "nothing to do"}]}]}}


@pytest.fixture
def clients():
    http = make_client()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # starlette's TestClient warns about the client's timeout argument
        yield skyvern_client.Skyvern(base_url="http://testserver", api_key=KEY, httpx_client=http), http


def test_the_calls_the_docs_name_fail_on_a_terminate_block_nested_in_a_loop(clients):
    client, http = clients
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValidationError):
            client.create_workflow(json_definition=BODY)
        (stored,) = http.get("/v1/workflows", headers={"x-api-key": KEY}).json()  # the write was made all the same
        wpid = stored["workflow_permanent_id"]
        for call in (lambda: client.get_workflows(), lambda: client.get_workflow(wpid),
                     lambda: client.get_workflow_versions(wpid), lambda: client.with_raw_response.get_workflows(),
                     lambda: client.update_workflow(wpid, json_definition=BODY)):
            with pytest.raises(ValidationError):
                call()
        assert len(http.get(f"/v1/workflows/{wpid}/versions", headers={"x-api-key": KEY}).json()) == 2
        # what still works: a list whose page holds no such workflow, delete, and plain HTTP
        assert client.get_workflows(search_key="no such title") == []
        raw = http.get(f"/v1/workflows/{wpid}", headers={"x-api-key": KEY})
        assert raw.status_code == 200
        assert raw.json()["workflow_definition"]["blocks"][0]["loop_blocks"][0]["block_type"] == "terminate"
        client.delete_workflow(wpid)
        assert http.get("/v1/workflows", headers={"x-api-key": KEY}).json() == []


def test_the_docs_name_the_missing_block_types_and_the_affected_calls():
    from skyvern.client.types import workflow_definition_blocks_item as items

    known = set(re.findall(r'Literal\["([a-z_0-9]+)"\]', Path(items.__file__).read_text()))
    from wflint import model as M

    missing = set(M.BLOCK_TYPES) - known
    assert missing == {"data_export", "terminate", "web_search"}
    for page in (ROOT / "docs" / "mock.md", ROOT / "src" / "wflint" / "server" / "DIFFERENCES.md"):
        text = page.read_text(encoding="utf-8")
        section = text[text.index("official client cannot read") if "cannot read" in text else text.index("official client and three"):]
        for name in [*missing, "get_workflows", "get_workflow", "get_workflow_versions", "create_workflow", "update_workflow"]:
            assert f"`{name}`" in section, (page.name, name)

"""Create script (reference §9.8)."""

from __future__ import annotations

import base64
import hashlib
import re

import pytest

from wflint.server.testing import make_client

A = {"x-api-key": "key-a"}
BAD_PATH = ("Value error, Script file path must be a relative POSIX path without empty, '.', '..', absolute, "
            "drive-qualified, backslash, or null-byte segments")


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


@pytest.fixture
def client():
    return make_client()


def post(client, body):
    return client.post("/v1/scripts", json=body, headers=A)


def test_reply_and_quirky_file_tree(client):
    files = [{"path": "main.py", "content": b64("print(1)\n")}, {"path": "src/utils.py", "content": b64("x = 1\n")},
             {"path": "a%2Fb%252Fc.txt", "content": "plain", "encoding": "utf-8", "mime_type": "text/plain"}]
    r = post(client, {"workflow_id": "w_unknown", "files": files})
    assert r.status_code == 200, r.text
    s = r.json()
    assert list(s) == ["script_id", "version", "run_id", "file_count", "file_tree", "created_at"]
    assert re.fullmatch(r"s_\d{18}", s["script_id"]) and (s["version"], s["run_id"], s["file_count"]) == (1, None, 3)
    assert s["file_tree"]["main.py"] == {"type": "file", "size": 9, "mime_type": None,
                                        "content_hash": "sha256:" + hashlib.sha256(b"print(1)\n").hexdigest(),
                                        "created_at": s["file_tree"]["main.py"]["created_at"], "children": None}
    assert s["file_tree"]["src"]["children"] == {} and s["file_tree"]["a"]["type"] == "directory"
    assert list(s["file_tree"]) == ["main.py", "src", "a"]
    stored = client.app.state.wflint.store.script_files(s["script_id"])
    assert stored[2] == ("a/b/c.txt", b"plain")  # the decoded path is stored


def test_empty_body_forms(client):
    assert post(client, {}).json()["file_count"] == 0
    assert post(client, {"files": None}).json()["file_tree"] == {}
    r = client.post("/v1/scripts", headers=A)
    assert r.json() == {"detail": [{"type": "missing", "loc": ["body"], "msg": "Field required", "input": None}]}


@pytest.mark.parametrize("path", ["", "/abs.py", "a//b.py", "./a.py", "a/../b.py", "C:x.py", "a\\b.py", "a%00b", "%2Fetc", "x/."])
def test_bad_paths_are_model_errors(client, path):
    r = post(client, {"files": [{"path": path, "content": ""}]})
    assert r.status_code == 422
    assert r.json()["detail"] == [{"type": "value_error", "loc": ["body", "files", 0, "path"], "msg": BAD_PATH,
                                   "input": path, "ctx": {"error": {}}}]


def test_encoding_enum(client):
    item = post(client, {"files": [{"path": "a", "content": "", "encoding": "hex"}]}).json()["detail"][0]
    assert (item["type"], item["msg"]) == ("enum", "Input should be 'base64' or 'utf-8'")


@pytest.mark.parametrize("files, message", [
    ([{"path": "A.PKL", "content": ""}], "File 'A.PKL' has prohibited extension '.pkl'"),
    ([{"path": "lib/x.so", "content": ""}], "File 'lib/x.so' has prohibited extension '.so'"),
    ([{"path": "a.txt", "content": ""}, {"path": "a.txt", "content": ""}], "Duplicate script file path 'a.txt'"),
    ([{"path": "a.txt", "content": "aGk=\n"}], "File 'a.txt' is not valid base64"),
    ([{"path": "a.txt", "content": "not base64!"}], "File 'a.txt' is not valid base64"),
    ([{"path": "a.py", "content": base64.b64encode(b"\xff").decode()}], "Python file 'a.py' is not valid UTF-8"),
    ([{"path": "a.py", "content": "def (", "encoding": "utf-8"}], "Python file 'a.py' does not parse"),
    ([{"path": "a.py", "content": "import subprocess", "encoding": "utf-8"}],
     "Python file 'a.py' is not allowed: Not allowed to import module 'subprocess'"),
    ([{"path": "a.py", "content": "from logging.config import dictConfig", "encoding": "utf-8"}],
     "Python file 'a.py' is not allowed: Not allowed to import module 'logging.config'"),
    ([{"path": "a.py", "content": "eval('1')", "encoding": "utf-8"}], "Python file 'a.py' is not allowed: Not allowed to use 'eval'"),
    ([{"path": "a.py", "content": "x = ().__class__", "encoding": "utf-8"}],
     "Python file 'a.py' is not allowed: Not allowed to access '__class__'"),
    ([{"path": "a.py", "content": "o._secret", "encoding": "utf-8"}],
     "Python file 'a.py' is not allowed: Not allowed to access private methods or attributes"),
    ([{"path": "a.py", "content": "from os import *", "encoding": "utf-8"}],
     "Python file 'a.py' is not allowed: Wildcard imports are not allowed"),
])
def test_per_file_service_checks(client, files, message):
    r = post(client, {"files": files})
    assert (r.status_code, r.json()) == (400, {"detail": message})


def test_size_limit(client):
    big = base64.b64encode(b"x" * (10485760 + 1)).decode()
    r = post(client, {"files": [{"path": "big.bin", "content": big}]})
    assert r.json() == {"detail": "File 'big.bin' exceeds maximum size of 10485760 bytes"}


def test_checks_run_in_list_order(client):
    r = post(client, {"files": [{"path": "a.txt", "content": "!"}, {"path": "b.pkl", "content": ""}]})
    assert r.json() == {"detail": "File 'a.txt' is not valid base64"}


def test_run_id_must_exist(client):
    assert post(client, {"run_id": "wr_1"}).json() == {"detail": "Run_id wr_1 not found"}


def test_safe_python_is_accepted(client):
    code = "import json\nimport os.path\n\ndef main(x):\n    return json.dumps({'x': x.__name__ if False else x})\n"
    assert post(client, {"files": [{"path": "ok.py", "content": code, "encoding": "utf-8"}]}).status_code == 200

"""``http_request`` as the engine sends it (issue 29): a total timeout, the engine's redirects
(bounded, checked, credentials dropped across origins), the server's address guard when it is
on, and a body cap, against loopback servers."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from wflint.engine import http_transport
from wflint.engine.runner import Simulation


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _answer(self, status: int, body: bytes = b"", headers: dict | None = None) -> None:
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self._route()

    def do_POST(self):
        self._route()

    def _route(self):
        length = int(self.headers.get("Content-Length") or 0)
        sent = self.rfile.read(length) if length else b""
        path = self.path
        if path.startswith("/hop/"):
            n = int(path.split("/")[2])
            self._answer(302, b"", {"Location": f"/hop/{n + 1}" if n < 50 else "/echo"})
        elif path == "/see-other":
            self._answer(303, b"", {"Location": "/echo"})
        elif path == "/elsewhere":
            self._answer(307, b"", {"Location": self.server.other_url + "/echo"})
        elif path == "/huge-declared":
            self.send_response(200)
            self.send_header("Content-Length", str(300 * 1024 * 1024))
            self.end_headers()
        elif path == "/huge-streamed":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            chunk = b"x" * (1024 * 1024)
            try:
                for _ in range(300):
                    self.wfile.write(chunk)
            except OSError:
                pass
            self.close_connection = True
        elif path == "/drip":
            try:
                self.wfile.write(b"HTTP/1.1 200 OK\r\n")
                while True:
                    self.wfile.write(b"X-Drip: 1\r\n")
                    self.wfile.flush()
                    time.sleep(0.1)
            except OSError:
                pass
        else:
            body = json.dumps({"method": self.command, "path": path, "body": sent.decode(),
                               "authorization": self.headers.get("Authorization")}).encode()
            self._answer(200, body, {"Content-Type": "application/json"})


def _server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture(scope="module")
def base():
    server, url = _server()
    other, other_url = _server()
    server.other_url = other_url
    other.other_url = url
    yield url
    server.shutdown()
    other.shutdown()


def run(block: dict, **kw):
    request = {"title": "t", "workflow_definition": {"parameters": [], "blocks": [
        {"block_type": "http_request", "label": "h", **block}]}}
    return Simulation(request, {"name": "x"}, **kw).run()


def test_a_dripping_server_is_cut_off_at_the_total_timeout(base):
    began = time.monotonic()
    result = run({"url": base + "/drip", "timeout": 1})
    assert time.monotonic() - began < 60  # a header every 0.1 s: a per-read timeout never fires
    assert result["trace"][0]["status"] == "timed_out"
    assert result["trace"][0]["failure_reason"] == "Request timed out after 1 seconds"


def test_redirects_are_followed_ten_times_at_most(base):
    followed = run({"url": base + "/hop/41"})  # 41 -> ... -> 50 -> /echo: ten redirects
    assert followed["trace"][0]["status"] == "completed"
    too_many = run({"url": base + "/hop/40"})
    assert too_many["trace"][0]["failure_reason"] == (
        f"HTTP request failed: HTTP Exception, status_code=400, url={base}/echo, "
        "msg=Too many redirects while making HTTP request")


def test_a_303_continues_as_a_get_without_the_body(base):
    result = run({"url": base + "/see-other", "method": "POST", "body": {"a": 1}})
    assert result["outputs"]["h_output"]["response_body"]["method"] == "GET"
    assert result["outputs"]["h_output"]["response_body"]["body"] == ""


def test_credentials_are_not_sent_to_another_origin(base):
    same = run({"url": base + "/echo", "headers": {"Authorization": "Bearer s3cret"}})
    assert same["outputs"]["h_output"]["response_body"]["authorization"] == "Bearer s3cret"
    moved = run({"url": base + "/elsewhere", "headers": {"Authorization": "Bearer s3cret"}})
    assert moved["trace"][0]["status"] == "completed"
    assert moved["outputs"]["h_output"]["response_body"]["authorization"] is None


def test_follow_redirects_false_keeps_the_redirect(base):
    result = run({"url": base + "/hop/1", "follow_redirects": False})
    assert result["outputs"]["h_output"]["status_code"] == 302


@pytest.mark.parametrize("path", ["/huge-declared", "/huge-streamed"])
def test_a_huge_reply_is_refused_not_read(base, path):
    result = run({"url": base + path})
    reason = result["trace"][0]["failure_reason"]
    assert reason.startswith("HTTP request failed: wflint stopped reading the response at 32 MiB"), reason


def test_the_address_guard_follows_the_server_s_setting(base):
    # off (the open-source server's default): loopback is reached
    assert run({"url": base + "/echo"})["trace"][0]["status"] == "completed"
    for url in (base + "/echo", "http://169.254.169.254/latest/meta-data", "http://[::ffff:127.0.0.1]:9/",
                "http://metadata.google.internal/", "http://db.cluster.local/"):
        result = run({"url": url}, url_validation=True)
        assert result["trace"][0]["failure_reason"] == "HTTP request failed: Invalid url: blocked host.", url


def test_a_redirect_to_a_blocked_host_is_refused_when_the_guard_is_on(base):
    guard = http_transport.AddressGuard(enabled=True, allowed_hosts=("127.0.0.1",))
    with pytest.raises(http_transport.TransportError, match="blocked host"):
        http_transport.request("GET", base + "/elsewhere", {}, None, 30, guard=http_transport.AddressGuard(
            enabled=True, allowed_hosts=("127.0.0.2",)))
    status, _, _ = http_transport.request("GET", base + "/echo", {}, None, 30, guard=guard)
    assert status == 200


def test_simulate_url_validation_flag(tmp_path):
    from click.testing import CliRunner

    from wflint.cli import main

    workflow = tmp_path / "w.yaml"
    workflow.write_text("title: t\nworkflow_definition:\n  parameters: []\n  blocks:\n    - block_type: http_request\n"
                        "      label: h\n      url: http://169.254.169.254/latest/meta-data\n")
    result = CliRunner().invoke(main, ["simulate", str(workflow), "--url-validation", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)[0]["trace"][0]["failure_reason"] == "HTTP request failed: Invalid url: blocked host."

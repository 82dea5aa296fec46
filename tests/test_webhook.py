"""The hand-written webhook URL check agrees with the URL type of the validation library the
service uses (pydantic's AnyUrl) on a set of probe URLs, and classifies internal hosts."""

from __future__ import annotations

import re

import pytest

from wflint.checks.webhook_url import BAD_SCHEME, ELB, MALFORMED, internal_host, webhook_url_error

pydantic = pytest.importorskip("pydantic")
_URL = pydantic.TypeAdapter(pydantic.AnyUrl)
#: the service's load-balancer test (``url_validators._is_aws_load_balancer_host``, 1.0.55 on) as
#: a pattern: a region label beside an ``elb`` label, at least one label before them, under
#: amazonaws.com or amazonaws.com.cn
_ELB_HOST = re.compile(r"^[^.]+(\.[^.]+)*\.(elb\.[^.]*-[^.]*-\d+|[^.]*-[^.]*-\d+\.elb)\.amazonaws\.com(\.cn)?\.?$",
                       re.IGNORECASE)


def library_verdict(url: str) -> str | None:
    """What the service computes, with the library's parser (the scheme as the standard
    library's urlparse reads it, before https:// is assumed, as the service's _prepend_scheme)."""
    from urllib.parse import urlparse

    try:
        scheme = urlparse(url).scheme
    except ValueError:
        return MALFORMED
    if scheme and scheme not in ("http", "https"):
        return BAD_SCHEME
    full = url.strip() if "://" in url.strip() else "https://" + url.strip()
    if len(full) > 2083:
        return MALFORMED
    try:
        parsed = _URL.validate_python(full)
    except pydantic.ValidationError:
        return MALFORMED
    if parsed.scheme not in ("http", "https"):
        return BAD_SCHEME
    if not parsed.host:
        return MALFORMED
    if _ELB_HOST.search(parsed.host):
        return ELB
    return None


PROBES = [
    "https://hooks.example.com/skyvern", "http://example.com", "example.com/hook", "not a url",
    "mailto:ops@example.com", "localhost:8000/hook", "hooks.example.com:8443/x", "javascript:alert(1)",
    "HTTPS://EXAMPLE.COM/x", "data:text/plain,hi",
    "ftp://files.example.com/x", "https://", "https:///path", "http://exa mple.com", "https://[::1]/x",
    "https://[::1", "http://127.0.0.1:8080/hook", "http://2130706433/", "http://0x7f.1/", "http://256.1.1.1/",
    "https://example.com:99999/", "https://example.com:80/", "https://user:pw@example.com/x",
    "https://my-lb-123.us-east-1.elb.amazonaws.com/hook", "https://internal.us-gov-west-1.elb.amazonaws.com",
    "https://elb.amazonaws.com.example.com/", "https://my-nlb-1a2b.elb.eu-west-2.amazonaws.com/hook",
    "https://k8s-lb.cn-north-1.elb.amazonaws.com.cn/x", "https://elb.us-east-1.amazonaws.com/",
    "https://dualstack.my-lb.ap-southeast-10.elb.amazonaws.com./h", "https://us-east-1.elb.amazonaws.com/", "ws://example.com/socket", "mailto:ops@example.com",
    "https://" + "a" * 2100 + ".com", "https://example.com/" + "p" * 2000, "https://exämple.com/",
    "https://example.com/?q={{ x }}", "http://localhost/hook", "https://10.0.0.5/x", "https://[fe80::1]/",
    "https://example.com#frag", "https://a_b.example.com/", "http:example.com", "https://.example.com/",
]


@pytest.mark.parametrize("url", PROBES)
def test_hand_written_check_matches_the_library(url):
    assert webhook_url_error(url) == library_verdict(url)


def test_blocked_hosts_are_a_deployment_setting():
    assert webhook_url_error("http://127.0.0.1/hook") is None
    assert webhook_url_error("http://127.0.0.1/hook", frozenset({"127.0.0.1"})) == "Invalid webhook_callback_url: blocked host."


@pytest.mark.parametrize("url, internal", [
    ("http://localhost:3000/hook", True), ("http://api.localhost/", True), ("http://127.0.0.1/", True),
    ("http://2130706433/", True), ("https://10.1.2.3/", True), ("https://[::1]/", True), ("https://0.0.0.0/", True),
    ("https://192.168.1.10/", True), ("https://hooks.example.com/", False), ("https://8.8.8.8/", False),
])
def test_internal_hosts(url, internal):
    assert (internal_host(url) is not None) == internal

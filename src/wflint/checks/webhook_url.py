"""The service's check of ``webhook_callback_url`` (reference §6.4 C6), shared by the linter
(WF504) and the mock server.

The service validates the URL with its validation library's URL type. The linter does not
depend on that library, and the standard library's ``urllib.parse`` accepts almost any text,
so the host parsing the verdict depends on (WHATWG rules, numeric IPv4 forms) is written out
here; the mock's tests compare its verdicts with the library's on a set of probe URLs.
"""

import ipaddress
import re

from ..core.patterns import lazy


MAX_LENGTH = 2083
_HINT = "Use an HTTP or HTTPS URL with at most 2083 characters."
MALFORMED = f"Invalid webhook_callback_url: malformed. {_HINT}"
BAD_SCHEME = f"Invalid webhook_callback_url: unsupported scheme. {_HINT}"
BLOCKED = "Invalid webhook_callback_url: blocked host."
ELB = ("Invalid webhook_callback_url: unsupported host. Use a stable custom hostname instead of "
       "an AWS load balancer DNS name.")

_SCHEME = lazy(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
_SPECIAL = ("http", "https", "ws", "wss", "ftp")
_FORBIDDEN_HOST = set(" #%/:<>?@[\\]^|") | {chr(c) for c in range(0x21)} | {"\x7f"}


def full_url(url):
    """The URL the service checks: ``https://`` is assumed when the value has no scheme."""
    url = url.strip()
    return url if "://" in url else "https://" + url


def parse_host(url):
    """(scheme, host) of a URL as a WHATWG parser reads it, or None when it does not parse.
    An IPv4 host comes back as an ``ipaddress`` object, an IPv6 one too; a name as text."""
    m = _SCHEME.match(url)
    if not m:
        return None
    scheme, rest = m.group(1).lower(), url[m.end():]
    authority = re.split(r"[/?#\\]", rest.lstrip("/\\") if scheme in _SPECIAL else rest[2:], maxsplit=1)[0]
    hostport = authority.rpartition("@")[2]
    if hostport.startswith("["):
        inside, bracket, port = hostport[1:].partition("]")
        if not bracket or (port and not port.startswith(":")):
            return None
        try:
            host = ipaddress.IPv6Address(inside)
        except ValueError:
            return None
        port = port[1:]
    else:
        host, _, port = hostport.partition(":")
        if any(ch in _FORBIDDEN_HOST for ch in host):
            return None
        if host and _ends_in_number(host):
            host = _ipv4(host)
            if host is None:
                return None
        elif scheme in _SPECIAL and not host:
            return None
    if port and (not port.isdigit() or int(port) > 65535):
        return None
    return scheme, host.lower() if isinstance(host, str) else host


def _ends_in_number(host):
    last = host.rstrip(".").rpartition(".")[2] if host.rstrip(".") else ""
    return bool(last) and (last.isdigit() or bool(re.fullmatch(r"0[xX][0-9A-Fa-f]*", last)))


def _ipv4(host):
    """WHATWG IPv4 parsing: one to four parts, decimal, octal (leading 0) or hex (0x)."""
    parts = host[:-1].split(".") if host.endswith(".") else host.split(".")
    if len(parts) > 4:
        return None
    numbers = []
    for part in parts:
        try:
            if part[:2].lower() == "0x":
                numbers.append(int(part[2:] or "0", 16))
            elif len(part) > 1 and part.startswith("0"):
                numbers.append(int(part[1:], 8))
            else:
                numbers.append(int(part, 10))
        except ValueError:
            return None
    if any(n > 255 for n in numbers[:-1]) or numbers[-1] >= 256 ** (5 - len(numbers)):
        return None
    value = numbers[-1]
    for i, n in enumerate(numbers[:-1]):
        value += n * 256 ** (3 - i)
    return ipaddress.IPv4Address(value)


def declared_scheme(url):
    """The scheme the service sees before it assumes ``https://``: the standard library's
    ``urlparse`` reading, in which ``mailto:ops@example.com`` has the scheme ``mailto`` and
    ``localhost:8000/hook`` the scheme ``localhost``; "" for none, None when it cannot parse."""
    from urllib.parse import urlparse

    try:
        return urlparse(url).scheme
    except ValueError:
        return None


def webhook_url_error(url, blocked_hosts=frozenset()):
    """The service's 400 message for a non-empty ``webhook_callback_url``, or None.
    ``blocked_hosts`` are the host names a deployment refuses (the mock server's setting)."""
    scheme = declared_scheme(url)
    if scheme is None:
        return MALFORMED
    if scheme and scheme not in ("http", "https"):
        return BAD_SCHEME  # decided before any https:// is assumed
    full = full_url(url)
    if len(full) > MAX_LENGTH:
        return MALFORMED
    parsed = parse_host(full)
    if parsed is None:
        return MALFORMED
    scheme, host = parsed
    if scheme not in ("http", "https"):
        return BAD_SCHEME
    if str(host).strip("[]") in blocked_hosts:
        return BLOCKED
    if isinstance(host, str) and load_balancer_host(host):
        return ELB
    return None


def load_balancer_host(host):
    """Whether ``host`` is an AWS load balancer's DNS name, as the service decides it
    (``url_validators._is_aws_load_balancer_host``, 1.0.55 on): under ``amazonaws.com`` or
    ``amazonaws.com.cn``, at least three labels before it, the last two of which are ``elb``
    and a region (``us-east-1``) in either order: ``my-lb-1.us-east-1.elb.amazonaws.com``
    (classic and application) and ``my-nlb.elb.eu-west-2.amazonaws.com`` (network)."""
    name = host.strip().lower().rstrip(".")
    labels = name.split(".")
    if name.endswith(".amazonaws.com.cn"):
        service = labels[:-3]
    elif name.endswith(".amazonaws.com"):
        service = labels[:-2]
    else:
        return False
    if len(service) < 3:
        return False

    def is_region(label):
        prefix, dash, number = label.rpartition("-")
        return bool(dash and number.isdigit() and "-" in prefix)

    return (service[-2] == "elb" and is_region(service[-1])) or (service[-1] == "elb" and is_region(service[-2]))


def internal_host(url):
    """The host, when it is loopback, private, link-local or unspecified (no DNS), else None."""
    parsed = parse_host(full_url(url))
    if parsed is None:
        return None
    host = parsed[1]
    if isinstance(host, str):
        name = host.rstrip(".")
        return host if name == "localhost" or name.endswith(".localhost") else None
    address = getattr(host, "ipv4_mapped", None) or host
    if address.is_loopback or address.is_private or address.is_link_local or address.is_unspecified:
        return str(host)
    return None

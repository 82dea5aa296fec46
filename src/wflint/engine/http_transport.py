"""HTTP as the engine sends it (``forge/sdk/core/aiohttp_helper.py: aiohttp_request``), bounded.

- **A total timeout.** The engine gives aiohttp ``ClientTimeout(total=timeout)``: the whole
  exchange, redirects included, not each read. Here one deadline covers every hop; a timer shuts
  the socket down when it passes (a receiver dripping a byte at a time cannot hold the run), and
  the caller gets ``TimeoutError`` ("Request timed out after N seconds", status ``timed_out``).
- **Redirects followed by hand**, as the engine does: at most :data:`MAX_REDIRECTS`
  (``MAX_SAFE_REDIRECTS``), only for 301, 302, 303, 307 and 308 with a ``Location``, each target
  checked like the first URL, ``Authorization`` and ``Cookie`` dropped when the origin changes,
  and a 303 (or a 301/302 answering a POST) continued as a GET without a body. One more is
  "Too many redirects while making HTTP request".
- **The address guard as the server applies it.** Release 1.0.56 checks hosts only when its
  ``ENABLE_URL_VALIDATION`` setting is on (off by default in the open-source server): then a
  blocked name (``localhost``, ``*.local``, ``*.internal``, ``*.svc``, ...) or an address in a
  private, loopback, link-local, reserved, multicast or metadata range, literal or resolved, is
  "Invalid url: blocked host.", and the connection goes to the address that was checked.
  :class:`AddressGuard` holds those rules; ``enabled=False`` is the server's default.
- **A body cap**: a reply over :data:`MAX_BODY_BYTES` is refused rather than read (the engine
  reads any size; a 300 MB reply took 4.5 GB here before).
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

MAX_REDIRECTS = 10
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
MAX_BODY_BYTES = 32 * 1024 * 1024
_CREDENTIAL_HEADERS = frozenset({"authorization", "cookie"})

# ``utils/pinned_transport.py`` and ``utils/url_validators.py`` of release 1.0.56
_BLOCKED_NETWORKS = tuple(ipaddress.ip_network(n) for n in (
    "127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "100.64.0.0/10",
    "::1/128", "fc00::/7"))
_METADATA_IPS = frozenset(ipaddress.ip_address(a) for a in ("169.254.169.254", "100.100.100.200", "fd00:ec2::254"))
_INTERNAL_NAMES = frozenset({"localhost", "metadata.google.internal", "kubernetes.default.svc"})
_INTERNAL_SUFFIXES = (".local", ".localhost", ".internal", ".cluster.local", ".svc")


class TransportError(Exception):
    """The request failed without a usable reply; ``str()`` is the engine's message."""


def _normal_ip(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    return ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None else ip


def blocked_ip(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    ip = _normal_ip(ip)
    if ip in _METADATA_IPS or any(ip.version == n.version and ip in n for n in _BLOCKED_NETWORKS):
        return True
    return bool(ip.is_private or ip.is_link_local or ip.is_loopback or ip.is_reserved or ip.is_multicast
                or ip.is_unspecified)


@dataclass(frozen=True)
class AddressGuard:
    """The server's host checks: off unless ``enabled`` (its ``ENABLE_URL_VALIDATION``)."""

    enabled: bool = False
    blocked_hosts: tuple[str, ...] = ("localhost",)
    allowed_hosts: tuple[str, ...] = field(default=())

    def addresses(self, host: str, port: int) -> list[tuple[int, str]]:
        """(family, address) to connect to; ``TransportError`` when the host is blocked."""
        name = (host[1:-1] if host.startswith("[") and host.endswith("]") else host).strip().lower().rstrip(".")
        if not name:
            raise TransportError("Invalid url: blocked host.")
        checked = self.enabled and name not in {h.lower() for h in self.allowed_hosts}
        if checked and (name in {h.lower().rstrip(".") for h in self.blocked_hosts}
                        or name in _INTERNAL_NAMES or name.endswith(_INTERNAL_SUFFIXES)):
            raise TransportError("Invalid url: blocked host.")
        try:
            literal = _normal_ip(ipaddress.ip_address(name))
        except ValueError:
            literal = None
        if literal is not None:
            if checked and blocked_ip(literal):
                raise TransportError("Invalid url: blocked host.")
            return [(socket.AF_INET6 if literal.version == 6 else socket.AF_INET, str(literal))]
        try:
            infos = socket.getaddrinfo(name, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError) as exc:
            if checked:
                raise TransportError("Invalid url: unresolvable host.") from exc
            raise TransportError(f"Cannot connect to host {host}:{port} ssl:default [{exc.strerror or exc}]") from exc
        found: list[tuple[int, str]] = []
        for family, _, _, _, sockaddr in infos:
            address = str(_normal_ip(ipaddress.ip_address(sockaddr[0])))
            if checked and blocked_ip(ipaddress.ip_address(address)):
                raise TransportError("Invalid url: blocked host.")
            if (family, address) not in found:
                found.append((family, address))
        return found


class _Deadline:
    """One deadline over several connections: at the deadline the open socket is shut down."""

    def __init__(self, seconds: float) -> None:
        self.at = time.monotonic() + seconds
        self.expired = False
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()
        self._timer = threading.Timer(max(seconds, 0.0), self._expire)
        self._timer.daemon = True
        self._timer.start()

    def left(self) -> float:
        left = self.at - time.monotonic()
        if left <= 0 or self.expired:
            raise TimeoutError
        return left

    def watch(self, sock: socket.socket | None) -> None:
        with self._lock:
            self._sock = sock
            if self.expired and sock is not None:
                _shutdown(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            if self._sock is not None:
                _shutdown(self._sock)

    def close(self) -> None:
        self._timer.cancel()


def _shutdown(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """Connects to an address the guard checked (no second resolution), keeps the URL's host."""

    def __init__(self, host: str, port: int | None, address: tuple[int, str], timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self.address = address

    def connect(self) -> None:
        family, ip = self.address
        self.sock = socket.create_connection((ip, self.port), self.timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, host: str, port: int | None, address: tuple[int, str], timeout: float) -> None:
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self.address = address

    def connect(self) -> None:
        family, ip = self.address
        sock = socket.create_connection((ip, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)  # type: ignore[attr-defined]


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower().rstrip("."), parts.port or (443 if scheme == "https" else 80)


def request(method: str, url: str, headers: dict[str, str], data: bytes | None, timeout: float, *,
            follow_redirects: bool = True, guard: AddressGuard = AddressGuard(),
            max_body: int = MAX_BODY_BYTES) -> tuple[int, dict[str, str], bytes]:
    """(status, headers, body) of the final reply; ``TimeoutError`` past ``timeout`` seconds in
    all, ``TransportError`` (the engine's message) for a refused, failed or oversized exchange."""
    deadline = _Deadline(timeout)
    try:
        current, method, headers = url, method.upper(), dict(headers)
        for _hop in range(MAX_REDIRECTS + 1):
            status, reply_headers, body = _one(method, current, headers, data, deadline, guard, max_body)
            location = reply_headers.get("Location") or reply_headers.get("location")
            if not (follow_redirects and status in REDIRECT_STATUSES and location):
                return status, reply_headers, body
            following = urljoin(current, location)
            if urlsplit(following).scheme not in ("http", "https") or not urlsplit(following).hostname:
                raise TransportError("Invalid url: malformed.")
            if _origin(current) != _origin(following):
                headers = {k: v for k, v in headers.items() if k.lower() not in _CREDENTIAL_HEADERS}
            if status == 303 or (status in (301, 302) and method == "POST"):
                method, data = "GET", None
                headers = {k: v for k, v in headers.items() if k.lower() != "content-length"}
            current = following
        raise TransportError(f"HTTP Exception, status_code=400, url={current}, "
                             "msg=Too many redirects while making HTTP request")
    finally:
        deadline.close()


def _one(method: str, url: str, headers: dict[str, str], data: bytes | None, deadline: _Deadline,
         guard: AddressGuard, max_body: int) -> tuple[int, dict[str, str], bytes]:
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    addresses = guard.addresses(host, port)
    if not addresses:
        raise TransportError(f"No safe addresses resolved for host: {host}")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    kind = _PinnedHTTPSConnection if parts.scheme == "https" else _PinnedHTTPConnection
    conn = kind(host, parts.port, addresses[0], deadline.left())
    try:
        try:
            conn.connect()
            deadline.watch(conn.sock)
            conn.request(method, path, body=data, headers=headers)
            reply = conn.getresponse()
            length = reply.getheader("Content-Length")
            if length and length.isdigit() and int(length) > max_body:
                raise TransportError(_too_big(max_body))
            body = reply.read(max_body + 1)
            if deadline.expired:  # the shut-down socket read as an end: the reply is cut short
                raise TimeoutError
            if len(body) > max_body:
                raise TransportError(_too_big(max_body))
            return reply.status, dict(reply.getheaders()), body
        except TransportError:
            raise
        except (socket.timeout, TimeoutError) as exc:
            raise TimeoutError from exc
        except (OSError, http.client.HTTPException) as exc:
            if deadline.expired:
                raise TimeoutError from exc
            if isinstance(exc, http.client.HTTPException):
                raise TransportError(str(exc) or type(exc).__name__) from exc
            if isinstance(exc, ConnectionRefusedError):
                detail = f"Connect call failed ({addresses[0][1]!r}, {port})"
            else:
                detail = exc.strerror or str(exc)
            # aiohttp's ``ClientConnectorError`` wording, which the engine's reason carries
            raise TransportError(f"Cannot connect to host {host}:{port} ssl:default [{detail}]") from exc
    finally:
        deadline.watch(None)
        conn.close()


def _too_big(max_body: int) -> str:
    return (f"wflint stopped reading the response at {max_body // (1024 * 1024)} MiB (the engine reads a reply of "
            "any size)")

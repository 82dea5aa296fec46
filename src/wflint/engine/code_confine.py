"""The operating-system walls around the code worker, put up by the worker itself at start-up,
before it reads any code (standard library and ``ctypes`` only: the worker has no site-packages).

The code policy (``code_policy``) is the engine's, and an AST policy is not a sandbox: these
layers assume it was bypassed and the code holds ``os``. Each is applied where the platform
offers it; :func:`confine` says which held, and the worker reports that to the parent.

Linux:

* resource limits: CPU seconds, address space, file size, open files, no core files, and (for a
  non-root user) no further processes;
* ``PR_SET_PDEATHSIG``: the worker is killed when wflint dies, even by SIGKILL;
* no network unless asked: a new network namespace (``unshare(CLONE_NEWUSER|CLONE_NEWNET)``,
  unprivileged; ``CLONE_NEWNET`` alone as root where user namespaces are off), holding only a
  loopback interface that is down;
* the scratch directory on a 64 MiB tmpfs in a mount namespace of the worker's own (so code
  cannot fill the disk with many files each under the file-size limit);
* Landlock (kernel 5.13+, unprivileged): the file system is read-only and limited to Python's
  standard library, read-write only in the scratch directory; TCP bind/connect denied without
  network (ABI 4+); no signals to processes outside the worker and no abstract Unix sockets
  outside it (ABI 6+);
* seccomp (x86-64, arm64): no new processes (fork, vfork, clone without ``CLONE_THREAD``,
  execve), no signals sent by ``kill``/``tkill``/``tgkill``, no ``ptrace``; without network, no
  new sockets of any family (``socket``, ``socketpair``, ``connect``, ``bind``).

Elsewhere (macOS): the resource limits, and a watchdog thread that ends the worker when its parent
is gone. The parent adds what needs no privileges anywhere (``code_runner``): a clean
environment, an empty scratch directory, its own session, a private pipe.

The seccomp filter and the Landlock rules are a few ``ctypes`` calls written here: the worker runs
without site-packages (nothing of the user's environment loads into it), and the packages that
wrap these calls need a shared library or are pre-releases.
"""

from __future__ import annotations

import ctypes
import os
import platform
import resource
import signal
import sys
import threading
import time

#: the worker's lifetime CPU cap: the per-execution wall-clock limit stops runaways first (a
#: per-execution cap would cost a timer update of several milliseconds on every execution)
CPU_SECONDS = 3600
ADDRESS_SPACE_BYTES = 2 * 1024 * 1024 * 1024
FILE_SIZE_BYTES = 16 * 1024 * 1024
OPEN_FILES = 64
#: the scratch directory's size where it can be a tmpfs of its own
SCRATCH_BYTES = 64 * 1024 * 1024

_PR_SET_PDEATHSIG = 1
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWNET = 0x40000000
_CLONE_NEWNS = 0x00020000
_MS_NOSUID, _MS_NODEV, _MS_REC, _MS_PRIVATE = 2, 4, 16384, 1 << 18
_CLONE_THREAD = 0x00010000

_LANDLOCK_CREATE_RULESET, _LANDLOCK_ADD_RULE, _LANDLOCK_RESTRICT_SELF = 444, 445, 446
_LANDLOCK_CREATE_RULESET_VERSION = 1
_LANDLOCK_RULE_PATH_BENEATH = 1
_FS_EXECUTE, _FS_READ_FILE, _FS_READ_DIR = 1 << 0, 1 << 2, 1 << 3
#: every file-system right each ABI knows (REFER at 2, TRUNCATE at 3, IOCTL_DEV at 5)
_FS_ALL_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 4: (1 << 15) - 1, 5: (1 << 16) - 1}
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1

#: (AUDIT_ARCH, syscall numbers) per machine, for the seccomp filter
_SYSCALLS = {
    "x86_64": (0xC000003E, {
        "fork": 57, "vfork": 58, "clone": 56, "clone3": 435, "execve": 59, "execveat": 322,
        "kill": 62, "tkill": 200, "tgkill": 234, "ptrace": 101,
        "socket": 41, "socketpair": 53, "connect": 42, "bind": 49,
    }),
    "aarch64": (0xC00000B7, {
        "clone": 220, "clone3": 435, "execve": 221, "execveat": 281,
        "kill": 129, "tkill": 130, "tgkill": 131, "ptrace": 117,
        "socket": 198, "socketpair": 199, "connect": 203, "bind": 200,
    }),
}
_ALWAYS_DENIED = ("fork", "vfork", "execve", "execveat", "kill", "tkill", "tgkill", "ptrace")
_NETWORK_CALLS = ("socket", "socketpair", "connect", "bind")


def confine(*, scratch: str, network: bool, parent_pid: int, read_only: list[str]) -> dict[str, object]:
    """Put up every wall this platform offers, in an order that keeps each possible (namespaces
    before Landlock, Landlock before seccomp, which then forbids what set-up needed). Returns
    which held: ``{"rlimits", "pdeathsig", "netns", "landlock", "seccomp"}``."""
    held: dict[str, object] = {"rlimits": _limit_resources()}
    held["pdeathsig"] = _die_with_parent(parent_pid)
    held["netns"], held["scratch_tmpfs"] = _namespaces(scratch, network)
    held["landlock"] = _landlock(scratch, read_only, network) if sys.platform == "linux" else 0
    return held


def lock(held: dict[str, object], *, network: bool) -> dict[str, object]:
    """The last wall, once the worker's own set-up (its event loop's socket pair) is done."""
    held["seccomp"] = _seccomp(network) if sys.platform == "linux" else False
    return held


# --------------------------------------------------------------------------- the layers


def _limit_resources() -> list[str]:
    held = []
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an oversized write fails with EFBIG, not a kill
    limits = [("CPU", CPU_SECONDS), ("AS", ADDRESS_SPACE_BYTES), ("FSIZE", FILE_SIZE_BYTES),
              ("NOFILE", OPEN_FILES), ("CORE", 0)]
    if os.geteuid() != 0:  # root is exempt from RLIMIT_NPROC: seccomp covers it there
        limits.append(("NPROC", 0))
    for name, value in limits:
        kind = getattr(resource, f"RLIMIT_{name}", None)
        if kind is None:
            continue
        try:
            _, hard = resource.getrlimit(kind)
            if hard != resource.RLIM_INFINITY:
                value = min(value, hard)
            resource.setrlimit(kind, (value, value if name != "CPU" else max(value, CPU_SECONDS)))
            held.append(name)
        except (ValueError, OSError):
            continue
    return held


def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def _die_with_parent(parent_pid: int) -> bool:
    libc = _libc() if sys.platform == "linux" else None
    if libc is not None and libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0:
        if os.getppid() != parent_pid:  # the parent died before the signal was armed
            os._exit(1)
        return True
    threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True).start()
    return False


def _watch_parent(parent_pid: int) -> None:
    while os.getppid() == parent_pid:
        time.sleep(0.5)
    os._exit(1)


def _namespaces(scratch: str, network: bool) -> tuple[bool, bool]:
    """Leave the network (a namespace of its own) unless it is wanted, and put the scratch
    directory on a small private tmpfs (a mount namespace of its own), so code can fill neither
    the disk nor the machine's /tmp. Returns (network left, tmpfs mounted)."""
    libc = _libc() if sys.platform == "linux" else None
    if libc is None:
        return False, False
    net = 0 if network else _CLONE_NEWNET
    uid, gid = os.getuid(), os.getgid()  # read before: inside a new user namespace they are unmapped
    for flags in (_CLONE_NEWUSER | _CLONE_NEWNS | net, _CLONE_NEWNS | net, _CLONE_NEWUSER | net, net):
        if flags and libc.unshare(flags) == 0:
            break
    else:
        return False, False
    if flags & _CLONE_NEWUSER:
        _map_identity(uid, gid)
    tmpfs = False
    if flags & _CLONE_NEWNS:
        # private first: a mount made as root must never propagate back to the machine's tree
        libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
        if libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None) == 0:
            options = f"size={SCRATCH_BYTES},nr_inodes=4096,mode=0700".encode()
            if libc.mount(b"wflint-scratch", scratch.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, options) == 0:
                os.chdir(scratch)  # the working directory still named the directory under the mount
                tmpfs = True
    return bool(net), tmpfs


def _map_identity(uid: int, gid: int) -> None:
    """Be ``uid``/``gid`` inside the new user namespace too (files the worker makes on its tmpfs
    need an owner the namespace can name)."""
    for name, text in (("uid_map", f"0 {uid} 1"), ("setgroups", "deny"), ("gid_map", f"0 {gid} 1")):
        try:
            with open(f"/proc/self/{name}", "w") as handle:
                handle.write(text)
        except OSError:
            pass


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _landlock(scratch: str, read_only: list[str], network: bool) -> int:
    """The Landlock ABI applied (0: none)."""
    libc = _libc()
    if libc is None:
        return 0
    libc.syscall.restype = ctypes.c_long
    abi = libc.syscall(_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0),
                       ctypes.c_uint32(_LANDLOCK_CREATE_RULESET_VERSION))
    if abi < 1:
        return 0
    fs_all = _FS_ALL_BY_ABI.get(abi, _FS_ALL_BY_ABI[5])
    attr = _RulesetAttr(handled_access_fs=fs_all)
    size = 8
    if abi >= 4:
        attr.handled_access_net = 0 if network else (_NET_BIND_TCP | _NET_CONNECT_TCP)
        size = 16
    if abi >= 6:
        attr.scoped = _SCOPE_SIGNAL | (0 if network else _SCOPE_ABSTRACT_UNIX_SOCKET)
        size = 24
    ruleset = libc.syscall(_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        return 0
    try:
        rules = [(path, _FS_EXECUTE | _FS_READ_FILE | _FS_READ_DIR) for path in read_only]
        rules.append((scratch, fs_all))
        for path, access in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                if not os.path.isdir(path):  # a file rule may hold file rights only
                    access &= _FS_EXECUTE | _FS_READ_FILE | (1 << 1) | (1 << 14)
                rule = _PathBeneathAttr(allowed_access=access, parent_fd=fd)
                libc.syscall(_LANDLOCK_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(_LANDLOCK_RULE_PATH_BENEATH),
                             ctypes.byref(rule), ctypes.c_uint32(0))
            finally:
                os.close(fd)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return 0
        if libc.syscall(_LANDLOCK_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
            return 0
        return abi
    finally:
        os.close(ruleset)


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_uint16), ("filter", ctypes.POINTER(_SockFilter))]


_BPF_LD_W_ABS, _BPF_JEQ_K, _BPF_JGE_K, _BPF_JSET_K, _BPF_RET_K = 0x20, 0x15, 0x35, 0x45, 0x06
_RET_ALLOW, _RET_KILL_PROCESS, _RET_ERRNO = 0x7FFF0000, 0x80000000, 0x00050000
_EPERM, _ENOSYS = 1, 38


def _seccomp(network: bool) -> bool:
    table = _SYSCALLS.get(platform.machine())
    libc = _libc()
    if table is None or libc is None:
        return False
    arch, numbers = table
    denied = [numbers[name] for name in _ALWAYS_DENIED if name in numbers]
    if not network:
        denied += [numbers[name] for name in _NETWORK_CALLS]
    errno_eperm = _RET_ERRNO | _EPERM
    program = [
        (_BPF_LD_W_ABS, 0, 0, 4),                   # seccomp_data.arch
        (_BPF_JEQ_K, 1, 0, arch),
        (_BPF_RET_K, 0, 0, _RET_KILL_PROCESS),      # another ABI (e.g. 32-bit calls): refuse all
        (_BPF_LD_W_ABS, 0, 0, 0),                   # seccomp_data.nr
        (_BPF_JGE_K, 0, 1, 0x40000000),             # x32 numbers
        (_BPF_RET_K, 0, 0, errno_eperm),
        # clone3's flags are behind a pointer: ENOSYS makes the C library fall back to clone
        (_BPF_JEQ_K, 0, 1, numbers["clone3"]),
        (_BPF_RET_K, 0, 0, _RET_ERRNO | _ENOSYS),
        # clone is allowed for a thread (CLONE_THREAD in its first argument), not for a process
        (_BPF_JEQ_K, 0, 4, numbers["clone"]),
        (_BPF_LD_W_ABS, 0, 0, 16),                  # seccomp_data.args[0], low half
        (_BPF_JSET_K, 1, 0, _CLONE_THREAD),
        (_BPF_RET_K, 0, 0, errno_eperm),
        (_BPF_RET_K, 0, 0, _RET_ALLOW),
    ]
    for number in denied:
        program += [(_BPF_JEQ_K, 0, 1, number), (_BPF_RET_K, 0, 0, errno_eperm)]
    program.append((_BPF_RET_K, 0, 0, _RET_ALLOW))
    filters = (_SockFilter * len(program))(*[_SockFilter(*instruction) for instruction in program])
    prog = _SockFprog(len(program), filters)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return False
    return libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) == 0

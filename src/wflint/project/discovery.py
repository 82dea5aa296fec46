"""Which files a run reads, and why it leaves the others.

Paths come from the command line: files (pre-commit names every staged YAML/JSON file) and
directories (walked). The same rules hold however a path is typed, so ``wflint check .``,
``wflint check $PWD`` and a hook naming files one by one see the same files:

* ``include``, ``exclude`` and ``per-file-ignores`` globs have gitignore semantics
  (``drafts/`` matches a directory at any depth, ``/drafts/`` only at the top, ``**`` spans
  directories) and match the path relative to the configuration file's directory (the working
  directory without one), whatever way the path was typed;
* ``exclude`` holds for files named on the command line too (ruff's ``force-exclude``);
* a walk skips hidden directories, ``node_modules``, ``__pycache__``, and files that
  ``.gitignore`` ignores (``respect_gitignore``); it takes ``.yaml``, ``.yml`` and ``.json``
  files only;
* only regular files are read: FIFOs, devices and sockets are skipped, and so are symbolic
  links that lead out of the directory being walked (unless ``follow_links``); a dangling
  link, an unreadable entry or one that vanished mid-walk is a ``Problem``, which the run
  reports as WF006 and goes on.

Whether a file read is checked is decided later (``api.recognition_decides``): a file named
on the command line is a workflow because the user said so (``explicit``); a file met in a
walk, or a named one under ``--skip-non-workflows`` (the pre-commit hook), is checked only
when its content is a workflow (``workflow.recognize``); ``include`` declares files to be
workflows whatever they hold.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator

from .config import Config, ConfigError
from ..document.limits import DEFAULT as DEFAULT_LIMITS
from ..core.records import MutableRecord, Record, assign, fresh

WORKFLOW_SUFFIXES = (".yaml", ".yml", ".json")
#: directories a walk never enters (version control, dependencies, caches)
SKIPPED_DIRS = ("node_modules", "__pycache__")
#: files larger than this are reported instead of parsed (a definition is a few KB)
MAX_FILE_BYTES = DEFAULT_LIMITS.file_bytes  # the default of the 'file-bytes' limit

if TYPE_CHECKING:
    import pathspec


class _NoPatterns:
    """What a spec of no patterns answers: nothing matches."""

    @staticmethod
    def match_file(_path: str) -> bool:
        return False


def _spec(lines: list[str]) -> "pathspec.GitIgnoreSpec | _NoPatterns":
    """A gitignore-style spec of ``lines`` that cannot backtrack (``wflint.project.globs``). pathspec is
    imported only when there are patterns to match: a check of files named on the command
    line, with no globs configured, never needs it (importing it was a tenth of a one-file
    check's start-up)."""
    if not lines:
        return _NoPatterns()
    from .globs import compile_globs

    return compile_globs(lines)


class Candidate(Record):
    """A regular file to read. ``shown`` is the path as reported; ``declared`` says that an
    ``include`` glob makes it a workflow whatever it holds."""

    def __init__(self, path: Path, shown: str, explicit: bool, declared: bool) -> None:
        assign(self, locals())


class Problem(Record):
    """An entry that should have been read and could not be (reported as WF006)."""

    def __init__(self, shown: str, message: str) -> None:
        assign(self, locals())


class Discovery(MutableRecord):
    def __init__(self, candidates: list[Candidate] = fresh(list),
                 #: (path, reason) for every entry left alone, for ``--show-files``
                 skipped: list[tuple[str, str]] = fresh(list), problems: list[Problem] = fresh(list)) -> None:
        assign(self, locals())


class Globs:
    """The configuration's globs, matched relative to ``base`` with gitignore semantics."""

    def __init__(self, config: Config, base: Path):
        self.base = base
        try:
            self.include = _spec(config.include)
            self.exclude = _spec(config.exclude)
            self.per_file = [(_spec([pattern]), codes) for pattern, codes in config.per_file_ignores.items()]
        except ValueError as exc:  # wflint.project.globs.GlobTooComplex (not imported: pathspec loads only with globs)
            raise ConfigError(f"a glob of the configuration: {exc}") from None

    def relative(self, path: Path) -> str | None:
        """``path`` relative to the base, or None outside it (where no glob applies)."""
        try:
            return Path(os.path.abspath(path)).relative_to(self.base).as_posix()
        except ValueError:
            return None

    # each test first asks whether there are globs to match: with none configured (the usual
    # case) the relative path, which pathlib makes slowly, is not worth working out for every file

    def excluded(self, path: Path, is_dir: bool = False) -> bool:
        if isinstance(self.exclude, _NoPatterns):
            return False
        rel = self.relative(path)
        return rel is not None and rel != "." and self.exclude.match_file(rel + ("/" if is_dir else ""))

    def included(self, path: Path) -> bool:
        if isinstance(self.include, _NoPatterns):
            return False
        rel = self.relative(path)
        return rel is not None and self.include.match_file(rel)

    def ignored_codes(self, path: Path) -> list[str]:
        if not self.per_file:
            return []
        rel = self.relative(path)
        if rel is None:
            return []
        return [code for spec, codes in self.per_file if spec.match_file(rel) for code in codes]


def base_dir(config: Config) -> Path:
    """Where globs are anchored: the configuration file's directory, or the working directory."""
    if config.source and Path(config.source).is_file():
        return Path(os.path.abspath(config.source)).parent
    return Path(os.path.abspath(os.getcwd()))


def shown_path(path: Path) -> str:
    """A path as reported: relative to the working directory when it lies below it (so
    ``check .`` and ``check $PWD`` print the same), as given otherwise."""
    if path.is_absolute():
        try:
            return path.relative_to(Path(os.path.abspath(os.getcwd()))).as_posix()
        except ValueError:
            return str(path)
    return os.path.normpath(path).replace(os.sep, "/") if str(path) != "." else "."


class _GitIgnores:
    """The ``.gitignore`` files that apply to a path: those of its directory and its ancestors
    up to the repository's top (the directory holding ``.git``). As in git (and ruff), outside a
    repository nothing is ignored."""

    def __init__(self, top: Path | None = None) -> None:
        #: where the chain stops: the repository's top, or a directory asked for by name
        self.top = top
        self._specs: dict[Path, pathspec.GitIgnoreSpec | None] = {}
        self._chains: dict[Path, list[Path]] = {}
        self._by_directory: dict[str, list[tuple[str, pathspec.GitIgnoreSpec]]] = {}
        #: (.gitignore file, note) for each line left out as too costly to match
        self.notes: list[tuple[Path, str]] = []

    def _spec(self, directory: Path) -> pathspec.GitIgnoreSpec | None:
        if directory not in self._specs:
            try:
                lines = (directory / ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
                from .globs import compile_gitignore

                self._specs[directory], notes = compile_gitignore(lines)
                self.notes += [(directory / ".gitignore", note) for note in notes]
            except OSError:
                self._specs[directory] = None
        return self._specs[directory]

    def _chain(self, directory: Path) -> list[Path]:
        """``directory`` and its ancestors up to the repository's top, top first; [] outside."""
        if directory not in self._chains:
            if directory == self.top or (directory / ".git").exists():
                self._chains[directory] = [directory]
            elif directory.parent == directory:
                self._chains[directory] = []
            else:
                above = self._chain(directory.parent)
                self._chains[directory] = [*above, directory] if above else []
        return self._chains[directory]

    def _applying(self, directory: str) -> list[tuple[str, pathspec.GitIgnoreSpec]]:
        """The ``.gitignore`` specs that apply in ``directory`` (absolute), top first, each
        with its directory as a string: worked out once per directory of the walk."""
        found = self._by_directory.get(directory)
        if found is None:
            chain = self._chain(Path(directory))
            found = self._by_directory[directory] = [(str(d), spec) for d in chain
                                                     if (spec := self._spec(d)) is not None]
        return found

    def ignored(self, path: Path, is_dir: bool) -> bool:
        absolute = os.path.abspath(path)
        verdict = False
        for d, spec in self._applying(os.path.dirname(absolute)):  # the deepest .gitignore has the last word
            # the path below d, as Path.relative_to would give it: both are absolute and normalised
            below = absolute[len(d):].lstrip("/")
            result = spec.check_file(below + ("/" if is_dir else ""))
            if result.include is not None:
                verdict = result.include
        return verdict


def discover(paths: Iterable[str | Path], config: Config, *, respect_gitignore: bool = True,
             follow_links: bool = False) -> Discovery:
    """The files to read for ``paths``. A path that does not exist raises FileNotFoundError
    (a usage error: the caller typed it)."""
    globs = Globs(config, base_dir(config))
    gitignores = _GitIgnores() if respect_gitignore else None
    out = Discovery()
    for p in paths:
        path = Path(p)
        if not os.path.lexists(path):
            raise FileNotFoundError(f"no such file or directory: {p}")
        if path.is_dir():
            if globs.excluded(path, is_dir=True):
                out.skipped.append((shown_path(path), "excluded by the configuration's exclude"))
                continue
            walk_ignores = gitignores
            if gitignores is not None and gitignores.ignored(path, True):
                # a directory asked for by name is walked even if ignored (as git and ripgrep
                # do): only the .gitignore files inside it apply
                walk_ignores = _GitIgnores(top=Path(os.path.abspath(path)))
            _walk(path, Path(os.path.realpath(path)), globs, walk_ignores, follow_links, out)
            if walk_ignores is not None and walk_ignores is not gitignores:
                _gitignore_notes(walk_ignores, out)
        else:
            _named(path, globs, out)
    if gitignores is not None:
        _gitignore_notes(gitignores, out)
    return out


def _gitignore_notes(gitignores: _GitIgnores, out: Discovery) -> None:
    """.gitignore lines left out (too costly to match) are listed with the skipped entries."""
    out.skipped += [(shown_path(file), note) for file, note in gitignores.notes]


def _named(path: Path, globs: Globs, out: Discovery) -> None:
    shown = shown_path(path)
    if globs.excluded(path):
        out.skipped.append((shown, "excluded by the configuration's exclude"))
        return
    if _regular(path, shown, out, "not a regular file (use '-' to read standard input)"):
        out.candidates.append(Candidate(path, shown, True, globs.included(path)))
    elif out.skipped and out.skipped[-1][0] == shown:
        # named on purpose (/dev/zero, a FIFO): that is a file that cannot be checked (WF006), not a skip
        out.skipped.pop()
        out.problems.append(Problem(shown, f"cannot read {shown}: not a regular file (a FIFO, device or socket); "
                                           "use '-' to read standard input"))


def _walk(top: Path, real_top: Path, globs: Globs, gitignores: _GitIgnores | None, follow_links: bool,
          out: Discovery) -> None:
    stack = [top]
    while stack:
        directory = stack.pop()
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            shown = shown_path(directory)
            out.problems.append(Problem(shown, f"cannot read directory {shown}: {exc.strerror or exc}"))
            continue
        subdirs = []
        for entry in entries:
            for kind, item in _classify(entry, real_top, follow_links, globs, gitignores, out):
                if kind == "dir":
                    subdirs.append(item)
                else:
                    out.candidates.append(item)
        stack.extend(reversed(subdirs))


def _classify(entry: os.DirEntry, real_top: Path, follow_links: bool, globs: Globs,
              gitignores: _GitIgnores | None, out: Discovery) -> Iterator[tuple[str, object]]:
    path = Path(entry.path)
    shown = shown_path(path)
    try:
        is_link = entry.is_symlink()
        is_dir = entry.is_dir(follow_symlinks=True) if (follow_links or not is_link) else entry.is_dir(follow_symlinks=False)
    except OSError as exc:
        out.problems.append(Problem(shown, f"cannot read {shown}: {exc.strerror or exc}"))
        return
    if is_dir:
        if entry.name.startswith(".") or entry.name in SKIPPED_DIRS:
            return  # not worth a line in --show-files: never workflows
        if is_link and not follow_links:
            out.skipped.append((shown, "a symbolic link to a directory (not followed)"))
            return
        if globs.excluded(path, is_dir=True):
            out.skipped.append((shown + "/", "excluded by the configuration's exclude"))
            return
        if gitignores is not None and gitignores.ignored(path, True):
            out.skipped.append((shown + "/", "ignored by .gitignore"))
            return
        yield "dir", path
        return
    if not entry.name.endswith(WORKFLOW_SUFFIXES) and not globs.included(path):
        return  # other file types are not mentioned: there would be too many
    if globs.excluded(path):
        out.skipped.append((shown, "excluded by the configuration's exclude"))
        return
    if gitignores is not None and gitignores.ignored(path, False):
        out.skipped.append((shown, "ignored by .gitignore"))
        return
    if is_link:
        if not path.exists():
            out.problems.append(Problem(shown, unreadable_reason(path, shown)))
            return
        target = Path(os.path.realpath(path))
        if not follow_links and real_top not in target.parents:
            out.skipped.append((shown, f"a symbolic link out of the walked directory (to {target}); name it to check it"))
            return
    if _regular(path, shown, out, "not a regular file (a FIFO, device or socket)"):
        yield "file", Candidate(path, shown, False, globs.included(path))


def _regular(path: Path, shown: str, out: Discovery, otherwise: str) -> bool:
    """Whether ``path`` is a regular file; if not, it is recorded as a problem or a skip."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        out.problems.append(Problem(shown, unreadable_reason(path, shown, exc)))
        return False
    if not stat.S_ISREG(mode):
        out.skipped.append((shown, otherwise))
        return False
    return True


def unreadable_reason(path: Path, shown: str, exc: OSError | None = None) -> str:
    """Why ``path`` cannot be read, in words: a dangling link says where it points."""
    if os.path.islink(path) and not os.path.exists(path):
        return f"{shown} is a symbolic link to {os.readlink(path)!r}, which does not exist"
    return f"cannot read {shown}: {(exc.strerror or exc) if exc else 'unknown error'}"


def read_limited(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file, refusing anything else and anything over the limit. The
    type is checked on the open descriptor, so a file swapped for a FIFO after the walk
    cannot block the run. Raises OSError (with a message a person can read) otherwise."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{path} is not a regular file")
        if info.st_size > limit:
            raise TooLarge(info.st_size, limit)
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise TooLarge(len(data), limit)
    return data


class TooLarge(OSError):
    def __init__(self, size: int, limit: int = MAX_FILE_BYTES):
        super().__init__(f"file is too large to be a workflow definition ({size} bytes): over the 'file-bytes' "
                         f"limit of {limit} (raise it with --limit file-bytes=N or [limits] in .wflint.toml)")
        self.size = size


class SourceLines:
    """Source lines for the ``full`` format (``lines(path, n)``), read once per file and split exactly where the
    checker counts lines (``\\n``, ``\\r\\n``, ``\\r``; not at U+0085, U+2028, U+2029, VT or FF,
    which ``str.splitlines`` would break at, quoting the wrong line)."""

    def __init__(self, stdin_name: str | None = None, stdin_data: bytes | None = None) -> None:
        self._files: dict[str, list[str] | None] = {}
        self._stdin = (stdin_name, stdin_data)
        if stdin_name is not None and stdin_data is not None:
            self._files[stdin_name] = _source_lines(stdin_data)

    def text(self, path: str) -> str | None:
        """The whole text of standard input when ``path`` names it (it cannot be read again)."""
        name, data = self._stdin
        if path != name or data is None:
            return None
        from ..document.source import decode

        source, _ = decode(data, path)
        return source.text if source is not None else None

    def __call__(self, path: str, n: int) -> str | None:
        if path not in self._files:
            try:
                # regular files only, within the size limit: a diagnostic may name /dev/zero or a FIFO
                self._files[path] = _source_lines(read_limited(Path(path)))
            except OSError:
                self._files[path] = None
        lines = self._files[path]
        if lines is None or not 1 <= n <= len(lines):
            return None
        return lines[n - 1]


def _source_lines(data: bytes) -> list[str] | None:
    from ..document.source import decode, split_lines  # a report quotes lines only when it has findings

    source, _ = decode(data)
    if source is None:
        return None
    return split_lines(source.text)

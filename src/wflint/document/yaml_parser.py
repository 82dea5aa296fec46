"""The YAML path: text → positioned node tree, read the way the service reads it.

The service reads YAML 1.1 with the timestamp rule switched off (``2024-01-01`` stays a string),
safe tags only, exactly one document (reference §1, §6.3 B2, §8.1). libyaml's C parser produces
the events and ``yaml_composer`` turns them into ``Node``s; this module drives it and reports the
problems that make a document unreadable (WF001).

Where libyaml and the service's pure-Python parser disagree, the service wins: its error text is
recovered by re-reading the file with the pure-Python parser when libyaml reports an error, and
tabs outside quoted or block scalars (accepted by libyaml, refused by PyYAML) are checked the
same way. A re-read is skipped for texts too large for the slow parser (``_PURE_PYTHON_LIMIT``).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Callable

import yaml
from yaml import events as ev

from .nodes import Node
from ..core.diagnostics import Pos
from .source import SourceFile
from .limits import DEFAULT, Limits
from .parse_result import MAX_DEPTH, ParseResult, _check_root, _diag, _SpanOf
from .yaml_composer import _YamlComposer
from .yaml_errors import _Mark, _Problem, _verdict
from ..core.patterns import lazy

try:  # libyaml; the pure-Python parser is the fallback and the arbiter of exact messages
    from yaml.cyaml import CParser as _CParser
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    _CParser = None

#: on a libyaml error, a text is re-read with PyYAML's pure-Python parser when its length, times
#: a penalty for deep flow nesting (the scanners are quadratic in it), stays under this
_PURE_PYTHON_LIMIT = 250_000

#: what PyYAML's reader refuses anywhere in the text (checked up front, as PyYAML does)
_NON_PRINTABLE = lazy("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


class _PyParser(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser):
    """PyYAML's pure-Python event parser: the service's parser."""

    def __init__(self, stream: str):
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)


def _parse_yaml(
    text: str, pos_of: Callable[[int], Pos], path: str, source: SourceFile, what: str, span_of: _SpanOf | None = None,
    limits: Limits = DEFAULT,
) -> ParseResult:
    if text.startswith("\ufeff"):  # a byte-order mark left in the text: YAML skips it, so do we
        text, outer_pos = text[1:], pos_of
        pos_of, span_of = (lambda index: outer_pos(index + 1)), None
    reader = _YamlReader(text, pos_of, path, span_of, limits)
    root = reader.run()
    diags = reader.diags
    if not reader.fatal and (root is None or root.kind != "map"):  # a mapping is fine: no position needed
        diags += _check_root(root, reader.documents == 0, what, pos_of(0), path)
    return ParseResult(root, diags, "yaml", source)


class _YamlReader(_YamlComposer):
    """Reads a text with libyaml, or with PyYAML's pure-Python parser when that has the last word."""

    def run(self) -> Node | None:
        bad = _NON_PRINTABLE.search(self.text)
        if bad:
            problem = f"unacceptable character #x{ord(bad.group()):04x}: special characters are not allowed"
            self._fail(_Problem(problem, _Mark(self.text, bad.start()), exact=False))
            return None
        if _CParser is not None:
            try:
                return self._run(_CParser(self.text))
            except yaml.MarkedYAMLError as exc:
                if self._too_large_to_reread():
                    self._fail(_Problem.of(exc, exact=False))
                    return None
            # libyaml refused the text: the service's parser decides (its message, or its tree,
            # as it accepts a few things libyaml refuses, e.g. a tab starting a block scalar line)
            self._reset()
        try:
            return self._run(_PyParser(self.text))
        except yaml.MarkedYAMLError as exc:
            self._fail(_Problem.of(exc))
            return None

    def _run(self, parser) -> Node | None:
        """Compose with one parser; libyaml's syntax errors propagate (see ``run``)."""
        try:
            root = self._compose(parser)
        except _Problem as problem:
            self._fail(problem)
            return None
        except yaml.MarkedYAMLError:
            raise
        except yaml.YAMLError as exc:  # a reader error from libyaml: its position counts bytes
            index = _char_index(self.text, getattr(exc, "position", 0))
            self._fail(_Problem(getattr(exc, "reason", None) or str(exc), _Mark(self.text, index), exact=False))
            return None
        except (RecursionError, MemoryError) as exc:  # pragma: no cover - guarded by the limits
            problem = f"the document is too large or too deep ({type(exc).__name__})"
            self._fail(_Problem(problem, _Mark(self.text, 0), exact=False))
            return None
        finally:
            parser.dispose()
        if self.scalar_spans is not None and not isinstance(parser, _PyParser):
            self._check_tabs()
        return root

    def _too_large_to_reread(self) -> bool:
        """Whether the pure-Python parser would take too long on this text (see ``_PURE_PYTHON_LIMIT``)."""
        return len(self.text) * (1 + self.max_depth // 20) > _PURE_PYTHON_LIMIT

    def _fail(self, p: _Problem) -> None:
        self.fatal = True
        start = self._pos(p.problem_mark)
        if p.limit:
            self.diags.append(_diag("WF007", p.problem, start, start, self.path))
            return
        message = f"could not parse YAML: {p.problem}"
        if p.message:
            message = f"could not parse YAML: {p.message}"
        elif p.context:
            if p.context_mark is not None:
                where = self._pos(p.context_mark)
                message += f" ({p.context} at line {where.line}, column {where.col})"
            else:
                message += f" ({p.context})"
        self.diags.append(_diag("WF001", message, start, start, self.path, service=_verdict(p)))

    def _check_tabs(self) -> None:
        """PyYAML refuses a tab between tokens, which libyaml accepts. Tabs inside quoted or
        block scalars and in comments are fine; for any other, ask PyYAML itself."""
        text = self.text
        spans = sorted(self.scalar_spans or [])
        span_starts = [s for s, _, _ in spans]
        line_starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]
        comment = (-1, -1)  # (line start, offset of its "#") of the last comment met

        def scalar_at(i: int) -> tuple[int, int, bool] | None:
            k = bisect_right(span_starts, i) - 1
            return spans[k] if k >= 0 and spans[k][0] <= i < spans[k][1] else None

        for match in re.finditer("\t", text):
            i = match.start()
            span = scalar_at(i)
            if span is not None and span[2]:
                continue
            if span is None:
                line_start = line_starts[bisect_right(line_starts, i) - 1]
                if comment[0] == line_start and comment[1] < i:
                    continue
                h = text.find("#", line_start, i)
                while h >= 0 and scalar_at(h) is not None:  # a "#" inside a scalar starts no comment
                    h = text.find("#", h + 1, i)
                if h >= 0:
                    comment = (line_start, h)
                    continue
            if self._too_large_to_reread():
                return
            exact = _python_parse_error(text, len(text))
            if exact is not None:
                p = _Problem.of(exact)
                why = "a tab here" if "\\t" in (exact.problem or "") else "this"
                message = f"could not parse YAML: {p.problem} (the service's parser refuses {why}; libyaml accepts it)"
                where = self._pos(p.problem_mark)
                self.diags.append(_diag("WF001", message, where, None, self.path, service=_verdict(p)))
            return


def _python_parse_error(text: str, stop_index: int) -> yaml.MarkedYAMLError | None:
    """The first error PyYAML's pure-Python parser meets before ``stop_index``, if any."""
    parser = _PyParser(text)
    depth = 0
    try:
        while True:
            event = parser.get_event()
            kind = type(event)
            if kind is ev.StreamEndEvent or event.start_mark.index > stop_index:
                return None
            if kind is ev.MappingStartEvent or kind is ev.SequenceStartEvent:
                depth += 1
                if depth > MAX_DEPTH:
                    return None
            elif kind is ev.MappingEndEvent or kind is ev.SequenceEndEvent:
                depth -= 1
    except yaml.MarkedYAMLError as exc:
        return exc
    except Exception:  # pragma: no cover - only used to word a message
        return None


def _char_index(text: str, byte_offset: int) -> int:
    return len(text.encode("utf-8", "surrogatepass")[:byte_offset].decode("utf-8", "ignore"))

"""Typed errors of opsbrain. Library code raises these; only the CLI maps them to exit codes.

Exit-code mapping (done in :mod:`opsbrain.cli`): :class:`InputError` and its subclasses -> 2 (bad input);
:class:`RunAborted` and :class:`ActionError` surface in the run journal, not as exit codes of their own.
"""

from __future__ import annotations

MAX_REASON_CHARS = 400  # reason: an error line names what is wrong; echoing kilobytes of input hides it
MAX_FILE_CHARS = 300


def _cap(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, saying how much was cut."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text) - limit} more characters)"


def _printable(text: str) -> str:
    """``text`` with control characters escaped (``\\x1b``): input echoed into an error line (a garbage page's bytes)
    must not drive the terminal."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


class OpsbrainError(Exception):
    """Base of every error opsbrain raises on purpose."""


class InputError(OpsbrainError):
    """Bad user input: a file, the path inside it (``steps[2].action``) and the reason.

    ``str()`` is one line: ``FILE: PATH: reason`` (empty parts are left out).
    """

    def __init__(self, reason: str, file: str | None = None, path: str | None = None) -> None:
        self.file = _cap(str(file), MAX_FILE_CHARS) if file is not None else None
        self.path = _cap(path, MAX_FILE_CHARS) if path is not None else None
        self.reason = _cap(_printable(" ".join(str(reason).split())), MAX_REASON_CHARS)  # one line, however given
        super().__init__(self.reason)

    def __str__(self) -> str:
        return ": ".join(part for part in (self.file, self.path, self.reason) if part)

    def reworded(self, reason: str, file: str | None = None, path: str | None = None) -> InputError:
        """The same kind of error with another text (a wrapper's words, secrets redacted)."""
        return InputError(reason, file, path)


class SourceAuthError(InputError):
    """A source's server refused the credentials sent, or wants some (HTTP 401 Unauthorized, 403 Forbidden): not a
    source without data. ``status`` is the HTTP status, ``url`` the URL asked (no password, secrets redacted)."""

    def __init__(self, reason: str, status: int, url: str, file: str | None = None, path: str | None = None) -> None:
        super().__init__(reason, file, path)
        self.status = int(status)
        self.url = _cap(url, MAX_FILE_CHARS)

    def reworded(self, reason: str, file: str | None = None, path: str | None = None) -> SourceAuthError:
        return SourceAuthError(reason, self.status, self.url, file, path)


class ScenarioError(InputError):
    """A chaos scenario file does not validate."""


class RunbookError(InputError):
    """A runbook file does not validate."""


class KnowledgeBaseError(InputError):
    """A knowledge-base file (fault classes, case library, imported vendor format) does not validate."""


class ActionError(OpsbrainError):
    """A control action failed while a runbook ran; recorded in the journal as a failed action."""

    def __init__(self, action: str, target: str, reason: str) -> None:
        self.action = action
        self.target = target
        self.reason = reason
        super().__init__(f"{action} on {target}: {reason}")


class RunAborted(OpsbrainError):
    """A run was stopped before its end (operator abort, safety guard); the journal is still written."""

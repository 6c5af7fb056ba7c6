"""The library's exceptions, under one base: catch :class:`TheorycheckError` to catch what theorycheck raises on
purpose (an exception of another type is a bug, or a subject's own)."""

from __future__ import annotations


class TheorycheckError(Exception):
    """The base of the exceptions theorycheck raises on purpose."""


class ParameterError(TheorycheckError, ValueError):
    """A parameter or an input that the paper's hypotheses (or plain sense) rule out: bad usage, reported in one
    line before any work (exit status :attr:`theorycheck.verdicts.ExitCode.USAGE`)."""

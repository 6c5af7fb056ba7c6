"""The kinds of claims, as base classes: a claim declares only what differs.

Each kind owns ``tasks``, ``measure``, the hypothesis checks, ``decide``, the explanation and the
figure; its docstring lists the hooks a claim must provide and those it may (in the manner of
benchopt's ``base.py``). Every decision goes through :mod:`theorycheck.stats`.
"""

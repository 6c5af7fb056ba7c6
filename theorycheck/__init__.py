"""theorycheck: executable checks of the theory of budgeted learning."""

__version__ = "0.1.0"
#: the entry-point group through which an installed package registers its claims modules
CLAIMS_ENTRY_POINTS = "theorycheck.claims"


def __getattr__(name):  # verify and conform load the library only when used (`theorycheck list` stays fast)
    if name in ("verify", "conform"):
        from . import api

        return getattr(api, name)
    if name == "declare_paper":
        from .claims import declare_paper

        return declare_paper
    raise AttributeError(f"module 'theorycheck' has no attribute {name!r}")

"""theorycheck: executable checks of the theory of budgeted learning."""

__version__ = "0.1.0"


def __getattr__(name):  # verify and conform load the library only when used (`theorycheck list` stays fast)
    if name in ("verify", "conform"):
        from . import api

        return getattr(api, name)
    if name == "search":  # the package, which called is theorycheck.search.search
        import importlib

        return importlib.import_module(".search", __name__)
    if name == "CLAIMS_ENTRY_POINTS":  # the entry-point group of installed claims modules
        from . import entry_points

        return entry_points.CLAIMS_ENTRY_POINTS
    if name == "declare_paper":
        from . import claims

        return claims.declare_paper
    raise AttributeError(f"module 'theorycheck' has no attribute {name!r}")

"""theorycheck: executable checks of the theory of budgeted learning."""

__version__ = "0.1.0"

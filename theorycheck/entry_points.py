"""The entry-point group through which an installed package registers its claims modules.

A module of its own with no imports, so that ``theorycheck list`` can key its cached listing on the installed
claims packages without importing the claims (and with them scipy, pandas and the learners)."""

#: the group of an installed package's ``theorycheck.claims`` entry points (also ``theorycheck.CLAIMS_ENTRY_POINTS``)
CLAIMS_ENTRY_POINTS = "theorycheck.claims"

import pytest

from theorycheck.claims import discover


@pytest.fixture(scope="session")
def registry():
    return discover()

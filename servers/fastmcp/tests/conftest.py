from collections.abc import Iterator

import pytest
from contract import Calls


@pytest.fixture(scope="module")
def calls() -> Iterator[Calls]:
    c = Calls()
    yield c
    c.close()

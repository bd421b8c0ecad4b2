# Shared fixtures of the geblas Python tests: the real-graph folder (GEBLAS_DATA_DIR, else
# the folder CMake configured, else ../shared/data beside the checkout) and seeded RNGs.
import os
import pathlib

import numpy as np
import pytest


def data_dir():
    for var in ("GEBLAS_DATA_DIR", "GEBLAS_DEFAULT_DATA_DIR"):
        if os.environ.get(var):
            return pathlib.Path(os.environ[var])
    return pathlib.Path(__file__).resolve().parents[3] / "shared" / "data"


@pytest.fixture
def data_file():
    """data_file('cora.mtx.gz') -> path, or a skip naming the missing file."""
    def find(name):
        p = data_dir() / name
        if not p.exists():
            pytest.skip(f"real graph {name} not found in {data_dir()} (set GEBLAS_DATA_DIR)")
        return p
    return find


@pytest.fixture
def rng():
    return np.random.default_rng(20261125)

"""pytest fixtures for the vkconv module's tests.

Run from the build: PYTHONPATH=<build>/python python3 -m pytest python/tests (scripts/test.sh and
`ctest -R vkconv_python` do). The tests use a private cache folder (VKCONV_CACHE_DIR, set here to a
fresh temporary folder unless the caller set one), so a user's tuning cache never changes which
configurations they run.
"""
import os
import sys
import zlib

import numpy as np
import pytest

import vkconv

sys.path.insert(0, os.path.dirname(__file__))


@pytest.fixture(scope="session", autouse=True)
def private_cache_dir(tmp_path_factory):
    if not os.environ.get("VKCONV_CACHE_DIR"):
        os.environ["VKCONV_CACHE_DIR"] = str(tmp_path_factory.mktemp("vkconv-cache"))
    return os.environ["VKCONV_CACHE_DIR"]


@pytest.fixture(scope="session")
def ctx(private_cache_dir):
    return vkconv.Context()


@pytest.fixture
def rng(request):
    # One generator per test, seeded from its name: fresh values per test, the same on every run.
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))

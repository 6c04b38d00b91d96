"""The rigid robots of Chapter 8 and Müller's Delta are also description
files (issue 11): each file gives the same full model (10.123) as the
Python description at random states."""
from pathlib import Path

import numpy as np
import pytest

import flexpkm as fp
from flexpkm.cases import delta, dualv, five_bar
from flexpkm.model import files

CASES = Path(fp.cases.__file__).parent


@pytest.mark.parametrize("file, module, kwargs", [
    ("rigid_five_bar.toml", five_bar, {}), ("dualv.toml", dualv, {}),
    ("delta.toml", delta, {"flexible": True})])
def test_file_gives_the_python_full_dynamics(file, module, kwargs):
    py = fp.build_model(module.robot(**kwargs))
    fl = fp.build_model(files.load(CASES / file))
    assert fl.layout.names == py.layout.names
    rng = np.random.default_rng(0)
    home = np.asarray(module.HOME, float)
    for _ in range(3):
        q = module.configuration(py, *(home + rng.uniform(-0.01, 0.01, home.size))) \
            if module is not delta else module.configuration(py, home + rng.uniform(-0.01, 0.01, 3))
        n_r = len(fp.full_dynamics(py, q, 0.0).indep)
        qd = rng.normal(size=n_r)
        a, b = fp.full_dynamics(py, q, qd), fp.full_dynamics(fl, q, qd, dep=fp.full_dynamics(py, q, 0.0).dep)
        np.testing.assert_allclose(b.M, a.M, atol=1e-12 * np.abs(a.M).max())
        np.testing.assert_allclose(b.c, a.c, atol=1e-12 * np.abs(a.c).max())

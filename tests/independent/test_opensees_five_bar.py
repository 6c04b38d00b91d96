"""The example five-bar (cases/examples/five_bar.toml) against an independent
OpenSeesPy frame model with the same subdivision. Configurations from the
general numerical assembly (fp.assemble, forward problem), cross-checked
against the circle intersection written in opensees_five_bar.five_bar_geometry. Tolerance 3e-4:
the OpenSees elements neglect the rotary inertia rho*I that flexpkm's beams
keep (measured differences 1.5e-4 to 1.9e-4 on the first six modes)."""
from pathlib import Path

import numpy as np
import pytest

import flexpkm as fp
from flexpkm.cases import dualemps
from flexpkm.model import files

pytest.importorskip("openseespy")
from .opensees_five_bar import (five_bar_frequencies, five_bar_geometry,  # noqa: E402
                                five_bar_static_deflection)

FILE = Path(dualemps.__file__).parent / "examples" / "five_bar.toml"


def _configuration(rob, q11, q21):
    return fp.assemble(rob, q_a=[q11, q21])


@pytest.mark.parametrize("qa", [(1.9, 1.2), (2.1, 1.0), (1.7, 1.4)])
def test_assembly_equals_the_circle_intersection(qa):
    rob = fp.build_model(files.load(FILE, elements=2))
    q = _configuration(rob, *qa)
    g = five_bar_geometry(*qa)
    for name, value in (("q12", g["q12"]), ("q22", g["q22"]), ("x_P", g["P"][0]),
                        ("y_P", g["P"][1])):
        wrapped = (q[rob.layout.index(name)] - value + np.pi) % (2 * np.pi) - np.pi
        assert abs(wrapped) < 1e-10, name


@pytest.mark.parametrize("qa", [(1.9, 1.2), (2.1, 1.0)])
@pytest.mark.parametrize("n", [1, 2, 4])
def test_five_bar_matches_opensees(qa, n):
    rob = files.load(FILE, elements=n)
    f = fp.natural_frequencies(rob, _configuration(rob, *qa), shapes=False,
                               backend="numpy").frequencies_hz[:6]
    np.testing.assert_allclose(f, five_bar_frequencies(*qa, n_el=n), rtol=3e-4)


def test_five_bar_loops_closed_at_the_geometric_model():
    rob = files.load(FILE)
    g = five_bar_geometry(1.9, 1.2)
    q_tot = np.zeros(rob.layout.n_tot)
    for name, v in (("q11", 1.9), ("q21", 1.2), ("q12", g["q12"]), ("q22", g["q22"]),
                    ("x_P", g["P"][0]), ("y_P", g["P"][1])):
        q_tot[rob.layout.index(name)] = v
    assert rob.layout.names[-2:] == ("x_P", "y_P")
    res = fp.closure_residual(rob, q_tot[None])
    assert np.max(np.abs(res)) < 1e-12


def test_reference_table_is_the_geometric_model():
    ref = files.reference(FILE)
    g = five_bar_geometry(ref["q11"], ref["q21"])
    assert (ref["q12"], ref["q22"]) == pytest.approx((g["q12"], g["q22"]), abs=1e-14)


def test_a_pose_keeps_the_reference_elbows_and_matches_opensees():
    """Issue 16: at (0.2, 0.45) the file's modes give q11 = 1.7607 (not the
    other elbow, 0.5445) and f1 = 14.497 Hz; OpenSees at the same actuated
    coordinates, whose circle intersection must land on the pose."""
    rob = files.load(FILE)
    q = fp.assemble(rob, pose=[0.2, 0.45])
    q11, q21 = q[rob.layout.index("q11")], q[rob.layout.index("q21")]
    assert q11 == pytest.approx(1.7607, abs=1e-4)
    assert five_bar_geometry(q11, q21)["P"] == pytest.approx([0.2, 0.45], abs=1e-12)
    f = fp.natural_frequencies(rob, q, shapes=False, backend="numpy").frequencies_hz[:6]
    np.testing.assert_allclose(f, five_bar_frequencies(q11, q21, n_el=1), rtol=3e-4)
    assert f[0] == pytest.approx(14.497, abs=5e-4)


@pytest.mark.parametrize("qa", [(1.9, 1.2), (1.7, 1.4)])
@pytest.mark.parametrize("n", [1, 3])
def test_static_deflection_matches_opensees(qa, n):
    """Issue 20 item 3: a force at P, actuators locked: the K_r solution of
    fp.static_deflection equals OpenSees' linear static analysis of the same
    frame (the same Euler-Bernoulli stiffness: measured 5e-11 relative)."""
    from flexpkm.algorithms.statics import static_deflection
    model = fp.build_model(files.load(FILE, elements=n))
    force = np.array([3.0, -5.0])
    d = static_deflection(model, _configuration(model, *qa), np.r_[force, 0, 0, 0, 0])
    u = five_bar_static_deflection(*qa, force, n_el=n)
    np.testing.assert_allclose(d.dx_p, u, rtol=1e-6, atol=1e-6 * np.abs(u).max())

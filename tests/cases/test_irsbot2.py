"""The IRSBot-2's description file (cases/irsbot2.toml) against a closed-form
reading of its geometry written here: in the plane x_0-z_0 each leg is a
planar 2R chain (proximal link l_1 from A_i, distal bars l_2 to the
platform point P + s_i c x_0), so the IGM is the five-bar's and the FGM the
intersection of two circles; its mobility (Appendix A) is 2; the ``idm``
command runs on it. The flexible variant: tests/cases/test_irsbot2_flexible.py."""
from pathlib import Path

import numpy as np
import pytest

import flexpkm as fp
from flexpkm.algorithms.assembly import assemble_reference
from flexpkm.cli.app import main
from flexpkm.model import files
from tests.cases.edit import edited_robot

FILE = Path(fp.cases.__file__).parent / "irsbot2.toml"
#: the file's dimensions (m), read from its header, not from the model
A, L1, L2, C = 0.10, 0.28, 0.45, 0.04
SIDES = (1.0, -1.0)                      # leg 1 at x = +a, leg 2 mirrored


def igm(x, z):
    """Closed-form IGM of each leg, working mode of the file (proximal link
    outward and down): q_i1, the bar angle beta_i, both about y_0 (down
    positive, in the leg's own frame, mirrored for leg 2)."""
    out = []
    for s in SIDES:
        X, Z = s * x + C - A, z          # P + s c x_0 - A_i, in the leg's frame
        K = (X * X + Z * Z + L1 * L1 - L2 * L2) / (2.0 * L1)
        q1 = -np.arctan2(Z, X) - np.arccos(K / np.hypot(X, Z))
        beta = np.arctan2(-(Z + L1 * np.sin(q1)), X - L1 * np.cos(q1))
        out.append((q1, beta))
    return out


def fgm(q11, q21):
    """Closed-form FGM: P on the circles of radius l_2 about B_i - s_i c x_0,
    the lower of the two intersections (the file's assembly mode)."""
    O = [np.array([s * (A + L1 * np.cos(q) - C), -L1 * np.sin(q)]) for s, q in zip(SIDES, (q11, q21))]
    d = O[1] - O[0]
    n = np.linalg.norm(d)
    mid = O[0] + d / 2.0
    h = np.sqrt(L2 * L2 - n * n / 4.0)
    perp = np.array([-d[1], d[0]]) / n
    return min((mid + h * perp, mid - h * perp), key=lambda p: p[1])


@pytest.fixture(scope="module")
def model():
    return fp.build_model(files.load(FILE))


def _poses(n, seed=0):
    return np.array([0.0, -0.45]) + np.random.default_rng(seed).uniform(-0.08, 0.08, (n, 2))


def _wrap(a):
    return (np.asarray(a) + np.pi) % (2 * np.pi) - np.pi


def test_inverse_geometric_model_is_the_assembly(model):
    L = model.layout
    for x, z in _poses(5):
        q = fp.assemble(model, pose=np.array([x, z]))
        for leg, (q1, beta) in zip("12", igm(x, z)):
            expected = {f"q{leg}1": q1, f"q{leg}2": -q1, f"q{leg}8": q1,     # parallelogram
                        f"q{leg}3": beta, f"q{leg}6": beta, f"q{leg}4": -beta}
            for name, value in expected.items():
                assert abs(_wrap(q[L.index(name)] - value)) < 1e-10, name


def test_reference_is_assembled_from_the_rough_guess(model):
    q = assemble_reference(model)
    (q11, _), (q21, _) = igm(0.0, -0.45)
    np.testing.assert_allclose(q[list(model.layout.actuated)], [q11, q21], atol=1e-10)


def test_forward_geometric_model_is_the_assembly(model):
    L = model.layout
    for x, z in _poses(5, seed=1):
        (q11, _), (q21, _) = igm(x, z)
        q = fp.assemble(model, q_a=np.array([q11, q21]))
        np.testing.assert_allclose(q[list(L.commanded)], [x, z], atol=1e-10)
        np.testing.assert_allclose(fgm(q11, q21), [x, z], atol=1e-10)


def test_mobility_is_two():
    """Appendix A: the platform's two translations in x_0-z_0."""
    m = fp.mobility(files.load(FILE))
    assert (m.n_dof, m.n_platform, m.n_rigid) == (2, 2, 14)


def test_a_free_platform_would_also_turn_about_y0():
    """With all six platform coordinates the hinged legs let the platform
    turn about y_0 (mobility 3): what the file's dofs x, z hold, and the
    IRSBot-2's U joints (docs/irsbot2.md)."""
    def free(data):
        data["platform"]["dofs"] = [0, 1, 2, 3, 4, 5]
        data["platform"]["dof_names"] = ["x", "y", "z", "rx", "ry", "rz"]
    m = fp.mobility(edited_robot("irsbot2", free))
    assert (m.n_dof, m.n_platform) == (3, 3)


def test_idm_command_runs(tmp_path, capsys):
    status = main(["idm", "irsbot2", "--from", "0", "-0.45", "--to", "0.1", "-0.40",
                   "--duration", "0.1", "--rate", "100", "--out", str(tmp_path), "--json"])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert (tmp_path / "idm.npz").is_file()

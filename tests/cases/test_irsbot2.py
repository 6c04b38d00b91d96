"""The IRSBot-2's description file (cases/irsbot2.toml) against a closed-form
reading of its geometry (not from flexpkm): in the plane x_0-z_0 each leg is a
planar 2R chain (proximal link l_1 from A_i, distal bars l_2 to the
platform point P + s_i c x_0), so the IGM is the five-bar's and the FGM the
intersection of two circles (tests/independent/irsbot2_geometry.py); its
mobility (Appendix A) is 2; the ``idm`` command runs on it. The flexible
variant: tests/independent/test_opensees_irsbot2.py."""
from pathlib import Path

import numpy as np
import pytest

import flexpkm as fp
from flexpkm.algorithms.assembly import assemble_reference
from flexpkm.cli.app import main
from flexpkm.model import files
from tests.cases.edit import edited_robot
from tests.independent.irsbot2_geometry import fgm, igm

FILE = Path(fp.cases.__file__).parent / "irsbot2.toml"


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

"""The book's other robots as description files (issue 20 item 5): each
rigid file and its flexible variant in cases/examples/ run through
``flexpkm check``, ``modal`` and ``idm`` (few modes, few samples); their
closed forms are checked in test_orthoglide.py, test_three_rpr.py,
test_tripteron.py and test_gough_stewart.py. (tests/cli/test_every_robot.py
also runs check, modal, modes --png and sweep on every file.)"""
import importlib
from pathlib import Path

import numpy as np
import pytest

import flexpkm as fp
from flexpkm import cases
from flexpkm.cli.app import main
from flexpkm.model import files

ROOT = Path(cases.__file__).parent
#: file stem -> (reference pose, a nearby pose, N_dof)
ROBOTS = {
    "orthoglide": ([0.1, 0.1, 0.2], [0.12, 0.08, 0.22], 3),
    "three_rpr": ([0.03, 0.02, 0.4], [0.05, 0.0, 0.45], 3),
    "tripteron": ([0.15, 0.12, 0.35], [0.17, 0.1, 0.37], 3),
    "gough_stewart": ([0.02, -0.01, 0.6, 0.05, -0.03, 0.1], [0.04, 0.0, 0.62, 0.06, -0.02, 0.12], 6),
}


def _run(argv, capsys):
    status = main(argv)
    out, err = capsys.readouterr()
    assert status == 0 and "Traceback" not in err, (argv, err)
    return out


@pytest.mark.parametrize("name", sorted(ROBOTS))
def test_check_modal_idm(name, tmp_path, capsys):
    start, stop, n_dof = ROBOTS[name]
    rigid, flexible = str(ROOT / f"{name}.toml"), str(ROOT / "examples" / f"{name}_flexible.toml")
    for path in (rigid, flexible):
        out = _run(["check", path], capsys)
        assert f"mobility (Appendix A): N_dof = {n_dof} (platform {n_dof})" in out
    out = _run(["modal", flexible, "--modes", "3", "--json"], capsys)
    assert out.count('"frequencies_hz"') == 1
    _run(["idm", rigid, "--from", *map(str, start), "--to", *map(str, stop),
          "--duration", "0.5", "--rate", "20", "--out", str(tmp_path)], capsys)
    d = np.load(tmp_path / "idm.npz")
    assert d["tau"].shape == (11, n_dof) and np.isfinite(d["tau"]).all()
    assert np.abs(d["tau"]).max() > 0.1                 # N: masses and gravity act


@pytest.mark.parametrize("name", sorted(ROBOTS))
def test_flexible_variant_keeps_the_rigid_coordinates(name):
    """The flexible files (frames rearranged to carry beams along x for the
    3-RPR and the Gough-Stewart platform) close their loops at the rigid
    file's reference configuration: same coordinates, same geometry."""
    rigid = fp.build_model(files.load(ROOT / f"{name}.toml"))
    flexible = fp.build_model(files.load(ROOT / "examples" / f"{name}_flexible.toml"))
    q_rigid = fp.reference_configuration(rigid)
    q = fp.reference_configuration(flexible)
    for k, coordinate in enumerate(rigid.layout.names):
        q[flexible.layout.index(coordinate)] = q_rigid[k]
    assert np.abs(fp.closure_residual(flexible, q)).max() < 1e-12


#: robot -> (its closed-form module, a reference pose, the spread of the test poses)
IGM_POSES = {"three_rpr": ((0.03, 0.02, 0.4), 0.05), "tripteron": ((0.15, 0.12, 0.35), 0.04)}


@pytest.mark.parametrize("name", sorted(IGM_POSES))
def test_inverse_geometric_model_is_the_assembly(name):
    """The book's IGM (3-RPR (7.20)-(7.22), Tripteron (9.60)-(9.62)) equals
    the file's assembly at random poses, to 1e-10."""
    from .closed_forms import assert_igm_is_assembly, file_model, poses_near
    reference, spread = IGM_POSES[name]
    module = importlib.import_module(f"flexpkm.cases.{name}")
    assert_igm_is_assembly(file_model(f"{name}.toml"), module.igm,
                           poses_near(reference, spread, 5, 0))

"""Exact frequency sensitivities (flexpkm.compiled.sensitivity) against
central finite differences of the whole numpy modal analysis."""
import copy
from pathlib import Path

import numpy as np
import pytest

import flexpkm as fp
from flexpkm.cases import dualemps, navaro
from flexpkm.cli.app import main
from flexpkm.compiled.sensitivity import _set, frequency_sensitivities
from flexpkm.errors import InvalidArgumentError
from flexpkm.model.files import dumps, from_dict, parse

pytest.importorskip("casadi")


def finite_differences(data, path, configure, n, rel):
    """Central differences of the whole numpy modal analysis at p +- h and
    p +- h/2 (h = rel p), Richardson-extrapolated (error O(h^4)); each
    perturbed robot is configured by ``configure(model)``."""
    d = copy.deepcopy(data)
    p0 = _set(d, path, 0.0)

    def central(h):
        f = []
        for v in (p0 + h, p0 - h):
            _set(d, path, v)
            m = fp.build_model(from_dict(d))
            f.append(fp.natural_frequencies(m, configure(m), n_modes=n,
                                            backend="numpy").frequencies_hz)
        return (f[0] - f[1]) / (2 * h)
    h = rel * abs(p0) if p0 else rel
    return (4 * central(h / 2) - central(h)) / 3


DUAL = (0.05, 0.1)
NAVARO = (0.0, 0.01, -0.3)
BEAM = "legs[{}].frames[{}].bodies[0].{}"


def _dualemps_at_q_a(m):
    q = dualemps.configuration(fp.build_model(dualemps.robot()), *DUAL)
    return fp.assemble(m, q_a=q[list(m.layout.actuated)], guess=q)


def _navaro_at_pose(m):
    q = navaro.pose_configurations(fp.build_model(navaro.robot()), [NAVARO])[0]
    return fp.assemble(m, pose=q[m.layout.n_t:], guess=q)


@pytest.mark.parametrize("case, path", [
    (dualemps, BEAM.format(0, 2, "material.E")),
    (dualemps, BEAM.format(0, 2, "material.rho")),
    (dualemps, BEAM.format(1, 2, "section.Iz")),
    (dualemps, BEAM.format(0, 3, "M")),
    (dualemps, "legs[0].frames[2].d"),                       # moves frames: same q_a
    (navaro, BEAM.format(1, 2, "material.E")),
    (navaro, BEAM.format(2, 3, "material.rho")),
    (navaro, BEAM.format(0, 2, "section.Iy")),
    (navaro, BEAM.format(1, 3, "length")),                   # moves the tip shapes
    (navaro, "legs[0].frames[3].d"),                         # moves frames: same pose
    (navaro, "closures[1].platform_point[1]")])              # moves a platform joint
def test_sensitivities_match_central_differences(case, path):
    """Against Richardson-extrapolated central differences of the whole
    numpy modal analysis (the perturbed robot re-assembled at the same q_a
    for the DualEMPS, the same platform pose for the NaVARo): 1e-6 of the
    largest derivative of the first five modes."""
    model = fp.build_model(case.robot())
    configure = _dualemps_at_q_a if case is dualemps else _navaro_at_pose
    hold = "q_a" if case is dualemps else "pose"
    q = configure(model)
    data = parse(dumps(model.robot), "<robot>")
    f, df = frequency_sensitivities(data, [path], q, n_modes=5, hold=hold)
    assert np.allclose(f, fp.natural_frequencies(model, q, n_modes=5).frequencies_hz, rtol=1e-12)
    fd = finite_differences(data, path, configure, 5, 1e-3)
    assert np.abs(fd).max() > 1e-3 * f.max() / max(abs(_set(copy.deepcopy(data), path, 0.0)), 1.0)
    assert np.abs(df[:, 0] - fd).max() < 1e-6 * np.abs(fd).max()


def test_discrete_parameters_and_the_command_line(capsys):
    model = fp.build_model(dualemps.robot())
    data = parse(dumps(model.robot), "<robot>")
    with pytest.raises(InvalidArgumentError, match="not a continuous parameter"):
        frequency_sensitivities(data, ["legs[0].frames[2].bodies[0].elements"],
                                dualemps.configuration(model, 0, 0))
    assert main(["modal", "dualemps", "--modes", "3", "--json", "--sensitivities",
                 "legs[0].frames[2].bodies[0].material.E"]) == 0
    import json
    out = json.loads(capsys.readouterr().out)
    assert len(out["sensitivities"]["legs[0].frames[2].bodies[0].material.E"]) == 3
    assert main(["modal", "dualemps", "--sensitivities", "legs[9].frames[0].M"]) == 2


def test_repeated_eigenvalue_derivatives_do_not_depend_on_the_basis():
    """K(p) = diag(1 + p, 1 + 2 p), M = 1: at p = 0 lambda = 1 is double and
    its branches have slopes 1 and 2, whatever basis of the eigenspace."""
    from flexpkm.compiled.sensitivity import eigenvalue_derivatives
    c, s = np.cos(0.7), np.sin(0.7)
    X = np.array([[c, -s], [s, c]])
    d = eigenvalue_derivatives(np.array([1.0, 1.0]), X, np.diag([1.0, 2.0]), np.zeros((2, 2)))
    assert np.allclose(d, [1.0, 2.0], atol=1e-15)
    d = eigenvalue_derivatives(np.array([1.0, 3.0]), np.eye(2), np.diag([1.0, 2.0]), np.eye(2))
    assert np.allclose(d, [0.0, -1.0], atol=1e-15)          # dK - lambda dM, mode by mode


@pytest.mark.parametrize("path", ["limbs.RL.frames[0].joint_stiffness",
                                  "limbs.RL.frames[2].bodies[0].material.E"])
def test_joint_springs_and_repeated_frequencies(path):
    """The refined NaVARo, held by joint springs, at its symmetric reference
    pose (two double frequencies): a joint spring is not a body parameter
    (it used to get a zero derivative), and the double frequencies get the
    slopes of their branches, checked against Richardson-extrapolated
    forward differences (the branches cross: central differences would give
    their mean)."""
    from flexpkm.algorithms.assembly import assemble_reference
    data = refined_navaro_data()
    model = fp.build_model(from_dict(data))
    q = assemble_reference(model)
    f, df = frequency_sensitivities(data, [path], q, n_modes=6)
    assert fp.natural_frequencies(model, q, n_modes=6).repeated.sum() == 4
    d = copy.deepcopy(data)
    p0 = _set(d, path, 0.0)

    def frequencies(value):
        _set(d, path, value)
        m = fp.build_model(from_dict(d))
        return fp.natural_frequencies(m, fp.assemble(m, pose=q[m.layout.n_t:], guess=q),
                                      n_modes=6, backend="numpy").frequencies_hz
    f0, h = frequencies(p0), 1e-3 * p0
    forward = [(frequencies(p0 + s) - f0) / s for s in (h, h / 2)]
    fd = 2 * forward[1] - forward[0]
    assert np.abs(df[:, 0] - fd).max() < 1e-6 * np.abs(fd).max()


@pytest.mark.parametrize("path", ["legs[0].frames[0].bodies[0].section.b_y",
                                  "legs[0].frames[1].d"])
def test_five_bar_file_as_written(path):
    """The tutorial's five-bar file, its key paths as written (a rectangle
    section by its sides): against Richardson-extrapolated central
    differences at a small step (its frequencies are strongly nonlinear in
    the elbow offset d: at 1e-3 p the differences themselves are off by 8e-6)."""
    root = Path(__file__).resolve().parents[2]
    from flexpkm.model.files import Where
    data = parse((root / "cases" / "examples" / "five_bar.toml").read_text(), Where("five_bar"))
    model = fp.build_model(from_dict(data))
    q = fp.assemble(model, pose=[0.15, 0.45])
    f, df = frequency_sensitivities(data, [path], q, n_modes=3)
    fd = finite_differences(data, path, lambda m: fp.assemble(m, pose=[0.15, 0.45], guess=q), 3,
                            1e-4)
    assert np.abs(df[:, 0] - fd).max() < 1e-6 * np.abs(fd).max()


def refined_navaro_data():
    """The dict of cases/navaro.toml with its variant ``refined`` applied (the
    NaVARo of Section 11.6.2.3, held by its clutch springs)."""
    from flexpkm.cases import file_of
    from flexpkm.model.files import Where, check_schema
    from flexpkm.model.variants import apply_variant
    path, where = file_of("navaro"), Where("navaro.toml")
    return check_schema(apply_variant(parse(path.read_text(), where), "refined", where), where)

"""Exact frequency sensitivities (flexpkm.compiled.sensitivity) against
central finite differences of the whole numpy modal analysis."""
import copy

import numpy as np
import pytest

import flexpkm as fp
from flexpkm.cases import dualemps, navaro
from flexpkm.cli.app import main
from flexpkm.compiled.sensitivity import _set, frequency_sensitivities
from flexpkm.errors import InvalidArgumentError
from flexpkm.model.files import dumps, from_dict, parse

pytest.importorskip("casadi")


def finite_differences(data, path, q, n, rel):
    d = copy.deepcopy(data)
    p0 = _set(d, path, 0.0)
    f = []
    for v in (p0 * (1 + rel), p0 * (1 - rel)):
        _set(d, path, v)
        f.append(fp.natural_frequencies(fp.build_model(from_dict(d)), q, n_modes=n).frequencies_hz)
    return (f[0] - f[1]) / (2 * rel * p0)


DUAL = (0.05, 0.1)
BEAM = "legs[{}].frames[{}].bodies[0].{}"


@pytest.mark.parametrize("case, pose, path, rel, tol", [
    (dualemps, DUAL, BEAM.format(0, 2, "material.E"), 1e-4, 1e-6),
    (dualemps, DUAL, BEAM.format(0, 2, "material.rho"), 1e-4, 1e-6),
    (dualemps, DUAL, BEAM.format(1, 2, "section.Iz"), 1e-4, 1e-6),
    (dualemps, DUAL, BEAM.format(0, 3, "M"), 1e-4, 1e-6),
    # the NaVARo's finite differences are the limit: round-off of its
    # frequencies (90 coordinates, near pairs of modes) at small steps,
    # truncation at large ones (the sensitivities converge to ours as the
    # step shrinks, until the noise takes over): ~1e-5 at best
    (navaro, None, BEAM.format(1, 3, "material.E"), 1e-4, 5e-5),
    (navaro, None, BEAM.format(2, 3, "material.rho"), 1e-4, 5e-5),
    (navaro, None, BEAM.format(0, 3, "section.Iz"), 3e-3, 5e-5)])
def test_sensitivities_match_central_differences(case, pose, path, rel, tol):
    model = fp.build_model(case.robot())
    q = (dualemps.configuration(model, *pose) if pose else
         navaro.pose_configurations(model, [[0.0, 0.01, -0.3]])[0])
    data = parse(dumps(model.robot), "<robot>")
    f, df = frequency_sensitivities(data, [path], q, n_modes=5)
    assert np.allclose(f, fp.natural_frequencies(model, q, n_modes=5).frequencies_hz, rtol=1e-12)
    fd = finite_differences(data, path, q, 5, rel)
    assert np.abs(fd).max() > 0
    assert np.abs(df[:, 0] - fd).max() < tol * np.abs(fd).max()


def test_geometric_parameters_and_the_command_line(capsys):
    model = fp.build_model(dualemps.robot())
    data = parse(dumps(model.robot), "<robot>")
    with pytest.raises(InvalidArgumentError, match="geometric"):
        frequency_sensitivities(data, ["legs[0].frames[2].bodies[0].length"],
                                dualemps.configuration(model, 0, 0))
    assert main(["modal", "dualemps", "--modes", "3", "--json", "--sensitivities",
                 "legs[0].frames[2].bodies[0].material.E"]) == 0
    import json
    out = json.loads(capsys.readouterr().out)
    assert len(out["sensitivities"]["legs[0].frames[2].bodies[0].material.E"]) == 3
    assert main(["modal", "dualemps", "--sensitivities", "legs[9].frames[0].M"]) == 2

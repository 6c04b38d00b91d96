"""The public API: one namespace, one pose in gives one pose out, a batch gives a batch."""
import numpy as np

import flexpkm as fp
from flexpkm.cases import dualemps, navaro


def test_every_public_name_exists():
    for name in fp.__all__:
        assert hasattr(fp, name), name


def test_one_pose_in_one_pose_out():
    model = fp.build_model(dualemps.robot())
    modes = fp.natural_frequencies(model, dualemps.configuration(model, 0.0, 0.0))
    assert modes.frequencies_hz.shape == (9,)
    assert modes.shapes_q.shape == (9, 9) and modes.shapes_tot.shape == (model.layout.n_tot, 9)
    np.testing.assert_allclose(modes.frequencies_hz[:4], dualemps.TABLE_11_1["Model"][:4], rtol=6e-3)


def test_a_batch_gives_a_batch():
    model = fp.build_model(navaro.robot())
    poses = np.array([navaro.FIG_11_3[k] for k in (1, 2, 3)])
    q = navaro.pose_configurations(model, poses)
    modes = fp.natural_frequencies(model, q, n_modes=5)
    assert modes.frequencies_hz.shape == (3, 5)
    single = fp.natural_frequencies(model, q[1], n_modes=5)
    np.testing.assert_allclose(single.frequencies_hz, modes.frequencies_hz[1], rtol=1e-10)


def test_the_model_is_built_once_and_never_written():
    robot = dualemps.robot()
    before = dict(vars(robot))
    model = fp.build_model(robot)
    fp.natural_frequencies(model, dualemps.configuration(model))
    assert vars(robot) == before and fp.build_model(model) is model


def test_one_top_level_import_name(tmp_path):
    """elements/ and cases/ install as flexpkm.elements and flexpkm.cases:
    importing the whole package and the command line never imports a
    top-level ``elements`` or ``cases`` (PyPI has distributions of those
    names), and neither name is importable from outside the checkout."""
    import subprocess
    import sys
    code = ("import sys, flexpkm, flexpkm.cli.app, flexpkm.cases.file_case\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('elements', 'cases')))\n"
            "import importlib.util as u\n"
            "print(u.find_spec('elements'), u.find_spec('cases'))")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, env={"PATH": "/usr/bin:/bin"}, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["[]", "None None"]

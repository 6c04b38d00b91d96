"""Optional dependencies as extras (flexpkm.optional): the core computes
frequencies without pyvista, VTK, matplotlib, h5py or CasADi; a feature that
needs a missing extra refuses in one line naming it (exit status 2)."""
import subprocess
import sys

import pytest

from flexpkm.errors import FlexPKMError, MissingDependencyError
from flexpkm.optional import EXTRAS, require

#: every optional module, hidden from a subprocess
HEAVY = tuple(m for m, _ in EXTRAS)


def run_cli(argv, hidden, cwd):
    """``flexpkm argv`` in a Python where the modules ``hidden`` cannot be
    imported (as if not installed): (exit status, stdout, stderr)."""
    code = ("import sys\n"
            f"for m in {tuple(hidden)!r}:\n    sys.modules[m] = None\n"
            "from flexpkm.cli import main\n"
            f"status = main({list(argv)!r})\n"
            f"print('LOADED', sorted(m for m in {tuple(hidden)!r} if sys.modules.get(m)))\n"
            "sys.exit(status)\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True,
                       timeout=300)
    return r.returncode, r.stdout, r.stderr


def test_require_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyvista", None)
    with pytest.raises(MissingDependencyError) as info:
        require("pyvista", "mode pictures")
    e = info.value
    assert isinstance(e, FlexPKMError) and isinstance(e, ImportError)
    assert (e.module, e.extra, e.exit_status) == ("pyvista", "viz", 2)
    assert str(e) == ("pyvista is not installed (needed for mode pictures): "
                      "pip install 'flexpkm[viz]'")
    monkeypatch.setitem(sys.modules, "casadi", None)
    with pytest.raises(MissingDependencyError, match=r"flexpkm\[compiled\]"):
        require("casadi", "the compiled backend")
    assert require("json", "a test").dumps(1) == "1"


def test_core_computes_frequencies_without_any_extra(tmp_path):
    """The DualEMPS's frequencies with every optional module hidden: the
    first mode is the book's (Table 11.1, 14.22 Hz, model row)."""
    status, out, err = run_cli(["modal", "dualemps"], HEAVY, tmp_path)
    assert status == 0, err
    assert "    1    14.207       14.22   -0.09 %" in out
    assert "LOADED []" in out


def test_without_matplotlib_the_other_files_are_written_and_a_note_names_the_extra(tmp_path):
    status, out, err = run_cli(["idm", "rigid_five_bar", "--from", "0", "0.22", "--to", "0.05", "0.28",
                                "--duration", "0.05", "--out", "o"], ("matplotlib",), tmp_path)
    assert status == 0, err
    assert err == ("flexpkm: note: no idm.png: matplotlib is not installed (needed for the "
                   "plot): pip install 'flexpkm[viz]'\n")
    assert sorted(p.name for p in (tmp_path / "o").iterdir() if p.suffix != ".lock") == [
        "idm.npz", "run.json"]


@pytest.mark.parametrize("argv, hidden, extra", [
    (["modes", "dualemps", "--png", "pics", "--modes", "1"], ("pyvista",), "viz"),
    (["simulate", "dualemps", "--maneuver", "edge", "--t-end", "0.002", "--backend", "numpy",
      "--xdmf", "--out", "o"], ("h5py",), "viz"),
    (["sweep", "dualemps", "--from", "0", "0", "--to", "0.01", "0", "--steps", "2",
      "--plot", "f.png"], ("matplotlib",), "viz"),
    (["modal", "dualemps", "--backend", "compiled"], ("casadi",), "compiled"),
])
def test_a_missing_extra_is_one_line_and_status_2(tmp_path, argv, hidden, extra):
    status, out, err = run_cli(argv, hidden, tmp_path)
    assert status == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and f"pip install 'flexpkm[{extra}]'" in lines[0], err
    assert lines[0].startswith(f"flexpkm: error: {hidden[0]} is not installed")

"""The command line's start-up (heavy modules imported only where used), its
exit statuses, ``--quiet``, ``--verbose`` and ``--json`` on every command."""
import json
import subprocess
import sys

import pytest

from flexpkm.cli import main
from flexpkm.cli.app import EXIT_STATUSES

#: never imported by ``flexpkm --help``, nor by a modal analysis of one case
HEAVY = ("matplotlib", "pyvista", "vtk", "casadi", "h5py", "meshio")


def imported(argv) -> set:
    """The top-level modules imported by running ``flexpkm argv`` (in a
    fresh interpreter)."""
    code = ("import sys\nfrom flexpkm.cli import main\nstatus = main(%r)\n"
            "print('MODULES', ' '.join(sorted({m.split('.')[0] for m in sys.modules})))\n"
            "print('FLEXPKM', ' '.join(sorted(m for m in sys.modules if m.startswith('flexpkm.'))))\n"
            "sys.exit(status)" % (list(argv),))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    lines = dict(line.split(" ", 1) for line in r.stdout.splitlines()
                 if line.startswith(("MODULES ", "FLEXPKM ")))
    return set(lines["MODULES"].split()) | set(lines["FLEXPKM"].split())


def test_help_imports_neither_scipy_nor_any_case():
    mods = imported(["--help"])
    assert not mods & {"scipy", "jsonschema", *HEAVY}, mods & {"scipy", "jsonschema", *HEAVY}
    assert not any(m.startswith(("flexpkm.cases.", "flexpkm.algorithms.", "flexpkm.analysis."))
                   for m in mods)


def test_modal_of_one_case_imports_that_case_and_no_heavy_module():
    """One case read (its file, the one route of a shipped robot, checked
    without jsonschema: flexpkm.model.schema_check), no other; no scipy
    (0.15-0.3 s of start-up: pivoted QR in numpy, docs/design.md);
    --backend numpy: CasADi is the compiled backend's own (auto imports it
    when it is there)."""
    mods = imported(["modal", "dualemps", "--backend", "numpy"])
    assert "flexpkm.cases.dualemps" in mods and "flexpkm.algorithms.modal" in mods
    assert not mods & {"flexpkm.cases.navaro", "flexpkm.cases.delta", "flexpkm.analysis.sweep",
                       "flexpkm.io.plots", "scipy", "jsonschema", *HEAVY}


def test_exit_statuses_are_distinct_and_documented():
    codes = [c for c, _ in EXIT_STATUSES]
    assert codes == sorted(set(codes)) and {0, 2, 3, 130} <= set(codes)
    from pathlib import Path
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    for code, _ in EXIT_STATUSES:
        assert f"| {code} |" in readme, code


def test_usage_input_and_numerical_refusal_statuses(capsys, tmp_path):
    assert main(["modal", "dualemps", "--no-such-option"]) == 2           # usage
    assert main(["modal", "dualemps", "--q-a", "9", "9"]) == 2            # unreachable pose
    bad = tmp_path / "bad.toml"
    bad.write_text("name = 3\n")
    assert main(["check", str(bad)]) == 2                                  # description file
    # NaVARo at a Type 2 singularity (x = y = 0, theta = -0.527572 rad): refused, 3
    assert main(["modal", "navaro", "--actuation", "111", "--pose", "0", "0", "-0.527572"]) == 3
    err = [line for line in capsys.readouterr().err.strip().splitlines()   # compiled under auto:
           if not line.startswith("flexpkm: note: the one-time compilation")]  # a cold cache's note
    assert all(line.startswith("flexpkm: error: ") for line in err) and len(err) == 4


def test_quiet_prints_nothing_but_errors(capsys, tmp_path):
    assert main(["modal", "dualemps", "-q"]) == 0
    assert capsys.readouterr() == ("", "")
    assert main(["-q", "sweep", "dualemps", "--from", "0", "0", "--to", "0.01", "0", "--steps",
                 "2", "--csv", str(tmp_path / "s.csv")]) == 0
    assert capsys.readouterr() == ("", "") and (tmp_path / "s.csv").exists()
    assert main(["modal", "dualemps", "-q", "--q-a", "9", "9"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("flexpkm: error: ") and err.count("\n") == 1


def test_verbose_adds_one_line_of_timings(capsys):
    assert main(["modal", "dualemps", "--verbose"]) == 0
    out, err = capsys.readouterr()
    assert "14.207" in out
    assert err.startswith("flexpkm: modal ran in ") and "numpy" in err and err.count("\n") == 1
    assert main(["modal", "dualemps", "-q", "-v"]) == 2                   # one or the other


@pytest.mark.parametrize("argv, keys", [
    (["modal", "dualemps"], {"frequencies_hz", "backend", "backend_reason"}),
    (["check", "dualemps"], {"counts", "dependent_coordinates", "checked", "mobility"}),
    (["modes", "dualemps", "--modes", "2", "--vtu", "{d}/v"], {"modes", "written", "backend"}),
    (["sweep", "dualemps", "--from", "0", "0", "--to", "0.01", "0", "--steps", "2",
      "--csv", "{d}/s.csv"], {"poses", "failed", "written", "backend", "backend_reason"}),
    (["simulate", "dualemps", "--maneuver", "edge", "--t-end", "0.003", "--backend", "numpy",
      "--out", "{d}/sim", "--no-progress"], {"seconds_per_simulated_second", "written",
                                              "backend", "backend_reason"}),
    (["idm", "rigid_five_bar", "--from", "0", "0.22", "--to", "0.05", "0.28", "--duration", "0.1",
      "--rate", "100", "--wrench", "3", "-2", "0", "0", "0", "0", "--out", "{d}/idm"],
     {"tau_max", "written", "backend", "backend_reason"}),
    (["examples", "{d}/robots"], {"folder", "written"}),
    (["cache", "info"], {"folder", "libraries"}),
])
def test_json_on_every_command(capsys, tmp_path, argv, keys):
    """One JSON object on stdout, nothing else there; the modal frequencies
    are the book's (Table 11.1: 14.22 Hz, model row)."""
    if argv[0] == "cache":
        pytest.importorskip("casadi")            # the compiled models' cache: the compiled extra
    argv = [a.format(d=tmp_path) for a in argv] + ["--json"]
    assert main(argv) == 0, capsys.readouterr().err
    data = json.loads(capsys.readouterr().out)
    assert keys <= set(data), data
    if argv[0] in ("modal", "modes", "sweep"):
        f = data["frequencies_hz"][0] if argv[0] == "modal" else (
            data["modes"]["1"] if argv[0] == "modes" else None)
        assert f is None or f == pytest.approx(14.22, rel=1e-3)


def test_top_options_before_a_description_file(capsys):
    """``flexpkm -q --json modal FILE.toml``: the file is found after the
    top parser's options; its frequencies as JSON, nothing else."""
    from pathlib import Path
    five_bar = Path(__file__).resolve().parents[2] / "cases" / "examples" / "five_bar.toml"
    assert main(["-q", "--json", "modal", str(five_bar), "--pose", "0.15", "0.45",
                 "--modes", "2"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and json.loads(out)["pose"] == {"x_P": 0.15, "y_P": 0.45}

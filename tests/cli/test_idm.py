"""``flexpkm idm``: outputs, shapes, one-line errors."""
import numpy as np
import pytest

from flexpkm.cli.app import main


@pytest.mark.parametrize("case,start,stop,n_a", [
    ("rigid_five_bar", ["0", "0.22"], ["0.05", "0.28"], 2),
    ("dualv", ["0", "0"], ["0.05", "-0.03"], 4)])
def test_idm_writes_npz_and_png(tmp_path, capsys, case, start, stop, n_a):
    assert main(["idm", case, "--from", *start, "--to", *stop, "--duration", "0.25",
                 "--out", str(tmp_path)]) == 0
    d = np.load(tmp_path / "idm.npz")
    assert d["t"].shape == (251,) and d["t"][1] == pytest.approx(1e-3)
    assert d["q_a"].shape == (251, n_a) and d["tau"].shape == (251, n_a)
    assert np.isfinite(d["tau"]).all() and (tmp_path / "idm.png").stat().st_size > 0
    assert "wrote" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [
    ["idm", "rigid_five_bar", "--from", "0", "0.22", "--to", "0.5", "0.28", "--duration", "1"],
    ["idm", "dualv", "--from", "0", "0", "--to", "0.6", "0", "--duration", "1"],
    ["idm", "dualv", "--from", "0", "0", "--to", "0.01", "0", "--duration", "0"],
    ["idm", "dualv", "--from", "0", "0", "--to", "0.01", "0", "--duration", "1",
     "--weights", "1", "2"],
    ["idm", "dualemps", "--from", "0", "0", "--to", "0", "0", "--duration", "1"],
    ["modal", "rigid_five_bar"]])
def test_bad_inputs_give_one_line(tmp_path, capsys, argv):
    assert main(argv + (["--out", str(tmp_path)] if argv[0] == "idm" else [])) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("flexpkm: error:") and "\n" not in err and "Traceback" not in err


def test_idm_weights_change_the_split_not_the_motion(tmp_path, capsys):
    base = ["idm", "dualv", "--from", "0", "0", "--to", "0.03", "0.02", "--duration", "0.2"]
    assert main(base + ["--out", str(tmp_path / "a")]) == 0
    assert main(base + ["--weights", "1", "1", "10", "10", "--out", str(tmp_path / "b")]) == 0
    a, b = np.load(tmp_path / "a" / "idm.npz"), np.load(tmp_path / "b" / "idm.npz")
    np.testing.assert_array_equal(a["q_a"], b["q_a"])
    assert np.abs(b["tau"][:, 2:]).max() < np.abs(a["tau"][:, 2:]).max()
    # the same power: the overconstraint does no work
    np.testing.assert_allclose((a["tau"] * a["qd_a"]).sum(1), (b["tau"] * b["qd_a"]).sum(1),
                               atol=1e-9 * np.abs(a["tau"]).max())


def test_idm_follows_the_output_folder_rules(tmp_path, capsys):
    """A manifest listing the two files with their hashes; a second run into
    the folder refused without --force; --force replaces the first run's
    files; a file of the user's named like an output is never replaced."""
    import json

    from flexpkm.checksums import file_sha256 as sha256
    d = tmp_path / "o"
    argv = ["idm", "rigid_five_bar", "--from", "0", "0.22", "--to", "0.05", "0.28", "--duration",
            "0.05", "--out", str(d)]
    assert main(argv) == 0
    run = json.loads((d / "run.json").read_text())
    assert run["status"] == "completed" and run["samples"] == 51 and run["command"].startswith(
        "flexpkm idm rigid_five_bar")
    assert [f["name"] for f in run["files"]] == ["idm.npz", "idm.png"]
    assert all(sha256(d / f["name"]) == f["sha256"] for f in run["files"])
    assert sorted(p.name for p in d.iterdir()) == [".run.json.lock", "idm.npz", "idm.png",
                                                   "run.json"]
    capsys.readouterr()
    assert main(argv) == 2 and "holds the outputs of another run" in capsys.readouterr().err
    assert main(argv + ["--force"]) == 0
    (d / "idm.png").write_bytes(b"the user's own picture")
    assert main(argv + ["--force"]) == 2
    assert "idm.png: move or remove it" in capsys.readouterr().err
    assert (d / "idm.png").read_bytes() == b"the user's own picture"


def test_idm_wrench_ground_reactions_and_energy(tmp_path, capsys):
    """Issue 20: ``--wrench`` adds the static efforts (6.53) to every sample
    (the model is linear in the wrench: tau(w) - tau(0) = fp's static
    model at the sample); idm.npz holds the ground reactions, their legs
    summing to the total, and the energies; a moment about the normal of
    the five-bar's translating point is refused in one line."""
    from flexpkm.algorithms.statics import static_efforts
    from flexpkm.cases import rigid_five_bar as five_bar
    import flexpkm as fp
    base = ["idm", "rigid_five_bar", "--from", "0", "0.22", "--to", "0.05", "0.28", "--duration", "0.1"]
    assert main(base + ["--out", str(tmp_path / "a")]) == 0
    wrench = ["--wrench", "3", "-2", "0", "0", "0", "0"]
    assert main(base + wrench + ["--out", str(tmp_path / "b")]) == 0
    a, b = np.load(tmp_path / "a" / "idm.npz"), np.load(tmp_path / "b" / "idm.npz")
    model = fp.build_model(five_bar.robot())
    for k in (0, 50, 100):
        q = five_bar.configuration(model, *b["x_p"][k])
        np.testing.assert_allclose(b["tau"][k] - a["tau"][k],
                                   static_efforts(model, q, [3, -2, 0, 0, 0, 0]), rtol=1e-9)
    np.testing.assert_array_equal(b["wrench"][7], [3, -2, 0, 0, 0, 0])
    plane = [0, 1, 5]              # a planar model's legs carry the in-plane components
    np.testing.assert_allclose((b["ground_1"] + b["ground_2"])[:, plane], b["ground"][:, plane],
                               atol=1e-10)
    np.testing.assert_allclose(b["ground"][:, :2] - a["ground"][:, :2], -b["wrench"][:, :2],
                               atol=1e-10)
    assert b["energy"].shape == (101,) and np.all(b["kinetic"] >= 0)
    capsys.readouterr()
    assert main(base + ["--wrench", "0", "0", "0", "0", "0", "1", "--out",
                        str(tmp_path / "c")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("flexpkm: error:") and "Mz" in err and "\n" not in err

"""Description files (flexpkm.model.files): the shipped files' variants,
dump/load round trips, the
``elements`` override equals refine(), and errors name file, key path, what."""
import numpy as np
import pytest

import flexpkm as fp
from flexpkm.cases import dualemps, navaro
from flexpkm.errors import InvalidDescriptionError
from flexpkm.model import files
from flexpkm.model.refine import refine

CASES = __import__("pathlib").Path(dualemps.__file__).parent


def _f(rob, q, **kw):
    return fp.natural_frequencies(rob, q, shapes=False, **kw).frequencies_hz


def test_navaro_variants():
    """The variants of cases/navaro.toml: an actuation mode actuates one
    joint per leg; ``refined`` (Section 11.6.2.3) adds a 0.3 kg point mass at
    each passive joint B, C, D, E and 2000 N m/rad clutch springs on q_i1,
    q_i2, nothing actuated; an unknown variant is refused."""
    base = files.load(CASES / "navaro.toml")
    rob = files.load(CASES / "navaro.toml", variant="actuation_1_2_1")
    assert [f.name for f in rob.frames] == [f.name for f in base.frames]
    assert sorted(rob.bodies) == sorted(base.bodies)
    names = [rob.layout.names[c] for c in rob.layout.actuated]
    assert names == ["q11", "q22", "q31"]
    ref = files.load(CASES / "navaro.toml", variant="refined")
    assert ref.name == "NaVARo (refined)" and not ref.layout.actuated
    points = [b for bodies in ref.bodies.values() for b in bodies if b.n_e == 0]
    assert len(points) == 12 and all(b.invariants.m == 0.3 for b in points)
    assert ref.joint_stiffness == {f"{leg}{j}": 2000.0 for leg in "123" for j in "12"}
    with pytest.raises(InvalidDescriptionError, match="no variant"):
        files.load(CASES / "navaro.toml", variant="nope")


@pytest.mark.parametrize("make", [dualemps.robot, navaro.robot,
                                  lambda: navaro.robot(refined=True),
                                  lambda: refine(dualemps.robot(), 3)])
def test_dump_load_round_trip(make, tmp_path):
    rob = make()
    files.dump(rob, tmp_path / "r.toml")
    back = files.load(tmp_path / "r.toml")
    assert back.frames == rob.frames and back.closures == rob.closures
    assert back.platform.dofs == rob.platform.dofs and back.gravity == rob.gravity
    assert files.dumps(back) == files.dumps(rob)
    for name, bodies in rob.bodies.items():
        for b, c in zip(bodies, back.bodies[name], strict=True):
            for key in ("m", "ms_r", "I_rr", "K_ee", "J_ee", "MS_de"):
                np.testing.assert_array_equal(getattr(b.invariants, key),
                                              getattr(c.invariants, key))


def test_elements_override_is_refine():
    q_rob = refine(dualemps.robot(), 4)
    rob_f = files.load(CASES / "dualemps.toml", elements=4)
    assert rob_f.frames == q_rob.frames
    q = dualemps.configuration(q_rob)
    np.testing.assert_allclose(_f(rob_f, q), _f(q_rob, q), rtol=1e-12)
    text = (CASES / "dualemps.toml").read_text().replace(
        'name = "beam 16"\nplanar = true\nlength = 0.14\nelements = 1',
        'name = "beam 16"\nplanar = true\nlength = 0.14\nelements = 2')
    assert [f.name for f in files.loads(text).frames if "." in f.name] == ["16.1"]


def test_reference_table():
    """The file's reference is the rough guess as written (70 deg), not the
    assembled configuration."""
    ref = files.reference(CASES / "dualemps.toml")
    assert ref["q12"] == pytest.approx(np.radians(70.0), abs=1e-15) and ref["q11"] == 0.0


def _bad(old, new, count=1):
    text = (CASES / "dualemps.toml").read_text()
    assert old in text
    return text.replace(old, new, count)


@pytest.mark.parametrize("old,new,message", [
    ('alpha = "90 deg"', 'alpha = "ninety"',
     'legs[0].frames[1].alpha: expected a number or "<x> deg", got \'ninety\''),
    ('a = "12"', 'a = "99"', "antecedent '99' is not defined"),
    ('d = 0.0675', 'd = nan', "legs[0].frames[2].d: expected a finite number"),
    ('length = 0.4505', 'length = -0.4505', "length: expected a positive number"),
    ('other = "15"', 'other = "77"', "unknown frame '77'"),
    ('sigma = 0\nalpha', 'sigma = 5\nalpha', "legs[0].frames[1].sigma"),
    ('b_y = 0.004', 'b_y = "thin"', "section"),
    ('j = "12"', 'jj = "12"', "legs[0].frames[1]"),
])
def test_errors_name_file_key_and_what(old, new, message):
    with pytest.raises(InvalidDescriptionError) as exc:
        files.loads(_bad(old, new), source="my.toml")
    assert str(exc.value).startswith("my.toml: ") and message in str(exc.value)


def test_missing_file_and_bad_toml(tmp_path):
    with pytest.raises(InvalidDescriptionError, match="cannot read"):
        files.load(tmp_path / "none.toml")
    with pytest.raises(InvalidDescriptionError, match="not valid TOML"):
        files.loads("name = ", source="x.toml")


def test_actuator_stiffness_option(tmp_path):
    text = (CASES / "dualemps.toml").read_text().replace(
        'j = "11"\nsigma = 1\nmu = 1\n', 'j = "11"\nsigma = 1\nmu = 1\nactuator_stiffness = 1e6\n')
    text = text.replace('j = "21"\nsigma = 1\nmu = 1\n',
                        'j = "21"\nsigma = 1\nmu = 1\nactuator_stiffness = 2e6\n')
    (tmp_path / "d.toml").write_text(text)
    opts = files.analysis_options(tmp_path / "d.toml")
    assert opts["actuator_stiffness"] == {"11": 1e6, "21": 2e6}
    rob = files.load(tmp_path / "d.toml")
    assert rob.frames == dualemps.robot().frames


def test_limb_placement_errors():
    text = (CASES / "navaro.toml").read_text()
    with pytest.raises(InvalidDescriptionError, match=r"placements\[1\].limb: unknown limb 'XX'"):
        files.loads(text.replace('limb = "RL"\nleg = "2"', 'limb = "XX"\nleg = "2"'), source="n")
    with pytest.raises(InvalidDescriptionError, match=r"placements\[0\].*unknown local frame"):
        files.loads(text.replace('platform_rotation = [0.0, 0.0, "90 deg"]}\nactuated = ["1", "2"]',
                                 'platform_rotation = [0.0, 0.0, "90 deg"]}\nactuated = ["9"]'),
                    source="n")
    with pytest.raises(InvalidDescriptionError,
                       match=r"placements\[1\].leg: leg '1' is already named at placements\[0\].leg"):
        files.loads(text.replace('leg = "2"', 'leg = "1"', 1), source="n")


@pytest.mark.parametrize("old, new, message", [
    ('dof_names = ["x_P", "y_P"]', 'dof_names = ["x", "x"]',
     r"f.toml: coordinate name 'x' is given twice: .* \(at platform.dof_names\[0\] and "
     r"platform.dof_names\[1\]\)"),
    ('dof_names = ["x_P", "y_P"]', 'dof_names = ["q11", "q21"]',
     r"f.toml: coordinate name 'q11' is given twice: the joint coordinate of frame '11' and "
     r"platform coordinate dof_names\[0\] \(at legs\[0\].frames\[0\].j and platform.dof_names\[0\]\)"),
    ('name = "2"\n', 'name = "1"\n', r"f.toml: legs\[1\].name: leg '1' is already named at legs\[0\].name"),
    ('name = "C2=P"', 'name = "P"', r"f.toml: closures 0 and 1 are both named 'P' \(at closures\[0\] "
                                    r"and closures\[1\]\)"),
    ('j = "12"', 'j = "11"', r"f.toml: frame '11' is defined twice \(at legs\[0\].frames\[0\].j and "
                             r"legs\[0\].frames\[1\].j\)"),
])
def test_name_collisions_name_both_key_paths(old, new, message):
    """Issue 16 item 6 on the five-bar example file."""
    from flexpkm.errors import NameCollisionError
    text = (CASES / "examples" / "five_bar.toml").read_text()
    assert old in text
    with pytest.raises(NameCollisionError, match=message):
        files.loads(text.replace(old, new, 1), source="f.toml")


def test_a_frame_named_like_an_elastic_coordinate_is_refused():
    from flexpkm.errors import NameCollisionError
    text = (CASES / "examples" / "five_bar.toml").read_text()
    text = text.replace('j = "12"', 'j = "e11_1"').replace('a = "12"', 'a = "e11_1"')
    with pytest.raises(NameCollisionError, match=r"'qe11_1' is given twice: the joint coordinate of "
                       r"frame 'e11_1' and elastic coordinate 1 of frame '11' \(at "
                       r"legs\[0\].frames\[1\].j and legs\[0\].frames\[0\].bodies\)"):
        files.loads(text.replace("q12 =", "qe11_1 ="), source="f.toml")


#: ``flexpkm examples ex && flexpkm modal ex/five_bar.toml`` (numpy: no compilation) in a fresh
#: interpreter, with the module ``tomllib`` hidden when HIDE is True
PYTHON_310 = """
import sys
class Hide:
    def find_spec(self, name, path=None, target=None):
        if HIDE and name == "tomllib":
            raise ModuleNotFoundError("No module named 'tomllib'", name=name)
sys.meta_path.insert(0, Hide())
from flexpkm.cli import main
from flexpkm.model import files
print("reader", files.tomllib.__name__)
assert main(["examples", "ex"]) == 0
assert main(["modal", "ex/five_bar.toml", "--backend", "numpy"]) == 0
"""


def test_python_310_reads_the_files_with_tomli(tmp_path):
    """Python 3.10 has no ``tomllib``: the package falls back to ``tomli``,
    the package tomllib was made from. No 3.10 interpreter comes from the
    registries this project reaches (README), so the route is run on this
    one with tomllib hidden: the README's user path from another folder
    prints what it prints with tomllib."""
    import subprocess
    import sys
    pytest.importorskip("tomli", reason="the test extra installs tomli")
    out = {}
    for hide in (True, False):
        folder = tmp_path / str(hide)
        folder.mkdir()
        r = subprocess.run([sys.executable, "-c", f"HIDE = {hide}\n" + PYTHON_310], cwd=folder,
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        out[hide] = r.stdout.splitlines()
    assert out[True][0] == "reader tomli" and out[False][0] == "reader tomllib"
    modal = [line for line in out[True] if "computed in" not in line]
    assert modal[1:] == [line for line in out[False] if "computed in" not in line][1:]
    assert any("five-bar" in line.lower() or "natural frequencies" in line for line in modal)

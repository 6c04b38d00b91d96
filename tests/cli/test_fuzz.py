"""Property-based fuzz of the command line's option values (hypothesis),
in-process through ``main(argv)``: whatever the values, the result is exit
status 0 with no NaN in the output (and valid JSON for --json), or exit
status 2 (bad input) or 3 (a numerical refusal) with exactly one line
``flexpkm: error: ...`` on stderr; never a
traceback (an exception out of ``main`` fails the test). 2,135 examples in
all (docs/robustness.md)."""
import contextlib
import io
import json
import re
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flexpkm.cli import main

#: nasty spellings of numbers, and ordinary ones
NASTY = ["nan", "NaN", "-nan", "inf", "-inf", "Infinity", "1e400", "-1e400", "1e-400", "0", "-0",
         "-1", "1e-300", "1e300", "abc", "", " ", "1,5", "0x10", "1_000", "--", "2.7", "3e-4",
         "1e9", "-1e9", "+5", ".5", "5.", "1e", "e5", "१"]
number = st.one_of(st.sampled_from(NASTY),
                   st.floats(allow_nan=True, allow_infinity=True).map(repr),
                   st.integers(-10**12, 10**12).map(str))
small = st.one_of(st.sampled_from(NASTY), st.floats(-0.3, 0.3).map(repr),
                  st.integers(-3, 12).map(str))
NAN = re.compile(r"\bnan\b|\binf\b", re.IGNORECASE)


def fuzz(n):
    """hypothesis settings of ``n`` examples: no deadline, reproducible."""
    return settings(max_examples=n, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


def run(argv):
    """(status, stdout, stderr) of ``main(argv)`` in this process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            warnings.catch_warnings():
        warnings.simplefilter("error")      # a warning would be a second line on stderr
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def check(argv):
    status, out, err = run(argv)
    assert status in (0, 2, 3), (argv, status, err)             # 3: a numerical refusal
    assert "Traceback" not in out + err, (argv, err)
    if status in (2, 3):
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("flexpkm: error: "), (argv, err)
    else:
        notes = [ln for ln in err.splitlines() if ln.strip()]
        assert all(ln.startswith(("flexpkm: note:", "flexpkm: warning:")) for ln in notes), err
        assert not NAN.search(out), (argv, out)
        if "--json" in argv:
            json.loads(out, parse_constant=lambda c: pytest.fail(f"{c} in JSON: {argv}"))
    return status


@fuzz(1050)
@given(q=st.tuples(small, small), modes=st.one_of(st.none(), number),
       k=st.one_of(st.none(), st.tuples(number, number), st.tuples(number)),
       as_json=st.booleans())
def test_modal_dualemps(q, modes, k, as_json):
    argv = ["modal", "dualemps", "--q-a", *q]
    argv += ["--modes", modes] if modes is not None else []
    argv += ["--actuator-stiffness", *k] if k is not None else []
    check(argv + (["--json"] if as_json else []))


@fuzz(150)
@given(pose=st.tuples(small, small, small), modes=st.one_of(st.none(), number))
def test_modal_navaro(pose, modes):
    argv = ["modal", "navaro", "--pose", *pose, "--json", "--modes", modes or "3"]
    check(argv)


@fuzz(350)
@given(start=st.tuples(small, small), stop=st.tuples(small, small),
       steps=st.one_of(st.sampled_from(["2", "3", "4"]), number), modes=number,
       out=st.sampled_from(["x.csv", "d/", "x.xyz", "file/x.csv"]))
def test_sweep(tmp_path, start, stop, steps, modes, out):
    (tmp_path / "file").write_text("")
    target = str(tmp_path / out)
    with contextlib.suppress(ValueError):
        if int(steps) > 6:
            steps = str(10**12)                      # a valid count would be slow: a huge one
    option = "--plot" if out.endswith((".png", ".xyz")) else "--csv"
    check(["sweep", "dualemps", "--from", *start, "--to", *stop, "--steps", steps,
           "--modes", modes, option, target, "--force", "--no-progress"])


@fuzz(25)
@given(start=st.tuples(small, small), stop=st.tuples(small, small), modes=number)
def test_sweep_plot(tmp_path, start, stop, modes):
    """Pictures are slow (0.3 s): fewer examples."""
    check(["sweep", "dualemps", "--from", *start, "--to", *stop, "--steps", "3",
           "--modes", modes, "--plot", str(tmp_path / "x.png"), "--force", "--no-progress"])


@fuzz(400)
@given(t_end=st.sampled_from(["nan", "inf", "-1", "0", "1e9", "1e-4", "abc", "1e400", "-0",
                              "0.002", "1e-300", "5e6"]),
       step=st.sampled_from(["nan", "1e-300", "-1", "0", "2e-3", "3e-4", "1e-3", "inf", "1e-9",
                             "1e300"]),
       out=st.sampled_from(["o", "file/o", "/proc/flexpkm-x"]))
def test_simulate(tmp_path, t_end, step, out):
    (tmp_path / "file").write_text("")
    target = out if out.startswith("/") else str(tmp_path / out)
    status = check(["simulate", "dualemps", "--maneuver", "edge", "--t-end", t_end, "--step", step,
                    "--out", target, "--no-xdmf", "--force", "--no-progress"])
    if status == 0:
        assert (tmp_path / out / "simulation.npz").exists()


@fuzz(200)
@given(modes=number, numbers=st.one_of(st.none(), st.sampled_from(
           ["1-1000000000", "0", "-1", "3-1", "1,,2", "a", "1-2", "9", "10", "1-9", "2-4,7"])),
       scale=st.one_of(st.none(), number))
def test_modes_arguments(modes, numbers, scale):
    """The arguments of ``modes`` without an output (fast): every value is
    one line and status 2 (nothing to write at best)."""
    argv = ["modes", "dualemps"] + (["--mode-numbers", numbers] if numbers else ["--modes", modes])
    argv += ["--scale", scale] if scale is not None else []
    assert check(argv) == 2


FIVE_BAR = (__import__("pathlib").Path(__file__).parents[2] / "cases" / "examples"
            / "five_bar.toml").read_text()
#: name keys of the five-bar example and names already in use there
NAME_KEYS = ['j = "11"', 'j = "12"', 'j = "22"', 'name = "2"', 'name = "C2=P"', '"x_P"', '"y_P"']
NAMES_IN_USE = ["11", "12", "13", "21", "1", "P", "x_P", "q11", "q12", "qe11_1", "qe21_2", "e11_1",
                "y_P"]


@fuzz(60)
@given(key=st.sampled_from(NAME_KEYS), name=st.sampled_from(NAMES_IN_USE),
       command=st.sampled_from(["check", "modal"]))
def test_name_collisions_in_a_file(tmp_path, key, name, command):
    """Issue 16 item 6: a name of the file set to another name in use."""
    new = key.split('"')[0] + f'"{name}"' if "=" in key else f'"{name}"'
    (tmp_path / "f.toml").write_text(FIVE_BAR.replace(key, new, 1))
    numpy = ["--backend", "numpy"] if command == "modal" else []   # no compile per accepted file
    check([command, str(tmp_path / "f.toml"), *numpy])


@fuzz(40)
@given(elements=st.one_of(st.integers(2000, 10**12).map(str), st.sampled_from(NASTY)),
       where=st.sampled_from(["option", "file"]))
def test_huge_element_counts(tmp_path, elements, where):
    """Issue 16 item 8: ``--elements N`` or ``elements = N``: refused at once
    (ModelTooLargeError with an estimate) or a usage error, never a run
    until memory is gone."""
    text = FIVE_BAR
    argv = ["modal", str(tmp_path / "f.toml"), "--modes", "1"]
    if where == "option":
        argv += ["--elements", elements]
    else:
        text = text.replace("plane_normal", f"elements = {elements}\nplane_normal", 1)
    (tmp_path / "f.toml").write_text(text)
    status = check(argv)
    with contextlib.suppress(ValueError):
        assert int(elements) < 2000 or status == 2


@fuzz(20)
@given(depth=st.integers(50, 50000), kind=st.sampled_from(["[", "{a = "]),
       key=st.sampled_from(["gravity", "q_dep", "reference", "variants", "junk"]))
def test_deeply_nested_files(tmp_path, depth, kind, key):
    close = "]" if kind == "[" else "}"
    text = FIVE_BAR.replace("format = 1", f"format = 1\n{key} = " + kind * depth + "1"
                            + close * depth, 1)
    (tmp_path / "f.toml").write_text(text)
    check(["check", str(tmp_path / "f.toml")])

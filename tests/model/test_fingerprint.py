"""description_sha256: a hash of the built description's numbers, equal in
separate processes (no memory address), different when one value of a body,
a frame or the platform changes."""
import subprocess
import sys
from pathlib import Path

import pytest

from flexpkm.model.build import build_structure
from flexpkm.model.files import load, loads
from flexpkm.model.fingerprint import description_digest

ROOT = Path(__file__).resolve().parents[2]
FIVE_BAR = ROOT / "cases" / "examples" / "five_bar.toml"
DIGEST = ("from flexpkm import cases; from flexpkm.io.run_files import description_hash; "
          "c = cases.get({name!r}); print(description_hash(c.robot({{o.name: o.default "
          "for o in c.options}})))")


@pytest.mark.parametrize("name", ["navaro", "delta"])
def test_equal_in_separate_processes(name):
    """Two interpreters (different memory addresses, hash seeds) agree; the
    old repr-based hash differed between them."""
    runs = [subprocess.run([sys.executable, "-c", DIGEST.format(name=name)], capture_output=True,
                           text=True, check=True, env={"PYTHONHASHSEED": str(seed),
                                                       "PATH": ""}).stdout.strip()
            for seed in (1, 2)]
    assert len(runs[0]) == 16 and runs[0] == runs[1]


def test_a_robot_and_its_model_have_the_same_digest():
    robot = load(FIVE_BAR)
    assert description_digest(robot) == description_digest(build_structure(robot))
    assert description_digest(robot) == description_digest(load(FIVE_BAR))


@pytest.mark.parametrize("old,new", [
    ("mass = 0.1", "mass = 0.1000000001"),                          # a point mass of a body
    ("rho = 7800.0", "rho = 7800.5"),                               # a beam's material
    ("E = 210e9", "E = 209e9"),
    ("name = \"tool\", mass = 0.2", "name = \"tool\", mass = 0.25"),  # the platform's body
])
def test_one_changed_value_changes_the_digest(old, new):
    text = FIVE_BAR.read_text()
    assert old in text
    changed = text.replace(old, new, 1)
    assert changed != text
    assert description_digest(loads(changed)) != description_digest(loads(text))

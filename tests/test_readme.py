"""Every command the README (and the tutorial, when there is one) shows runs,
and the README's main-job output is the real one.

The fenced ``bash`` blocks are read line by line; commands starting with
``flexpkm`` or ``python`` run as subprocesses in a temporary folder (so that
their outputs land there), benchmarks in their quick mode, simulations
shortened with ``--t-end``. The set-up, ``pip`` and test commands are not run
here (CI runs them).
"""
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", ROOT / "docs" / "tutorial.md"]
BIN = Path(sys.executable).parent


def fenced(path: Path, language: str) -> list:
    """The fenced blocks of ``language`` in a markdown file."""
    return re.findall(rf"^```{language}\n(.*?)^```", path.read_text(), flags=re.M | re.S)


def commands():
    out = []
    for doc in DOCS:
        if not doc.exists():
            continue
        for block in fenced(doc, "bash"):
            for line in block.splitlines():
                cmd = line.split(" #")[0].strip()
                if cmd.startswith(("flexpkm", "python ", "python3 ")) and "pytest" not in cmd \
                        and not cmd.startswith(("python3 -m venv", "python -m venv")):
                    out.append(pytest.param(cmd, id=f"{doc.name}: {cmd[:60]}"))
    return out


def runnable(cmd: str) -> list:
    """argv of a documented command, made quick and pointed at this checkout."""
    argv = shlex.split(cmd)
    if argv[0] == "flexpkm":
        argv[0] = str(BIN / "flexpkm")
    elif argv[0].startswith("python"):
        argv[0] = sys.executable
        argv[1] = str(ROOT / argv[1]) if argv[1].endswith(".py") else argv[1]
    if "bench_modal.py" in cmd:
        argv.append("--quick")
    if "bench_simulate.py" in cmd:
        argv += ["edge", "0.02"]
    if len(argv) > 1 and argv[1] == "simulate" and "--t-end" not in argv:
        argv += ["--t-end", "0.02"]
    return argv


@pytest.mark.parametrize("cmd", commands())
def test_documented_command_runs(cmd, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run(runnable(cmd), cwd=tmp_path, capture_output=True, text=True, timeout=600,
                       env=env)
    assert r.returncode == 0, f"{cmd}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
    assert "Traceback" not in r.stderr


def test_there_are_documented_commands():
    assert len(commands()) >= 8


def test_python_example_runs_with_fp_names_only(capsys):
    blocks = fenced(ROOT / "README.md", "python")
    assert blocks
    for code in blocks:
        assert not re.search(r"^\s*(from|import) (?!flexpkm as fp)", code, flags=re.M), code
        exec(compile(code, "README.md", "exec"), {})
    assert capsys.readouterr().out.split("\n")[:2] == ["(9,)", "(3, 5)"]


def test_main_job_output_is_the_real_one():
    """The README's first ``text`` block is what ``flexpkm modal dualemps``
    prints (the timing line aside)."""
    shown = fenced(ROOT / "README.md", "text")[0].splitlines()
    r = subprocess.run([str(BIN / "flexpkm"), "modal", "dualemps"], capture_output=True,
                       text=True, timeout=120)
    real = r.stdout.splitlines()
    keep = lambda lines: [l for l in lines if not l.startswith("computed in")]   # noqa: E731
    assert keep(shown) == keep(real)

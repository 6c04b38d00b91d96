"""Every command the README (and the tutorial, when there is one) shows runs,
and the README's main-job output is the real one.

The fenced ``bash`` blocks are read line by line; commands starting with
``flexpkm`` or ``python`` run as subprocesses in a temporary folder (so that
their outputs land there), benchmarks in their quick mode (the simulation's
capped at 5 ms), simulations shortened with ``--t-end``, the modes' GIFs
made for 2 modes. The set-up, ``pip`` and test commands are not run here
(CI runs them).
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
    # description files are shown relative to the repository's root
    argv = [str(ROOT / a) if a.endswith(".toml") and (ROOT / a).exists() else a for a in argv]
    if argv[0] == "flexpkm":
        argv[0] = str(BIN / "flexpkm")
    elif argv[0].startswith("python"):
        argv[0] = sys.executable
        argv[1] = str(ROOT / argv[1]) if argv[1].endswith(".py") else argv[1]
    if "bench_modal.py" in cmd:
        argv.append("--quick")
    if "bench_simulate.py" in cmd:
        argv += ["edge", "0.005"]           # every backend, the compile into an empty cache
    if len(argv) > 1 and argv[1] == "modes" and "--gif" in argv:
        argv += ["--modes", "2"]            # the same pictures and GIFs, 2 modes of 6
    if len(argv) > 1 and argv[1] == "simulate" and "--t-end" not in argv:
        argv += ["--t-end", "0.02"]
    return argv


@pytest.mark.parametrize("cmd", commands())
def test_documented_command_runs(cmd, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if "robots/" in cmd:        # the tutorial's files, copied as its first command does
        subprocess.run([str(BIN / "flexpkm"), "examples", "robots"], cwd=tmp_path, check=True,
                       capture_output=True, env=env)
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


def test_navaro_output_is_the_real_one():
    """The README's second ``text`` block is what ``flexpkm modal navaro
    --modes 6`` prints (the timing line aside)."""
    shown = fenced(ROOT / "README.md", "text")[1].splitlines()
    r = subprocess.run([str(BIN / "flexpkm"), "modal", "navaro", "--modes", "6"],
                       capture_output=True, text=True, timeout=120)
    keep = lambda lines: [l for l in lines if not l.startswith("computed in")]   # noqa: E731
    assert keep(shown) == keep(r.stdout.splitlines())


def test_tutorial_file_is_the_shipped_example():
    """The robot file shown in the tutorial is the one its commands run."""
    shown = fenced(ROOT / "docs" / "tutorial.md", "toml")
    assert shown == [(ROOT / "cases" / "examples" / "five_bar.toml").read_text()]


def test_tutorial_outputs_are_the_real_ones(capsys, monkeypatch, tmp_path):
    """The shown outputs of the tutorial's commands are what they print
    (timing aside; its Python blocks: the test below)."""
    from flexpkm.cli.app import main
    tut = ROOT / "docs" / "tutorial.md"
    monkeypatch.chdir(tmp_path)             # from any folder, with the files of `flexpkm examples`
    assert main(["examples", "robots"]) == 0
    capsys.readouterr()
    texts = fenced(tut, "text")
    for argv, shown in ((["check", "robots/five_bar.toml"], texts[0]),
                        (["modal", "robots/five_bar.toml", "--pose", "0.15", "0.45",
                          "--modes", "6"], texts[1]),
                        (["modal", "robots/five_bar.toml", "--pose", "0.15", "0.45",
                          "--modes", "3", "--sensitivities", "legs[0].frames[0].bodies[0].section.b_y",
                          "legs[0].frames[1].d", "legs[0].frames[2].bodies[0].mass"], texts[2])):
        assert main(argv) == 0
        real = [line for line in capsys.readouterr().out.splitlines()
                if not line.startswith("computed in")]
        assert real == shown.splitlines()


def test_tutorial_refinement_table_is_computed():
    import numpy as np
    import flexpkm as fp
    rows = re.findall(r"^\| (\d+) \| ([\d. |]+)\|$", (ROOT / "docs" / "tutorial.md").read_text(),
                      flags=re.M)
    assert [int(n) for n, _ in rows] == [1, 2, 4, 8, 16]
    robot = fp.load_robot(ROOT / "cases" / "examples" / "five_bar.toml")
    for n, values in rows:
        model = fp.build_model(fp.refine(robot, int(n)))
        q = fp.assemble(model, q_a=[1.9, 1.2])
        f = fp.natural_frequencies(model, q, shapes=False, backend="numpy").frequencies_hz[:6]
        shown = [float(v) for v in values.split("|") if v.strip()]
        np.testing.assert_allclose(f, shown, atol=0.006)


def test_tutorial_python_blocks_run_with_their_shown_output(tmp_path, monkeypatch, capsys):
    """The tutorial's Python blocks that end with a ``text`` block print
    exactly that (run in a temporary folder with the files of ``flexpkm
    examples robots``; a shipped file named by its path in this checkout)."""
    from flexpkm.cli.app import main
    text = (ROOT / "docs" / "tutorial.md").read_text()
    pairs = re.findall(r"^```python\n(.*?)^```\n\n```text\n(.*?)^```", text, flags=re.M | re.S)
    assert pairs
    monkeypatch.chdir(tmp_path)
    assert main(["examples", "robots"]) == 0
    capsys.readouterr()
    for code, shown in pairs:
        if "plot_" in code:
            pytest.importorskip("pyvista")
        code = re.sub(r'"(cases/[^"]+\.toml)"', lambda m: repr(str(ROOT / m.group(1))), code)
        exec(compile(code, "tutorial.md", "exec"), {})
        assert capsys.readouterr().out == shown, code

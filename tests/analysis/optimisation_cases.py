"""The five-bar design problem shared by the optimisation tests: its
proximal and distal in-plane section sides b_y (both legs tied), three
poses, the mass of the file's design."""
from pathlib import Path

from flexpkm.analysis.design_problem import DesignProblem
from flexpkm.model.files import Where, parse

FILE = Path(__file__).resolve().parents[2] / "cases" / "examples" / "five_bar.toml"
PROX = tuple(f"legs[{k}].frames[0].bodies[0].section.b_y" for k in (0, 1))
DIST = tuple(f"legs[{k}].frames[1].bodies[1].section.b_y" for k in (0, 1))
PARAMS = {PROX: (0.003, 0.0095), DIST: (0.0005, 0.008)}
POSES = [[0.1, 0.35], [0.05, 0.4], [0.15, 0.3]]
MASS = 1.804        # kg, the file's design (4 steel links 0.3 m x 5 x 30 mm + 0.4 kg points)


def five_bar_problem(parameters=PARAMS, poses=POSES, **kwargs) -> DesignProblem:
    """The :class:`DesignProblem` of the five-bar file."""
    return DesignProblem(parse(FILE.read_text(encoding="utf-8"), Where(str(FILE))), parameters,
                         poses, **kwargs)

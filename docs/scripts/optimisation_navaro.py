"""The numbers of docs/maps.md, "Design optimisation": the NaVARo's link
sections for the largest worst-pose f1 at the mass of the book's design
(issue 21 item 3), by :func:`flexpkm.optimise_design`.

The links 1 to 4 of Table 11.3 (10 x 24 mm, its A, Iy, Iz, J) are written as
rectangles b_y x h_z (same A, Iy, Iz; J by Roark's formula) so that a side
is a design parameter; the parameters are the sides b_y of link 1, link 2,
link 3 and link 4 (C-D and D-E tied), in [5, 20] mm, the same in the three
legs (one limb placed three times); poses 1, 3 and 7 of Fig. 11.3 (both
clutches locked, the condition of Table 11.4). Checks: the exact gradient
vs Richardson central differences at the book's design and at the optimum,
and a grid search around the optimum on the equal-mass surface (link 4's
side solved from the mass, which is linear in the sides).

Run: ``OMP_NUM_THREADS=1 python docs/scripts/optimisation_navaro.py`` (a few minutes).
"""
import itertools
import time
from pathlib import Path

import numpy as np

import flexpkm as fp
from flexpkm.analysis.optimisation import DesignProblem, gradient_check
from flexpkm.model.files import Where, parse

FILE = Path(__file__).resolve().parents[2] / "cases" / "navaro.toml"
LINKS = {"link 1": (0,), "link 2": (2,), "link 3": (3,), "link 4": (4, 5)}
PI = np.pi
POSES = np.array([[0.0, 0.0, 0.0, 0.0, 0.0, 0.0],              # Fig. 11.3 pose 1
                  [0.117, 0.068, 0.0, 0.0, 0.0, -PI / 3],       # pose 3
                  [0.0, 0.135, 0.0, 0.0, 0.0, -PI / 3]])        # pose 7


def rectangles(data):
    """The description with the links 1-4 as 10 x 24 mm rectangles."""
    for frames in LINKS.values():
        for i in frames:
            data["limbs"]["RL"]["frames"][i]["bodies"][0]["section"] = {
                "shape": "rectangle", "b_y": 0.01, "h_z": 0.024}
    return data


def parameters():
    return {tuple(f"limbs.RL.frames[{i}].bodies[0].section.b_y" for i in frames): (0.005, 0.02)
            for frames in LINKS.values()}


def grid_check(problem, x, f_opt, half=0.05, n=5):
    """The best worst-pose f1 on an n^3 grid (+-half of the optimum) of the
    first three sides, the fourth from the mass (linear); its resolution."""
    dm = problem.evaluate(x).dmass
    m0 = problem.mass(problem.x0)
    best, axes = -np.inf, [np.linspace(1 - half, 1 + half, n) * v for v in x[:3]]
    for y3 in itertools.product(*axes):
        y4 = x[3] - np.dot(dm[:3], np.array(y3) - x[:3]) / dm[3]
        y = np.append(y3, y4)
        if (y < problem.lower).any() or (y > problem.upper).any():
            continue
        assert abs(problem.mass(y) - m0) < 1e-9 * m0
        best = max(best, float(np.min(problem.frequencies(y))))
    df = problem.evaluate(x).df[:, 0]
    resolution = float(np.max(np.abs(df[:, :3] - np.outer(df[:, 3], dm[:3] / dm[3]))
                              @ (2 * half * x[:3] / (n - 1))))
    return best, resolution


def main():
    data = rectangles(parse(FILE.read_text(encoding="utf-8"), Where(str(FILE))))
    book = fp.build_model(fp.load_robot(FILE))
    q = fp.assemble(book, pose=POSES)
    f_book = fp.natural_frequencies(book, q, n_modes=1, shapes=False, backend="numpy")
    print("Table 11.3 sections, f1 at poses 1, 3, 7:", np.round(f_book.frequencies_hz[:, 0], 4))
    t0 = time.perf_counter()
    r = fp.optimise_design(data, parameters(), POSES, equal_mass=True, check=False)
    print(f"optimised in {time.perf_counter() - t0:.0f} s: {r!r}")
    print("f1 before", np.round(r.f1_before, 4), "after", np.round(r.f1_after, 4),
          "active poses", r.active, "message", r.message, "evaluations", r.evaluations)
    print("b_y (mm):", {k: round(1e3 * float(v), 3) for k, v in zip(LINKS, r.x)})
    problem = DesignProblem(data, parameters(), POSES)
    for name, x in (("book's design", problem.x0), ("optimum", r.x)):
        print(f"gradient vs Richardson central differences at the {name}: "
              f"{gradient_check(problem, x):.2e}")
    best, res = grid_check(problem, r.x, r.worst_after)
    print(f"grid check (5^3 at +-5 %, equal mass): best {best:.6f} Hz vs optimum "
          f"{r.worst_after:.6f} Hz, grid resolution {res:.4f} Hz")


if __name__ == "__main__":
    main()

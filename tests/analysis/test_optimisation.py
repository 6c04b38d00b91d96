"""Design optimisation (flexpkm.analysis.optimisation): the flexible five-bar,
its proximal and distal in-plane section sides (both legs tied) as the two
parameters, three poses. Checks against independent routes: the exact
gradient vs Richardson central differences of natural_frequencies (re-built,
re-assembled models), the optimum vs a grid search around it, the mass
constraint."""
import numpy as np
import pytest

from flexpkm.analysis.optimisation import gradient_check, optimise_design
from flexpkm.errors import InvalidArgumentError
from tests.analysis.optimisation_cases import FILE, MASS, PARAMS, POSES, PROX, five_bar_problem

pytest.importorskip("casadi")


@pytest.fixture(scope="module")
def problem():
    return five_bar_problem()


@pytest.fixture(scope="module")
def result():
    return optimise_design(FILE, PARAMS, POSES, mass_limit=MASS, check=False)


def test_mass_of_the_file_design_by_hand(problem):
    # rho b h L per link + the point masses
    assert problem.mass(problem.x0) == pytest.approx(4 * 7800 * 0.005 * 0.03 * 0.3 + 0.4, rel=1e-12)


def test_gradient_vs_central_differences(problem):
    # at the file's design and at an interior design: 1e-6 relative
    assert gradient_check(problem, problem.x0) < 1e-6
    assert gradient_check(problem, np.array([0.007, 0.002])) < 1e-6


def test_gradient_of_a_length_vs_central_differences():
    # a parameter that moves frames: both proximal links' length and the MDH
    # d of their elbows tied, the poses re-assembled (hold the pose)
    length = tuple(f"legs[{k}].frames[0].bodies[0].length" for k in (0, 1)) \
        + tuple(f"legs[{k}].frames[1].d" for k in (0, 1))
    problem = five_bar_problem({length: (0.25, 0.35), PROX: (0.003, 0.008)})
    assert gradient_check(problem, problem.x0) < 1e-6


def test_mass_gradient_exact(problem):
    dm = problem.evaluate(problem.x0).dmass
    # dm/db = 2 legs x rho h L
    assert dm == pytest.approx([2 * 7800 * 0.03 * 0.3] * 2, rel=1e-9)


def test_optimum_improves_and_holds_the_mass(result):
    assert result.success
    assert result.worst_after > 2 * result.worst_before            # 7.26 -> 21.7 Hz
    assert result.mass_after <= MASS * (1 + 1e-6)
    assert result.mass_after == pytest.approx(MASS, rel=1e-4)      # the limit is active
    assert (result.x >= result.lower).all() and (result.x <= result.upper).all()


def test_optimum_is_a_kkt_point(problem, result):
    # one active pose, the mass limit active, both sides inside their bounds:
    # grad f1 (active pose) parallel to grad mass (Lagrange), here (1, 1)
    assert result.active.tolist() == [2]
    assert ((result.x > result.lower * 1.01) & (result.x < result.upper * 0.99)).all()
    ev = problem.evaluate(result.x)
    df, dm = ev.df[:, 0], ev.dmass
    assert dm[0] == pytest.approx(dm[1], rel=1e-9)
    assert df[2, 0] / df[2, 1] == pytest.approx(dm[0] / dm[1], rel=1e-4)


def test_optimum_vs_grid_search(problem, result):
    # a 5 x 5 grid of +-2 % around the optimum: no feasible point better than
    # the optimum by more than the grid's resolution (|grad| x step)
    x, ev = result.x, problem.evaluate(result.x)
    f, df = ev.f[:, 0], ev.df[:, 0]
    steps = 0.02 * x / 2
    best, worst_opt = -np.inf, np.min(f)
    for a in range(-2, 3):
        for b in range(-2, 3):
            y = x + steps * [a, b]
            if problem.mass(y) <= MASS:
                best = max(best, np.min(problem.frequencies(y)))
    assert best <= worst_opt + np.max(np.abs(df) @ steps)
    assert best >= worst_opt - np.max(np.abs(df) @ steps) * 2      # the grid did run near it


def test_refusals():
    with pytest.raises(InvalidArgumentError, match="not both"):
        optimise_design(FILE, PARAMS, POSES, mass_limit=1.0, equal_mass=True)
    with pytest.raises(InvalidArgumentError, match="no such key path"):
        optimise_design(FILE, {"legs[0].nope": (0, 1)}, POSES)
    with pytest.raises(InvalidArgumentError, match="lower < upper"):
        optimise_design(FILE, {PROX: (0.01, 0.001)}, POSES)
    with pytest.raises(InvalidArgumentError, match="outside the bounds"):
        optimise_design(FILE, {PROX: (0.006, 0.01)}, POSES)
    with pytest.raises(InvalidArgumentError, match="poses"):
        optimise_design(FILE, PARAMS, [[0.1, 0.3, 0.0]])


def test_the_optimisation_files_shown_in_the_docs_read(tmp_path):
    # docs/optimisation.md: the objective/[constraints] file and the [front] table
    from flexpkm.analysis.optimisation import read_optimisation
    text = (FILE.parents[2] / "docs" / "optimisation.md").read_text(encoding="utf-8")
    blocks = [b.split("\n", 1)[1] for b in text.split("```toml")[1:]]
    (tmp_path / "opt.toml").write_text(blocks[0].split("```")[0] + blocks[1].split("```")[0],
                                       encoding="utf-8")
    kwargs = read_optimisation(tmp_path / "opt.toml")
    assert kwargs["objective"] == "max_compliance" and kwargs["constraints"] == {"mass": 1.804}
    assert kwargs["front"] == {"points": 7, "against": "mass", "method": "both",
                               "population": 24, "generations": 25, "seed": 0}
    assert list(kwargs["parameters"].values()) == [(0.003, 0.012), (0.0005, 0.008)]

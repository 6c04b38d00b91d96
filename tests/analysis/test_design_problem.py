"""The criteria of the design optimisation (flexpkm.analysis.design_problem)
and the objectives other than the worst f1 (issue 21 item 3): the
flexible five-bar's proximal and distal in-plane section sides (both legs
tied), three poses. Checks: the gradients vs Richardson central differences
on the independent route (natural_frequencies and platform_compliance of
re-built, re-assembled models); the dual problems of the epsilon-constraint
method agree (max f1 at mass M <=> min mass at f1 >= the optimum); the
compliance optimum is a KKT point."""
import numpy as np
import pytest

from flexpkm.analysis.design_problem import criterion, gradient_check
from flexpkm.analysis.optimisation import optimise_design
from flexpkm.errors import InvalidArgumentError
from tests.analysis.optimisation_cases import (DIST, FILE, MASS, PARAMS, POSES, PROX,
                                               five_bar_problem)

pytest.importorskip("casadi")



@pytest.fixture(scope="module")
def problem():
    return five_bar_problem(n_modes=2, compliance=True)


def test_criterion_names():
    assert criterion("min_f1") == ("f", 1, 1.0) and criterion("min_f12") == ("f", 12, 1.0)
    assert criterion("mass")[2] == criterion("max_compliance")[2] == -1.0
    for bad in ("min_f0", "f1", "compliance", "min_f"):
        with pytest.raises(InvalidArgumentError, match="unknown criterion"):
            criterion(bad)


def test_compliance_gradient_vs_central_differences(problem):
    # exact (-u^T dK_cc/dp u) vs Richardson central differences of
    # platform_compliance at an interior design: 1e-6 relative (4.6e-7)
    assert gradient_check(problem, np.array([0.007, 0.002]), "max_compliance",
                          rel_step=1e-2) < 1e-6


def test_compliance_gradient_of_a_length():
    # a parameter that moves frames (the proximal links' length and the MDH
    # d of their elbows): its column by central differences (step 1e-4),
    # the section's exact, both vs Richardson differences: 4.8e-7
    length = tuple(f"legs[{k}].frames[0].bodies[0].length" for k in (0, 1)) \
        + tuple(f"legs[{k}].frames[1].d" for k in (0, 1))
    problem = five_bar_problem({length: (0.25, 0.35), PROX: (0.003, 0.008)}, compliance=True)
    assert gradient_check(problem, problem.x0, "max_compliance") < 2e-6


def test_second_frequency_gradient_vs_central_differences(problem):
    assert gradient_check(problem, problem.x0, "min_f2") < 1e-6


def test_compliance_value_by_the_two_routes(problem):
    # matrix_derivatives' K_cc route vs platform_compliance of a re-built model
    assert problem.evaluate(problem.x0).compliance == pytest.approx(
        problem.values(problem.x0, "max_compliance"), rel=1e-10)


def test_min_mass_at_the_max_f1_is_the_equal_mass_design():
    # the epsilon-constraint duality at the active pose: max f1 s.t. mass <=
    # 1.804 kg gives F; min mass s.t. f1 >= F gives back 1.804 kg and the design
    pose = [POSES[2]]
    best = optimise_design(FILE, PARAMS, pose, mass_limit=MASS, check=False)
    r = optimise_design(FILE, PARAMS, pose, objective="mass",
                        constraints={"min_f1": best.worst_after}, check=False)
    assert best.success and r.success and r.objective == "mass"
    assert r.mass_after == pytest.approx(MASS, rel=1e-4)
    assert r.worst_after >= best.worst_after * (1 - 1e-6)
    assert r.x == pytest.approx(best.x, rel=1e-3)
    assert r.gain == pytest.approx(0.0, abs=1e-4)       # the file's mass was already optimal


def test_min_compliance_under_the_mass_limit_is_a_kkt_point(problem):
    # the proximal side up to 12 mm: the optimum on the mass limit, the
    # distal side at its lower bound (its df/db < 0 costs as much mass)
    # (at the pose where the compliance is the largest: one pose, a third of the cost)
    r = optimise_design(FILE, {PROX: (0.003, 0.012), DIST: (0.0005, 0.008)}, [POSES[2]],
                        objective="max_compliance", mass_limit=MASS)
    assert r.success and r.objective_after < r.objective_before and r.gain > 0
    assert r.mass_after == pytest.approx(MASS, rel=1e-6)          # the limit is active
    assert r.gradient_error < 1e-5                                # 5.8e-7
    ev = problem.evaluate(r.x)             # the three poses: the largest is still pose 2
    act = np.flatnonzero(ev.compliance == ev.compliance.max())
    free = (r.x > r.lower * (1 + 1e-6)) & (r.x < r.upper * (1 - 1e-6))
    assert r.active.tolist() == [0] and act.tolist() == [2] and free.tolist() == [True, False]
    grad_c, grad_m = ev.dcompliance[act[0]], ev.dmass
    lam = -grad_c[free] @ grad_m[free] / (grad_m[free] @ grad_m[free])   # -dc = lam dm
    assert lam > 0
    at_low = r.x <= r.lower * (1 + 1e-6)
    assert (-grad_c[at_low] - lam * grad_m[at_low] <= 0).all()     # lowering it does not pay
    # a local grid along the feasible side (equal mass: dm/db equal for both,
    # so b_prox - s, b_dist + s; and b_prox - s alone): none is better
    for step in (0.1e-3, 0.2e-3, 0.4e-3):
        for y in (r.x + [-step, step], r.x + [-step, 0.0]):
            assert problem.values(y, "mass")[0] <= MASS * (1 + 1e-9)
            assert np.max(problem.values(y, "max_compliance")) > r.objective_after


def test_refusals():
    with pytest.raises(InvalidArgumentError, match="cannot be limited"):
        optimise_design(FILE, PARAMS, POSES, objective="mass", constraints={"mass": 1.0})
    with pytest.raises(InvalidArgumentError, match="unknown criterion"):
        optimise_design(FILE, PARAMS, POSES, objective="min_mass")
    with pytest.raises(InvalidArgumentError, match="positive"):
        optimise_design(FILE, PARAMS, POSES, objective="mass", constraints={"min_f1": -3.0})
    with pytest.raises(InvalidArgumentError, match="not both"):
        optimise_design(FILE, PARAMS, POSES, objective="mass", equal_mass=True)
    with pytest.raises(InvalidArgumentError, match="outside the bounds"):
        optimise_design(FILE, PARAMS, POSES, start=[0.1, 0.001])

"""The IDM through a Type 2 singularity (Briot & Khalil 9.2-9.4) on the
five-bar of Section 8.4.3.1: against the reduced-coordinate IDM of
flexpkm.analysis.idm away from it, the closed-form twist (9.34) and the
end-effector criterion (9.40), the limit against an extrapolation of the
regular efforts, the refusal of the unplanned quintic."""
import numpy as np
import pytest

import flexpkm as fp
from flexpkm.analysis.crossing import (classify, effort_matrix, law_inverse_dynamics,
                                       law_states)
from flexpkm.analysis.crossing_plan import plan_crossing
from flexpkm.analysis.idm import path_inverse_dynamics
from flexpkm.analysis.polynomial_laws import PolynomialLaw, rest_to_rest
from flexpkm.cases import get
from flexpkm.cases.shipped import file_of
from flexpkm.errors import SingularConfigurationError
from flexpkm.model import files

from .crossing_cases import P0, PF, TF, five_bar  # noqa: F401 (a fixture)


@pytest.fixture(scope="module")
def book_plan(five_bar):
    return plan_crossing(*five_bar, P0, PF, TF, crossing_time=0.75, through=[np.nan, 0.2])


def test_idm_equals_the_reduced_idm_off_the_singularity(five_bar):
    """Lagrange multipliers (9.1)-(9.3) here, J^T M J (10.123) there."""
    model, state = five_bar
    ref = path_inverse_dynamics(model, state, [0.0, 0.3], [0.1, 0.25], 1.0, rate=200)
    mine = law_inverse_dynamics(model, state, rest_to_rest([0.0, 0.3], [0.1, 0.25], 1.0), rate=200)
    np.testing.assert_allclose(mine.tau[1:-1], ref.tau[1:-1], atol=1e-10)   # ends: sign(0) of fs
    np.testing.assert_allclose(mine.q_a, ref.q_a, atol=1e-12)


def test_uncontrollable_twist_is_the_closed_form_934(five_bar, book_plan):
    """t_s = [-sin(q11 + q12), cos(q11 + q12)] (9.34), up to scale and sign."""
    model, state = five_bar
    q = state(book_plan.x_s[None])[0]
    phi = q[model.layout.index("q11")] + q[model.layout.index("q12")]
    t_s = book_plan.t_s_vector / np.linalg.norm(book_plan.t_s_vector)
    assert abs(abs(t_s @ [-np.sin(phi), np.cos(phi)]) - 1) < 1e-12
    assert book_plan.kind == "Type 2"


def test_end_effector_mass_only_gives_the_criterion_940():
    """Legs without inertia: t_s^T w_d = m4 t_s^T xdd, so the planned
    acceleration obeys ydd = xdd tan(q11 + q12) (9.40; the book prints x
    and y swapped in (9.51)-(9.52), docs/crossing.md)."""
    text = file_of("rigid_five_bar").read_text()
    for old in ("ZZ = 2.23e-05", "ZZ = 2.44e-05", "MX = 0.012"):
        text = text.replace(old, old.split("=")[0] + "= 0.0")
    model = fp.build_model(files.loads(text))
    case = get("rigid_five_bar")
    state = lambda poses: case.configure(model, poses, {})
    plan = plan_crossing(model, state, P0, PF, TF, crossing_time=0.75, through=[np.nan, 0.2])
    q = state(plan.x_s[None])[0]
    phi = q[model.layout.index("q11")] + q[model.layout.index("q12")]
    assert plan.xdd_s[1] == pytest.approx(plan.xdd_s[0] * np.tan(phi), abs=1e-12)


def test_limit_at_the_crossing_is_the_extrapolated_efforts(five_bar, book_plan):
    """The 1 kHz grid holds t_s = 0.75 s exactly: its efforts (the limit)
    equal the Richardson extrapolation of regular samples at t_s +- h, 2h."""
    model, state = five_bar
    res = law_inverse_dynamics(model, state, book_plan.law, rate=1000)
    k = int(np.argmin(abs(res.t - 0.75)))
    h = 1e-3
    near = [law_inverse_dynamics(model, state, _window(book_plan.law, 0.75 + d), rate=1).tau[0]
            for d in (-h, h, -2 * h, 2 * h)]
    extrapolated = (4 * (near[0] + near[1]) / 2 - (near[2] + near[3]) / 2) / 3
    np.testing.assert_allclose(res.tau[k], extrapolated, atol=1e-6)


def _window(law, t0, span=1.0):
    """The law seen from t0, over ``span`` s."""
    class Shifted:
        duration = span

        def __call__(self, t):
            return law(np.asarray(t) + t0)
    return Shifted()


def test_planned_efforts_converge_with_sampling(five_bar, book_plan):
    model, state = five_bar
    peaks = [np.abs(law_inverse_dynamics(model, state, book_plan.law, rate=r).tau).max(axis=0)
             for r in (1000, 4000)]
    np.testing.assert_allclose(peaks[0], peaks[1], rtol=1e-5)
    assert peaks[1].max() < 20.0


def test_unplanned_quintic_is_refused_at_its_crossing(five_bar):
    model, state = five_bar
    with pytest.raises(SingularConfigurationError, match=r"Type 2 .* t = 0\.8183 s.*\(9\.11\)"):
        law_inverse_dynamics(model, state, rest_to_rest(P0, PF, TF), rate=1000)


def test_book_printed_law_953_954_is_refused(five_bar):
    """(9.53)-(9.54) follow the printed (9.51)-(9.52), which break (9.40)."""
    model, state = five_bar
    x = [0, 0, 0, 0.03062, 0.36498, -0.08964, -0.63889, 0.55539, -0.13198]
    y = [0.33818, 0, 0, 0.40308, -1.95392, 0.1490, 3.13259, -2.56936, 0.60008]
    law = PolynomialLaw(np.array([x, y]).T * TF ** np.arange(9)[:, None], TF)
    with pytest.raises(SingularConfigurationError, match="Type 2"):
        law_inverse_dynamics(model, state, law, rate=1000)


def test_singular_motion_keeps_actuators_still_and_loops_closed(five_bar, book_plan):
    """n: a motion with the actuators locked that keeps the loops closed
    ((9.9) with its legs' rates); the criterion is met there to 1e-9."""
    model, state = five_bar
    x, q, qd, qdd, w = law_states(model, state, book_plan.law, np.array([book_plan.t_s]))
    A, _ = effort_matrix(model, q)
    sing = classify(model, A[0], w[0])
    assert sing.relative < 1e-9 and sing.rcond < 1e-12
    assert np.abs(sing.motion[list(model.layout.actuated)]).max() < 1e-12
    assert np.abs(A[0].T @ sing.motion).max() < 1e-12


# --- the Tripteron's LPJTS singularity (Section 9.5) -------------------------

TRI_START, TRI_STOP = np.array([0.78, 0.31100091, 0.25]), np.array([1.08, 0.27100091, 0.25])


@pytest.fixture(scope="module")
def tripteron():
    """The book's Section 9.5.5 (variant leg1), the law on (q12, y, z)."""
    from flexpkm.cases import tripteron as tr
    model = fp.build_model(files.load(file_of("tripteron"), variant="leg1"))
    coords = [model.layout.index(n) for n in ("q12", "y", "z")]
    return model, (lambda v: tr.elbow_state(model, v)), coords


@pytest.fixture(scope="module")
def tri_plan(tripteron):
    model, state, coords = tripteron
    return plan_crossing(model, state, TRI_START, TRI_STOP, 1.0, crossing_time=0.5, coords=coords)


def test_lpjts_motion_is_the_closed_form_9106(tripteron, tri_plan):
    """qd_d^s = [d_14, -(d_13 + d_14), d_13] on leg 1 (9.106, the book's
    d_i2, d_i3 there), nothing else moving: an LPJTS singularity."""
    model, state, coords = tripteron
    assert tri_plan.kind == "LPJTS" and np.abs(tri_plan.t_s_vector).max() < 1e-12
    _, q, _, _, w = law_states(model, state, tri_plan.law, np.array([0.5]), coords=coords)
    n = classify(model, effort_matrix(model, q)[0][0], w[0]).motion
    leg1 = [model.layout.index(k) for k in ("q12", "q13", "q14")]
    expected = np.array([0.1878, -(0.1888 + 0.1878), 0.1888])
    assert abs(abs(n[leg1] @ expected) / np.linalg.norm(expected) - 1) < 1e-12
    assert np.abs(np.delete(n, leg1)).max() < 1e-12


def test_lpjts_criterion_is_no_tangential_acceleration_9108(tri_plan):
    """A point mass at A_13 alone moves along qd_d^s: (9.108) asks
    qdd_12 = 0 at the crossing; the law keeps y, z as the quintic's."""
    assert tri_plan.xdd_s[0] == pytest.approx(0.0, abs=1e-12)
    sixth_y = tri_plan.law.derivative([0.5], 2)[0, 1]
    assert sixth_y == pytest.approx(tri_plan.xdd_s[1], abs=1e-12)
    assert abs(tri_plan.criterion) < 1e-12 < abs(tri_plan.unplanned)


def test_lpjts_crossing_bounded_and_converging_quintic_refused(tripteron, tri_plan):
    model, state, coords = tripteron
    peaks = [np.abs(law_inverse_dynamics(model, state, tri_plan.law, rate=r,
                                         coords=coords).tau).max(axis=0) for r in (200, 600)]
    np.testing.assert_allclose(peaks[0], peaks[1], rtol=1e-4)
    assert peaks[1].max() < 20.0
    with pytest.raises(SingularConfigurationError, match=r"LPJTS .* t = 0\.446\d* s.*\(9\.15\)"):
        law_inverse_dynamics(model, state, tri_plan.quintic, rate=200, coords=coords)


def test_lpjts_law_efforts_equal_the_reduced_idm_off_the_crossing(tripteron, tri_plan):
    """Away from the crossing, at the law's states, the reduced IDM (10.124)
    with the actuators independent gives the same efforts (1e-9 N)."""
    model, state, coords = tripteron
    t = np.array([0.2, 0.8])
    _, q, qd, qdd, _ = law_states(model, state, tri_plan.law, t, coords=coords)
    act = list(model.layout.actuated)
    full = fp.full_dynamics(model, q, qd[:, act])
    reference, _ = fp.inverse_dynamics(full, qdd[:, act])
    mine = law_inverse_dynamics(model, state, _window(tri_plan.law, 0.2, 0.6), rate=1 / 0.6,
                                coords=coords)
    np.testing.assert_allclose(mine.tau, reference, atol=1e-9)

"""Planning a motion through a Type 2 or LPJTS singularity (Briot & Khalil
Sections 9.3-9.4, 9.6): a rest-to-rest polynomial law of the platform
coordinates (Appendix D, n_c = 9 conditions: the eighth degree of
(9.53)-(9.54)) whose position, velocity and acceleration at the crossing
time meet the criterion ``n^T w = 0`` ((9.11), (9.15);
:mod:`flexpkm.analysis.crossing`) evaluated from the whole model.

The crossing point is where the straight path ``start -> stop`` meets the
singular locus (the root of :func:`flexpkm.analysis.crossing.singular_measure`
along it), or the point of the locus with all but one pose component given
(``through``: the book's y = 0.2 m of (9.52)); the crossing time is the
quintic's time at the path's crossing, or given (the book's 0.75 s).
The velocity there is that of the sixth-degree law through the ends and
the point; the acceleration is the one of that law moved the least
(Euclidean norm) onto the criterion, which is affine in the acceleration.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from flexpkm.algorithms.reference import build_model
from flexpkm.analysis.crossing import classify, effort_matrix, law_states, singular_measure
from flexpkm.analysis.polynomial_laws import PolynomialLaw, rest_to_rest
from flexpkm.errors import FlexPKMError, InvalidArgumentError

#: poses sampled along the straight path when looking for the locus
PATH_SAMPLES = 201


@dataclass(frozen=True)
class CrossingPlan:
    """A law through a singularity.

    law : :class:`PolynomialLaw` (degree 8) of the platform coordinates
    quintic : the unplanned rest-to-rest quintic (D.13) of the same path
    t_s : crossing time, s;  x_s, xd_s, xdd_s : (n_p,) pose, velocity,
        acceleration there (SI)
    kind : ``"Type 2"`` or ``"LPJTS"``;  t_s_vector : (n_p,) the
        uncontrollable twist (unit motion's platform part; zeros for LPJTS)
    criterion : ``n^T w`` at the crossing along ``law`` (W, ~0) and
        ``unplanned`` along the quintic at its own crossing of the path
    path_s : where the straight path meets the locus, in [0, 1]
    """

    law: PolynomialLaw
    quintic: PolynomialLaw
    t_s: float
    x_s: np.ndarray
    xd_s: np.ndarray
    xdd_s: np.ndarray
    kind: str
    t_s_vector: np.ndarray
    criterion: float
    unplanned: float
    path_s: float

    def sample(self, rate=1000.0):
        """``(t (m,), x, xd, xdd (m, n_p))`` of the law at ``rate`` Hz."""
        t = np.linspace(0.0, self.law.duration, int(round(self.law.duration * rate)) + 1)
        return (t, *self.law(t))


def _measure(model, state, poses, kept=None):
    """Singular measure at the law's values ``poses`` (k,) or (m, k)."""
    A, kept = effort_matrix(model, state(np.atleast_2d(poses)), kept)
    return singular_measure(A), kept


def path_crossing(model, state, start, stop):
    """``s`` in (0, 1) where ``start + s (stop - start)`` first meets the
    singular locus. Raises :class:`InvalidArgumentError` when it meets none."""
    from scipy.optimize import brentq
    s = np.linspace(0.0, 1.0, PATH_SAMPLES)
    m, kept = _measure(model, state, start + s[:, None] * (stop - start))
    change = np.flatnonzero(m[:-1] * m[1:] <= 0)
    if not change.size:
        raise InvalidArgumentError(f"{model.name}: the straight path from {start.tolist()} to "
                                   f"{stop.tolist()} crosses no Type 2 or LPJTS singularity")
    k = change[0]
    f = lambda u: _measure(model, state, start + u * (stop - start), kept)[0][0]
    return brentq(f, s[k], s[k + 1], xtol=1e-15), kept


def locus_point(model, state, guess, through, kept):
    """The point of the locus with the components ``through`` (n_p,) given
    (NaN: the one free component), found from ``guess`` (n_p,) on the locus
    by bracketing along the free component. Raises
    :class:`InvalidArgumentError` unless exactly one component is free or
    when no point is found within 0.064 (m or rad) of the guess."""
    from scipy.optimize import brentq
    through = np.asarray(through, float)
    free = np.flatnonzero(np.isnan(through))
    if through.shape != guess.shape or len(free) != 1:
        raise InvalidArgumentError(f"crossing point: give {len(guess) - 1} of the {len(guess)} "
                                   "pose components (NaN for the one found on the locus)")
    point = np.where(np.isnan(through), guess, through)
    f = lambda u: _measure(model, state, np.where(np.isnan(through), u, point), kept)[0][0]
    c = guess[free[0]]
    for h in 1e-3 * 2.0 ** np.arange(7):
        try:
            if f(c - h) * f(c + h) < 0:
                point[free[0]] = brentq(f, c - h, c + h, xtol=1e-15)
                return point
        except FlexPKMError:        # a pose out of reach: try no wider
            break
    raise InvalidArgumentError(f"crossing point: no singular point with {through.tolist()} "
                               f"near {guess.tolist()}")


def _criterion_line(model, state, x_s, xd_s, friction, coords):
    """``(g (n_p,), h)`` with ``n^T w = g . xdd + h`` at ``(x_s, xd_s)``."""
    n_p = len(x_s)
    acc = np.vstack([np.zeros(n_p), np.eye(n_p)])
    law = lambda t: (np.repeat(x_s[None], n_p + 1, 0), np.repeat(xd_s[None], n_p + 1, 0), acc)
    _, q, _, _, w = law_states(model, state, law, np.zeros(n_p + 1), friction, coords)
    A, _ = effort_matrix(model, q[:1])
    sing = classify(model, A[0], w[0])
    r = sing.motion @ w.T
    return r[1:] - r[0], r[0], sing


def _quintic_time(s, duration):
    """The time at which the quintic (D.13) reaches the fraction s of its path."""
    from scipy.optimize import brentq
    return duration * brentq(lambda u: u ** 3 * (10 - 15 * u + 6 * u * u) - s, 0.0, 1.0)


def plan_crossing(model, state, start, stop, duration, crossing_time=None, through=None,
                  friction=True, coords=None) -> CrossingPlan:
    """Plan the rest-to-rest motion ``start -> stop`` (poses (n_p,), the
    platform coordinates) in ``duration`` s through the singularity that
    the straight path meets, with finite efforts (Sections 9.3-9.4).

    state : ``poses (m, n_p) -> q_tot (m, n_tot)`` (inverse geometric model
    of one working mode); crossing_time : s in (0, duration), default the
    quintic's time at the path's crossing; through : (n_p,) crossing point
    with one component NaN (found on the locus), default the path's
    crossing; coords : the q_tot columns of the law (default the
    platform's: start and stop are poses; else values of these columns,
    :func:`flexpkm.analysis.crossing.law_states`). Returns a
    :class:`CrossingPlan`. Raises
    :class:`InvalidArgumentError` (no crossing, a bad time or point),
    :class:`flexpkm.errors.SingularConfigurationError` when the criterion
    does not depend on the acceleration there."""
    model = build_model(model)
    start, stop = np.asarray(start, float), np.asarray(stop, float)
    quintic = rest_to_rest(start, stop, duration)
    s_c, kept = path_crossing(model, state, start, stop)
    x_s = start + s_c * (stop - start)
    if through is not None:
        x_s = locus_point(model, state, x_s, through, kept)
    if crossing_time is None:
        crossing_time = _quintic_time(s_c, duration)
    if not 0 < crossing_time < duration:
        raise InvalidArgumentError(f"crossing time {crossing_time} s outside (0, {duration}) s")
    sixth = rest_to_rest(start, stop, duration, [(crossing_time, 0, x_s)])
    xd_s, a_ref = (sixth.derivative([crossing_time], k)[0] for k in (1, 2))
    g, h, sing = _criterion_line(model, state, x_s, xd_s, friction, coords)
    if not np.linalg.norm(g) > 0:
        from flexpkm.errors import SingularConfigurationError
        raise SingularConfigurationError(f"{model.name}: the criterion at {x_s.tolist()} does "
                                         "not depend on the platform acceleration", where=sing.kind)
    xdd_s = a_ref - g * (g @ a_ref + h) / (g @ g)
    law = rest_to_rest(start, stop, duration, [(crossing_time, 0, x_s), (crossing_time, 1, xd_s),
                                               (crossing_time, 2, xdd_s)])
    t_c = _quintic_time(s_c, duration)
    g_c, h_c, _ = _criterion_line(model, state, start + s_c * (stop - start),
                                  quintic.derivative([t_c], 1)[0], friction, coords)
    unplanned = float(g_c @ quintic.derivative([t_c], 2)[0] + h_c)
    return CrossingPlan(law=law, quintic=quintic, t_s=float(crossing_time), x_s=x_s, xd_s=xd_s,
                        xdd_s=xdd_s, kind=sing.kind, t_s_vector=sing.t_s,
                        criterion=float(g @ xdd_s + h), unplanned=unplanned, path_s=float(s_c))

"""An external wrench on the platform along time (Briot & Khalil Section
6.4): a constant ``[F_x, F_y, F_z, M_x, M_y, M_z]`` (N, N m) or a function
of time, exerted by the environment on the platform at its point P, in
base-frame components (:mod:`flexpkm.algorithms.statics`)."""
from __future__ import annotations

import numpy as np

from flexpkm.errors import InvalidArgumentError


def wrench_at(wrench, t, what="wrench"):
    """The wrench at the times ``t`` (scalar -> (6,), (n,) -> (n, 6)), or None.

    wrench : None, a (6,) sequence, or a callable ``f(t) -> (6,)`` of the
    time t (s). Raises :class:`InvalidArgumentError` naming ``what`` for
    another shape, a non-finite value or a callable that fails to give six
    finite numbers (with the time)."""
    if wrench is None:
        return None
    times = np.atleast_1d(np.asarray(t, float))
    if callable(wrench):
        rows = []
        for s in times:
            try:
                rows.append(np.asarray(wrench(float(s)), float))
            except (TypeError, ValueError) as e:
                raise InvalidArgumentError(f"{what}: the wrench function failed at t = {s:g} s: "
                                           f"{e}") from None
            if rows[-1].shape != (6,) or not np.isfinite(rows[-1]).all():
                raise InvalidArgumentError(f"{what}: the wrench function gave {rows[-1]!r:.80} "
                                           f"at t = {s:g} s; 6 finite numbers expected")
        w = np.stack(rows)
    else:
        try:
            w = np.asarray(wrench, float)
        except (TypeError, ValueError):
            raise InvalidArgumentError(f"{what}: 6 numbers or a function of time expected, "
                                       f"got {wrench!r:.60}") from None
        if w.shape != (6,) or not np.isfinite(w).all():
            raise InvalidArgumentError(f"{what}: 6 finite numbers [Fx, Fy, Fz, Mx, My, Mz] "
                                       f"expected (N, N m), got shape {w.shape}")
        w = np.broadcast_to(w, (len(times), 6))
    return w[0] if np.ndim(t) == 0 else w

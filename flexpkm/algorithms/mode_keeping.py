"""What :func:`flexpkm.assemble` refuses besides open loops: a configuration
in other working / assembly modes than those asked for (Briot & Khalil
Section 7.5, :mod:`flexpkm.algorithms.modes`), and a cut frame closed
half-turned (:func:`flexpkm.algorithms.closure.half_turns`).

Which modes are kept: the working modes of the legs in the inverse problem
(the platform pose fixed: one configuration per combination of working
modes; the assembly mode follows from them and may change along a path
crossing a Type 2 singularity), the assembly mode in the forward problem
(the actuators fixed: one configuration per assembly mode; the legs'
working modes follow and change where a leg stretches out). Modes given
explicitly are all kept.
"""
from __future__ import annotations

import numpy as np

from flexpkm.algorithms.closure import half_turns
from flexpkm.algorithms.modes import mode_signature, mode_text
from flexpkm.errors import FlexPKMError, UnreachablePoseError, WorkingModeError


class ModeKeeper:
    """The modes an assembly keeps: ``wanted`` leg name (or ``"assembly"``)
    -> +1/-1, ``source`` says whose modes they are (for the messages)."""

    def __init__(self, model, wanted: dict, source: str):
        self.model, self.wanted, self.source = model, wanted, source

    def refusal(self, q_tot, where=""):
        """None when ``q_tot`` (n_tot,) is in the wanted modes (a sign 0, a
        singular leg, is in both), else the :class:`WorkingModeError`."""
        found = mode_signature(self.model, q_tot).at(0)
        bad = [k for k, v in self.wanted.items() if found.get(k, 0) not in (0, v)]
        if not bad:
            return None
        what = "assembly mode" if bad[0] == "assembly" else f"working mode of leg {bad[0]}"
        return WorkingModeError(
            f"assemble: {where}reached only in another {what}: {self.source} "
            f"{mode_text({k: self.wanted[k] for k in bad})}, found {mode_text({k: found[k] for k in bad})} "
            f"(signs of the determinants of Section 7.5, flexpkm.algorithms.modes); "
            f"`flexpkm check FILE --pose ... --working-modes ...` gives a reference "
            f"configuration in other modes", leg=bad[0], wanted=self.wanted[bad[0]],
            found=found[bad[0]])


def kept_modes(model, guess, modes, inverse=True, reference=None):
    """The :class:`ModeKeeper` of an assembly, or None (nothing to keep).

    guess : (n_tot,) start given by the caller, or None (the reference);
    modes : dict of wanted signs, None (those of the guess; without a guess
            those of the reference updated by the description's
            ``working_modes``, all kept), False (none); inverse : True for the inverse problem (the legs'
            working modes kept), False for the forward one (the assembly mode);
    reference : the modes of the robot's assembled reference configuration
            (:func:`flexpkm.algorithms.assembly.reference_modes`), read when
            neither ``modes`` nor ``guess`` is given; None: unknown.
    """
    if modes is False:
        return None
    if modes:
        return ModeKeeper(model, dict(modes), "wanted")
    if guess is not None:
        found, source = mode_signature(model, guess).at(0), "the start's"
    else:
        found, source = reference or {}, "the reference's"
    keys = [k for k in found if (k != "assembly") == inverse and found[k] != 0]
    wanted = {k: found[k] for k in keys}
    stated = dict(model.robot.working_modes) if guess is None else {}
    if stated:
        wanted.update(stated)
        source = "the description's" if set(stated) >= set(wanted) else source + " / description's"
    return ModeKeeper(model, wanted, source) if wanted else None


def half_turn_refusal(model, q_tot, where=""):
    """None, or the :class:`UnreachablePoseError` of a configuration
    (n_tot,) whose loops close with a cut frame half-turned."""
    flips = half_turns(model, np.asarray(q_tot)[None])
    if not flips:
        return None
    b, label, leg, axes, dot = flips[0]
    return UnreachablePoseError(
        f"assemble: {where}the loop equations close only with the cut frame of closure "
        f"{label}{f' (leg {leg})' if leg else ''} half-turned ({axes} = {dot:.3g}, "
        f"+1 when closed); start from a configuration closer to the closed one")


#: random starts tried by :func:`other_starts` after the mirrored ones
TRIES = 24


def other_starts(model, keep, solve, error):
    """A configuration in the modes of ``keep`` (a :class:`ModeKeeper`) when
    the continuation ended in other modes (``error``, the
    :class:`WorkingModeError`): ``solve(start)`` (a plain Newton solve of the
    same problem, modes not checked) from the configuration it found with
    the passive joint coordinates of the legs in other modes negated (a
    mirrored leg, e.g. the other elbow), then from seeded random joint
    coordinates of those legs (:data:`TRIES`). Raises ``error`` when no
    start closes the loops in those modes, what ``solve(None)`` raises when
    the loops close in no mode (an unreachable pose)."""
    q0 = solve(None)
    found = mode_signature(model, q0).at(0)
    layout = model.layout
    cols = [c for leg, v in keep.wanted.items() if leg != "assembly" and found.get(leg) != v
            for c in layout.joint_index.values() if model.column_legs[c] == leg] or \
        sorted(layout.joint_index.values())
    passive = [c for c in cols if c not in layout.actuated]
    rng = np.random.default_rng(0)
    starts = [_with(q0, passive, -q0[passive])]
    starts += [_with(q0, cols, rng.uniform(-np.pi, np.pi, len(cols))) for _ in range(TRIES)]
    for start in starts:
        try:
            q = solve(start)
        except FlexPKMError:
            continue
        if keep.refusal(q) is None:
            return q
    raise error


def _with(q, cols, values):
    q = q.copy()
    q[cols] = values
    return q

"""Mesh refinement of the flexible beams of a description (issue 9, item 5).

The book models each flexible body by one clamped-free beam (Appendix F):
n = 1 is that model. :func:`refine` splits a beam of length L carried by
frame j into n clamped-free beams of length L/n, carried by j and by n - 1
new fixed frames (sigma = 2, d = L/n along x) chained after j. Everything
that frame j carried at abscissa x along the beam (descendant frames, rigid
bodies and point masses) is re-attached to element ``floor(x / (L/n))`` with
its offset reduced by that element's root abscissa. The result is again a
plain :class:`Robot`: the algorithms see an ordinary (larger) virtual tree.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from flexpkm.elements.beam import Beam
from flexpkm.elements.rigid import RigidBody
from flexpkm.errors import InvalidDescriptionError
from flexpkm.model.checks import body_rows, check_model_size
from flexpkm.model.description import FIXED, Frame, Robot


def element_frame_name(frame: str, k: int) -> str:
    """Name of the frame carrying element k (k >= 1) of the beam of ``frame``."""
    return f"{frame}.{k}"


def refine(robot: Robot, n, only=None) -> Robot:
    """The description with each flexible beam split into n elements.

    robot : :class:`Robot`.
    n     : int >= 1 elements per beam, or a dict frame name -> int (frames not
            in the dict keep one element).
    only  : optional iterable of frame names to refine (default: every frame
            carrying a beam).
    Returns a new :class:`Robot` (the same object when nothing changes).
    Raises :class:`InvalidDescriptionError` for n < 1, a flexible body that is
    not a beam, or a descendant frame placed off the beam axis by gamma.
    """
    counts = _element_counts(robot, n, only)
    if not any(v > 1 for v in counts.values()):
        return robot
    extra = [((c - 1) * robot.flexible_body(name).n_e, (c - 1) * (6 + robot.flexible_body(name).n_e))
             for name, c in counts.items() if c > 1]
    check_model_size(robot.layout.n_tot + sum(e for e, _ in extra),
                     body_rows(robot) + sum(r for _, r in extra),
                     what=f"{robot.name} refined to {max(counts.values()):,} elements per beam")
    frames, bodies = list(robot.frames), {k: tuple(v) for k, v in robot.bodies.items()}
    for name, count in counts.items():
        if count > 1:
            frames, bodies = _split_beam(frames, bodies, name, count)
    return replace(robot, frames=tuple(frames), bodies=bodies)


def _element_counts(robot, n, only) -> dict:
    names = [f.name for f in robot.frames if robot.flexible_body(f.name) is not None]
    if only is not None:
        names = [nm for nm in names if nm in set(only)]
    counts = dict(n) if isinstance(n, dict) else {nm: n for nm in names}
    for name, count in counts.items():
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
            raise InvalidDescriptionError(f"refine: elements of frame {name!r} must be an integer "
                                          f">= 1, got {count!r}")
        body = robot.flexible_body(name)
        if body is None and count > 1:
            raise InvalidDescriptionError(f"refine: frame {name!r} carries no flexible body")
        if count > 1 and not isinstance(body, Beam):
            raise InvalidDescriptionError(
                f"refine: the flexible body of frame {name!r} is not a beam "
                f"({type(body).__name__}); only beams can be split")
    return counts


def _split_beam(frames, bodies, name, n):
    """Frames and bodies with the beam of frame ``name`` split in n."""
    beam = next(b for b in bodies[name] if b.n_e > 0)
    h = beam.length / n
    j = next(i for i, f in enumerate(frames) if f.name == name)
    leg = frames[j].leg
    chain = [name] + [element_frame_name(name, k) for k in range(1, n)]
    new_frames = [Frame(chain[k], chain[k - 1], sigma=FIXED, d=h, leg=leg) for k in range(1, n)]
    element = {chain[k]: [type(beam)(h, beam.section, beam.material,
                                     name=f"{beam.name} [{k + 1}/{n}]")]
               for k in range(n)}
    for body in bodies[name]:
        if body is beam:
            continue
        k, moved = _move_rigid(body, h, n, name)
        element[chain[k]].append(moved)
    out = []
    for f in frames:
        if f.antecedent == name:
            f = _reattach(f, chain, h, n)
        out.append(f)
        if f.name == name:
            out.extend(new_frames)
    new_bodies = dict(bodies)
    new_bodies.update({nm: tuple(bs) for nm, bs in element.items()})
    return out, new_bodies


def _element_of(x: float, h: float, n: int) -> int:
    return min(n - 1, max(0, math.floor(x / h + 1e-9)))


def _reattach(frame: Frame, chain, h, n) -> Frame:
    """A descendant of the beam's frame moved to the element under its origin."""
    if frame.d == 0.0:
        return frame
    if frame.gamma != 0.0:
        raise InvalidDescriptionError(
            f"refine: frame {frame.name!r} is placed on beam frame {chain[0]!r} with gamma = "
            f"{frame.gamma}; only descendants with gamma = 0 (origin on the x axis) can be "
            "re-attached")
    k = _element_of(frame.d, h, n)
    return replace(frame, antecedent=chain[k], d=frame.d - k * h)


def _move_rigid(body, h, n, name):
    """(element index, body expressed at that element's frame) for a rigid body."""
    if body.n_e > 0 or not isinstance(body, RigidBody):
        raise InvalidDescriptionError(
            f"refine: frame {name!r} carries a second body of type {type(body).__name__}")
    p = body.standard_parameters
    if p["M"] <= 0.0:
        return 0, body
    k = _element_of(p["MX"] / p["M"], h, n)
    if k == 0:
        return 0, body
    return k, translated_rigid(body, (k * h, 0.0, 0.0))


def translated_rigid(body: RigidBody, origin) -> RigidBody:
    """The same rigid body with its standard parameters expressed at a frame
    translated by ``origin`` (3,) m (same orientation): first moments
    MS' = MS - M s, inertia I' = I_G + M (|c'|^2 1 - c' c'^T) (Huygens-Steiner)."""
    inv = body.invariants
    s = np.asarray(origin, float)
    m, ms, I_O = inv.m, inv.ms_r, inv.I_rr
    c = ms / m
    skew2 = lambda v: float(v @ v) * np.eye(3) - np.outer(v, v)   # noqa: E731
    I_G = I_O - m * skew2(c)
    c2 = c - s
    I = I_G + m * skew2(c2)
    return RigidBody(XX=I[0, 0], XY=I[0, 1], XZ=I[0, 2], YY=I[1, 1], YZ=I[1, 2], ZZ=I[2, 2],
                     MX=m * c2[0], MY=m * c2[1], MZ=m * c2[2], M=m, name=body.name)

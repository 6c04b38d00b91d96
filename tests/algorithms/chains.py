"""Two random 6-joint chains whose ends are joined by a cut joint placed at a
chosen relative pose (test helper, no flexpkm algorithm used to place it):
frame ``Bc`` is fixed on ``B5`` by MDH parameters computed here so that, at
the joint values ``q``, ``T_0Bc = T_0A5 T_rel``."""
import numpy as np

from flexpkm.model.description import Closure, Frame, Robot


def rz(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def rx(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[1.0, 0, 0], [0, c, -s], [0, s, c]])


def transform(R, p):
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = R, p
    return T


def mdh_of(T):
    """(gamma, b, alpha, d, theta, r) with Rz(gamma) Tz(b) Rx(alpha) Tx(d)
    Rz(theta) Tz(r) = T (ZXZ angles, then a 3x3 solve for b, d, r)."""
    R, p = T[:3, :3], T[:3, 3]
    alpha = np.arccos(np.clip(R[2, 2], -1, 1))
    gamma = np.arctan2(R[0, 2], -R[1, 2])
    theta = np.arctan2(R[2, 0], R[2, 1])
    A = np.column_stack([[0, 0, 1.0], rz(gamma)[:, 0], (rz(gamma) @ rx(alpha))[:, 2]])
    b, d, r = np.linalg.solve(A, p)
    return dict(gamma=gamma, b=b, alpha=alpha, d=d, theta=theta, r=r)


def chain_frames(seed):
    rng = np.random.default_rng(seed)
    frames = []
    for leg in "AB":
        ant = None
        for k in range(6):
            frames.append(Frame(f"{leg}{k}", ant, sigma=int(k in (1, 4)), alpha=rng.uniform(-1.5, 1.5),
                                d=rng.uniform(0.1, 0.3), theta=rng.uniform(-1, 1), leg=leg))
            ant = f"{leg}{k}"
    return tuple(frames), rng.uniform(-0.5, 0.5, 12)


def frame_transforms(frames, q):
    """Base-frame 4x4 transforms of the frames (MDH recursion written here)."""
    T, out, iq = {None: np.eye(4)}, {}, 0
    for f in frames:
        th, r = f.theta, f.r
        if f.sigma in (0, 1):
            th, r = (th + q[iq], r) if f.sigma == 0 else (th, r + q[iq])
            iq += 1
        M = (transform(rz(f.gamma), [0, 0, f.b]) @ transform(rx(f.alpha), [f.d, 0, 0])
             @ transform(rz(th), [0, 0, r]))
        T[f.name] = out[f.name] = T[f.antecedent] @ M
    return out


def closed_chains(joint, T_rel, seed=3):
    """(robot, q): chains A and B closed by ``joint`` between A5 and Bc,
    with ``T_0Bc = T_0A5 T_rel`` at q."""
    frames, q = chain_frames(seed)
    T = frame_transforms(frames, q)
    T_fix = np.linalg.inv(T["B5"]) @ T["A5"] @ T_rel
    frames = frames + (Frame("Bc", "B5", sigma=2, leg="B", **mdh_of(T_fix)),)
    return Robot("two chains", frames, {}, closures=(Closure("A5", "Bc", joint, leg="A"),)), q


def joint_motion(joint, rng):
    """A random relative pose T_rel on the joint's motion manifold (F_g in F_k)."""
    a, b = rng.uniform(0.3, 1.2, 2) * rng.choice([-1, 1], 2)
    if joint == "revolute":
        return transform(rz(a), np.zeros(3))
    if joint == "prismatic":
        return transform(np.eye(3), [0, 0, 0.1 * a])
    if joint == "universal":
        return transform(rz(a) @ rx(b), np.zeros(3))
    if joint == "spherical":
        return transform(rz(a) @ rx(b) @ rz(rng.uniform(-1, 1)), np.zeros(3))
    return np.eye(4)

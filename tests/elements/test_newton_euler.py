"""Generalized Newton-Euler model (10.61)-(10.68) against particle sums."""
import numpy as np
import pytest

from flexpkm.elements import newton_euler as ne
from flexpkm.elements.beam import Beam3D, Material, PlanarBeam, Section
from flexpkm.elements.rigid import RigidBody
from flexpkm.elements.shape_body import ShapeFunctionBody

from .helpers import Particles, hat, polynomial_body

RNG = np.random.default_rng(1234)


def _beam3d():
    return Beam3D(0.35, Section.rectangle(0.03, 0.05), Material(7e10, 2700.0, nu=0.33))


def _cases():
    """(name, invariants under test, particles) with independent invariants
    for the beams (closed forms vs Gauss particles of the same shapes)."""
    beam = _beam3d()
    planar = PlanarBeam(0.25, Section.rectangle(0.01, 0.04), Material(7.4e10, 2800.0))
    poly = polynomial_body()
    out = []
    for name, body, twin in (("beam3d", beam, ShapeFunctionBody.from_beam(beam)),
                             ("planar", planar, ShapeFunctionBody.from_beam(planar)),
                             ("poly", poly, poly)):
        out.append((name, body.invariants, Particles.of(twin, body.invariants.K_ee)))
    return out


CASES = _cases()
IDS = [c[0] for c in CASES]


def _state(n, scale=0.05):
    return [RNG.normal(size=k) * s for k, s in
            ((3, 1.0), (3, 2.0), (n, scale), (n, 1.0), (3, 5.0), (3, 7.0), (n, 20.0), (3, 9.81))]


@pytest.mark.parametrize("name,inv,parts", CASES, ids=IDS)
def test_derived_invariants_definitions(name, inv, parts):
    """beta, lambda, I_re, I_ee, M_ee against their definitions (10.44)-(10.50)."""
    d = ne.derived(inv)
    X, dm, D = parts.X, parts.dm, parts.D
    n = D.shape[-1]
    scale = dm.sum() * max(1.0, np.abs(X).max()) ** 2
    beta = np.einsum("p,pkc->kc", dm, np.cross(X[:, None, :], np.swapaxes(D, 1, 2)))
    lam = np.einsum("p,pkic->kic", dm, np.cross(np.swapaxes(D, 1, 2)[:, :, None, :],
                                                np.swapaxes(D, 1, 2)[:, None, :, :]))
    HX = np.array([hat(x) for x in X])
    HD = np.array([[hat(D[p, :, k]) for k in range(n)] for p in range(len(X))])
    I_re = np.einsum("p,pba,pkbc->kac", dm, HX, HD)
    I_ee = np.einsum("p,piba,pkbc->ikac", dm, HD, HD)
    M_ee = np.einsum("p,pai,pak->ik", dm, D, D)
    for got, ref in ((d.beta, beta), (d.lam, lam), (d.I_re, I_re), (d.I_ee, I_ee),
                     (d.M_ee, M_ee)):
        np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12 * scale)
    assert ne.derived(inv) is d  # cached


@pytest.mark.parametrize("name,inv,parts", CASES, ids=IDS)
def test_mass_matrix_is_kinetic_energy_hessian(name, inv, parts):
    n = inv.n_e
    for _ in range(3):
        q = RNG.normal(size=n) * 0.05
        M = ne.mass_matrix(inv, q)
        Mref = parts.mass_matrix(q)
        np.testing.assert_allclose(M, Mref, rtol=1e-10, atol=1e-12 * np.abs(Mref).max())
        np.testing.assert_allclose(M, np.swapaxes(M, -1, -2), atol=1e-14 * np.abs(M).max())
        x = RNG.normal(size=6 + n)
        T = parts.kinetic_energy(x[:3], x[3:6], q, x[6:])
        assert ne.kinetic_energy(inv, x[:6], q, x[6:]) == pytest.approx(T, rel=1e-10)
        assert 0.5 * x @ M @ x == pytest.approx(T, rel=1e-10)


@pytest.mark.parametrize("name,inv,parts", CASES, ids=IDS)
def test_ne_wrench_matches_particle_sums(name, inv, parts):
    n = inv.n_e
    for _ in range(3):
        v, w, q, qd, a, alpha, qdd, g = _state(n)
        got = ne.ne_wrench(inv, np.r_[a, alpha], qdd, w, q, qd, g=g)
        ref = parts.wrench(a, alpha, w, q, qd, qdd, g)
        np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-10 * np.abs(ref).max())


@pytest.mark.parametrize("name,inv,parts", CASES, ids=IDS)
def test_power_balance(name, inv, parts):
    """[v; omega; qd] . (M tdot + velocity_terms) = dT/dt for a free body."""
    n = inv.n_e
    V0, V1, W0, W1 = (RNG.normal(size=3) for _ in range(4))
    Q0, Q1 = RNG.normal(size=n) * 0.03, RNG.normal(size=n) * 0.03

    def traj(t):
        vb, dvb = V0 + V1 * np.sin(t), V1 * np.cos(t)
        w, dw = W0 + W1 * np.cos(2 * t), -2 * W1 * np.sin(2 * t)
        q, qd, qdd = Q0 + Q1 * np.sin(1.3 * t), 1.3 * Q1 * np.cos(1.3 * t), \
            -1.69 * Q1 * np.sin(1.3 * t)
        return vb, dvb, w, dw, q, qd, qdd

    def T(t):
        vb, _, w, _, q, qd, _ = traj(t)
        return parts.kinetic_energy(vb, w, q, qd)

    for t in (0.3, 1.7):
        vb, dvb, w, dw, q, qd, qdd = traj(t)
        a = dvb + np.cross(w, vb)
        x = np.r_[vb, w, qd]
        P = x @ (ne.mass_matrix(inv, q) @ np.r_[a, dw, qdd] + ne.velocity_terms(inv, w, q, qd))
        h = 1e-4
        dT = (-T(t + 2 * h) + 8 * T(t + h) - 8 * T(t - h) + T(t - 2 * h)) / (12 * h)
        assert P == pytest.approx(dT, rel=1e-7, abs=1e-9 * abs(T(t)))


def test_batching_matches_loop():
    inv = _beam3d().invariants
    B, n = 5, inv.n_e
    w, q, qd = RNG.normal(size=(B, 3)), RNG.normal(size=(B, n)) * 0.05, RNG.normal(size=(B, n))
    td, qdd, g = RNG.normal(size=(B, 6)), RNG.normal(size=(B, n)), np.array([0, 0, -9.81])
    M = ne.mass_matrix(inv, q)
    W = ne.ne_wrench(inv, td, qdd, w, q, qd, g=g)
    V = ne.velocity_terms(inv, w, q, qd)
    T = ne.kinetic_energy(inv, td, q, qd)
    assert M.shape == (B, 12, 12) and W.shape == V.shape == (B, 12) and T.shape == (B,)
    for b in range(B):
        np.testing.assert_allclose(M[b], ne.mass_matrix(inv, q[b]), rtol=1e-14, atol=1e-16)
        np.testing.assert_allclose(W[b], ne.ne_wrench(inv, td[b], qdd[b], w[b], q[b], qd[b], g),
                                   rtol=1e-12, atol=1e-10)
        np.testing.assert_allclose(V[b], ne.velocity_terms(inv, w[b], q[b], qd[b]),
                                   rtol=1e-12, atol=1e-12)
    # unbatched elastic state broadcasts against a batched omega
    V2 = ne.velocity_terms(inv, w, q[0], qd[0])
    np.testing.assert_allclose(V2[3], ne.velocity_terms(inv, w[3], q[0], qd[0]), rtol=1e-12)


def test_rigid_body_from_point_masses():
    m = RNG.uniform(0.1, 2.0, size=7)
    r = RNG.normal(size=(7, 3)) * 0.3
    x, y, z = r.T
    body = RigidBody(XX=m @ (y**2 + z**2), XY=-m @ (x * y), XZ=-m @ (x * z),
                     YY=m @ (x**2 + z**2), YZ=-m @ (y * z), ZZ=m @ (x**2 + y**2),
                     MX=m @ x, MY=m @ y, MZ=m @ z, M=m.sum())
    parts = Particles(r, m, np.zeros((7, 3, 0)))
    inv = body.invariants
    assert inv.n_e == 0 and body.phi_d(r).shape == (7, 3, 0)
    for _ in range(3):
        t = RNG.normal(size=6)
        assert ne.kinetic_energy(inv, t) == pytest.approx(
            parts.kinetic_energy(t[:3], t[3:], np.zeros(0), np.zeros(0)), rel=1e-12)
        a, al, w, g = (RNG.normal(size=3) for _ in range(4))
        ref = parts.wrench(a, al, w, np.zeros(0), np.zeros(0), np.zeros(0), g)
        np.testing.assert_allclose(ne.ne_wrench(inv, np.r_[a, al], None, w, g=g), ref,
                                   rtol=1e-11, atol=1e-12)
    # sum of point masses == the body
    pm = [RigidBody.point_mass(mk, rk).invariants for mk, rk in zip(m, r)]
    t = RNG.normal(size=6)
    assert sum(ne.kinetic_energy(p, t) for p in pm) == pytest.approx(
        ne.kinetic_energy(inv, t), rel=1e-12)
    assert body.standard_parameters["XY"] == pytest.approx(-m @ (x * y))


def test_rigid_batch_with_empty_elastic_axis():
    inv = RigidBody.point_mass(2.0, (0.1, 0.2, 0.3)).invariants
    B = 4
    M = ne.mass_matrix(inv, np.zeros((B, 0)))
    W = ne.ne_wrench(inv, RNG.normal(size=(B, 6)), np.zeros((B, 0)), RNG.normal(size=(B, 3)),
                     np.zeros((B, 0)), np.zeros((B, 0)), g=np.zeros((B, 3)))
    assert M.shape == (B, 6, 6) and W.shape == (B, 6)


def test_shape_errors():
    inv = _beam3d().invariants
    with pytest.raises(ValueError):
        ne.mass_matrix(inv, np.zeros(3))
    with pytest.raises(ValueError):
        ne.velocity_terms(inv, np.zeros(2), np.zeros(6), np.zeros(6))
    with pytest.raises(ValueError):
        ne.ne_wrench(inv, np.zeros(5), np.zeros(6), np.zeros(3))
    with pytest.raises(ValueError):
        RigidBody(M=-1.0)

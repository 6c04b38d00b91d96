"""Trust indicators and deterministic bases of the modal results: condition
numbers, the Type 2 measure and its warnings, the sign convention, repeated
frequencies with an eigenspace-only basis, argument checks."""
import numpy as np
import pytest

import flexpkm as fp
from flexpkm.algorithms.conditioning import (NEAR_SINGULAR_MEASURE, canonical_shapes,
                                             check_modes_count, repeated_flags)
from flexpkm.cases import dualemps, navaro
from flexpkm.errors import InvalidArgumentError, SingularConfigurationError


@pytest.fixture(scope="module")
def nav():
    model = fp.build_model(navaro.robot())
    return model, navaro.pose_configurations(model, [[0, 0, 0], [0.117, 0.068, -1.0472]])


@pytest.fixture(scope="module")
def dual():
    model = fp.build_model(dualemps.robot())
    return model, dualemps.configuration(model, 0.0, 0.0)


def test_canonical_basis_depends_only_on_the_eigenspace():
    rng = np.random.default_rng(1)
    n = 6
    X = np.linalg.qr(rng.normal(size=(n, n)))[0]          # M = 1: orthonormal shapes
    lam = np.array([1.0, 2.0, 2.0, 2.0, 5.0, 7.0])
    rot = np.eye(n)
    rot[1:4, 1:4] = np.linalg.qr(rng.normal(size=(3, 3)))[0]   # another basis of the triple
    rot[0, 0] = -1.0                                            # and a flipped sign
    A, _, rep_a = canonical_shapes(lam[None], X[None])
    B, _, rep_b = canonical_shapes(lam[None], (X @ rot)[None])
    assert np.allclose(A, B, atol=1e-12) and not np.allclose(X, X @ rot)
    assert rep_a.tolist() == [[False, True, True, True, False, False]] == rep_b.tolist()
    assert np.allclose(A[0].T @ A[0], np.eye(n), atol=1e-12)    # still orthonormal
    k = np.argmax(np.abs(A[0]), axis=0)
    assert (A[0][k, range(n)] > 0).all()                        # largest component positive


def test_repeated_flags_use_a_relative_gap():
    lam = np.array([[1.0, 1.0 + 1e-9, 1.5, 3.0, 3.0 * (1 + 2e-6)]])
    assert repeated_flags(lam).tolist() == [[True, True, False, False, False]]


def test_navaro_shapes_are_the_same_alone_or_in_a_batch(nav):
    model, q = nav
    batch = fp.natural_frequencies(model, q, n_modes=6)
    alone = fp.natural_frequencies(model, q[0], n_modes=6)
    assert alone.repeated[:2].all() and alone.repeated[4:6].all()       # 120-degree symmetry
    assert alone.names == batch.names
    assert np.allclose(alone.shapes_q, batch.shapes_q[0], atol=1e-8)
    M = alone.reduced.M_r[alone.reduced.n_a:, alone.reduced.n_a:]
    X = alone.shapes_q
    assert np.allclose(X.T @ M @ X, np.eye(6), atol=1e-9)
    k = np.argmax(np.abs(alone.shapes_tot), axis=0)
    assert (alone.shapes_tot[k, range(6)] > 0).all()


def test_shapes_over_all_coordinates_do_not_depend_on_the_batch(nav):
    """The second pose, alone or in a batch (in either order): the same q_dep
    (chosen at the robot's reference configuration, not at the batch's first
    pose; before, it got another one alone than in the batch), the same
    shapes over the independent and over every coordinate."""
    model, q = nav
    batch = fp.natural_frequencies(model, q, n_modes=6)
    alone = fp.natural_frequencies(model, q[1], n_modes=6)
    swapped = fp.natural_frequencies(model, q[::-1], n_modes=6)
    assert alone.reduced.dep_names == batch.reduced.dep_names == swapped.reduced.dep_names
    assert "reference" in alone.reduced.choice
    assert np.allclose(alone.shapes_q, batch.shapes_q[1], atol=1e-7)
    assert alone.cond_closure == pytest.approx(swapped.cond_closure[0], rel=1e-9)
    assert np.allclose(alone.frequencies_hz, batch.frequencies_hz[1], rtol=1e-9)
    assert np.allclose(alone.shapes_tot, batch.shapes_tot[1], atol=1e-7)
    assert alone.singularity_measure == pytest.approx(batch.singularity_measure[1], rel=1e-9)
    assert alone.cond_pencil == pytest.approx(batch.cond_pencil[1], rel=1e-6)


def test_condition_numbers_are_reported(nav, dual):
    model, q = nav
    m = fp.natural_frequencies(model, q, n_modes=3)
    assert m.cond_closure.shape == (2,) and (m.cond_closure >= 1).all()
    red = m.reduced
    from flexpkm.algorithms.closure import constraint_jacobian
    from flexpkm.algorithms.platform import platform_pose
    from flexpkm.algorithms.tree import tree_kinematics
    qz = q.copy()
    for sl in model.layout.elastic_slice.values():
        qz[:, sl] = 0
    kin = tree_kinematics(model, qz)
    J_tot, _ = constraint_jacobian(model, kin, platform_pose(model, qz))
    J_f = J_tot[:, :, red.dep]
    assert np.allclose(m.cond_closure, np.linalg.cond(J_f), rtol=1e-8)
    f = m.frequencies_hz
    assert np.all(m.cond_pencil > (f[:, -1] / f[:, 0]) ** 2)      # all modes, not only the kept
    assert not m.near_singular.any()
    model, q = dual
    one = fp.natural_frequencies(model, q)
    assert np.ndim(one.cond_closure) == 0 and one.singularity_measure > NEAR_SINGULAR_MEASURE


def test_actuator_stiffness_out_of_range_is_not_called_a_singularity(dual):
    """A negligible or overwhelming actuator stiffness is refused as such
    (not as a Type 2 singularity); the pencil measures are what they say."""
    model, q = dual
    weak = fp.natural_frequencies(model, q, actuator_stiffness=[1e-3 * 1.6e8] * 2)
    assert not weak.near_singular
    with pytest.raises(InvalidArgumentError, match="free"):
        fp.natural_frequencies(model, q, actuator_stiffness=[1e-30, 1e-30])
    with pytest.raises(InvalidArgumentError, match="locked actuators"):
        fp.natural_frequencies(model, q, actuator_stiffness=[1e300, 1e300])
    from flexpkm.algorithms.conditioning import pencil_measures
    cond, measure = pencil_measures(np.array([[1e-13, 1.0]]), np.array([2.0]))
    assert cond[0] == pytest.approx(1e13) and measure[0] == pytest.approx(5e-14)


@pytest.mark.parametrize("n", [2.7, 0, -1, True, "3", np.nan])
def test_mode_counts_checked(n):
    with pytest.raises(InvalidArgumentError, match="n_modes"):
        check_modes_count(n)


@pytest.mark.parametrize("q", ["scalar", "short", "empty", "3d", "nan", "text"])
def test_configurations_checked(dual, q):
    model, q0 = dual
    bad = {"scalar": 1.0, "short": q0[:3], "empty": np.zeros((0, len(q0))),
           "3d": q0[None, None], "nan": np.where(np.arange(len(q0)) == 2, np.nan, q0),
           "text": "q"}[q]
    with pytest.raises(InvalidArgumentError, match="q_t"):
        fp.natural_frequencies(model, bad)


def test_type2_error_names_pose_and_numbers(dual):
    model, q = dual
    qs = np.stack([q, q, q])
    with pytest.raises(SingularConfigurationError) as e:
        fp.natural_frequencies(model, qs, actuator_stiffness=[2e-4, 2e-4])
    assert "pose 0" in str(e.value) and np.isfinite(e.value.cond) and e.value.where == "pose 0"


def test_fuzz_configurations_and_counts(dual):
    """Any q_t (shape, values) and n_modes: a FlexPKMError or finite
    frequencies, never another exception (hypothesis, 300 examples)."""
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from hypothesis.extra.numpy import arrays
    model, q0 = dual
    n = len(q0)
    shapes = st.sampled_from([(n,), (1, n), (3, n), (0, n), (n - 1,), (), (2, 1, n), (n + 1,)])
    values = st.floats(allow_nan=True, allow_infinity=True, width=64)

    @settings(max_examples=300, deadline=None, database=None, derandomize=True)
    @given(dq=arrays(float, shapes, elements=st.one_of(st.just(0.0), values)),
           n_modes=st.one_of(st.none(), st.integers(-2, 20), st.floats(allow_nan=True)))
    def check(dq, n_modes):
        q = q0 + 1e-3 * np.tanh(dq) if dq.shape[-1:] == (n,) else dq
        try:
            m = fp.natural_frequencies(model, q, n_modes=n_modes)
        except fp.FlexPKMError:
            return
        assert np.isfinite(m.frequencies_hz).all() and np.isfinite(m.shapes_tot).all()

    check()

"""flexpkm.spatial against an independent implementation: rotation vectors
equal scipy's Rotation (Markley's quaternion, a separate code) to 1e-14 on
random rotations and at the hard angles (0, tiny, a half-turn)."""
import numpy as np
from scipy.spatial.transform import Rotation

from flexpkm.spatial import rotation_matrix, rotation_vector


def test_rotation_vectors_equal_scipys():
    rng = np.random.default_rng(1)
    axes = rng.normal(size=(20, 3))
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    hard = [axes * a for a in (0.0, 1e-12, 1e-8, 1e-5, 1e-3, 0.5, np.pi - 1e-4, np.pi - 1e-9)]
    R = np.concatenate([Rotation.random(2000, random_state=1).as_matrix(),
                        Rotation.from_rotvec(np.concatenate(hard)).as_matrix()])
    ours = rotation_vector(R)
    assert np.abs(ours - Rotation.from_matrix(R).as_rotvec()).max() < 1e-14
    half = Rotation.from_rotvec(axes * np.pi).as_matrix()        # the sign of v is free here
    assert np.abs(Rotation.from_rotvec(rotation_vector(half)).as_matrix() - half).max() < 1e-14
    assert np.allclose(np.linalg.norm(rotation_vector(half), axis=1), np.pi, atol=1e-14)


def test_rotation_vector_inverts_rotation_matrix_and_keeps_shapes():
    r = np.array([0.3, -0.2, 0.1])
    assert np.abs(rotation_vector(rotation_matrix(r)) - r).max() < 1e-15
    R = Rotation.random(6, random_state=2).as_matrix().reshape(2, 3, 3, 3)
    assert rotation_vector(R).shape == (2, 3, 3) and rotation_vector(np.eye(3)).shape == (3,)

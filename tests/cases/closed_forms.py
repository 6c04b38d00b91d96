"""Shared checks of a description file against a robot's closed-form
geometric models (the book's IGM/FGM in cases/<robot>.py, the oracles)."""
import numpy as np

import flexpkm as fp


def poses_near(reference, spread, n, seed):
    """``n`` poses uniformly within ``reference +- spread`` (seeded)."""
    return np.asarray(reference) + np.random.default_rng(seed).uniform(-spread, spread,
                                                                       (n, len(reference)))


def wrap(a):
    """Angles wrapped into [-pi, pi)."""
    return (np.asarray(a) + np.pi) % (2 * np.pi) - np.pi


def assert_igm_is_assembly(model, igm, poses, tol=1e-10):
    """The closed-form IGM ``igm(pose) -> {coordinate: value}`` equals the
    file's assembly at each pose (angles modulo 2 pi)."""
    L = model.layout
    for pose in poses:
        q = fp.assemble(model, pose=pose)
        for name, value in igm(pose).items():
            assert abs(wrap(q[L.index(name)] - value)) < tol, name


def file_model(name):
    """The built model of the shipped description file ``name`` (in flexpkm.cases)."""
    from pathlib import Path
    from flexpkm.model import files
    return fp.build_model(files.load(Path(fp.cases.__file__).parent / name))

"""Limbs in parallel (flexpkm.compiled.limbs, Müller Section 8.2, Fig. 13):
the modal function built from one generated function per limb type, mapped
over the robot's identical limbs, gives the reduced matrices of the numpy
reference; on CasADi's virtual machine (no compiler: seconds)."""
import numpy as np
import pytest

import flexpkm as fp
from flexpkm.cases import delta, dualemps, navaro

ca = pytest.importorskip("casadi")
from flexpkm.compiled import limbs, modal  # noqa: E402


def _robots():
    nav = fp.build_model(navaro.robot())
    dm = fp.build_model(delta.robot(flexible=True))
    de = fp.build_model(dualemps.robot())
    return {"navaro": (nav, navaro.pose_configurations(nav, [[0.0, 0.02, -1.0]])[0]),
            "delta": (dm, fp.assemble(dm, pose=np.array([0.2, 0.1, -0.95]))),
            "dualemps": (de, dualemps.configuration(de, 0.05, 0.1))}


ROBOTS = _robots()


def test_identical_limbs_share_one_function():
    """The Delta's and the NaVARo's three legs are one limb type (one
    generated function mapped over three); the DualEMPS's two legs differ."""
    for name, types in (("navaro", 1), ("delta", 1), ("dualemps", 2)):
        model = ROBOTS[name][0]
        blocks = limbs.limb_partition(model)
        assert len(blocks) == len({f.leg for f in model.robot.frames})
        assert len({b.signature for b in blocks}) == types
        # every column of the tree in exactly one limb
        cols = sorted(c for b in blocks for c in b.cols)
        assert cols == list(range(model.layout.n_t))


@pytest.mark.parametrize("name, threads", [("navaro", 2), ("delta", 1), ("dualemps", 2)])
def test_per_limb_modal_function_equals_numpy(name, threads):
    """M_r, K_r, J_d of the per-limb graph (on 1 and 2 threads) against the
    numpy reference (flexpkm.reduced_matrices) to 1e-12 of their largest
    entry, and equal to the one-graph modal function to round-off."""
    model, q = ROBOTS[name]
    cm, _, _ = modal.compiled_robot(model)
    out = modal.limb_modal_graph(cm, threads)(q, cm.design)
    ref = fp.reduced_matrices(model, q)
    for k, r in (("M_r", ref.M_r), ("K_r", ref.K_r), ("J_d", ref.J_d)):
        got = np.array(out[modal.OUTPUTS.index(k)])
        assert np.abs(got - r).max() <= 1e-12 * np.abs(r).max(), k
    one = modal.modal_graph(cm, True)(q, cm.design)
    for a, b in zip(out, one):
        assert np.allclose(np.array(a), np.array(b), rtol=0, atol=1e-13 * max(1.0, np.abs(np.array(b)).max()))


def test_a_frame_without_a_leg_is_refused(tree_robot):
    """limb_partition needs every frame in a leg: a tree without legs is refused
    with the reason (the one-graph modal function stays the default)."""
    model = fp.build_model(tree_robot)
    with pytest.raises(fp.BackendUnavailableError, match="without a leg"):
        limbs.limb_partition(model)

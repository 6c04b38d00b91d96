"""The workspace map's fast modal path (issue 21, "CLI maps at >= 2,000
poses/s per core"): the terms of the reduced matrices from ONE flat
generated function, their products ``J^T M_tot J`` and ``J^T K_tot J`` by
lists of multiply-adds made once from the sparsity patterns.

Where the time went (NaVARo, compiled map, perf on a batch): 0.6 ms per
pose in the generated modal function of :mod:`flexpkm.compiled.modal`, of
which CasADi's sparse products and projections between the small kernels'
calls (``casadi_mtimes``, ``casadi_project``, copies) were ~70 %. Here:

1. :func:`terms_graph`: the kernel graph with the design vector ``p`` an
   input but for its fixed entries (exact zeros, +-1 of ``R_fix``: the
   simulation's :attr:`flexpkm.compiled.robot.CompiledRobot.simulation_kernels`),
   EXPANDED into one flat SX function of ``(q, p)`` giving ``M_tot``, ``J``
   (both on their structural entries), ``J_t^f``, the loop residual and the
   Type 2 scales: no products (NaVARo: 39,900 instructions, 0.03 ms per
   pose; with the products 152,700 instructions and 58 s of gcc -O1);
2. :func:`evaluate_flat`: ``M_r = J^T M_tot J`` and ``K_r = J^T K_tot J``
   (Eqs. 11.26-11.27) over the batch by
   :func:`flexpkm.compiled.sparse_products.lower_product`: per output
   non-zero a list of multiply-adds on the structural non-zeros of
   ``M_tot`` (or ``K_tot``, a function of ``p`` only) and ``J``, made once
   per robot (:class:`flexpkm.compiled.sparse_products.ProductLists`: 52,140
   + 27,213 per NaVARo pose) and run by one small C loop; the lower
   triangle computed and mirrored, so ``M_r``, ``K_r`` are exactly
   symmetric (numpy ``matmul`` on the dense leg blocks ran at 0.2-0.3 ms per
   pose).

Equal to the graph's reduced matrices to round-off (the operations run in
another order): ``tests/compiled/test_modal_flat.py``. Its compile (gcc -O1
of the flat function: 7 s of CPU for the NaVARo) is paid by the maps of at
least :data:`flexpkm.analysis.workspace_map.FLAT_MIN` cells only, once per
topology and fixed entries (cached), announced on stderr.
"""
from __future__ import annotations

import casadi as ca
import numpy as np

from flexpkm.compiled import cache
from flexpkm.compiled.design import design_layout
from flexpkm.compiled import modal
from flexpkm.compiled.modal import modal_scales, rest_terms, run_batch
from flexpkm.compiled.sparse_products import ProductLists, load_kernel, lower_product

#: outputs of :func:`terms_graph`
TERMS = ("M_tot", "J", "J_d", "J_f", "residual", "scales")


def terms_graph(cm):
    """``(q (n_tot,), p (n_p,)) -> (M_tot, J (sparse), J_d (c, n_r), J_f (c,
    c), residual (c,), scales (2,))`` at ``q_e = 0`` (elastic entries of q ignored), one
    flat SX function (module doc, 1.) on ``cm.simulation_kernels``: the
    entries ``cm.fixed`` of ``p`` are constants (not read)."""
    model, sm = cm.model, cm.simulation_kernels
    dep = cm.dep.tolist()
    J, M_tot, J_f, res = rest_terms(model, sm, dep)
    rotor = [sm.rotor[i, i] for i in model.layout.actuated]
    fn = ca.Function("flexpkm_modal_flat", [sm.q, sm.design],
                     [M_tot, J, ca.densify(J[dep, :]), ca.densify(J_f), ca.densify(res),
                      modal_scales(model, M_tot, rotor)], ["q", "p"], list(TERMS))
    return fn.expand()


#: the terms function's name and options (:meth:`flexpkm.compiled.robot.CompiledRobot.function`)
NAME, OPT = "flexpkm_modal_flat", "-O1"


def terms_function(cm):
    """:func:`terms_graph` compiled (gcc -O1; -O2 costs 2.3x the compile
    for 10 % faster code, -Os 1.5x for 3 %) and cached once per topology and
    fixed entries of ``p`` (:meth:`flexpkm.compiled.robot.CompiledRobot.function`)."""
    return cm.function(NAME, lambda: terms_graph(cm), cm.fixed, opt=OPT, merge=False,
                       parametric=True)


def cached(cm) -> bool:
    """Whether the library of :func:`terms_function` is in the cache folder
    (checked as :func:`flexpkm.compiled.codegen.compiled` checks it: its key,
    this compiler and flags, its recorded hash), so that using it costs no
    compile."""
    from flexpkm.compiled import codegen
    cc, (folder, _) = codegen.find_compiler(), cache.private_folder()
    if cc is None or folder is None:
        return False
    key = codegen.topology_key(cm.model, NAME, cm.dep.tolist(), cm.kept, cm.fixed, OPT, False)
    lib = cache.library_path(folder, NAME, key, cc, (OPT,) + codegen.FLAGS)
    return cache.verify(lib) is None


def plan_of(cm) -> dict:
    """What :func:`evaluate_flat` needs, made once and kept on ``cm`` (its
    ``functions`` store, by tag): ``fn`` the terms function (found once:
    its store's tag is the repr of ``cm.fixed``, 2 ms per look-up for the
    NaVARo), the :class:`flexpkm.compiled.sparse_products.ProductLists` of
    ``J^T M_tot J`` and ``J^T K_tot J``, the non-zeros of ``K_tot`` from
    ``cm.design`` (a function of ``p`` only) and the C loop."""
    tag = "flexpkm_modal_flat_plan"
    if tag not in cm.functions:
        fn = terms_function(cm)
        lay = design_layout(cm.model)
        rows, cols = lay.stiffness
        n = cm.model.layout.n_tot
        K = ca.DM.triplet(list(rows), list(cols), ca.DM(cm.design[lay.stiffness_slice]), n, n)
        j_sp = fn.sparsity_out(1)
        cm.functions[tag] = dict(fn=fn, M=ProductLists(fn.sparsity_out(0), j_sp),
                                 K=ProductLists(K.sparsity(), j_sp), Kz=np.array(K.nonzeros()),
                                 kernel=load_kernel())
    return cm.functions[tag]


def locked_blocks(cm) -> list:
    """Index arrays (into q_r) of the uncoupled blocks of the locked pencil
    ``(K_cc, M_cc)`` of the fast path, found once per robot and kept with
    the plan (no search of each chunk's matrices): the entries exactly zero
    at the robot's reference configuration split the pencil
    (:func:`flexpkm.algorithms.eigen.decoupled_blocks`; NaVARo: 51 + 39
    coordinates, the in-plane and out-of-plane motions). The structural
    patterns of the products do not split it (CasADi's expressions of
    those zeros are not structural zeros), and a configuration off the
    loops is not planar. The locked loop checks them on the rows it copies
    (status :data:`flexpkm.algorithms.flexibility.COUPLED`: then the chunk's
    own split, :func:`flexpkm.algorithms.flexibility.resplit`; a zero by
    coincidence at the reference is not taken for a split)."""
    plan = plan_of(cm)
    if "locked_blocks" not in plan:
        from flexpkm.algorithms.eigen import decoupled_blocks
        out, na = evaluate_flat(cm, cm.model.reference_state.q_tot[None]), cm.n_a
        blocks = decoupled_blocks(out["K_r"][:, na:, na:], out["M_r"][:, na:, na:])
        plan["locked_blocks"] = [b + na for b in blocks]
    return plan["locked_blocks"]


def locked_loop(cm):
    """The loop of the locked pencil's eigenvalues and compliance, loaded
    once and kept with the plan: Eigen's
    (:class:`flexpkm.compiled.locked_eigen.EigenLoop`: 0.31 -> 0.24 ms per
    NaVARo pose, ``bench_maprate.py --loops``), else, without a C++
    compiler or Eigen's headers, the LAPACK one
    (:class:`flexpkm.compiled.locked_loop.LockedLoop`)."""
    plan = plan_of(cm)
    if "locked_loop" not in plan:
        from flexpkm.compiled.locked_eigen import EigenLoop
        from flexpkm.compiled.locked_loop import LockedLoop
        from flexpkm.errors import BackendUnavailableError
        try:
            plan["locked_loop"] = EigenLoop()
        except BackendUnavailableError:
            plan["locked_loop"] = LockedLoop()
    return plan["locked_loop"]


def evaluate_flat(cm, q):
    """The outputs of :func:`flexpkm.compiled.modal.evaluate` (``M_r``,
    ``K_r``, ``J_d``, ``J_f``, ``residual``, ``scales``, batch axis first) for
    ``q`` (B, n_tot), by :func:`terms_function` in blocks of poses and the
    sparse products (:func:`flexpkm.compiled.sparse_products.lower_product`)."""
    plan = plan_of(cm)
    fn = plan["fn"]
    res = dict(zip(TERMS, run_batch(cm, fn, q, cm.design, sparse=(0, 1))))
    Jz = res["J"]
    return {"M_r": lower_product(plan["M"], res["M_tot"], Jz, plan["kernel"]),
            "K_r": lower_product(plan["K"], plan["Kz"], Jz, plan["kernel"]),
            "J_d": np.swapaxes(res["J_d"], 1, 2), "J_f": np.swapaxes(res["J_f"], 1, 2),
            "residual": res["residual"][:, 0], "scales": res["scales"][:, 0]}


def fast_reduced_matrices(model, q_tot):
    """:func:`flexpkm.compiled.modal.reduced_matrices` (same result, checks
    and errors; q_dep the reference choice) by the fast path
    (:func:`evaluate_flat`: equal to round-off)."""
    return modal.reduced_via(model, q_tot, evaluate_flat)


def prepare(model, cells: int, cold: int) -> float | None:
    """Make (or load) the fast path's library and plan for ``model`` in this
    process before a map of ``cells`` cells is dispatched (its workers then
    load the cached library): loaded when cached, compiled when ``cells`` >=
    ``cold`` (the compile pays on the map itself), else None (not used).
    Returns the seconds spent compiling (0 when cached). Raises
    :class:`flexpkm.errors.BackendUnavailableError` as
    :func:`flexpkm.compiled.modal.compiled_robot`, or without a C compiler."""
    from flexpkm.compiled import codegen
    cm = modal.compiled_robot(model)[0]
    if cells < cold and not cached(cm):
        return None
    before = codegen.COMPILE_SECONDS["total"]
    plan_of(cm)
    locked_loop(cm)                 # its library too, before the workers load it
    return codegen.COMPILE_SECONDS["total"] - before

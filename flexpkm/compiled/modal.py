"""Modal analysis on generated code (Section 11.5, Steps 0-3 in C, Step 4
by LAPACK): one compiled function of the configuration gives, at
``q_e = 0``, everything the numpy :func:`flexpkm.algorithms.modal.reduced_matrices`
gives (``M_r``, ``K_r`` of (11.26)-(11.27), ``J_d`` of (10.110), ``J_t^f``
for its condition number, the loop residual for the loop check, the
inertia scales of the Type 2 measure); a batch of poses is one call (a
CasADi ``map``), numpy memory in and out.

Why it is fast (issue 10 item 3): no dense ``M_tot``, ``J``: the products
``J^T M_tot J`` and ``J^T K_tot J`` run over the structural non-zeros of
``M_tot`` (limb blocks), ``K_tot`` and ``J`` (identity on ``q_r``, limb blocks
of ``J_d``), and only their lower triangles are computed; the loop check
reads the residual computed with them.

The dependent coordinates are those of the numpy path (chosen once at the
robot's reference configuration by :func:`flexpkm.build_model`:
``Model.reference_state``; the compiled function is held by the model,
``Model.compiled``);
when that choice is ill-conditioned at a pose of the batch, or when the
robot has no reference or redundant constraint rows,
:class:`flexpkm.errors.BackendUnavailableError` says so (no fall-back here:
``backend="auto"`` of :func:`flexpkm.natural_frequencies` then runs numpy
and records why, :mod:`flexpkm.analysis.backend`).
"""
from __future__ import annotations

import casadi as ca
import numpy as np

from flexpkm.algorithms.closure import LOOP_TOL, RCOND_KEEP_REFERENCE, check_loops
from flexpkm.algorithms.conditioning import closure_condition
from flexpkm.algorithms.modal import ReducedMatrices, single_pose, stiffness_scale
from flexpkm.algorithms.tree import as_batch
from flexpkm.compiled.robot import CompiledRobot
from flexpkm.algorithms.reference import build_model
from flexpkm.errors import BackendUnavailableError

#: largest n_tot whose modal function is generated from the unrolled SX graph
#: with the robot's numbers folded in (one library per design); 0: every
#: robot's modal function is the parametric kernel graph
#: (:mod:`flexpkm.compiled.recursive`, one library per topology, the
#: design parameters an input). Measured (CPU s of gcc -O2 at first use;
#: ms per pose in a batch of 200, one thread; the bare eigensolver beside):
#: NaVARo (129 coordinates) 3.2 s, 1.09 ms (eigensolver 1.20 ms) instead of
#: 78 s and 0.08 ms unrolled; Delta (75) 3.1 s, 0.29 ms (0.44) instead of
#: 124 s; 3-RRR (51) 2.3 s, 0.12 ms (0.13) instead of 5.8 s, 0.12 ms;
#: five-bar (18) 1.3 s, 0.019 ms (0.049) instead of 0.7 s, 0.008 ms: the
#: unrolled graph's faster code never pays for its compile and its
#: recompiles (docs/design.md, "Design parameters as inputs")
MODAL_UNROLLED_MAX = 0

#: outputs of :func:`modal_function`
OUTPUTS = ("M_r", "K_r", "J_d", "J_f", "residual", "scales")


def _lower_product(J, A):
    """``J^T A J`` (SX or MX, symmetric): the lower triangle over the
    structural non-zeros of ``A`` and ``J``, mirrored."""
    if isinstance(J, ca.SX):
        J, A = ca.sparsify(J), ca.sparsify(A)
    return ca.densify(ca.tril2symm(ca.tril(J.T @ (A @ J))))


def parametric(cm: CompiledRobot) -> bool:
    """Whether the modal function of ``cm`` takes the design parameters as an
    input (the kernel graph: one library per topology), or has the robot's
    numbers folded in (the unrolled SX graph, up to :data:`MODAL_UNROLLED_MAX`
    coordinates)."""
    return cm.model.layout.n_tot > MODAL_UNROLLED_MAX


def modal_graph(cm: CompiledRobot, par: bool):
    """The uncompiled function of :func:`modal_function` (``par``: on the
    parametric kernel graph, else on the unrolled SX graph, ``p`` (0,)); its
    derivatives with respect to ``p`` are exact (AD,
    :func:`flexpkm.compiled.sensitivity.design_gradient`)."""
    model = cm.model
    sm = cm.parametric if par else cm.symbolic
    X = type(sm.q)
    dep = cm.dep.tolist()
    J, M_tot, J_f, res = rest_terms(model, sm, dep)
    act = list(model.layout.actuated)
    if par:
        rotor, K_tot, p = [sm.rotor[i, i] for i in act], sm.K_tot, sm.design
    else:
        rotor = [model.rotor_inertia.get(model.layout.frame_of(i), 0.0) for i in act]
        K_tot, p = X(ca.sparsify(ca.DM(model.K_tot))), X.sym("p", 0)
    outputs = modal_outputs(model, J, M_tot, K_tot, rotor, J_f, res, dep)
    return ca.Function("flexpkm_modal", [sm.q, p], outputs, ["q", "p"], list(OUTPUTS))


def rest_terms(model, sm, dep) -> list:
    """``[J, M_tot, J_t^f, residual]`` of the graph ``sm`` (SX or MX) at
    ``q_e = 0`` and rest (``qd_r``, ``g``, friction: no effect on them), the
    dependent columns ``dep``."""
    q = type(sm.q)(sm.q)
    for sl in model.layout.elastic_slice.values():
        for i in range(sl.start, sl.stop):
            q[i] = 0.0
    rest = [sm.qd_r, sm.g, sm.friction, sm.smoothing]
    return ca.substitute([sm.J, sm.M_tot, sm.J_tot[:, dep], sm.residual],
                         [sm.q] + rest, [q] + [0 * x for x in rest])


def limb_modal_graph(cm: CompiledRobot, threads: int = 1):
    """The function of :func:`modal_graph` (parametric: same inputs and
    outputs, equal to round-off) with the tree's pose pass and mass blocks
    from one generated function per limb type mapped over the limbs on
    ``threads`` threads (:func:`flexpkm.compiled.limbs.limb_modal_terms`)."""
    from flexpkm.compiled.limbs import limb_modal_terms
    t = limb_modal_terms(cm, threads)
    outputs = modal_outputs(cm.model, t["J"], t["M_tot"], t["K_tot"], t["rotor"], t["J_f"],
                            t["residual"], cm.dep.tolist())
    return ca.Function(f"flexpkm_modal_limbs{threads}", [t["q"], t["p"]], outputs, ["q", "p"],
                       list(OUTPUTS))


def modal_outputs(model, J, M_tot, K_tot, rotor, J_f, res, dep) -> list:
    """The :data:`OUTPUTS` (SX or MX) from ``J`` (n_tot, n_r), ``M_tot``,
    ``K_tot`` (n_tot, n_tot), the actuated joints' rotor inertia ``rotor``
    (list), ``J_t^f``, the loop residual and the dependent columns ``dep``:
    the products over the structural non-zeros and the Type 2 scales."""
    return [_lower_product(J, M_tot), _lower_product(J, K_tot),
            ca.densify(J[dep, :]), ca.densify(J_f), ca.densify(res),
            modal_scales(model, M_tot, rotor)]


def modal_scales(model, M_tot, rotor):
    """The inertia scales of the Type 2 measure (2,): the largest ``|M_tot|``
    term over the non-actuated coordinates and the largest actuated diagonal
    term without the rotor inertia ``rotor`` (list, per actuated joint)."""
    act = list(model.layout.actuated)
    free = [i for i in range(model.layout.n_tot) if i not in set(act)]
    M_ff = M_tot[free, free]
    M_ff = ca.sparsify(M_ff) if isinstance(M_ff, ca.SX) else M_ff
    m_free = ca.mmax(ca.fabs(ca.vertcat(0.0, ca.vec(M_ff))))
    m_act = ca.mmax(ca.vertcat(0.0, *[ca.fabs(M_tot[i, i] - r) for i, r in zip(act, rotor)]))
    return ca.vertcat(m_free, m_act)


def modal_function(cm: CompiledRobot, limbs: int = 0):
    """``(q (n_tot,), p (n_p,)) -> (M_r, K_r (n_r, n_r), J_d (c, n_r), J_f (c, c),
    residual (c,), scales (2,))`` at ``q_e = 0`` (elastic entries of ``q``
    ignored): the reduced matrices over ``q_r = [q_a; q_c]`` (``cm.indep``),
    the closure's dependent rows of ``J`` and ``J_t^f``, the loop equations,
    and the largest ``|M_tot|`` term over the non-actuated coordinates and
    the largest actuated diagonal term without rotor inertia
    (:func:`flexpkm.algorithms.modal.passive_scale`), for the design
    parameters ``p`` (:func:`flexpkm.compiled.design.design_vector`; ``p``
    is ignored, ``(0,)``, when :func:`parametric` is False). Compiled and
    cached: once per topology when parametric. ``limbs`` >= 1: the tree's
    pose pass and mass blocks by one generated function per limb type mapped
    over the limbs on that many threads
    (:func:`limb_modal_graph`, parametric only: Müller's limbs in parallel;
    equal outputs; :class:`BackendUnavailableError` when a frame of the
    robot has no leg); 0: the one graph."""
    par = parametric(cm)
    if limbs and par:
        return cm.function(f"flexpkm_modal_limbs{int(limbs)}",
                           lambda: limb_modal_graph(cm, int(limbs)), opt="-O2", merge=False,
                           parametric=True)
    return cm.function("flexpkm_modal", lambda: modal_graph(cm, par), opt="-O2", merge=False,
                       parametric=par)


#: the largest batch of one C call of :func:`evaluate`: a batch runs in
#: blocks of 2^j poses (one map per size, kept on the CompiledRobot), since
#: CasADi's ``Function.map`` costs O(B) to build (NaVARo: 0.02 s at 16 poses,
#: 0.7 s at 256, 3.2 s at 1,024 of CPU, each new size once per process)
#: while the rate per pose does not depend on the block size (0.45-0.68 ms
#: per pose at 1 to 384 poses, load 1.6)
MAP_BLOCK = 16


def _mapped(cm, fn, B):
    """``(buffer, run)`` of ``fn`` over B poses in one call, ``p`` shared:
    the map and its buffer are kept on ``cm`` per batch size (a new
    ``FunctionBuffer`` allocates the map's work memory: 1.9 ms per pose of
    a batch of 40 of the two-element NaVARo, as much as its products)."""
    maps, key = cm.maps, (fn.name(), B)
    if key not in maps:
        maps[key] = fn.map(f"{fn.name()}_{B}", "serial", B, [1], []).buffer()
    return maps[key]


def _blocks(B):
    """``(start, size)`` of the blocks of a batch of B poses: :data:`MAP_BLOCK`
    poses, then the binary digits of the rest (so few map sizes, none padded)."""
    full = B - B % MAP_BLOCK
    out = [(s, MAP_BLOCK) for s in range(0, full, MAP_BLOCK)]
    size = MAP_BLOCK // 2
    while size:
        if (B - full) & size:
            out.append((full, size))
            full += size
        size //= 2
    return out


def run_batch(cm: CompiledRobot, fn, q, p, sparse=()) -> list:
    """The outputs of ``fn(q, p)`` for the batch ``q`` (B, n_tot), ``p``
    shared, in C calls over blocks of poses (:func:`_blocks`, :func:`_mapped`):
    per output (B, columns, rows), a column-major block pose after pose,
    or (B, nnz) its non-zeros for the outputs ``sparse``."""
    B = q.shape[0]
    q = np.ascontiguousarray(q, dtype=float)         # (B, n_tot) C = (n_tot, B) column-major
    p = np.ascontiguousarray(p, dtype=float)
    out = [np.empty((B, fn.nnz_out(k)) if k in sparse else (B, fn.size2_out(k), fn.size1_out(k)))
           for k in range(fn.n_out())]
    for start, size in _blocks(B):
        buf, run = _mapped(cm, fn, size)
        buf.set_arg(0, memoryview(q[start:start + size]))
        buf.set_arg(1, memoryview(p))
        for k, o in enumerate(out):
            buf.set_res(k, memoryview(o[start:start + size]))
        run()
    return out


def evaluate(cm: CompiledRobot, q, limbs: int = 0):
    """The outputs of :func:`modal_function` (``limbs`` passed on) for the
    batch ``q`` (B, n_tot): dict of arrays with the batch axis first (C
    calls over blocks of poses, :func:`_blocks`)."""
    fn = modal_function(cm, limbs)
    out = run_batch(cm, fn, q, cm.design if parametric(cm) else np.zeros(0))
    res = dict(zip(OUTPUTS, out))                    # M_r, K_r symmetric: no transpose
    for k in ("J_d", "J_f"):
        res[k] = np.swapaxes(res[k], 1, 2)
    for k in ("residual", "scales"):
        res[k] = res[k][:, 0]
    return res


def modal_problem(model, q_dep=None) -> str | None:
    """Why the reduced matrices of ``model`` (a Model with its reference
    state) cannot come from generated code, or None: ``q_dep`` given (the
    generated function fixes q_dep), no assembled reference configuration
    (where q_dep is chosen), redundant constraint rows."""
    if q_dep is not None:
        return "q_dep is given; the generated function fixes the reference choice of q_dep"
    state = model.reference_state
    if state is None or state.solution is None:
        return (f"{model.name} has no assembled reference configuration, where the "
                "generated function's q_dep is chosen")
    rows = state.solution.rows
    if rows is not None and len(rows.dropped):
        return f"{model.name} has {len(rows.dropped)} redundant constraint rows"
    return None


def compiled_robot(model):
    """``(cm, sol, blocks)`` of ``model`` (a Model with its reference state,
    :func:`flexpkm.build_model`): the :class:`CompiledRobot` for the numpy
    choice of the dependent coordinates at the robot's reference
    configuration (``model.reference_state``: that
    :class:`flexpkm.algorithms.closure.ClosureSolution` and the limb blocks
    of ``J_t^f``). The CompiledRobot is made once per model, held by its
    :class:`flexpkm.model.build.CompiledFunctions` slot ``model.compiled``.
    Raises :class:`BackendUnavailableError` (:func:`modal_problem`)."""
    problem = modal_problem(model)
    if problem is not None:
        raise BackendUnavailableError("reduced_matrices", problem)
    state = model.reference_state
    if model.compiled.modal is None:
        model.compiled.modal = CompiledRobot(model, dep=state.solution.dep)
    return model.compiled.modal, state.solution, state.blocks


def reduced_matrices(model, q_tot, q_dep=None) -> ReducedMatrices:
    """:func:`flexpkm.algorithms.modal.reduced_matrices` from generated code:
    the same :class:`ReducedMatrices` (same q_dep choice, loop check and
    condition numbers, same errors; ``backend`` = ``"compiled"``) for
    ``q_tot`` (n_tot,) or (B, n_tot). Raises
    :class:`flexpkm.errors.BackendUnavailableError` when ``q_dep`` is given,
    the model has no reference configuration or redundant constraint rows
    (:func:`modal_problem`), or the reference choice of q_dep is
    ill-conditioned at a pose (cond(J_t^f) above ``1 / RCOND_KEEP_REFERENCE``:
    the numpy path chooses q_dep again there); nothing falls back silently."""
    return reduced_via(model, q_tot, evaluate, q_dep)


def reduced_via(model, q_tot, evaluator, q_dep=None) -> ReducedMatrices:
    """:func:`reduced_matrices` with the generated outputs from
    ``evaluator(cm, q)`` (:func:`evaluate`'s outputs; the workspace map's
    fast path: :func:`flexpkm.compiled.modal_flat.evaluate_flat`)."""
    model = build_model(model)
    q = as_batch(q_tot, model.layout.n_tot).copy()
    for sl in model.layout.elastic_slice.values():
        q[:, sl] = 0.0
    if q_dep is not None:
        raise BackendUnavailableError("reduced_matrices", modal_problem(model, q_dep))
    cm, sol, blocks = compiled_robot(model)
    out = evaluator(cm, q)
    gap = np.abs(out["residual"]).max(axis=1, initial=0.0)
    if not np.all(gap <= LOOP_TOL):                  # the numpy check names the closure
        check_loops(model, q, what="reduced_matrices")
    cond = closure_condition(out["J_f"], blocks)
    bad = np.flatnonzero(~(cond < 1.0 / RCOND_KEEP_REFERENCE))
    if bad.size:
        raise BackendUnavailableError(
            "reduced_matrices", f"the reference choice of q_dep is ill-conditioned at pose "
            f"{int(bad[0])} (cond(J_t^f) = {cond[bad[0]]:.3g} >= {1.0 / RCOND_KEEP_REFERENCE:.3g}); "
            "numpy chooses q_dep again there")
    scales = np.column_stack([np.full(len(q), stiffness_scale(model)), out["scales"]])
    names = tuple(model.layout.names[i] for i in cm.indep)
    red = ReducedMatrices(M_r=out["M_r"], K_r=out["K_r"], names=names, n_a=cm.n_a,
                          choice=sol.choice, dep_names=tuple(model.layout.names[i] for i in cm.dep),
                          indep=np.asarray(cm.indep), dep=cm.dep, J_d=out["J_d"], rows=sol.rows,
                          cond_closure=cond, scales=scales, backend="compiled")
    return single_pose(red) if np.ndim(q_tot) == 1 else red

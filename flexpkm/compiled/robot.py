"""Per-robot compiled functions: the full model, the loop equations, the
sensors and the HHT step, generated once per description and choice of
dependent coordinates (:mod:`flexpkm.compiled.codegen` caches them on disk).

>>> cm = CompiledRobot(model)                       # dep from the reference state
>>> out = cm.evaluate(q_tot, qd_r)                  # M, c, J, b, J_tot, residual
"""
from __future__ import annotations

from functools import cached_property

import casadi as ca
import numpy as np

from flexpkm.compiled import codegen, kept_sample, loop_functions, modified_newton
from flexpkm.compiled.design import design_vector, fixed_entries
from flexpkm.compiled.full import point_acceleration, symbolic_dynamics
from flexpkm.compiled import step as steps
from flexpkm.compiled.recursive import kernel_dynamics
from flexpkm.errors import InvalidArgumentError
from flexpkm.model.build import build_structure

#: largest n_tot whose simulation functions are generated from the unrolled SX
#: graph (DualEMPS one element per body: 16 coordinates, 0.09 s per simulated
#: second, 3x faster than the kernel graph); above, and for a robot with
#: redundant constraint rows (the rigid Orthoglide, 18 coordinates: its
#: unrolled step, projection and recorder take 9.0 s of gcc, the kernel
#: graph's 2.6 s, for 0.21 against 0.30 s per simulated second), the kernel
#: graph (:mod:`flexpkm.compiled.recursive`), whose code grows linearly
UNROLLED_MAX = 20

#: smallest n_tot whose simulation (on the kernel graph) runs on the loop
#: model (:mod:`flexpkm.compiled.loop_model`: each kernel's C once, a few
#: lines per element of a refined body for its call) instead of the flat expanded one: the
#: DualEMPS at 4 elements per body (43 coordinates) and up, whose first use
#: is then 8.9 s CPU instead of 19.4 s (8 elements: 10.3 s instead of 23.6;
#: run time 1.1-1.6x the flat model's);
#: at 2 elements (25) the flat one compiles in a few seconds and evaluates
#: 2.6x faster (docs/simulation.md, "Loops over chains")
LOOPS_MIN = 40
#: the same for a planar robot (``plane_normal`` set): its flat graph keeps
#: the plane's exact zeros (``design.design_vector``), so it stays small and
#: compiles in seconds well past LOOPS_MIN. DualEMPS ``square``, one BLAS
#: thread, libraries cached, quiet machine (eighth session): 4 elements per
#: link (43 coordinates) flat 0.17-0.19 s per simulated s against the loop
#: model's 0.29-0.32, first compile 7.0-7.7 against 6.4 s; 8 elements (79) flat
#: 0.41-0.46 against 0.66-0.68, first compile 11.9 against 9.2 s; 16
#: elements (151) stay on the loop model (docs/simulation.md, "Planar
#: robots on the flat graph")
PLANAR_LOOPS_MIN = 100

#: outputs of :meth:`CompiledRobot.full`
FULL_OUTPUTS = ("M", "c", "J", "b", "J_tot", "residual")


class CompiledRobot:
    """The generated functions of one robot for fixed dependent coordinates.

    model : Robot or Model; dep : q_tot columns of q_dep (default: the
    choice of :func:`flexpkm.full_dynamics` at ``q_ref``, which must then be given,
    an assembled state (n_tot,)); compile : False keeps every function on
    CasADi's virtual machine (no C compiler needed; slower); kept : the
    independent constraint rows (indices of
    :func:`flexpkm.algorithms.closure.row_labels`; default all, or those of
    the full model at ``q_ref``): an overconstrained robot; design_input :
    the simulation's functions on the :attr:`parametric` kernel graph at
    every size (default: the unrolled graph, numbers folded in, up to
    :data:`UNROLLED_MAX` coordinates; :attr:`simulation_graph`).
    Attributes: indep, dep, n_a as in :class:`flexpkm.algorithms.dynamics.FullDynamics`.
    """

    def __init__(self, model, dep=None, q_ref=None, compile=True, kept=None, design_input=False):
        self.model = build_structure(model)
        self.design_input = bool(design_input)
        if dep is None:
            if q_ref is None:
                raise InvalidArgumentError("CompiledRobot: give dep or an assembled q_ref")
            from flexpkm.algorithms.dynamics import full_dynamics
            ref = full_dynamics(self.model, q_ref, 0.0)
            dep = ref.dep
            if ref.rows is not None and len(ref.rows.dropped):
                kept = ref.rows.kept
        self.dep = np.asarray(dep, dtype=int)
        self.kept = None if kept is None else tuple(int(i) for i in kept)
        self.compile = compile
        #: the generated functions (by tag), their CasADi maps (by batch size)
        #: and the simulation's block runners (by configuration): built once
        #: per CompiledRobot, held by it (its owner keeps it)
        self.functions, self.maps, self.blocks = {}, {}, {}
        from flexpkm.algorithms.dynamics import r_ordering
        indep = [i for i in range(self.model.layout.n_tot) if i not in set(self.dep.tolist())]
        self.indep, self.n_a = r_ordering(self.model, indep)

    @cached_property
    def symbolic(self):
        """The :class:`flexpkm.compiled.full.SymbolicDynamics` (built on first use):
        one unrolled SX graph, for the sensors' derivatives and the modal function."""
        return symbolic_dynamics(self.model, self.dep, self.kept)

    @cached_property
    def kernels(self):
        """The :class:`flexpkm.compiled.recursive.KernelDynamics` (built on first
        use): the MX graph calling the per-structure kernels, for the full
        model, the loops and the time step (code linear in the bodies)."""
        return kernel_dynamics(self.model, self.dep, self.kept)

    @cached_property
    def parametric(self):
        """The kernel graph with the design parameters as the symbol ``p``
        (:mod:`flexpkm.compiled.design`): its functions are compiled once per
        topology and take :attr:`design` as an input."""
        return kernel_dynamics(self.model, self.dep, self.kept, parametric=True)

    @cached_property
    def design(self):
        """The design parameters ``p`` (n_p,) of this robot
        (:func:`flexpkm.compiled.design.design_vector`)."""
        return design_vector(self.model)

    @cached_property
    def graph(self):
        """The model the simulation's functions are generated from: the
        unrolled :attr:`symbolic` one when :attr:`unrolled` (its code is
        smaller and ~3x faster there), else :attr:`kernels`."""
        return self.symbolic if self.unrolled else self.kernels

    @cached_property
    def fixed(self):
        """``(indices, values)``: the entries of :attr:`design` that the
        simulation's code takes as constants
        (:func:`flexpkm.compiled.design.fixed_entries`: zeros, +-1 of R_fix)."""
        return fixed_entries(self.model)

    @cached_property
    def simulation_kernels(self):
        """The parametric kernel graph of the simulation: :attr:`parametric`
        with the :attr:`fixed` entries of ``p`` folded in."""
        return kernel_dynamics(self.model, self.dep, self.kept, parametric=True, fixed=self.fixed)

    @property
    def simulation_graph(self):
        """The model the simulation's functions (:meth:`simulation`) are
        generated from: the unrolled :attr:`symbolic` one, numbers folded in,
        when :attr:`unrolled`; else :attr:`simulation_kernels`, the design
        vector ``p`` an input (in ``par``, :meth:`parameters`) but for its
        :attr:`fixed` entries, its library keyed by the topology and those."""
        return self.symbolic if self.unrolled else self.simulation_kernels

    @property
    def unrolled(self):
        """Whether the simulation's functions come from the unrolled graph:
        at most :data:`UNROLLED_MAX` coordinates, no redundant constraint rows,
        no ``design_input``."""
        return (self.model.layout.n_tot <= UNROLLED_MAX and self.kept is None
                and not self.design_input)

    def function(self, name, build, *options, opt=None, merge=True, parametric=False,
                 names=None):
        """``build()`` (a casadi Function), compiled and cached on disk
        (:func:`flexpkm.compiled.codegen.compiled`), or itself without
        ``compile``; kept in :attr:`functions`. ``opt`` default: ``-O2`` on
        the kernel graph, the compiler driver's choice on the unrolled one.
        ``parametric``: the function takes the design parameters as an input
        (:attr:`parametric`), and its library's key is the robot's topology
        (:func:`flexpkm.compiled.codegen.topology_key`), not its numbers.
        ``names``: ``build()`` returns Functions of these names, compiled into
        one library (:func:`flexpkm.compiled.codegen.compiled`)."""
        done = self.functions
        if opt is None and (parametric or not self.unrolled):
            opt = "-O2"
        tag = repr((name, options, opt, merge, parametric, names))
        if tag in done:
            return done[tag]
        if not self.compile:
            fn = tuple(build()) if names is not None else build()
        else:
            keyed = codegen.topology_key if parametric else codegen.description_key
            key = keyed(self.model, name, self.dep.tolist(), self.kept, *options, opt, merge)
            fn = codegen.compiled(build, name, key, opt, merge, names)
        done[tag] = fn
        return fn

    @cached_property
    def full(self):
        """``(q, qd_r, g, friction, smoothing) -> (M, c, J, b, J_tot, residual)``."""
        def build():
            sm = self.graph
            return sm.function("flexpkm_full", [sm.M, sm.c, sm.J, sm.b, sm.J_tot, sm.residual],
                               FULL_OUTPUTS)
        return self.function("flexpkm_full", build)

    def evaluate(self, q_tot, qd_r, gravity=None, friction=True, coulomb_smoothing=0.0):
        """The full model (10.123) at one state: dict of numpy arrays
        ``M (n_r, n_r), c (n_r,), J (n_tot, n_r), b (n_tot,), J_tot (c,
        n_tot), residual (c,)`` (same meaning as :func:`flexpkm.full_dynamics`)."""
        g = self.model.gravity if gravity is None else gravity
        out = self.full(np.asarray(q_tot, float), np.broadcast_to(np.asarray(qd_r, float),
                        (len(self.indep),)), np.asarray(g, float), float(friction),
                        float(coulomb_smoothing))
        res = {k: np.array(v) for k, v in zip(FULL_OUTPUTS, out)}
        for k in ("c", "b", "residual"):
            res[k] = res[k].reshape(-1)
        return res

    @cached_property
    def loops(self):
        """``q -> (residual (c,), d residual / d q (c, n_tot))``: the loop
        equations of :func:`flexpkm.algorithms.closure.closure_residual` and
        their exact Jacobian (the cut joints' velocity rows,
        :class:`flexpkm.compiled.recursive.KernelDynamics`)."""
        def build():
            sm = self.graph
            jac = ca.jacobian(sm.residual, sm.q) if sm.jacobian is None else sm.jacobian
            return ca.Function("flexpkm_loops", [sm.q], [sm.residual, ca.densify(jac)], ["q"],
                               ["residual", "jacobian"])
        return self.function("flexpkm_loops", build)

    def sensor(self, frame, axis_frame=None, axis=None):
        """Point-acceleration sensor (:func:`flexpkm.algorithms.dynamics.point_acceleration`)
        and its exact derivatives: ``(q, qd_r, qdd_r, g, friction, smoothing)
        -> (value (3,) or (1,), d/dq, d/dqd_r, d/dqdd_r)``, m/s^2 (per unit
        of each coordinate)."""
        def build():
            sm = self.symbolic
            qdd = ca.SX.sym("qdd_r", sm.qd_r.shape[0])
            a = point_acceleration(self.model, sm, qdd, frame, axis_frame, axis)
            jac = [ca.jacobian(a, x) for x in (sm.q, sm.qd_r, qdd)]
            args = [sm.q, sm.qd_r, qdd, sm.g, sm.friction, sm.smoothing]
            return ca.Function("flexpkm_sensor", args, [a] + jac)
        name = f"flexpkm_sensor_{frame}_{axis_frame}".replace(".", "_")
        return self.function(name, build, frame, axis_frame, None if axis is None else
                              tuple(float(v) for v in axis))

    def newton(self, prescribed, exact=False):
        """One Newton iteration of the step (:func:`flexpkm.compiled.step.newton_function`)."""
        return self.function(f"flexpkm_newton{int(prescribed)}{int(exact)}",
                              lambda: steps.newton_function(self.graph, prescribed, exact),
                              prescribed, exact)

    def simulation(self, prescribed, iterations, sensors=(), exact=False):
        """``(step, project, record)``: the HHT step with at most ``iterations``
        Newton corrections (:func:`flexpkm.compiled.step.step_function`: its
        Newton function and conditional iterations, one C call per step),
        the loop projection ``(q, par) -> (q_proj, drift)``
        (:func:`flexpkm.compiled.step.project_function`) and the recorder
        ``(x, u, par) -> [tau; energy; sensors]``
        (:func:`flexpkm.compiled.step.record_function`), with a kept
        iteration matrix (the kernel graph, not ``exact``) also the iteration
        matrix at a state (:meth:`iteration`) and the sample's end
        (:func:`flexpkm.compiled.kept_sample.finish_function`), generated into ONE
        library (one compiler run, the kernels they share once: the Delta's
        6.4 s of gcc instead of 4.1 + 1.6 + 3.9 s for three libraries); the
        options are part of its cache key. Above :data:`UNROLLED_MAX`
        coordinates (with redundant rows, or with ``design_input``) they are
        generated from the parametric kernel graph
        (:attr:`simulation_kernels`): the design vector ``p`` is an input
        (in ``par``, :meth:`parameters`) but for its :attr:`fixed` entries,
        and the library is keyed by the topology and those, so that another
        section, material, mass or length reuses it (no compile, the graph
        not even built); on the unrolled graph (:attr:`simulation_graph`)
        the numbers are folded in (one library per design). On the kernel graph the step's
        Newton correction, the projection and the recorder are flat SX
        functions (expanded), compiled at -O1: gcc takes 10 s CPU on the
        DualEMPS's at 8 elements per body at -O1, 32 s at -O2, for code 20 %
        faster (27 against 22 us per Newton correction); from
        :data:`LOOPS_MIN` coordinates (:attr:`on_loops`) they call the loop
        model instead (:mod:`flexpkm.compiled.loop_model`: each kernel once,
        a C loop over each chain of identical frames), compiled at -O2
        (40,000 C lines, 11.5 s of gcc at 8 elements per body, 61,000 and
        17 s at 16)."""
        sensors = tuple((str(f), None if a is None else str(a),
                         None if x is None else tuple(float(v) for v in x))
                        for f, a, x in sensors)
        tags = (f"{int(prescribed)}{int(exact)}", f"{int(prescribed)}")
        kept = not self.unrolled and not exact         # recursive, kept matrix
        names = (f"flexpkm_step{tags[0]}", "flexpkm_project", f"flexpkm_record{tags[1]}") + (
            (f"flexpkm_iteration{tags[1]}", f"flexpkm_finish{tags[1]}") if kept else ())

        loops = self.on_loops and not exact

        def build():
            graph = self.simulation_graph
            dims = steps.Dims.of(graph)           # J's non-zeros in the kernel graph's state
            mass = modified_newton.mass_function(graph, loops) if kept else None  # C once
            if kept:
                step = steps.step_function(
                    modified_newton.newton_function(graph, prescribed, loops), dims, prescribed,
                    iterations, names[0], (modified_newton.refresh_function(
                        graph, prescribed, loops, mass), self._due), modified_newton.SLOW)
            else:
                step = steps.step_function(steps.newton_function(graph, prescribed, exact),
                                           dims, prescribed, iterations, names[0])
            if not loops:
                out = (step, steps.project_function(graph),
                       steps.record_function(graph, self.model, prescribed, sensors))
            else:
                out = (step, steps.project_function(
                    graph, equations=loop_functions.loop_equations(graph)),
                    steps.record_function(graph, self.model, prescribed, sensors,
                                          loop_functions.record_function(graph, sensors)))
            if not kept:
                return out
            return out + (modified_newton.iteration_function(graph, prescribed, dims, loops,
                                                             names[3], mass),
                          kept_sample.finish_function(*out[1:], names[4]))
        fixed = None if self.unrolled else self.fixed
        return self.function(f"flexpkm_simulation{tags[0]}", build, prescribed, iterations,
                             sensors, exact, fixed, *(("loops",) if loops else ()), names=names,
                             parametric=not self.unrolled,
                             opt=None if self.unrolled else "-O2" if loops else "-O1")

    @property
    def on_loops(self):
        """Whether the simulation's functions on the kernel graph use the loop
        model (:mod:`flexpkm.compiled.loop_model`): at least :data:`LOOPS_MIN`
        coordinates (:data:`PLANAR_LOOPS_MIN` for a planar robot), every frame
        carrying at most one body."""
        from flexpkm.compiled.chains import frame_bodies
        planar = getattr(self.model, "plane_normal", None) is not None
        if self.unrolled or self.model.layout.n_tot < (PLANAR_LOOPS_MIN if planar else LOOPS_MIN):
            return False
        try:
            frame_bodies(self.model)
        except ValueError:
            return False
        return True

    def sample(self, prescribed, iterations, n_sub, project_each, sensors=(), exact=False):
        """``(x, U, par) -> (x_next, rec)``: ``n_sub`` steps and an output sample
        (:func:`flexpkm.compiled.step.sample_function`) of the :meth:`simulation`
        functions; with a kept iteration matrix ``(x, U, par, S_inv, k0) ->
        (x_next, rec, stop)`` (the driver forms S_inv from :meth:`iteration`)."""
        fns = self.simulation(prescribed, iterations, sensors, exact)
        return steps.sample_function(*fns[:3], n_sub, project_each,
                                     fns[4] if len(fns) > 4 else None, self._due)

    def iteration(self, prescribed, iterations, sensors=(), exact=False):
        """``(x, par) -> S`` (m, m): the iteration matrix of the :meth:`simulation`
        step on its m unknown accelerations at the state x
        (:func:`flexpkm.compiled.modified_newton.iteration_function`), whose
        inverse the step takes; None for a step without a kept matrix (the
        unrolled graph, ``exact``)."""
        fns = self.simulation(prescribed, iterations, sensors, exact)
        return fns[3] if len(fns) > 3 else None

    def _due(self, x, par):
        """:func:`flexpkm.compiled.modified_newton.refresh_due` of the
        simulation's state ``x`` (MX)."""
        return modified_newton.refresh_due(x, par, self.state_slices(), len(self.indep), self.n_a)

    @cached_property
    def state_pattern(self):
        """The sparsity of J stored in the simulation's step state
        (:func:`flexpkm.compiled.step.state_pattern`: the structural non-zeros
        of :attr:`simulation_graph`'s J on the kernel graph; None, dense, on
        the unrolled one), read from a one-line library keyed by the
        topology: another design finds it without building the graph (0.2 s
        at 8 elements per body on the DualEMPS)."""
        if self.unrolled:
            return None

        def build():
            J = ca.MX.sym("J", steps.state_pattern(self.simulation_graph))
            return ca.Function("flexpkm_state_pattern", [J], [J])
        return self.function("flexpkm_state_pattern", build, self.fixed,
                             parametric=True).sparsity_in(0)

    def pack(self, q, v, a, g, J, b, dense=False):
        """The step state vector ``x`` (:func:`flexpkm.compiled.step.layout`)
        from the numpy state at t_n (the model of the last evaluation at (q,
        v)); J (n_tot, n_r) on :attr:`state_pattern`'s entries unless ``dense``
        (a state of :class:`flexpkm.compiled.step.Dims` without a pattern)."""
        pattern = None if dense else self.state_pattern     # no kept iteration matrix
        J = np.asarray(J, float)        # yet (age: due at the first step); J's non-zeros
        J = J.reshape(-1, order="F") if pattern is None else J[pattern.get_triplet()]
        return np.concatenate([q, v, a, a, g, b, q, v, [0.0, 1e9, 0.0], J])     # column-major

    def state_slices(self) -> dict:
        """The slices of the step state x (:func:`flexpkm.compiled.step.layout`)."""
        pattern = self.state_pattern
        return steps.layout(self.model.layout.n_tot, len(self.indep), self.n_a, 0,
                            None if pattern is None else pattern.nnz())[0]

    def unpack(self, x, sl=None):
        """``(q, v, a)`` of the state vector(s) x (n_x,) or (n_x, K) -> (K, n);
        ``sl``: the slices of q, v, a in x (default :meth:`state_slices`)."""
        sl = self.state_slices() if sl is None else sl
        x = np.asarray(x)
        return tuple(x[sl[k]].T for k in ("q", "v", "a"))

    def parameters(self, kp, kd, h, alpha, gravity, friction, coulomb_smoothing, tol=1e-6,
                   design=None):
        """The ``par`` vector of the step functions (``tol``: Newton's
        relative residual, :mod:`flexpkm.compiled.step`); ``design``: the
        design vector ``p`` in it (default: :attr:`design` when the
        simulation's functions take it, :attr:`simulation_graph`, else none)."""
        if design is None:
            design = () if self.unrolled else self.design
        return np.concatenate([kp, kd, [h, alpha], gravity, [float(friction), coulomb_smoothing],
                               design, [tol]])

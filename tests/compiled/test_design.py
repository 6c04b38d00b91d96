"""Design parameters as inputs of the generated functions
(flexpkm.compiled.design): one library per topology, reused by another
design, equal to the numpy path; exact df/dp by AD against central
differences and the description-level sensitivities."""
import copy

import numpy as np
import pytest

import flexpkm as fp
from flexpkm.algorithms.modal import generalized_eigh
from flexpkm.cases.file_case import configure
from flexpkm.cases.shipped import file_of
from flexpkm.compiled import codegen, design, modal
from flexpkm.compiled.sensitivity import design_gradient, frequency_sensitivities
from flexpkm.model.files import from_dict, parse

pytest.importorskip("casadi")

E = "legs[0].frames[0].bodies[0].material.E"
RHO = "legs[1].frames[1].bodies[1].material.rho"


def _set(data, path, value):
    node = data
    keys = [k for part in path.replace("]", "").split(".") for k in part.split("[")]
    for k in keys[:-1]:
        node = node[int(k)] if isinstance(node, list) else node[k]
    node[keys[-1]] = value


def _other_design(data):
    """The five-bar with proximal link 1 in aluminium-like E (70 GPa) and a
    longer distal link 1 (0.32 m, its frame 13 moved with it)."""
    d = copy.deepcopy(data)
    _set(d, E, 70e9)
    _set(d, "legs[0].frames[1].bodies[1].length", 0.32)
    _set(d, "legs[0].frames[2].d", 0.32)
    return d


@pytest.fixture(scope="module")
def five_bar(tmp_path_factory):
    """Both designs through the compiled modal path (the parametric kernel
    graph, modal.MODAL_UNROLLED_MAX = 0) in a private cache:
    ``(data, [(model, q, compiled ReducedMatrices)], libraries, builds)``."""
    data = parse(file_of("five_bar").read_text(), "five_bar")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FLEXPKM_CACHE", str(tmp_path_factory.mktemp("cache")))
        builds, runs = [], []
        for d in (data, _other_design(data)):
            model = fp.build_model(from_dict(d))
            q = configure(model, None)
            before = codegen.COMPILE_SECONDS["total"]
            runs.append((model, q, modal.reduced_matrices(model, q)))
            builds.append(codegen.COMPILE_SECONDS["total"] > before)
        libraries = sorted(p.name for p in codegen.cache_dir().glob("*.so"))
        yield data, runs, libraries, builds


def test_two_designs_one_library_equal_to_numpy(five_bar):
    _, runs, libraries, builds = five_bar
    (m1, _, _), (m2, _, _) = runs
    assert design.topology(m1) == design.topology(m2)
    assert not np.array_equal(design.design_vector(m1), design.design_vector(m2))
    if codegen.find_compiler() is not None:
        assert builds == [True, False] and len(libraries) == 1
    for model, q, ours in runs:
        ref = fp.reduced_matrices(model, q)
        assert ours.backend == "compiled"
        for name in ("M_r", "K_r", "J_d", "cond_closure"):
            a, b = getattr(ours, name), getattr(ref, name)
            assert np.abs(a - b).max() <= 1e-12 * np.abs(b).max(), name


def test_layout_covers_the_vector_and_the_key_ignores_the_numbers(five_bar):
    data, runs, _, _ = five_bar
    model = runs[0][0]
    lay = design.design_layout(model)
    p = design.design_vector(model)
    blocks = [*lay.frames, *lay.bodies, lay.platform, *lay.closures, lay.stiffness_slice,
              lay.rotor[1], lay.viscous[1], lay.coulomb[1]]
    starts = [b.start for b in blocks if b is not None]
    assert starts == sorted(starts) and p.size == lay.size == blocks[-1].stop
    rows, cols = lay.stiffness
    assert np.array_equal(p[lay.stiffness_slice], model.K_tot[list(rows), list(cols)])
    assert codegen.topology_key(model, "x") == codegen.topology_key(runs[1][0], "x")
    assert codegen.description_key(model, "x") != codegen.description_key(runs[1][0], "x")
    d = copy.deepcopy(data)
    _set(d, "legs[0].frames[0].bodies[0].elements", 2)     # more shape functions: another topology
    assert codegen.topology_key(fp.build_model(from_dict(d)), "x") != \
        codegen.topology_key(model, "x")


def _frequencies(fn, q, p, na, n):
    M, K = (np.array(x) for x in fn(q, p)[:2])
    lam = generalized_eigh(K[None, na:, na:], M[None, na:, na:], "M_cc")[0][0, :n]
    return np.sqrt(lam) / (2 * np.pi)


def test_design_gradient_against_central_differences(five_bar):
    """df/dp by AD against Richardson-extrapolated central differences of the
    parametric function (steps 1e-3 and 5e-4 of the entry) at 1e-6 of the
    largest derivative, for the most influential entry of two beams'
    invariants, a point mass's and the stiffness."""
    _, runs, _, _ = five_bar
    model, q, _ = runs[0]
    f, df = design_gradient(model, q, n_modes=4)
    cm, _, _ = modal.compiled_robot(model)
    fn, p0, lay = modal.modal_graph(cm, True), cm.design, design.design_layout(model)
    assert df.shape == (4, p0.size)
    assert np.allclose(f, fp.natural_frequencies(model, q, n_modes=4).frequencies_hz, rtol=1e-12)
    for block in (lay.bodies[0], lay.bodies[1], lay.bodies[2], lay.stiffness_slice):
        weight = np.abs(df[:, block]).max(axis=0) * (p0[block] != 0)     # its largest
        k = block.start + int(np.argmax(weight))

        def central(h):
            up, down = p0.copy(), p0.copy()
            up[k] += h
            down[k] -= h
            ends = [_frequencies(fn, q, x, cm.n_a, 4) for x in (up, down)]
            return (ends[0] - ends[1]) / (2 * h)
        h = 1e-3 * abs(p0[k])
        fd = (4 * central(h / 2) - central(h)) / 3
        assert np.abs(fd).max() > 0
        assert np.abs(df[:, k] - fd).max() < 1e-6 * np.abs(fd).max(), k


def test_design_gradient_agrees_with_the_description_sensitivities(five_bar):
    """Chained with dp/d(parameter) (E and rho enter p linearly: exact
    central differences of design_vector), df/dp gives the present
    description-level sensitivities (flexpkm.compiled.sensitivity) to 1e-9."""
    data, runs, _, _ = five_bar
    model, q, _ = runs[0]
    _, df = design_gradient(model, q, n_modes=4)
    _, ref = frequency_sensitivities(data, [E, RHO], q, n_modes=4)
    for j, (path, value) in enumerate([(E, 210e9), (RHO, 7800.0)]):
        ends = []
        for v in (value * 1.01, value * 0.99):
            d = copy.deepcopy(data)
            _set(d, path, v)
            ends.append(design.design_vector(from_dict(d)))
        dp = (ends[0] - ends[1]) / (0.02 * value)
        assert np.abs(df @ dp - ref[:, j]).max() < 1e-9 * np.abs(ref[:, j]).max(), path


def test_design_vector_rotation_entries_of_right_angles_are_exact_zeros():
    """The DualEMPS's MDH angles of +-pi/2 give R_fix entries cos(pi/2) =
    6.1e-17 in the built model; p holds exact zeros there (and the numbers
    of R_fix elsewhere), so that fixed_entries folds them."""
    from flexpkm.cases import dualemps
    model = fp.build_model(dualemps.robot())
    p, lay = design.design_vector(model), design.design_layout(model)
    tiny = 0
    for fc, block in zip(model.frame_constants, lay.frames):
        R = np.ravel(fc.R_fix, "F")
        small = (np.abs(R) < 1e-15) & (R != 0)
        tiny += int(small.sum())
        assert np.array_equal(p[block][:9], np.where(small, 0.0, R))
    assert tiny > 0
    idx = set(design.fixed_entries(model)[0])
    assert all(i in idx for block in lay.frames for i in range(block.start, block.start + 9)
               if p[i] == 0)

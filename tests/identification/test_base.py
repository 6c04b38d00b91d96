"""Base parameters by QR (Briot & Khalil Section 8.7.4): the groupings of
Section 8.7.5 recovered to the book's printed digits, the five-bar's
coefficients equal to their closed forms in the link lengths, and the
grouped model exact (``W_1 chi_b = W chi``) at states that were not sampled."""
import numpy as np
import pytest

import flexpkm as fp
from flexpkm import cases
from flexpkm.cases import rigid_five_bar
from flexpkm.cases.file_case import shipped_robot
from flexpkm.errors import InvalidArgumentError
from flexpkm.identification.base import base_parameters, random_states
from flexpkm.identification.regressor import regressor


@pytest.fixture(scope="module")
def five_bar():
    model = fp.build_model(fp.load_robot(cases.file_of("rigid_five_bar")))
    return model, base_parameters(model, seed=0)


@pytest.fixture(scope="module")
def orthoglide():
    """The Orthoglide with gravity along its actuator 31 (the book: "actuated
    joint 31 is vertical"; the file's own gravity is along actuator 11)."""
    model = fp.build_model(shipped_robot("orthoglide", gravity=(0.0, -9.81, 0.0)))
    return model, base_parameters(model, samples=70, seed=0)


def test_five_bar_groupings_8_275_8_276(five_bar):
    _, bp = five_bar
    relations = bp.relations()
    for leg in "12":
        assert f"ZZ{leg}1R = ZZ{leg}1 + IA{leg}1 - 0.24158 MX{leg}2 + 0.045369 M{leg}2" in relations
        assert f"ZZ{leg}2R = ZZ{leg}2 - 0.1878 MX{leg}2" in relations
    assert "MPR = MP + 5.3248 MX12 + 5.3248 MX22" in relations
    assert len(relations) == 5
    assert bp.symbols == ("MPR", "ZZ11R", "ZZ21R", "FV11", "FV21", "FS11", "FS21", "ZZ12R",
                          "ZZ22R", "MY12", "MY22", "FV12", "FV22", "FS12", "FS22")


def test_five_bar_coefficients_are_the_closed_forms(five_bar):
    """zz_i1R gets -d2^2/d3 mx_i2 + d2^2 m_i2, zz_i2R -d3 mx_i2, m_3R mx_i2 / d3
    (a first moment mx_i2 is a point mass mx_i2/d3 at the tip, on the platform)."""
    _, bp = five_bar
    std = bp.standard.symbols
    _, d2, d3 = rigid_five_bar.D["1"]
    beta = lambda base, grouped: bp.beta[bp.symbols.index(base), list(bp.grouped).index(
        std.index(grouped))]
    expected = {("ZZ11R", "MX12"): -d2 ** 2 / d3, ("ZZ11R", "M12"): d2 ** 2,
                ("ZZ11R", "IA11"): 1.0, ("ZZ12R", "MX12"): -d3, ("MPR", "MX12"): 1 / d3,
                ("MPR", "MX22"): 1 / d3}
    for (base, grouped), value in expected.items():
        assert beta(base, grouped) == pytest.approx(value, rel=1e-9)
    assert "MX11" in [std[k] for k in bp.zero]          # gravity normal to the plane


def test_orthoglide_groupings_8_277_8_279(orthoglide):
    _, bp = orthoglide
    relations = bp.relations()
    mass = [r for r in relations if r.startswith("MPR")][0]
    for i in "123":
        assert f"3.2258 MX{i}3" in mass and f"M{i}4" in mass             # (8.277)
    assert "M11R = M11 + IA11 + M12 - 3.2258 MX13 + M13" in relations     # (8.278)
    assert "M21R = M21 + IA21 + M22 - 3.2258 MX23 + M23" in relations
    assert "M31R = M31 + M32 - 3.2258 MX33 + M33" in relations
    assert "IA31" in bp.symbols                  # the vertical actuator's inertia stays apart
    for leg in "123":                                                     # (8.279)
        for text in ("ZZ{i}2R = ZZ{i}2 + YY{i}3 - 0.31 MX{i}3 + YY{i}4",
                     "MY{i}2R = MY{i}2 + MZ{i}3 + MZ{i}4", "FV{i}2R = FV{i}2 + FV{i}5",
                     "FS{i}2R = FS{i}2 + FS{i}5", "XX{i}3R = XX{i}3 - YY{i}3 + 0.31 MX{i}3",
                     "XZ{i}3R = XZ{i}3 - 0.31 MZ{i}4"):
            assert text.format(i=leg) in relations
    assert "ZZ13R = ZZ13 - 0.31 MX13" in relations and "FV13R = FV13 + FV14" in relations
    # q_33 = -q_23 on the Orthoglide (both set by z, (7.33)-(7.35)): legs 2, 3 group
    assert "ZZ23R = ZZ23 + ZZ33 - 0.31 MX23 - 0.31 MX33" in relations
    assert bp.n_b == 50


@pytest.mark.parametrize("which", ["five_bar", "orthoglide"])
def test_grouped_model_is_exact_elsewhere(which, request):
    model, bp = request.getfixturevalue(which)
    q, qd, qdd = random_states(model, 4, seed=11, spread=0.03)
    W = regressor(model, q, qd, qdd)
    chi = np.random.default_rng(5).uniform(-1, 1, W.shape[-1])
    exact = W @ chi
    assert np.abs(W[..., bp.base] @ bp.of(chi) - exact).max() < 1e-10 * np.abs(exact).max()
    assert np.allclose(bp.values, bp.of(bp.standard.values), rtol=0, atol=0)


def test_report(five_bar):
    _, bp = five_bar
    d = bp.to_dict()
    assert d["n_standard"] == 60 and d["n_base"] == 15 and d["samples"] == bp.samples
    first = d["base"][0]
    assert first["symbol"] == "MPR" and first["value"] == pytest.approx(0.272 + 2 * 0.012 / 0.1878)


def test_flexible_refused():
    flexible = cases.file_of("orthoglide").parent / "examples" / "orthoglide_flexible.toml"
    with pytest.raises(InvalidArgumentError, match="flexible bodies"):
        base_parameters(fp.load_robot(flexible))

"""The standard parameters of a file (8.232), (8.262): names, values, the
column order (8.274)."""
import pytest

import flexpkm as fp
from flexpkm import cases
from flexpkm.errors import InvalidArgumentError
from flexpkm.identification.standard import INERTIAL, standard_parameters


def test_standard_parameters_of_the_five_bar():
    """(8.232), (8.262) in the file's names, ordered as (8.274): the
    platform, then each parameter of leg 1 and leg 2 in turn."""
    std = standard_parameters(fp.build_model(fp.load_robot(cases.file_of("rigid_five_bar"))))
    assert std.symbols[:10] == tuple(f"{k}P" for k in INERTIAL)
    assert std.symbols[10:12] == ("XX11", "XX21")
    assert std.symbols[28:36] == ("M11", "M21", "IA11", "IA21", "FV11", "FV21", "FS11", "FS21")
    assert std.values[std.index("ZZ11")] == 0.0211 and std.values[std.index("MP")] == 0.272
    assert std.values[std.index("FV11")] == 6.76 and std.values[std.index("MX22")] == 0.012
    assert len(std.symbols) == 10 + 2 * (2 * 10 + 3 + 2)   # IA only on the actuated joints
    with pytest.raises(InvalidArgumentError, match="no standard parameter 'ZZ9'"):
        std.index("ZZ9")


def test_orthoglide_links_without_bodies_are_links():
    """Frames i2, i4, i5 carry no body in the file but are links (zeros)."""
    std = standard_parameters(fp.build_model(fp.load_robot(cases.file_of("orthoglide"))))
    assert std.values[std.index("M14")] == 0.0 and std.values[std.index("MX13")] == 0.0381
    assert "FV15" in std.symbols and "IA12" not in std.symbols and "M1P" not in std.symbols
    assert std.symbols[10:13] == ("XX11", "XX21", "XX31")
    assert len(std.symbols) == 10 + 3 * (5 * 10 + 3 + 4 * 2)

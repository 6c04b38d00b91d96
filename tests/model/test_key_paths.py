"""Key paths into a parsed description (flexpkm.model.key_paths): read and
set one number, refuse a path that leads nowhere or to what is not a number."""
import pytest

from flexpkm.errors import InvalidArgumentError
from flexpkm.model.key_paths import get_number, locate, set_number


def _data():
    return {"name": "x", "flag": True, "legs": [{"frames": [{"d": 0.1, "sigma": 0}]}]}


def test_get_and_set_a_number():
    data = _data()
    assert get_number(data, "legs[0].frames[0].d") == 0.1
    assert set_number(data, "legs[0].frames[0].d", 0.25) == 0.1
    assert data["legs"][0]["frames"][0]["d"] == 0.25
    node, key, value = locate(data, "legs[0].frames[0].sigma")
    assert key == "sigma" and value == 0 and node is data["legs"][0]["frames"][0]


@pytest.mark.parametrize("path, message", [
    ("legs[9].frames[0].d", "no such key path"), ("legs[0].frames[0].nothing", "no such key path"),
    ("legs.x", "no such key path"), ("name", "name: not a number .str."),
    ("flag", "not a number .bool."), ("legs[0]", "not a number .dict.")])
def test_bad_key_paths_are_refused(path, message):
    data = _data()
    with pytest.raises(InvalidArgumentError, match=message):
        set_number(data, path, 1.0)
    assert data == _data()                      # nothing changed

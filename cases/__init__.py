"""Robot definitions with their published data: DualEMPS (Briot & Khalil
Section 10.7, Table 11.1) and NaVARo (Section 11.6.2)."""

CASES = ("dualemps", "navaro")


def get(name):
    """Import the case module ``cases.<name>``."""
    import importlib
    if name not in CASES:
        raise KeyError(f"unknown case {name!r}; available: {', '.join(CASES)}")
    return importlib.import_module(f"flexpkm.cases.{name}")

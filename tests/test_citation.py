"""CITATION.cff (CFF 1.2.0; validated with cffconvert 2.0.0 when written)
holds what the format requires and cites the book and Müller's paper; its
version is the package's; CHANGELOG.md has an entry for each issue the
history resolves (issue 22 item 6)."""
from pathlib import Path

import pytest

from flexpkm.version import __version__

yaml = pytest.importorskip("yaml")
ROOT = Path(__file__).resolve().parents[1]


def test_citation_file_has_the_required_keys_and_references():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0"
    assert {"message", "title", "authors"} <= set(cff)
    assert str(cff["version"]) == __version__
    titles = {r["title"] for r in cff["references"]}
    assert any("Dynamics of Parallel Robots" in t for t in titles)
    assert any("Hybrid Complex Limbs" in t for t in titles)
    for ref in cff["references"]:
        assert {"type", "title", "authors"} <= set(ref), ref


def test_changelog_names_the_resolved_issues():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    for issue in ("issue 22", "issues 17, 18, 20", "issues 9 to 12, 16, 17"):
        assert issue in text

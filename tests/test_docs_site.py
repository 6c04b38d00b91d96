"""The docs site (mkdocs.yml, issue 22 item 6) builds with ``mkdocs build
--strict``: every page of docs/ in the navigation, no broken link, every
``:::`` API reference found and rendered from the docstrings. Skipped only
when the ``docs`` extra (mkdocs, mkdocs-material, mkdocstrings) is not
installed. ~5 s."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

for _module in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"):
    pytest.importorskip(_module, reason="the docs extra: pip install 'flexpkm[docs]'")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                          str(out)], cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert run.returncode == 0, run.stderr[-3000:]
    return out


def test_every_page_is_in_the_navigation_and_built(site):
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in (ROOT / "docs").rglob("*.md"):
        name = page.relative_to(ROOT / "docs").as_posix()
        if name.startswith("scripts/"):
            continue
        assert re.search(rf"\b{re.escape(name)}\b", config), f"{name} is not in mkdocs.yml nav"
        built = site / ("index.html" if name == "index.md" else
                        name.removesuffix("index.md").removesuffix(".md") + "/index.html")
        assert built.exists(), name


def test_the_api_reference_renders_the_docstrings(site):
    """A docstring's words reach the page: the API is generated, not written."""
    import flexpkm.analysis.modal as modal
    html = (site / "api" / "analysis" / "index.html").read_text(encoding="utf-8")
    assert "natural_frequencies" in html
    first_words = " ".join(modal.natural_frequencies.__doc__.split()[:4])
    assert first_words in re.sub(r"<[^>]+>|\s+", " ", html), first_words
    bodies = (site / "api" / "elements" / "index.html").read_text(encoding="utf-8")
    assert "flexpkm.elements.beam.PlanarBeam" in bodies       # the mapped package-dir


def test_the_changelog_and_file_format_pages_are_built(site):
    changelog = (site / "changelog" / "index.html").read_text(encoding="utf-8")
    assert "Changelog" in changelog and "--8&lt;--" not in changelog
    assert "plane_normal" in (site / "file-format" / "index.html").read_text(encoding="utf-8")


def test_docstrings_become_markdown_lists_and_code():
    """The griffe extension of the site: reST roles -> code, ``name : meaning``
    lines -> one list item each, the text after the list a paragraph."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "griffe_docstrings", ROOT / "docs" / "scripts" / "griffe_docstrings.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = ("Frequencies of :class:`Modes`.\n"
            "model : the Model\n"
            "q_tot : (n_tot,) a configuration\n"
            "        in m and rad\n"
            "Raises :exc:`~flexpkm.errors.OpenLoopError`.")
    assert module.markdown(text).splitlines() == [
        "Frequencies of `Modes`.", "", "* `model`: the Model",
        "* `q_tot`: (n_tot,) a configuration", "        in m and rad", "",
        "Raises `flexpkm.errors.OpenLoopError`."]

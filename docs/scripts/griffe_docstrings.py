"""A griffe extension of the docs site (mkdocs.yml, mkdocstrings
``extensions``): flexpkm's docstrings are plain text with reST roles and
``name : meaning`` lines; this turns them into the Markdown mkdocstrings
renders, without changing a docstring in the code.

* ``:class:`Modes``` (``:func:``, ``:mod:``, ``:meth:``, ``:attr:``,
  ``:data:``, ``:exc:``, ``:obj:``) -> ```Modes``` (code);
* a line ``name : meaning`` (or ``a, b : meaning``) at the docstring's left
  margin starts a list item, so that parameter lists keep one line each;
  the next line at the margin that is not one ends the list.
"""
from __future__ import annotations

import re

import griffe

ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|exc|obj):`~?([^`]+)`")
#: ``name : meaning`` / ``a, b : meaning`` / ``q_tot  : (n,)`` at the margin
ITEM = re.compile(r"^([A-Za-z_][\w.]*(?:, *[A-Za-z_][\w.]*)*)( +): (.*)$")


def markdown(text: str) -> str:
    """The Markdown of one docstring (see the module docstring)."""
    text = ROLE.sub(r"`\1`", text)
    out, in_code, in_list = [], False, False
    for line in text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        item = None if in_code else ITEM.match(line)
        if item:
            if out and out[-1].strip() and not in_list:
                out.append("")          # a list starts after a blank line
            line, in_list = f"* `{item.group(1)}`: {item.group(3)}", True
        elif in_list and line[:1] not in ("", " "):
            out.append("")              # a line at the margin ends the list
            in_list = False
        out.append(line)
    return "\n".join(out)


class Docstrings(griffe.Extension):
    def on_object(self, *, obj, **kwargs):  # noqa: ARG002 (griffe's hook signature)
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)

"""A folded solution code cell says it is a solution ("Show solution (code)"), as the prose solutions'
"Solution" dropdowns do; any other folded cell keeps myst-nb's prompt (perflab.book.sphinxext)."""
import pytest

from perflab.book import sphinxext
from support.chapters import MYST_HEADER

CHAPTER = MYST_HEADER + """# A chapter

```{code-cell} ipython3
:tags: [hide-input]

print("A-FIGURE")
```

## Exercises

```{code-cell} ipython3
:tags: [hide-cell, solution]

print("THE-CODE-ANSWER")
```

```{code-cell} ipython3
:tags: [hide-cell]

print("NOT-AN-ANSWER")
```
"""


def _cell(tags, hide_mode="all"):
    from docutils import nodes

    return nodes.container(nb_element="cell_code", hide_mode=hide_mode, prompt_show="Show code cell {type}",
                           prompt_hide="Hide code cell {type}", classes=["cell"] + [f"tag_{t}" for t in tags])


def test_the_transform_labels_folded_solution_cells_only():
    from docutils import nodes

    doc = nodes.section()
    solution, other, source = _cell(["hide-cell", "solution"]), _cell(["hide-cell"]), _cell(["hide-input"], "input")
    doc += [solution, other, source]
    assert sphinxext.label_solutions(doc) == 1
    assert (solution["prompt_show"], solution["prompt_hide"]) == sphinxext.SOLUTION_PROMPTS
    assert other["prompt_show"] == source["prompt_show"] == "Show code cell {type}"


def test_a_built_page_folds_its_solution_under_a_solution_toggle(tmp_path):
    """A real build (myst-nb, no execution): the solution's toggle is the transform's, the others myst-nb's."""
    sphinx = pytest.importorskip("sphinx.application")
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text('extensions = ["myst_nb", "perflab.book.sphinxext"]\nnb_execution_mode = "off"\n'
                                 'exclude_patterns = ["_build"]\n')
    (src / "index.md").write_text(CHAPTER)
    app = sphinx.Sphinx(str(src), str(src), str(tmp_path / "html"), str(tmp_path / "doctrees"), "html",
                        status=None, warning=None, freshenv=True)
    app.build()
    html = (tmp_path / "html" / "index.html").read_text()
    show, hide = sphinxext.SOLUTION_PROMPTS
    answer = html.split("THE-CODE-ANSWER")[0].rsplit("<details", 1)[1]
    assert f'<p class="collapsed admonition-title">{show}</p>' in answer and hide in answer
    other = html.split("NOT-AN-ANSWER")[0].rsplit("<details", 1)[1]
    assert "Show code cell content" in other and show not in other
    figure = html.split("A-FIGURE")[0].rsplit("<details", 1)[1]
    assert "Show code cell source" in figure
    assert html.count(show) == 1

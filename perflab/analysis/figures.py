"""Showing plotly figures the same way in Jupyter, in papermill's executed notebooks and in the
offline HTML book.

The book loads one copy of plotly.js from its own _static/ folder (copied from the installed plotly
package by `perflab book-config`; no CDN), so each figure is emitted as a bare <div> plus the
plotly JSON for Jupyter's renderer.
"""
from __future__ import annotations

import json


class Shown:
    def __init__(self, fig):
        self.fig = fig

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {
            # responsive: the figure takes its container's width (a phone's too) and follows resizes
            "text/html": self.fig.to_html(full_html=False, include_plotlyjs=False,
                                          config={"responsive": True, "displaylogo": False}),
            "application/vnd.plotly.v1+json": json.loads(self.fig.to_json()),
            "text/plain": f"<plotly figure: {self.fig.layout.title.text or 'untitled'}>",
        }


def show(fig) -> Shown:
    return Shown(fig)


def plotly_js_path():
    """The plotly.min.js shipped inside the installed plotly package."""
    from importlib.resources import files

    return files("plotly") / "package_data" / "plotly.min.js"

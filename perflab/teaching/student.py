"""What a student notebook calls (chapters/mystery/*.md): the session of a mystery run, the last
cell that signs it, and figures that single nothing out."""
from __future__ import annotations

from perflab.run.record import RunRecord
from perflab.run import session
from perflab.teaching.sealing import MysteryError
from perflab.teaching.variant import RunSeal


def open_session(lab: str, run: str = "smoke", params: dict | None = None, run_dir: str | None = None):
    """The student notebook's session: a mystery run exists only as started by
    `perflab run LAB --variant FILE` (which seals the planted values into run.json)."""
    if run == session.REFERENCE or not run_dir:
        raise MysteryError("a mystery notebook runs through `scripts/perflab run LAB --variant variant.json` "
                           "(it needs the run directory that command makes)")
    doc = RunRecord(run_dir).read()
    if not doc.get("mystery"):
        raise MysteryError(f"run {run_dir} is not a mystery run (no sealed variant in its run.json)")
    m = session.manifest_mod.load()
    seal = RunSeal.from_doc(m, m.lab(lab), doc)
    return session.open(lab, run=run, params=params, run_dir=run_dir, seal=seal)


def finish(s) -> None:
    """The last cell of a student notebook: scrub, sign, print the stamp, close the session."""
    print(s.mystery.finish(s.record, s.data_dir))
    s.finish()


def per_entity_figure(df, title: str, y_title: str, names: dict | None = None, scale: float = 1.0,
                      t0: float | None = None, vline: tuple[float, str] | None = None):
    """Lines, one per column, all drawn alike (a mystery figure must not single anything out)."""
    import plotly.graph_objects as go

    t0 = df.index.min() if t0 is None else t0
    fig = go.Figure()
    for c in sorted(df.columns):
        fig.add_scatter(x=df.index - t0, y=df[c] * scale, mode="lines", name=(names or {}).get(c, str(c)),
                        line={"width": 1.5})
    if vline:
        fig.add_vline(x=vline[0] - t0, line_dash="dash", line_color="black")
        fig.add_annotation(x=vline[0] - t0, y=1, yref="paper", text=vline[1], showarrow=False, xanchor="left",
                           yanchor="bottom")
    fig.update_layout(title=title, xaxis_title="time (s)", yaxis_title=y_title, height=380)
    return fig

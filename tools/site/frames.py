"""Sliders that move without a kernel: a `relpos_lessons.viz.Panel` turned into precomputed frames.

`static_panel(panel)` returns an ipywidgets box that looks like the panel but needs no Python behind it:
its first control (and, when that is not a slider, also its first slider) is replaced by a widget whose
`index` is linked on the client side (`jslink`) to a `Stack` of PNG frames computed here, so the saved
widget state of an executed notebook carries every picture and the browser flips between them. Every
other control is shown disabled at its current value.

The site build runs the lessons with `IPYTHONDIR` pointing at a folder made by `make_ipython_dir`: its
startup file registers `static_panel` as IPython's display hook for `Panel`, so a panel shown by a lesson
is displayed in its static form. Lessons are not changed, and outside the site build nothing happens.
"""
from __future__ import annotations

import html
import os
import time
from pathlib import Path

import ipywidgets as widgets

SLIDERS = (widgets.IntSlider, widgets.FloatSlider)
MAX_FRAMES = int(os.environ.get("RELPOS_SITE_MAX_FRAMES", "24"))  # frames for one slider
MAX_GRID = 48  # frames for a dropdown x slider grid
BUDGET_S = float(os.environ.get("RELPOS_SITE_FRAME_BUDGET", "2.5"))  # seconds of rendering per panel, about
STATIC_CLASS, FRAMES_CLASS = "relpos-static-panel", "relpos-frames"


def slider_values(w) -> list:
    "Every value an Int/FloatSlider can take, in order."
    n = int(round((w.max - w.min) / w.step)) + 1
    vals = [w.min + k * w.step for k in range(n)]
    vals = [v for v in vals if v <= w.max + 1e-9 * abs(w.step)]
    return [int(v) for v in vals] if isinstance(w, widgets.IntSlider) else [round(float(v), 10) for v in vals]


def sample(values: list, current, n: int) -> list:
    "At most `n` of `values`, evenly spread, always with the first, the last and `current`."
    if len(values) <= n: return list(values)
    n = max(n, 2)
    idx = {round(k * (len(values) - 1) / (n - 1)) for k in range(n)}
    picked = [values[i] for i in sorted(idx)]
    if current in values and current not in picked:
        picked = sorted(picked + [current])
    return picked


def choices(w) -> list | None:
    "[(label, value), ...] a control can take, or None when it cannot be precomputed."
    if isinstance(w, SLIDERS):
        fmt = (lambda v: str(v)) if isinstance(w, widgets.IntSlider) else (lambda v: format(v, w.readout_format))
        return [(fmt(v), v) for v in slider_values(w)]
    if isinstance(w, (widgets.Dropdown, widgets.RadioButtons, widgets.ToggleButtons, widgets.SelectionSlider)):
        return list(zip(w._options_labels, w._options_values))
    if isinstance(w, widgets.Checkbox):
        return [("off", False), ("on", True)]
    return None


def _nearest(options: list, value) -> int:
    vals = [v for _, v in options]
    if value in vals: return vals.index(value)
    try: return min(range(len(vals)), key=lambda k: abs(vals[k] - value))
    except TypeError: return 0


def proxy(name: str, w, options: list):
    "A client-side control over `options` with an `index` trait, looking like `w`."
    index = _nearest(options, w.value)
    style = {"description_width": "initial"}
    if isinstance(w, SLIDERS) or isinstance(w, widgets.SelectionSlider):
        return widgets.SelectionSlider(options=options, index=index, description=w.description or name,
                                       continuous_update=True, style=style)
    if isinstance(w, widgets.Checkbox):
        return widgets.ToggleButtons(options=options, index=index, description=w.description or name, style=style)
    return widgets.Dropdown(options=options, index=index, description=w.description or name, style=style)


def frozen(name: str, w):
    "A disabled copy of control `w` at its current value (it needs a kernel to move)."
    tip = "fixed on this page: run the notebook to change it"
    style = {"description_width": "initial"}
    desc = getattr(w, "description", "") or name
    try:
        if isinstance(w, SLIDERS):
            return type(w)(min=w.min, max=w.max, step=w.step, value=w.value, description=desc, disabled=True,
                           readout_format=w.readout_format, style=style, tooltip=tip)
        if isinstance(w, widgets.Checkbox):
            return widgets.Checkbox(value=w.value, description=desc, disabled=True, style=style, tooltip=tip)
        if isinstance(w, (widgets.Dropdown, widgets.SelectMultiple, widgets.RadioButtons, widgets.ToggleButtons)):
            opts = list(zip(w._options_labels, w._options_values))
            kw = {"value": w.value} if isinstance(w, widgets.SelectMultiple) else {"index": w.index}
            return type(w)(options=opts, description=desc, disabled=True, style=style, tooltip=tip, **kw)
    except Exception:
        pass
    return widgets.HTML(value=f"{html.escape(desc)}: <code>{html.escape(str(getattr(w, 'value', '')))}</code>",
                        tooltip=tip)


def render_frame(panel, values: dict, pool: dict | None = None):
    """The picture `panel` shows for `values`, as a widget (an Image, or the error message the panel would show).
    `pool` ({layout: Figure}) lets consecutive frames reuse figures, as the live panel does (`viz.Panel.update`)."""
    from matplotlib.figure import Figure
    from relpos_lessons import viz
    viz._RECYCLE[0] = pool
    try:
        out = panel.fn(**values)
        fig = out if isinstance(out, Figure) else panel.render(out)
        png = viz.figure_png(fig, panel.dpi)
        if pool is not None and getattr(fig, "_lesson_key", None) is not None: pool[fig._lesson_key] = fig
    except Exception as e:  # the live panel shows the error and keeps the old picture; here the frame says so
        return widgets.HTML(value=f"<span style='color:#b00020'>{html.escape(type(e).__name__ + ': ' + str(e))}</span>")
    finally: viz._RECYCLE[0] = None
    return widgets.Image(value=png, format="png", layout=panel.image.layout)


def _columns(panel) -> int:
    rows = [c for c in panel.widget.children if isinstance(c, widgets.HBox)]
    return max(1, len(rows[0].children)) if rows else 2


def static_panel(panel, *, max_frames: int = MAX_FRAMES, budget_s: float = BUDGET_S):
    "A kernel-free copy of `panel`: its first control (and first slider) flip between precomputed frames."
    t0 = time.perf_counter()
    names = list(panel.controls)
    current = panel.values
    first = names[0] if names and choices(panel.controls[names[0]]) is not None else None
    slider = next((n for n in names if isinstance(panel.controls[n], SLIDERS)), None)
    moving = [n for n in dict.fromkeys([first, slider]) if n is not None]
    if not moving:  # nothing we can precompute: show the current picture
        return widgets.VBox([widgets.Image(value=panel.png, format="png", layout=panel.image.layout)])
    opts = {n: choices(panel.controls[n]) for n in moving}
    # time one frame to decide how many the budget affords
    pool = {}
    render_frame(panel, current, pool)  # the first frame builds the figure; time a second one, as the others will be
    t1 = time.perf_counter()
    render_frame(panel, current, pool)
    per_frame = max(time.perf_counter() - t1, 1e-3)
    afford = max(2, int(budget_s / per_frame))
    if len(moving) == 2:
        outer, inner = moving
        n_outer = len(opts[outer])
        n_inner = max(2, min(max_frames, afford // n_outer, MAX_GRID // n_outer))
        opts[inner] = sample(opts[inner], next(o for o in opts[inner] if o[1] == _near_val(opts[inner], current[inner])), n_inner)
    else:
        (only,) = moving
        n = max(2, min(max_frames, afford))
        opts[only] = sample(opts[only], next(o for o in opts[only] if o[1] == _near_val(opts[only], current[only])), n)
    proxies = {n: proxy(n, panel.controls[n], opts[n]) for n in moving}

    def stack_for(fixed: dict, level: int):
        name = moving[level]
        children = []
        for _, v in opts[name]:
            vals = {**current, **fixed, name: v}
            children.append(render_frame(panel, vals, pool) if level == len(moving) - 1 else stack_for(vals, level + 1))
        stack = widgets.Stack(children, selected_index=proxies[name].index)
        widgets.jslink((proxies[name], "index"), (stack, "selected_index"))
        return stack

    frames = stack_for({}, 0)
    frames.add_class(FRAMES_CLASS)
    panel.fn(**current)  # leave any state the function keeps as the lesson left it
    shown = [proxies[n] if n in proxies else frozen(n, panel.controls[n]) for n in names]
    cols = _columns(panel)
    rows = [widgets.HBox(shown[k:k + cols]) for k in range(0, len(shown), cols)]
    moved = " and ".join(f"<b>{html.escape(n)}</b>" for n in moving)
    fixed = [n for n in names if n not in moving]
    note = (f"On this page the picture follows {moved}, drawn in advance"
            + (f"; {', '.join(html.escape(n) for n in fixed)} stay{'s' if len(fixed) == 1 else ''} as shown "
               "(open the notebook to move every control)." if fixed else "."))
    box = widgets.VBox(rows + [widgets.HTML(f"<small style='color:#666'>{note}</small>"), frames])
    box.add_class(STATIC_CLASS)
    box.frame_count = sum(1 for _ in _leaves(frames))
    box.build_seconds = time.perf_counter() - t0
    return box


def _near_val(options, value):
    return options[_nearest(options, value)][1]


def _leaves(w):
    if isinstance(w, widgets.Stack):
        for c in w.children: yield from _leaves(c)
    else:
        yield w


def _display_static(panel):
    from IPython.display import display
    try:
        box = static_panel(panel)
    except Exception:  # never break a lesson: show the live panel (the site test then reports the missing frames)
        box = panel.widget
    display(box)


def register(ip=None):
    "Make IPython display every `relpos_lessons.viz.Panel` through `static_panel`."
    if ip is None:
        from IPython import get_ipython
        ip = get_ipython()
    if ip is None: return
    ip.display_formatter.ipython_display_formatter.for_type_by_name("relpos_lessons.viz", "Panel", _display_static)


STARTUP = '''# Written by tools/site/frames.py: panels display as precomputed frames (static site build only).
import importlib.util as _u
_s = _u.spec_from_file_location("relpos_site_frames", {path!r})
_m = _u.module_from_spec(_s); _s.loader.exec_module(_m); _m.register()
del _u, _s, _m
'''


def make_ipython_dir(path) -> Path:
    "An IPYTHONDIR whose startup file registers `static_panel`; give it to the kernels that run the lessons."
    startup = Path(path) / "profile_default" / "startup"
    startup.mkdir(parents=True, exist_ok=True)
    (startup / "50-relpos-static-panels.py").write_text(STARTUP.format(path=str(Path(__file__).resolve())))
    return Path(path)


if __name__ == "__main__":
    import sys
    if len(sys.argv) != 2: sys.exit("usage: python tools/site/frames.py IPYTHONDIR  (writes the startup file)")
    print(make_ipython_dir(sys.argv[1]))

"""What a reader sees: in the executed lessons every figure is a picture (an `image/png` output), never the
bare text `<Figure size ...>`, and every panel's widget state is stored so a static page can show it."""
import json
import re

FIGURE_TEXT = re.compile(r"<(\w*Figure)\b[^>]*>")


def _outputs(nb):
    for k, cell in enumerate(nb["cells"]):
        for out in cell.get("outputs", []):
            yield k, out


def figure_report(executed_notebooks) -> dict:
    "{name: (figure images, [cells showing a figure as text])} over the executed notebooks."
    report = {}
    for name, path in executed_notebooks.items():
        nb, images, bare = json.loads(path.read_text()), 0, []
        for k, out in _outputs(nb):
            data = out.get("data", {})
            text = "".join(data.get("text/plain", "")) + "".join(out.get("text", ""))
            if "image/png" in data: images += 1
            elif FIGURE_TEXT.search(text): bare.append(k)
        report[name] = (images, bare)
    return report


def test_every_figure_displays_as_a_picture(executed_notebooks):
    report = figure_report(executed_notebooks)
    print({n: r[0] for n, r in report.items()}, "figures in all:", sum(r[0] for r in report.values()))
    bare = {n: r[1] for n, r in report.items() if r[1]}
    assert not bare, f"cells that show a figure as text instead of a picture (notebook: cell indices): {bare}"
    assert sum(r[0] for r in report.values()) >= 20, "the lessons should show their figures as image/png outputs"


def test_figure_cells_have_an_image(executed_notebooks):
    "A cell whose result is a figure (its text form names a Figure) carries the picture in the same output."
    for name, path in executed_notebooks.items():
        for k, out in _outputs(json.loads(path.read_text())):
            if out.get("output_type") != "execute_result": continue
            data = out.get("data", {})
            if FIGURE_TEXT.search("".join(data.get("text/plain", ""))):
                assert "image/png" in data, f"{name} cell {k}: a figure result without image/png"


def test_panels_store_their_widget_state(executed_notebooks):
    for name, path in executed_notebooks.items():
        nb = json.loads(path.read_text())
        views = [out for _, out in _outputs(nb) if "application/vnd.jupyter.widget-view+json" in out.get("data", {})]
        if not views: continue
        state = nb["metadata"].get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
        for out in views:
            model = out["data"]["application/vnd.jupyter.widget-view+json"]["model_id"]
            assert model in state, f"{name}: a displayed widget has no stored state (model {model})"


def test_lessons_leave_no_hypothesis_database_in_the_readers_folder(lesson_run):
    left = [l for l in lesson_run[1].splitlines() if "left in the reader's folder" in l and ".hypothesis" in l]
    assert not left, "\n".join(left)


def test_check_only_cells_show_no_picture_or_widget(executed_notebooks):
    "Cells tagged `check-only` are left out of the browser test's Voila run: they may not display what a reader sees."
    tagged = 0
    for name, path in executed_notebooks.items():
        for k, cell in enumerate(json.loads(path.read_text())["cells"]):
            if "check-only" not in cell.get("metadata", {}).get("tags", []): continue
            tagged += 1
            for out in cell.get("outputs", []):
                shown = set(out.get("data", {})) - {"text/plain"}
                assert out.get("output_type") != "error" and not shown, f"{name} cell {k} is tagged check-only but shows {shown or out}"
    assert tagged > 0

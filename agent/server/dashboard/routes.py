"""The dashboard's pages: server-rendered HTML (Jinja2 templates in the package) and one small JS file.

Mounted by `jarvis serve` (runs from the episode queue, a token sees its own) and by `jarvis view`
(run directories on disk). Pages are plain `def` routes, so reading a run happens in the threadpool and
never blocks the event loop the API answers on.
"""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any
from urllib.parse import parse_qs, quote

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response

from agent.server.dashboard.comparison_plots import COMPARISON_PLOTS, comparison_plots
from agent.server.dashboard.episode_view import episode_page_data
from agent.server.dashboard.pages import STATIC, page
from agent.server.dashboard.read_models import QueueSource, RunSource
from agent.server.dashboard.session import LOGIN_PATH, TOKEN_COOKIE
from agent.server.dashboard.task_routes import router as task_router

router = APIRouter(include_in_schema=False)


def get_source(request: Request) -> RunSource:
    """`jarvis view` sets app.state.dashboard_source; the server reads its queue."""
    source = getattr(request.app.state, "dashboard_source", None)
    if source is None:
        source = QueueSource(request.app.state.queue, request.app.state.settings.data_dir)
    return source  # type: ignore[no-any-return]


def viewer(request: Request) -> str:
    """The caller's token id as the server's request gate found it (header or sign-in cookie).

    `jarvis view` has no gate and no tokens: everyone is 'anonymous' and sees every run it was given.
    """
    return str(getattr(request.state, "token_id", "anonymous"))


SourceDep = Annotated[RunSource, Depends(get_source)]
ViewerDep = Annotated[str, Depends(viewer)]


@router.get("/", response_class=HTMLResponse)
def runs_page(source: SourceDep, who: ViewerDep) -> HTMLResponse:
    """Every run the viewer may see, with its progress and running mean."""
    return page("runs.html", runs=source.list_runs(who))


@router.get(LOGIN_PATH, response_class=HTMLResponse)
def login_page() -> HTMLResponse:
    """A form asking for the API token (kept in an HttpOnly cookie)."""
    return page("login.html")


@router.post(LOGIN_PATH)
async def login(request: Request) -> RedirectResponse:
    """Remember the token for the dashboard's pages; a wrong one is sent back here by the next page."""
    # A one-field form, parsed here rather than pulling in python-multipart for it.
    body = await request.body()
    if len(body) > 4096:
        raise HTTPException(413, "the sign-in form takes one token, not kilobytes")
    token = parse_qs(body.decode("utf-8", "replace")).get("token", [""])[0]
    out = RedirectResponse("/", status_code=303)
    out.set_cookie(TOKEN_COOKIE, token, httponly=True, samesite="strict")
    return out


EPISODES_PER_PAGE = 100  # a 558-item GamiBench run on one page was 17,000 px of table


@router.get("/runs/{key}", response_class=HTMLResponse)
def run_page(key: str, source: SourceDep, who: ViewerDep, page_no: str = Query("1", alias="page")) -> HTMLResponse:
    """A run: its tables, plots and its per-episode table, EPISODES_PER_PAGE rows a page (?page=N, ?page=all)."""
    view = _open(source, key, who)
    rows, paging = paginate(view.summary.episodes, page_no)
    return page("run.html", run=view, s=view.summary, rows=rows, paging=paging)


def paginate(rows: list[Any], page_no: str, per_page: int = EPISODES_PER_PAGE) -> tuple[list[Any], dict[str, Any]]:
    """The rows of one page and where it stands: {page, pages, first, last, total} (page 0: all on one page)."""
    pages = max(1, -(-len(rows) // per_page))
    if page_no == "all":
        return rows, {"page": 0, "pages": pages, "first": 1, "last": len(rows), "total": len(rows)}
    try:
        k = int(page_no)
    except ValueError:
        raise HTTPException(422, f"page must be a number from 1 to {pages} or 'all', not {page_no[:20]!r}") from None
    if not 1 <= k <= pages:
        raise HTTPException(404, f"page {k} does not exist: the run's {len(rows)} episodes fill {pages} page(s)")
    part = rows[(k - 1) * per_page:k * per_page]
    return part, {"page": k, "pages": pages, "first": (k - 1) * per_page + 1, "last": (k - 1) * per_page + len(part),
                  "total": len(rows)}


@router.get("/runs/{key}/progress")
def run_progress(key: str, source: SourceDep, who: ViewerDep) -> JSONResponse:
    """How far a run is, for the pages' poller: counts, ETA and the running mean with its CI."""
    view = _open(source, key, who)
    return JSONResponse(view.listing.progress_json(), headers={"Cache-Control": "no-store"})


@router.post("/runs/{key}/cancel")
def cancel_run(key: str, source: SourceDep, who: ViewerDep) -> RedirectResponse:
    """The run page's cancel button: DELETE /v1/runs/{id}'s effect, then back to the run.

    A form post, signed in by the dashboard's cookie; SameSite=strict keeps other sites' forms from sending it.
    """
    try:
        source.cancel_run(key, who)
    except KeyError as exc:
        raise HTTPException(404, str(exc.args[0])) from None
    except NotImplementedError as exc:
        raise HTTPException(405, str(exc)) from None
    return RedirectResponse(f"/runs/{key}", status_code=303)


@router.get("/runs/{key}/episodes/{episode_id}", response_class=HTMLResponse)
def episode_page(key: str, episode_id: str, source: SourceDep, who: ViewerDep) -> HTMLResponse:
    """An episode round by round."""
    view = _open(source, key, who)
    try:
        record = view.record(episode_id)
    except KeyError as exc:
        raise HTTPException(404, str(exc.args[0])) from None
    return page("episode.html", run=view, e=episode_page_data(record, view.root))


@router.get("/compare", response_class=HTMLResponse)
def compare_page(request: Request, source: SourceDep, who: ViewerDep) -> HTMLResponse:
    """Runs side by side (?run=A&run=B...): headline numbers, then each task's soft score in every run."""
    from evaluator.report import compare

    keys = request.query_params.getlist("run")
    if len(keys) < 2:
        raise HTTPException(422, "compare takes two or more runs: /compare?run=A&run=B")
    views = [_open(source, k, who) for k in keys]
    table = compare([v.summary for v in views])
    # The plots are drawn when the browser asks for them, after the page is up; one with nothing to show is
    # a 404 and the page drops its figure.
    figures = [(name, title) for name, (title, _) in COMPARISON_PLOTS.items()]
    by_task: dict[str, list[list[Any]]] = {}  # task -> per run, its episodes (several seeds: several)
    for k, v in enumerate(views):
        for row in v.summary.episodes:
            by_task.setdefault(row.task_id, [[] for _ in views])[k].append(row)
    query = "&".join(f"run={quote(k)}" for k in keys)
    return page("compare.html", keys=keys, comparison=table, by_task=by_task, figures=figures, query=query)


@router.get("/compare/plots/{name}.png")
def compare_plot(name: str, request: Request, source: SourceDep, who: ViewerDep) -> Response:
    """One comparison plot (PNG) of the runs in the query, drawn by evaluator.plots."""
    keys = request.query_params.getlist("run")
    if name not in COMPARISON_PLOTS or len(keys) < 2:
        raise HTTPException(404, f"no comparison plot {name!r} of runs {keys}; plots: {', '.join(COMPARISON_PLOTS)}")
    drawn = comparison_plots(keys, [_open(source, k, who).summary for k in keys])
    if name not in drawn:
        raise HTTPException(404, f"the runs {', '.join(keys)} have nothing to plot in {name!r}")
    return Response(drawn[name], media_type="image/png", headers={"Cache-Control": "no-store"})


@router.get("/compare/task", response_class=HTMLResponse)
def compare_task_page(request: Request, source: SourceDep, who: ViewerDep) -> HTMLResponse:
    """One task in two or more runs, side by side (?task=T&run=A&run=B): scores, end pictures, rounds."""
    task = request.query_params.get("task")
    keys = request.query_params.getlist("run")
    if not task or len(keys) < 2:
        raise HTTPException(422, "a side-by-side takes a task and two or more runs: /compare/task?task=T&run=A&run=B")
    columns = []
    for key in keys:
        view = _open(source, key, who)
        episodes = [r for r in view.records if r.task_id == task]
        first = episode_page_data(episodes[0], view.root) if episodes else None
        columns.append({"key": key, "labels": view.summary.labels, "page": first, "n": len(episodes)})
    if not any(c["page"] for c in columns):
        raise HTTPException(404, f"none of the runs {', '.join(keys)} has an episode of task {task!r}")
    target = next((f for c in columns if c["page"] for f in c["page"].final if f.kind == "target"), None)
    if target is not None:  # its colours would be one run's verdicts: the shared target is shown plain
        target = dataclasses.replace(target, shapes=[])
    target_run = next((c["key"] for c in columns if c["page"] and any(f.kind == "target" for f in c["page"].final)), "")
    return page("compare_task.html", task=task, columns=columns, target=target, target_run=target_run)


@router.get("/runs/{key}/files/{path:path}")
def run_file(key: str, path: str, source: SourceDep, who: ViewerDep) -> FileResponse:
    """A file inside the run directory (plots, episode images); nothing outside it."""
    try:
        root = source.run_root(key, who).resolve()
    except KeyError as exc:
        raise HTTPException(404, str(exc.args[0])) from None
    target = (root / path).resolve()
    if not target.is_relative_to(root) or not target.is_file():
        raise HTTPException(404, f"run {key} has no file {path!r}")
    return FileResponse(target)


@router.get("/dashboard/static/{name}")
def static_file(name: str) -> Response:
    """The dashboard's own CSS and JS (shipped in the package: it works offline)."""
    target = (STATIC / name).resolve()
    if target.parent != STATIC.resolve() or not target.is_file():
        raise HTTPException(404, f"no static file {name!r}")
    return FileResponse(target, headers={"Cache-Control": "max-age=3600"})


def _open(source: RunSource, key: str, who: str) -> Any:
    try:
        return source.open_run(key, who)
    except KeyError as exc:
        raise HTTPException(404, str(exc.args[0])) from None


# The task browser's pages ride on this router, so both apps (jarvis serve, jarvis view) get them.
router.include_router(task_router)

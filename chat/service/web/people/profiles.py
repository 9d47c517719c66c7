"""The researcher and institution pages: `/researchers/<id>-<name>`, the bare id and
`/authors/<name>` redirecting there (308), a chooser for a name several researchers have,
the form that reports a wrong match; `/institutions` and `/institutions/<id>-<name>`."""

from __future__ import annotations

from functools import partial
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Form, Header, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from chat.library.authors import AuthorNotFound, find_author
from chat.library.institutions import (
    InstitutionNotFound,
    find_institutions,
    institution,
    institution_by_ror,
)
from chat.library.papers import page_path
from chat.library.researchers import (
    MAX_RESEARCHER_PAGES,
    Coauthor,
    ResearcherNotFound,
    person_by_id,
    researcher,
    researcher_path,
)
from chat.rag.retrieval.config import MAX_QUERY_CHARS
from chat.service.match_reports import MAX_NOTE_CHARS, record_match_report
from chat.service.routes.deps import ServicesDep, client_address
from chat.service.web.address import site_address
from chat.service.web.discovery.unapi import coins_of
from chat.service.web.listings.pagination import Shown, page_links
from chat.service.web.markdown import (
    MARKDOWN_SUFFIX,
    VARY_ACCEPT,
    institution_markdown,
    markdown_response,
    researcher_markdown,
    wants_markdown,
)
from chat.service.web.people.network import network
from chat.service.web.rendering import render_page
from chat.service.web.shared_pages import PaperPagesDep, Written
from ingest.index.catalog import Catalog
from ingest.index.names.institutions import ror_url
from ingest.index.names.people import Person, first_names
from ingest.index.names.researchers import person_id
from ingest.index.tex import readable_tex

router = APIRouter(tags=["dock"])
# The authors a listed paper shows, at most: the rest are counted ("and 9,480 more").
LISTED_AUTHORS = 20


def _listed_authors(authors: str) -> dict[str, Any]:
    """A listed paper's first `LISTED_AUTHORS` authors, readable, and how many more it has."""
    names, more = first_names(authors, LISTED_AUTHORS)
    return {"authors": [readable_tex(n) for n in names], "more_authors": more}


def _redirect(path: str) -> RedirectResponse:
    return RedirectResponse(path, status_code=308)


@router.get("/authors/{name:path}", include_in_schema=False)
def author_redirect(name: str, services: ServicesDep) -> Response:
    """An author's name leads to their researcher page; a name several researchers may have
    shows them to choose from (404, as no one page is the name's)."""
    wanted = " ".join(name.split())[:MAX_QUERY_CHARS]
    try:
        person = find_author(services.index.catalog, wanted)
    except AuthorNotFound as e:
        return _not_found(services, wanted, e.suggestions)
    return _redirect(researcher_path(person))


@router.get("/researchers/{wanted}", response_class=HTMLResponse, include_in_schema=False)
async def researcher_page(
    wanted: str,
    request: Request,
    services: ServicesDep,
    kept: PaperPagesDep,
    page: Annotated[int, Query(ge=1, le=MAX_RESEARCHER_PAGES)] = 1,
    accept: Annotated[str, Header()] = "",
) -> Response:
    """`<id>-<name>`: the page; the bare id, another spelling's id or an outdated name:
    a redirect to it. As Markdown with `Accept: text/markdown` or a `.md` suffix. Papers
    `RESEARCHER_PAGE_PAPERS` a page (`?page=N`; past the last, a 404). What it shows of the
    researcher is made once for every reader while the catalog stays as it is."""
    as_markdown = wanted.endswith(MARKDOWN_SUFFIX)
    wanted = wanted.removesuffix(MARKDOWN_SUFFIX)
    researcher_id, _, _ = wanted.partition("-")
    # Who an id names is kept too: for a common name, finding the person costs more than
    # sending the kept page.
    found = await kept.get(
        ("researcher id", researcher_id),
        partial(_person_or_not_found, services.index.catalog, researcher_id),
    )
    if isinstance(found, ResearcherNotFound):
        return _not_found(services, researcher_id, found.suggestions)
    person = found
    path = researcher_path(person)
    if request.url.path != path and not as_markdown:
        return _redirect(path)
    markdown = as_markdown or wants_markdown(accept)
    reported = request.query_params.get("reported") == "1"
    base = site_address(request, services.settings)
    key = ("researcher", person_id(person), base, markdown, reported, page)
    written = await kept.get(
        key, partial(_researcher_written, request, services, person, path, markdown, page)
    )
    if written is None:
        return render_page("not_found.html", 404, wanted=f"{path}?page={page}", query="")
    return written.response()


def _person_or_not_found(catalog: Catalog, researcher_id: str) -> Person | ResearcherNotFound:
    try:
        return person_by_id(catalog, researcher_id)
    except ResearcherNotFound as e:
        return e


def _researcher_written(
    request: Request, services: ServicesDep, person: Person, path: str, markdown: bool, number: int
) -> Written | None:
    """Page `number` of the researcher's profile, HTML or Markdown, as every reader gets it;
    None past its last page."""
    page = researcher(services.index.catalog, person)
    if number > page.pages:
        return None
    name = readable_tex(page.name)
    base = site_address(request, services.settings)
    papers = [
        {
            "id": a.paper.id,
            "href": page_path(a.paper),
            "title": readable_tex(a.paper.title),
            **_listed_authors(a.paper.authors),
            "published": a.paper.published or a.paper.updated,
            "categories": a.paper.categories,
            "position": a.position,
        }
        for a in page.papers_on(number)
    ]
    listed = Shown(number, page.pages, len(page.papers))
    if markdown:
        text = researcher_markdown(name, papers, page.coauthors, base, listed, quote(path))
        return Written.of(markdown_response(text))
    description = _description(name, len(page.papers), page.categories)
    response = render_page(
        "researcher.html",
        researcher=page,
        name=name,
        papers=papers,
        listed=listed,
        pages=page_links(number, page.pages, quote(path)),
        graph=network(name, page.coauthors),
        coins=coins_of(request, services),
        description=description,
        canonical=base + path + (f"?page={number}" if number > 1 else ""),
        json_ld=_person_json_ld(base, page.id, path, name, page.spellings, page.coauthors),
        reported=request.query_params.get("reported") == "1",
        note_chars=MAX_NOTE_CHARS,
        author_name=page.name,
    )
    response.headers.update(VARY_ACCEPT)
    return Written.of(response)


@router.post("/researchers/{wanted}/reports", include_in_schema=False)
def report_match(
    wanted: str,
    request: Request,
    services: ServicesDep,
    paper: Annotated[str, Form(max_length=64)] = "",
    note: Annotated[str, Form(max_length=MAX_NOTE_CHARS)] = "",
) -> Response:
    """A visitor's report that a paper, or the whole page, is not this researcher's: recorded
    in the data dir, then back to the page (303). Limited per client as searches are."""
    researcher_id, _, _ = wanted.partition("-")
    try:
        person = person_by_id(services.index.catalog, researcher_id)
    except ResearcherNotFound as e:
        return _not_found(services, researcher_id, e.suggestions)
    decision = services.search_limiter.hit(f"report:{client_address(request)}")
    if not decision.allowed:
        return Response(
            "too many reports", 429, {"Retry-After": str(decision.retry_after_s)}, "text/plain"
        )
    record_match_report(services.settings.data_dir, researcher_id, paper.strip(), note.strip())
    return RedirectResponse(researcher_path(person) + "?reported=1", status_code=303)


def _not_found(services: ServicesDep, wanted: str, maybe: tuple[str, ...]) -> HTMLResponse:
    choices = []
    for other in maybe:
        person = services.index.catalog.person(other)
        if person is not None and person.names:
            choices.append({"name": other, "href": researcher_path(person)})
        else:
            choices.append({"name": other, "href": "/authors/" + quote(other)})
    # Several researchers may have the name: 300, Multiple Choices; nobody has it: 404.
    status = 300 if choices else 404
    return render_page("author_not_found.html", status, wanted=wanted, query=wanted, maybe=choices)


def _description(name: str, count: int, categories: tuple[tuple[str, int], ...]) -> str:
    fields = ", ".join(c for c, _ in categories[:3])
    papers = f"{count} paper{'' if count == 1 else 's'}"
    return f"{name}: {papers} in this index" + (f", in {fields}" if fields else "") + "."


def _person_json_ld(
    base: str,
    researcher_id: str,
    path: str,
    name: str,
    spellings: tuple[str, ...],
    coauthors: tuple[Coauthor, ...],
) -> dict[str, object]:
    """schema.org/Person."""
    return {
        "@context": "https://schema.org",
        "@type": "Person",
        "@id": f"{base}/researchers/{researcher_id}",
        "name": name,
        "url": base + path,
        "alternateName": [s for s in spellings if s != name],
        "colleague": [
            {"@type": "Person", "name": c.name, "url": base + c.path} for c in coauthors[:10]
        ],
    }


@router.get("/institutions", response_class=HTMLResponse, include_in_schema=False)
def institutions_page(services: ServicesDep, q: str = "") -> HTMLResponse:
    """Every institution the papers' affiliations name, most papers first."""
    wanted = q.strip()[:MAX_QUERY_CHARS]
    return render_page(
        "institutions.html",
        institutions=find_institutions(services.index.catalog, wanted),
        wanted=wanted,
    )


@router.get("/institutions/ror/{value:path}", include_in_schema=False)
def institution_by_ror_id(value: str, services: ServicesDep) -> Response:
    """An institution by its ROR id, bare (`00njsd438`) or as its URL: a redirect (308) to
    its page; a clear 404 for a malformed id or one no paper's record gives."""
    try:
        found = institution_by_ror(services.index.catalog, value)
    except InstitutionNotFound as e:
        return render_page("institution_not_found.html", 404, wanted=value, reason=str(e))
    return _redirect(found.path)


@router.get("/institutions/{wanted}", response_class=HTMLResponse, include_in_schema=False)
def institution_page(
    wanted: str, request: Request, services: ServicesDep, accept: Annotated[str, Header()] = ""
) -> Response:
    """`<id>-<name>`: the page; the bare id or an outdated name: a redirect to it. As
    Markdown with `Accept: text/markdown` or a `.md` suffix."""
    as_markdown = wanted.endswith(MARKDOWN_SUFFIX)
    wanted = wanted.removesuffix(MARKDOWN_SUFFIX)
    institution_id, _, _ = wanted.partition("-")
    try:
        found = institution(services.index.catalog, institution_id)
    except InstitutionNotFound as e:
        return render_page("institution_not_found.html", 404, wanted=wanted, reason=str(e))
    if request.url.path != found.path and not as_markdown:
        return _redirect(found.path)
    from_pdf = sum(source == "pdf" for _, source in found.papers)
    papers = [
        {
            "id": p.id,
            "href": page_path(p),
            "title": readable_tex(p.title),
            **_listed_authors(p.authors),
            "published": p.published or p.updated,
            "source": source,
        }
        for p, source in found.papers
    ]
    base = site_address(request, services.settings)
    if as_markdown or wants_markdown(accept):
        return markdown_response(institution_markdown(found.name, papers, base, found.members))
    count = len(papers)
    description = f"{found.name}: {count} paper{'' if count == 1 else 's'} in this index."
    json_ld: dict[str, object] = {
        "@context": "https://schema.org",
        "@type": "Organization",
        "@id": f"{base}/institutions/{found.id}",
        "name": found.name,
        "url": base + found.path,
    }
    if found.parent:
        json_ld["parentOrganization"] = {"@type": "Organization", "name": found.parent.name}
    if found.ror:
        json_ld["sameAs"] = ror_url(found.ror)
    response = render_page(
        "institution.html",
        institution=found,
        ror=ror_url(found.ror) if found.ror else "",
        papers=papers,
        from_pdf=from_pdf,
        coins=coins_of(request, services),
        description=description,
        canonical=base + found.path,
        json_ld=json_ld,
    )
    response.headers.update(VARY_ACCEPT)
    return response

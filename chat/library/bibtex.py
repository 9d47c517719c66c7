"""Papers as BibTeX entries: one paper, or the papers an answer cites, as one file.

arXiv papers are `@misc` entries with `year` and `month` of the first
submission, `eprint`, `archivePrefix`, `primaryClass` and `url`, as arXiv's
own export writes them, plus `doi` and `journal` when the record has them; a
document without an arXiv id is a `@misc` with a note naming it. Keys follow
Google Scholar's `vaswani2017attention` (first author's family name, year,
first title word that is not a stop word), plain ASCII, made unique within a
file (`...b`, `...c`). Whatever the catalog holds, a key is letters and digits, at most
MAX_KEY_CHARS long, and a file's download name is at most MAX_FILE_NAME_CHARS safe characters.

A title keeps its TeX (`tex_title`): math stays math (`{$O(n^2)$}`), accents
and commands stay as written, names in capitals are braced so that a style
cannot lower them (`{BERT}`), and only the characters TeX would misread in
text (`&`, `%`, `#`, `_`, `^`) are escaped. A command outside TITLE_COMMANDS (the
accents, letters, fonts and math of titles) loses its backslash, so that `\\input{x}`,
`\\write18`, `\\catcode` or `\\csname`, which a LaTeX run would obey, are words. A title whose
braces do not balance or that writes TeX's `^^` character notation, and every other field,
is the readable text of its TeX (`$\\alpha$` becomes the Greek letter) with every special
character escaped, so that no value can end a field, open a command or break the file.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from ingest.index.tex import readable_tex
from ingest.sources.dates import id_month

MEDIA_TYPE = "text/x-bibtex; charset=utf-8"
# A key's family name and title word are cut to this many characters each ("vaswani"
# and "attention" are far shorter), so a key is at most MAX_KEY_CHARS with its year and
# the letters or number that make it unique within a file.
_KEY_WORD_CHARS: Final = 24
MAX_KEY_CHARS: Final = 2 * _KEY_WORD_CHARS + 4 + 8
# A downloaded file's name: letters, digits, `.`, `_` and `-` only, `.bib` included.
MAX_FILE_NAME_CHARS: Final = 80
_FILE_NAME_UNSAFE_RE = re.compile(r"[^A-Za-z0-9._-]+")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_SPECIAL = {
    "\\": r"\textbackslash{}",
    # BibTeX counts braces whatever precedes them, so `\{` would still open a group.
    "{": r"\textbraceleft{}",
    "}": r"\textbraceright{}",
    "$": r"\$",
    "&": r"\&",
    "%": r"\%",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_SPECIAL_RE = re.compile("[" + re.escape("".join(_SPECIAL)) + "]")
# The commands a title may keep as written: what titles on arXiv use, none of which reads,
# writes or runs anything, or changes how TeX reads what follows.
TITLE_COMMANDS: Final = frozenset(
    {
        "alpha", "beta", "gamma", "delta", "epsilon", "varepsilon", "zeta", "eta", "theta",
        "vartheta", "iota", "kappa", "lambda", "mu", "nu", "xi", "pi", "varpi", "rho", "varrho",
        "sigma", "varsigma", "tau", "upsilon", "phi", "varphi", "chi", "psi", "omega", "Gamma",
        "Delta", "Theta", "Lambda", "Xi", "Pi", "Sigma", "Upsilon", "Phi", "Psi", "Omega", "c", "v",
        "u", "H", "d", "b", "t", "r", "k", "i", "j", "l", "L", "o", "O", "ss", "ae", "AE", "oe",
        "OE", "aa", "AA", "dh", "DH", "th", "TH", "ng", "NG", "emph", "textit", "textbf", "textrm",
        "textsf", "texttt", "textsc", "textup", "textsl", "textnormal", "text", "mbox", "mathrm",
        "mathit", "mathbf", "mathcal", "mathsf", "mathtt", "mathbb", "mathfrak", "mathscr",
        "mathds", "boldsymbol", "bm", "operatorname", "it", "bf", "rm", "sf", "tt", "sc", "sl",
        "em", "cal", "times", "cdot", "cdots", "ldots", "dots", "vdots", "ddots", "leq", "geq",
        "le", "ge", "neq", "ne", "approx", "sim", "simeq", "cong", "equiv", "propto", "infty",
        "partial", "nabla", "sqrt", "frac", "tfrac", "dfrac", "binom", "sum", "prod", "int", "oint",
        "lim", "limsup", "liminf", "max", "min", "sup", "inf", "arg", "det", "dim", "exp", "log",
        "ln", "sin", "cos", "tan", "sinh", "cosh", "tanh", "arcsin", "arccos", "arctan", "ker",
        "deg", "gcd", "Pr", "hom", "mod", "bmod", "pmod", "ell", "hbar", "imath", "jmath", "wp",
        "Re", "Im", "aleph", "to", "gets", "rightarrow", "leftarrow", "Rightarrow", "Leftarrow",
        "leftrightarrow", "Leftrightarrow", "longrightarrow", "longleftarrow", "mapsto", "uparrow",
        "downarrow", "hookrightarrow", "implies", "iff", "in", "notin", "ni", "subset", "subseteq",
        "supset", "supseteq", "cup", "cap", "bigcup", "bigcap", "setminus", "emptyset",
        "varnothing", "forall", "exists", "nexists", "neg", "lnot", "wedge", "vee", "land", "lor",
        "oplus", "otimes", "odot", "ominus", "bigoplus", "bigotimes", "pm", "mp", "div", "ast",
        "star", "circ", "bullet", "prime", "dagger", "ddagger", "perp", "parallel", "mid", "nmid",
        "vert", "Vert", "langle", "rangle", "lfloor", "rfloor", "lceil", "rceil", "left", "right",
        "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "middle", "hat", "widehat",
        "tilde", "widetilde", "bar", "overline", "underline", "vec", "dot", "ddot", "acute",
        "grave", "breve", "check", "overrightarrow", "overleftarrow", "mathring", "quad", "qquad",
        "ll", "gg", "prec", "succ", "preceq", "succeq", "lesssim", "gtrsim", "triangle", "square",
        "Box", "Diamond", "angle", "top", "bot", "models", "vdash", "dashv", "colon", "sharp",
        "flat", "natural", "clubsuit", "TeX", "LaTeX", "LaTeXe", "BibTeX", "textendash",
        "textemdash", "textquoteleft", "textquoteright", "dag", "S", "P", "copyright", "pounds",
        "textregistered", "texttrademark", "textdegree", "textasciitilde", "textasciicircum",
        "textbackslash", "textbraceleft", "textbraceright", "textbar", "textless", "textgreater",
        "textunderscore", "textsuperscript", "textsubscript", "textperthousand",
        "textpertenthousand", "oslash", "nrightarrow", "nleftarrow", "nRightarrow", "nLeftarrow"
    }
)  # fmt: skip
_COMMAND_NAME_RE = re.compile(r"\\([A-Za-z@]+)")
_AFFILIATION_RE = re.compile(r"\([^()]*\)")
_AUTHOR_SEPARATOR_RE = re.compile(r",\s*(?:and\s+)?|\s+and\s+|;\s*")
_SUFFIXES = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"})
_ET_AL_RE = re.compile(r"^(?:et\.?\s*al\.?|others)$|\s+et\.?\s*al\.?$", re.IGNORECASE)
_TITLE_STOPWORDS = frozenset(
    {
        "a", "an", "and", "are", "as", "at", "by", "for", "from", "in", "into", "is", "of",
        "on", "or", "the", "to", "towards", "toward", "via", "with",
    }
)  # fmt: skip


def escape(text: str) -> str:
    """`text` as the value of a braced BibTeX field: readable, one line, specials escaped."""
    flat = " ".join(readable_tex(text).split())
    flat = "".join(ch for ch in flat if unicodedata.category(ch) not in ("Cc", "Cf", "Cs"))
    return _SPECIAL_RE.sub(lambda m: _SPECIAL[m.group()], flat)


_MATH_RE = re.compile(r"(?<!\\)\$[^$]+(?<!\\)\$")
_TEXT_SPECIAL_RE = re.compile(r"(?<!\\)([&%#_^])")
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]")
# A word a style must not lower-case: a capital after its first letter (BERT, FiD, GPT-4).
_CASED_WORD_RE = re.compile(r"(?<![\\\w{])([A-Za-z0-9][\w\-]*[A-Z][\w\-]*)")


def _known_commands(text: str) -> str:
    """`text` with the backslash of every command outside TITLE_COMMANDS dropped."""
    return _COMMAND_NAME_RE.sub(
        lambda m: m.group() if m.group(1) in TITLE_COMMANDS else m.group(1), text
    )


def _balanced(text: str) -> bool:
    depth = 0
    for ch in re.sub(r"\\[{}]", "", text):
        depth += (ch == "{") - (ch == "}")
        if depth < 0:
            return False
    return depth == 0


def _text_part(text: str) -> str:
    """Text outside math: TeX's text-mode specials escaped, names in capitals braced."""
    escaped = _TEXT_SPECIAL_RE.sub(
        lambda m: "\\^{}" if m.group(1) == "^" else f"\\{m.group(1)}", text
    )
    return _CASED_WORD_RE.sub(r"{\1}", escaped)


def tex_title(title: str) -> str:
    """The title for a braced `title` field, its TeX kept (see the module's docstring)."""
    flat = _CONTROL_RE.sub(" ", " ".join(title.split()))
    flat = "".join(ch for ch in flat if unicodedata.category(ch) not in ("Cf", "Cs"))
    # TeX's line break `\\` means nothing in a reference list: a space.
    flat = " ".join(flat.replace("\\\\", " ").split())
    # `^^5c` is a backslash to TeX, even in math.
    if not _balanced(flat) or flat.endswith("\\") or "^^" in flat:
        return escape(flat)
    flat = _known_commands(flat)
    if len(re.findall(r"(?<!\\)\$", flat)) % 2:
        flat = re.sub(r"(?<!\\)\$", r"\\$", flat)  # a lone dollar is a price, not math
    parts: list[str] = []
    at = 0
    for math in _MATH_RE.finditer(flat):
        parts.append(_text_part(flat[at : math.start()]))
        parts.append("{" + math.group() + "}")
        at = math.end()
    parts.append(_text_part(flat[at:]))
    return "".join(parts)


def split_authors(authors: str) -> list[str]:
    """arXiv's one-string author list as names: affiliations in parentheses dropped,
    `A, B and C` split, `et al.` left out; `John Smith, Jr.` is `Smith, Jr., John`."""
    text = " ".join(readable_tex(authors).split())
    while _AFFILIATION_RE.search(text):
        text = _AFFILIATION_RE.sub(" ", text)
    names: list[str] = []
    for piece in _AUTHOR_SEPARATOR_RE.split(text):
        name = _ET_AL_RE.sub("", " ".join(piece.split()))
        if not name:
            continue
        if names and name.lower() in _SUFFIXES and "," not in names[-1]:
            *given, family = names[-1].split()
            names[-1] = f"{family}, {name}, {' '.join(given)}".rstrip(
                ", "
            )  # BibTeX's "Last, Jr, First"
            continue
        names.append(name)
    return names


def _ascii_word(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]", "", folded.lower())


def first_submitted(paper: Mapping[str, Any]) -> str:
    """The paper's first submission as an ISO day or month: its record's, else the month
    its arXiv id encodes; "" when neither is known."""
    published = str(paper.get("published") or "")
    if published[:4].isdigit():
        return published
    return id_month(str(paper.get("id") or "")) if paper.get("url") else ""


def base_key(paper: Mapping[str, Any]) -> str:
    """`vaswani2017attention`: family name of the first author, year, first title word
    that is not a stop word."""
    names = split_authors(str(paper.get("authors") or ""))
    family = names[0].split(",")[0].split()[-1] if names else "anon"
    year = first_submitted(paper)[:4]
    words = [_ascii_word(w) for w in readable_tex(str(paper.get("title") or "")).split()]
    significant = [w for w in words if w and w not in _TITLE_STOPWORDS]
    word = significant[0][:_KEY_WORD_CHARS] if significant else ""
    family_word = _ascii_word(family)[:_KEY_WORD_CHARS] or "anon"
    return f"{family_word}{year if year.isdigit() else ''}{word}"


def content_disposition(stem: str) -> str:
    """The `Content-Disposition` of a BibTeX file named for `stem` (a key, an answer's id):
    unsafe characters as `-`, the name cut to MAX_FILE_NAME_CHARS."""
    safe = _FILE_NAME_UNSAFE_RE.sub("-", stem).strip(".-")[: MAX_FILE_NAME_CHARS - 4]
    return f'inline; filename="{safe or "paperchat"}.bib"'


def unique_keys(papers: Sequence[Mapping[str, Any]]) -> list[str]:
    """One key a paper, in order; a key already taken gets `b`, `c`, ... (then numbers)."""
    taken: set[str] = set()
    keys = []
    for paper in papers:
        base = base_key(paper)
        key, n = base, 1
        while key in taken:
            n += 1
            key = f"{base}{chr(ord('a') + n - 1)}" if n <= 26 else f"{base}{n}"
        taken.add(key)
        keys.append(key)
    return keys


def entry(paper: Mapping[str, Any], key: str) -> str:
    """One `@misc` entry for a paper as `chat.library.papers.paper_details` gives it."""
    fields: list[tuple[str, str]] = [("title", tex_title(str(paper.get("title") or "")))]
    authors = split_authors(str(paper.get("authors") or ""))
    if authors:
        fields.append(("author", " and ".join(escape(name) for name in authors)))
    published = first_submitted(paper)
    if published[:4].isdigit():
        fields.append(("year", published[:4]))
    lines = [f"@misc{{{key},"]
    lines += [f"  {name} = {{{value}}}," for name, value in fields]
    month = published[5:7]
    if month.isdigit() and 1 <= int(month) <= 12:
        lines.append(f"  month = {_MONTHS[int(month) - 1]},")
    lines += [f"  {name} = {{{value}}}," for name, value in _identity(paper)]
    lines.append("}")
    return "\n".join(lines) + "\n"


def _identity(paper: Mapping[str, Any]) -> list[tuple[str, str]]:
    """arXiv's eprint fields and the abstract page, or the note of a document."""
    paper_id = escape(str(paper["id"]))
    if not paper.get("url"):
        return [("note", f"paperchat document {paper_id}")]
    categories = list(paper.get("categories") or [])
    identity = [("eprint", paper_id), ("archivePrefix", "arXiv")]
    if categories:
        identity.append(("primaryClass", escape(str(categories[0]))))
    identity.append(("url", escape(str(paper["url"]))))
    if paper.get("doi"):
        identity.append(("doi", escape(str(paper["doi"]))))
    if paper.get("journal_ref"):
        identity.append(("journal", escape(str(paper["journal_ref"]))))
    return identity


def bibliography(papers: Iterable[Mapping[str, Any]]) -> str:
    """The papers as one BibTeX file, entries in the order given, keys unique."""
    listed = list(papers)
    keys = unique_keys(listed)
    return "\n".join(entry(paper, key) for paper, key in zip(listed, keys, strict=True))

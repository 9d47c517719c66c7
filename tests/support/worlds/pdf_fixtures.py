"""Write broken and unusual PDF files at test time, into a temporary folder.

Every file here is made by code: a few hand-written PDF objects, or a slice
of a real paper's bytes. Nothing third-party is stored in the repository.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from pathlib import Path

import pypdfium2 as pdfium


def _pdf(objects: list[bytes], trailer: bytes = b"") -> bytes:
    """Assemble numbered objects into a PDF file with a correct cross-reference table."""
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R %s >>\n" % (len(objects) + 1, trailer)
    out += b"startxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


def _page_objects(content: bytes) -> list[bytes]:
    return [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]


def write_text_pdf(path: Path, lines: list[str]) -> Path:
    """A one-page PDF with the given lines of plain ASCII text in Helvetica."""
    commands = [b"BT /F1 11 Tf 72 720 Td 14 TL"]
    for line in lines:
        escaped = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        commands.append(b"(%s) Tj T*" % escaped.encode("ascii"))
    commands.append(b"ET")
    path.write_bytes(_pdf(_page_objects(b"\n".join(commands))))
    return path


def write_empty_file(path: Path) -> Path:
    path.write_bytes(b"")
    return path


def write_not_a_pdf(path: Path) -> Path:
    """An HTML error page saved under a .pdf name, as a failed download leaves it."""
    path.write_text("<!DOCTYPE html>\n<html><body><h1>403 Forbidden</h1></body></html>\n")
    return path


def write_truncated_pdf(path: Path, source: Path) -> Path:
    """The first half of a real PDF's bytes, as an interrupted download leaves it."""
    data = source.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


def write_encrypted_pdf(path: Path) -> Path:
    """A PDF encrypted with the standard handler (RC4, 40 bit) under an unknown user password.

    The /O and /U entries are arbitrary bytes, so the empty password does not
    open it, and a reader must ask for one.
    """
    owner = bytes(range(32)).hex().encode()
    user = bytes(range(32, 64)).hex().encode()
    objects = _page_objects(b"BT /F1 11 Tf 72 720 Td (secret) Tj ET")
    objects.append(b"<< /Filter /Standard /V 1 /R 2 /O <%s> /U <%s> /P -44 >>" % (owner, user))
    file_id = b"<00112233445566778899aabbccddeeff>"
    trailer = b"/Encrypt 6 0 R /ID [%s %s]" % (file_id, file_id)
    path.write_bytes(_pdf(objects, trailer))
    return path


def write_image_only_pdf(path: Path, pages: int = 2) -> Path:
    """A scan-like PDF: each page holds one grey image and no text at all."""
    document = pdfium.PdfDocument.new()
    try:
        for _ in range(pages):
            page = document.new_page(612, 792)
            bitmap = pdfium.PdfBitmap.new_native(200, 260, pdfium.raw.FPDFBitmap_BGR)
            bitmap.fill_rect((200, 200, 200, 255), 0, 0, 200, 260)
            image = pdfium.PdfImage.new(document)
            image.set_bitmap(bitmap)
            image.set_matrix(pdfium.PdfMatrix().scale(500, 650).translate(56, 71))
            page.insert_obj(image)
            page.gen_content()
            page.close()
        document.save(str(path))
    finally:
        document.close()
    return path


def write_corrupt_pdf(path: Path) -> Path:
    """A header, an end marker, and nothing a reader can use in between."""
    path.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 8 + b"\n%%EOF\n")
    return path


def write_inflating_pdf(path: Path, piece: bytes, inflated_bytes: int) -> Path:
    """A one-page PDF whose Flate content stream inflates `piece`, repeated, to `inflated_bytes`.

    The stream is compressed piece by piece, so the test never holds the
    inflated content: a file of kilobytes that a reader must expand to
    hundreds of megabytes of text operators (or of spaces inside one string).
    """
    prefix, suffix = b"BT /F1 11 Tf 72 720 Td ", b" ET"
    if piece == b" ":
        prefix, suffix = prefix + b"(", b") Tj" + suffix
    deflate = zlib.compressobj(9)
    out = [deflate.compress(prefix)]
    block = piece * max(1, (1024 * 1024) // len(piece))
    for _ in range(inflated_bytes // len(block)):
        out.append(deflate.compress(block))
    out.append(deflate.compress(suffix))
    out.append(deflate.flush())
    stream = b"".join(out)
    objects = _page_objects(b"")
    objects[3] = b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (
        len(stream),
        stream,
    )
    path.write_bytes(_pdf(objects))
    return path


def write_laid_out_pdf(
    path: Path,
    runs: Sequence[tuple[str, float, float, float]],
    info: dict[str, str] | None = None,
) -> Path:
    """A one-page PDF with each run `(text, size, x, y)` set where it says, in Helvetica;
    a run's text may be `bold:` prefixed (Helvetica-Bold). `info` becomes the document
    information dictionary (`CreationDate`, `Title`, ...)."""
    commands = []
    for text, size, x, y in runs:
        font = b"/F2" if text.startswith("bold:") else b"/F1"
        plain = text.removeprefix("bold:")
        escaped = plain.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        commands.append(
            b"BT %s %.1f Tf %.1f %.1f Td (%s) Tj ET" % (font, size, x, y, escaped.encode("latin-1"))
        )
    content = b"\n".join(commands)
    objects = _page_objects(content)
    objects[2] = (
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R /F2 6 0 R >> >> >>"
    )
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold >>")
    trailer = b""
    if info:
        entries = b" ".join(
            b"/%s (%s)" % (k.encode(), v.encode("latin-1")) for k, v in info.items()
        )
        objects.append(b"<< %s >>" % entries)
        trailer = b"/Info %d 0 R" % len(objects)
    path.write_bytes(_pdf(objects, trailer))
    return path


def text_at(x: float, y: float, size: float, text: str) -> bytes:
    """Content-stream operators that set `text` in Helvetica at (x, y), `size` points."""
    escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    return b"BT /F1 %.2f Tf %.2f %.2f Td (%s) Tj ET" % (size, x, y, escaped.encode("latin-1"))


def rule_at(x0: float, y: float, x1: float, width: float = 0.5) -> bytes:
    """A horizontal line drawn from x0 to x1 at height y."""
    return b"%.2f w %.2f %.2f m %.2f %.2f l S" % (width, x0, y, x1, y)


def box_at(x: float, y: float, width: float, height: float) -> bytes:
    """A grey filled rectangle: the bars or the panel of a drawn figure."""
    return b"0.6 g %.2f %.2f %.2f %.2f re f 0 g" % (x, y, width, height)


def write_layout_pdf(path: Path, pages: list[list[bytes]], rotate: int = 0) -> Path:
    """A Letter-size PDF with one page per list of operators (see `text_at`, `rule_at`)."""
    count = len(pages)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>"
        % (b" ".join(b"%d 0 R" % (4 + 2 * i) for i in range(count)), count),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for index, operators in enumerate(pages):
        content = b"\n".join(operators)
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R"
            b" /Rotate %d /Resources << /Font << /F1 3 0 R >> >> >>" % (5 + 2 * index, rotate)
        )
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content))
    path.write_bytes(_pdf(objects))
    return path

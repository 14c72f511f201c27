"""QR codes: inline SVG for pages (a table on a LAN needs no image service), text for the terminal."""
from __future__ import annotations

import io

import qrcode
import qrcode.image.svg


def qr_svg(text: str) -> str:
    img = qrcode.make(text, image_factory=qrcode.image.svg.SvgPathImage, border=2)
    out = io.BytesIO()
    img.save(out)
    svg = out.getvalue().decode()
    return svg[svg.index("<svg"):]  # drop the XML declaration so the SVG can be inlined


def terminal_qr(text: str) -> str:
    """The code drawn in block characters, for the terminal the server runs in."""
    qr = qrcode.QRCode(border=1)
    qr.add_data(text)
    out = io.StringIO()
    qr.print_ascii(out=out, invert=True)
    return out.getvalue()

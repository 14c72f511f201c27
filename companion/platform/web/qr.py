"""QR codes: inline SVG for pages (a table on a LAN needs no image service), a PNG in the page for a
long link, text for the terminal."""
from __future__ import annotations

import base64
import io

import qrcode
import qrcode.image.svg


def qr_svg(text: str) -> str:
    img = qrcode.make(text, image_factory=qrcode.image.svg.SvgPathImage, border=2)
    out = io.BytesIO()
    img.save(out)
    svg = out.getvalue().decode()
    return svg[svg.index("<svg"):]  # drop the XML declaration so the SVG can be inlined


def qr_png_data_url(text: str) -> str:
    """The code as a data: URL of a one-pixel-a-module PNG, for links too long for an inline SVG:
    an edition's share link makes a code of thousands of modules, a few kilobytes as a PNG where
    the SVG's path runs to tens. The page scales it up without smoothing (image-rendering)."""
    img = qrcode.make(text, box_size=1, border=2).get_image().convert("1")
    out = io.BytesIO()
    img.save(out, format="PNG", optimize=True)
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode("ascii")


def terminal_qr(text: str) -> str:
    """The code drawn in block characters, for the terminal the server runs in."""
    qr = qrcode.QRCode(border=1)
    qr.add_data(text)
    out = io.StringIO()
    qr.print_ascii(out=out, invert=True)
    return out.getvalue()

"""QR codes as inline SVG, so a table on a LAN needs no image service."""
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

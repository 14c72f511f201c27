"""The address phones use to reach this server: the join links and QR codes must name one a phone
on the same network can open, never this computer's own loopback address."""
from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit


def interface_addresses() -> list[str]:
    """IPv4 addresses of this machine's network interfaces (Linux), read without sending anything."""
    import fcntl
    import struct

    found = []
    for _, name in socket.if_nameindex():
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            try:
                packed = fcntl.ioctl(s.fileno(), 0x8915, struct.pack("256s", name[:15].encode()))  # SIOCGIFADDR
            except OSError:
                continue  # no IPv4 address on this interface
        found.append(socket.inet_ntoa(packed[20:24]))
    return found


def lan_address() -> str:
    """The address phones on the same network can reach: not loopback (Debian maps the host name
    to 127.0.1.1, so the host name alone is not enough)."""
    candidates = []
    try:
        candidates += interface_addresses()
    except (ImportError, OSError, AttributeError):
        pass
    try:
        candidates += [info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)]
    except OSError:
        pass
    for addr in candidates:
        if not addr.startswith("127."):
            return addr
    return "127.0.0.1"


def is_loopback(host: str | None) -> bool:
    """Whether `host` (a name or an address) is this computer itself, which no phone can reach."""
    host = (host or "").strip("[]").lower()
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost" or host.endswith(".localhost")


def base_for_phones(request_base: str) -> str:
    """The address the host opened, or, when that is this computer's own loopback address, the same
    port on its network address (the server is reachable there unless it listens on loopback only)."""
    parts = urlsplit(request_base)
    if not is_loopback(parts.hostname):
        return request_base
    lan = lan_address()
    if lan.startswith("127."):
        return request_base
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{lan}{port}/"


def loopback_warning(url: str) -> str | None:
    """What the host reads when a join link still names this computer itself; None when phones can open it."""
    host = urlsplit(url).hostname
    if not is_loopback(host):
        return None
    return (f"Phones cannot open this link: it points at this computer itself ({host}). Start the server "
            "without --host 127.0.0.1, or set PUBLIC_URL to the address phones reach it at.")

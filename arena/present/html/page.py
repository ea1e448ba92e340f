"""What every page shares: text escaped for markup, data embedded so that no text can
end its ``<script>`` element, and a Content-Security-Policy under which nothing loads and
only the page's own script runs."""

from __future__ import annotations

import base64
import hashlib
import html
import json


def escape(text: object) -> str:
    """Text for markup or a quoted attribute: nothing in it can be read as HTML (every
    page's one escaping of bot and contestant text)."""
    return html.escape(str(text), quote=True)


def script_json(data: object) -> str:
    """JSON that can sit inside a ``<script>`` element: ``<``, ``>`` and ``&`` as
    ``\\u003c`` and the like, so no string it carries (a bot's name with ``</script>`` in
    it) can close the element or open a comment."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def content_security_policy(script: str, *, data_images: bool = False) -> str:
    """Nothing loads (no font, image or request); the one script that runs is ``script``,
    named by its hash, so that even markup that slipped through escaping could not run a
    script of its own. Styles stay inline (pages colour cells in style attributes)."""
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    images = "img-src data:; " if data_images else ""
    return (
        f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{digest}'; "
        f"{images}base-uri 'none'; form-action 'none'"
    )

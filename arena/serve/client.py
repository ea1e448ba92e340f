"""What ``arena upload`` sends: a bot directory packed as the server unpacks it."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

from arena.bots.manifest import MANIFEST_NAME, versioned_files

from .unpack import MAX_UPLOAD_BYTES, kind_of


class UploadError(ValueError):
    """Nothing to send, or too much."""


def pack_for_upload(path: Path) -> tuple[bytes, str]:
    """``path`` as the body of an upload and its file name: a directory's versioned files
    as a gzip'd tar (what the version hashes, no more), an archive or executable as is."""
    if path.is_dir():
        if not (path / MANIFEST_NAME).is_file():
            raise UploadError(f"{path} has no {MANIFEST_NAME}")
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
            for rel, full in versioned_files(path):
                tar.add(full, arcname=rel, recursive=False)
        data = buffer.getvalue()
        name = path.name + ".tar.gz"
    elif path.is_file():
        data = path.read_bytes()
        name = path.name
        if kind_of(data) == "executable" and not data.startswith((b"#!", b"\x7fELF")):
            raise UploadError(f"{path} is neither an archive nor an executable")
    else:
        raise UploadError(f"no such bot: {path}")
    if len(data) > MAX_UPLOAD_BYTES:
        raise UploadError(f"{path}: {len(data):,} bytes, over the upload cap {MAX_UPLOAD_BYTES:,}")
    return data, name

"""Upload a small .md in the chat: progress, then the summary, then the document row exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.server import (
    PASSWORD,
    free_port,
    login,
    loopback_page,
    reverie,
    running_server,
    submit,
)

pytestmark = [pytest.mark.e2e]
UI = Path(__file__).resolve().parents[2] / "app" / "ui.py"
NOTE = """# Whitby notes

The schooner Demeter sailed from Varna to Whitby. Count Dracula travelled on the Demeter.
Mina Harker met Lucy Westenra at Whitby. Lucy Westenra and Mina Harker walked on the cliff at Whitby.
"""


@pytest.mark.skipif("ingest_uploads" not in UI.read_text(), reason="app/ui.py does not call ingest_uploads yet")
def test_upload_browser_ingests_markdown_document(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    created = reverie(data_dir, "users", "add", "tester", "--password-stdin", stdin=PASSWORD + "\n")
    assert created.returncode == 0, created.stderr
    note = tmp_path / "whitby-notes.md"
    note.write_text(NOTE)
    with loopback_page() as page, running_server(data_dir, free_port(), tmp_path / "server.log") as url:
        login(page, url)
        page.locator("input[type=file]").first.set_input_files(str(note))
        submit(page, "Please remember this document.")
        done = page.locator(".ai-message", has_text=re.compile(r"is in memory \(document \d+\)"))
        expect(done).to_have_count(1, timeout=240_000)
    listed = reverie(data_dir, "documents", "list", "--user", "tester")
    assert listed.returncode == 0, listed.stderr
    assert re.search(r"\bdone\b.*whitby-notes\.md", listed.stdout), listed.stdout

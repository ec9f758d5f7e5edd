"""`/focus`: limit a thread's recall to one document, to personal memory, or to everything."""

from __future__ import annotations

from app.runtime import Runtime


def focus_reply(rt: Runtime, user_id: int, thread_id: str, text: str) -> str:
    """Set (or show) which memory this thread recalls from; the reply says what is now in focus."""
    arg = text.strip().lower()
    if arg in ("", "?"):
        current = rt.store.focus.get(user_id, thread_id)
        return f"Recall in this chat uses: {', '.join(current) if current else 'everything'}."
    if arg == "all":
        rt.store.focus.set(user_id, thread_id, None)
        return "Recall in this chat uses everything again."
    if arg == "personal":
        rt.store.focus.set(user_id, thread_id, ["personal"])
        return "Recall in this chat now uses only what you told me, no documents."
    doc = rt.store.documents.get(user_id, int(arg)) if arg.isdigit() else None
    if doc is None:
        return "Say `/focus <document id>` (see `/documents`), `/focus personal` or `/focus all`."
    rt.store.focus.set(user_id, thread_id, [f"doc:{doc.id}"])
    return f"Recall in this chat now uses only **{doc.name}** (document {doc.id})."

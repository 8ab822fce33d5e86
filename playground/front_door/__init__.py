"""The front door: per-client limits on every way into the server before a Run (middleware.py),
who the client is (identity.py), what a browser's message asks for (back_messages.py), and
Streamlit's own settings for hosting (hosting.py)."""

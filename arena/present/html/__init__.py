"""Self-contained HTML pages of the arena: inline CSS and JavaScript, the data as embedded
JSON, no network request of any kind (they open from ``file://``, offline)."""

"""Reports from run directories: tables (Markdown/CSV/JSON), figures, demo cards, HTML, comparisons."""

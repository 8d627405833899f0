"""The heading lists beside the case folders and the pending cases are not cases the suite
runs: the lists are read by tests/kernel/test_rule_headings.py; a case under pending/ shows
a rule the program breaks and waits for its fix (docs/conformance.md)."""

collect_ignore_glob = ["headings-*.toml", "pending"]

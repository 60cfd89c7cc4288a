"""The operations of deadmail, callable alike from views, tasks, the CLI and tests."""

"""TAP lines for the Python client suites: "ok N - CLIENT: what"."""
import sys


class Tap:
    def __init__(self, client):
        self.client = client
        self.count = 0
        self.failed = 0

    def ok(self, passed, description):
        self.count += 1
        self.failed += not passed
        print(("ok" if passed else "not ok") + f" {self.count} - {self.client}: {description}", flush=True)

    def finish(self):
        """The plan, and the exit status: 1 if a check failed."""
        print(f"1..{self.count}")
        sys.exit(1 if self.failed else 0)

"""Where things are, for tests and their helpers wherever they sit under tests/."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app.py"
TESTS = ROOT / "tests"
SUPPORT = TESTS / "support"  # the helpers: on sys.path (tests/conftest.py), and on a server's
DATA = TESTS / "data"  # recorded jobs and reports (tests/data/record.py writes them)
DIFFERENTIAL = TESTS / "integration" / "differential"
SCREENSHOTS = TESTS / "screenshots"

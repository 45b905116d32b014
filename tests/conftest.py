"""Test-session settings shared by every test file."""


def pytest_collection_modifyitems(items):
    """The book's tests first. Under pytest-xdist (`make test`, --dist loadfile) the worker that gets
    tests/test_book.py then starts the book build, the longest test, at once, while the other
    workers share the rest."""
    items.sort(key=lambda item: item.path.name != "test_book.py")

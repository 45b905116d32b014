"""The book: its build (`python -m tools.book.build`, what `make site` runs), its Sphinx extensions
(book_docs, book_figures, book_links, book_translator, loaded through _config.yml's local_extensions) and the
checks of the built site (check_site, browser, figure_check, translator_check)."""

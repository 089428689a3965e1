"""The book: the Jupyter Book configuration generated from book.toml (jbconfig) and exercise
solutions folded, shown or stripped (solutions). Beside perflab.teaching, above the run layer."""

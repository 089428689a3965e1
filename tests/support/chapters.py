"""A chapter as the book's sources write one: the jupytext front matter of a MyST Markdown notebook,
for tests that build a small chapter of their own."""

#: the front matter every chapter under chapters/ starts with (jupytext's MyST format, a Python kernel)
MYST_HEADER = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

"""

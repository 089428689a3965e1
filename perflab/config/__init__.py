"""Configuration: the manifest (book.toml, checked against its JSON schema) and what it declares
(chapters, labs, parameters, presets, images). The layer above perflab.errors; it imports nothing
else of the package. Parameter validation (perflab.config.params) belongs to this layer too."""

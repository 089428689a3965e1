"""Running a lab: `perflab run` (runner), what a chapter's notebook calls (session), run.json's
provenance and progress, the reference runs and whether they are the code that ships (reference),
and re-recording them (rerecord). It stands on config, fio, infra and analysis, and knows nothing
of teaching or the book: a mystery variant reaches the runner as an object with `mask_run_doc`
and `scrub`, and a student notebook passes its seal to `session.open`."""

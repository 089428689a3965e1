"""What both halves of the stepping lab share: the run's names (experiment writes them, analysis reads them)."""

JOB = "stepped"   # the readers' job file and fio's JSON output: fio/<JOB>.fio, fio/<JOB>.json

"""What both halves of the heatmaps lab share: the run's names (experiment writes them, analysis reads them)."""

JOB = "two-bands"             # the job file, and fio's JSON output, fio/<JOB>.fio and fio/<JOB>.json
JOBS = ("cached", "direct")   # its two jobs, which name their logs fio/<job>_clat...

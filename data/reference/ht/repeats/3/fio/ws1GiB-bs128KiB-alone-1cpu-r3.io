rchar: 49826999289
wchar: 13656
syscr: 380369
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0

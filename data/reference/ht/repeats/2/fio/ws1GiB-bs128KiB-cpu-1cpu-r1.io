rchar: 26141109150
wchar: 13656
syscr: 199658
syscw: 5
read_bytes: 4096
write_bytes: 32768
cancelled_write_bytes: 0

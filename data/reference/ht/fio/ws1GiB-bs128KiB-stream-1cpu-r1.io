rchar: 45081406416
wchar: 13657
syscr: 344162
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0

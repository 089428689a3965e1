rchar: 23431678418
wchar: 5980
syscr: 1430342
syscw: 3
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0

rchar: 77014485454
wchar: 5984
syscr: 4700777
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0

rchar: 39902866384
wchar: 13662
syscr: 2435691
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0

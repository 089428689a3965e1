rchar: 115517360715
wchar: 11299
syscr: 881537
syscw: 3
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0

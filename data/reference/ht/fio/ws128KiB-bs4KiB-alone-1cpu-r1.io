rchar: 16640306125
wchar: 13662
syscr: 4062768
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0

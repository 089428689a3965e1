rchar: 79477976196
wchar: 18973
syscr: 606607
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
